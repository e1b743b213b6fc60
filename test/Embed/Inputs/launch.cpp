// Calls the launch functions kaio-embed generated for vector_add and
// fused_silu_gate; -DWRONG_* selects a call that must not compile.
#ifdef HEADER
#include HEADER
#else
#include "kernels.h"
#endif

kaio::rt::Error launchAll(demo::Kernels &k, const kaio::rt::Device &device) {
  auto a = kaio::rt::DeviceBuffer<float>::allocate(device, 16);
  auto c = kaio::rt::DeviceBuffer<float>::allocate(device, 16);
  auto ints = kaio::rt::DeviceBuffer<int>::allocate(device, 16);
  if (!a || !c || !ints)
    return kaio::rt::Error::success();
  kaio::rt::LaunchConfig config;
  config.block = demo::Kernels::vector_add_block();
  const kaio::rt::DeviceBuffer<float> &constC = *c;
#if defined(WRONG_SCALAR)
  return k.vector_add(config, *a, *a, *c, 16.0f);
#elif defined(WRONG_INT_LITERAL)
  return k.vector_add(config, *a, *a, *c, 16);
#elif defined(WRONG_ELEMENT)
  return k.vector_add(config, *a, *ints, *c, std::uint32_t(16));
#elif defined(WRONG_CONST)
  return k.fused_silu_gate(config, *a, *a, constC.view(), std::uint32_t(16));
#elif defined(WRONG_COUNT)
  return k.vector_add(config, *a, *a, *c);
#else
  (void)constC;
  if (kaio::rt::Error e = k.vector_add(config, *a, a->view(), *c,
                                       std::uint32_t(16)))
    return e;
  return k.fused_silu_gate(config, constC.view(), *a, c->view(), 16u);
#endif
}

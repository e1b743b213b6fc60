// Runs the embedded vector_add and fused_silu_gate kernels and checks them
// against the CPU. Without a GPU it says so and exits 0.
#include "kernels.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace kaio::rt;

namespace {

int fail(const char *what, const Error &error) {
  std::fprintf(stderr, "downstream: %s: %s\n", what, error.message().c_str());
  return 1;
}

} // namespace

int main() {
  Expected<int> count = getDeviceCount();
  if (!count || *count == 0) {
#ifdef DOWNSTREAM_WITH_BUILDER
    std::printf("embedded builder_saxpy too\n");
#endif
    std::printf("no GPU: skipping the kernel runs (%s)\n",
                count ? "the driver reports no device"
                      : count.error().message().c_str());
    return 0;
  }
  Expected<Device> device = Device::open(0);
  if (!device)
    return fail("opening device 0", device.error());
  Expected<downstream::Kernels> kernels = downstream::Kernels::load(*device);
  if (!kernels)
    return fail("loading the kernels", kernels.error());
  std::printf("%s: loaded the PTX for %s\n",
              device->properties().name.c_str(), kernels->chip());

  const std::uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = -4.0f + 8.0f * i / n;
    b[i] = 0.5f + 0.25f * (i % 7);
  }
  auto da = DeviceBuffer<float>::fromHost(*device, a);
  auto db = DeviceBuffer<float>::fromHost(*device, b);
  auto dc = DeviceBuffer<float>::allocate(*device, n);
  if (!da || !db || !dc)
    return fail("allocating", !da ? da.error() : !db ? db.error() : dc.error());

  LaunchConfig config;
  config.block = downstream::Kernels::vector_add_block();
  config.grid = Dim3((n + config.block.x - 1) / config.block.x);

  // Typed launches: an argument of the wrong type would not compile.
  if (Error e = kernels->vector_add(config, *da, *db, *dc, n))
    return fail("vector_add", e);
  Expected<std::vector<float>> c = dc->toHost();
  if (!c)
    return fail("copying back", c.error());
  for (std::uint32_t i = 0; i < n; ++i)
    if ((*c)[i] != a[i] + b[i]) {
      std::printf("vector_add: FAILED at %u: %g != %g\n", i, (*c)[i],
                  a[i] + b[i]);
      return 1;
    }
  std::printf("vector_add: OK (%u elements)\n", n);

  if (Error e = kernels->fused_silu_gate(config, *da, *db, *dc, n))
    return fail("fused_silu_gate", e);
  c = dc->toHost();
  if (!c)
    return fail("copying back", c.error());
  double maxError = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    double x = a[i], want = x / (1 + std::exp(-x)) * b[i];
    maxError = std::max(maxError, std::fabs((*c)[i] - want) /
                                      std::max(1e-3, std::fabs(want)));
  }
  if (maxError > 1e-5) {
    std::printf("fused_silu_gate: FAILED (max relative error %g)\n", maxError);
    return 1;
  }
  std::printf("fused_silu_gate: OK (max relative error %.2g)\n", maxError);

#ifdef DOWNSTREAM_WITH_BUILDER
  // dc = 2 * a + dc, by the kernel written with the C++ builder.
  std::vector<float> before = *c;
  if (Error e = kernels->builder_saxpy(config, 2.0f, *da, *dc, n))
    return fail("builder_saxpy", e);
  c = dc->toHost();
  if (!c)
    return fail("copying back", c.error());
  for (std::uint32_t i = 0; i < n; ++i)
    if ((*c)[i] != std::fma(2.0f, a[i], before[i])) {
      std::printf("builder_saxpy: FAILED at %u\n", i);
      return 1;
    }
  std::printf("builder_saxpy: OK\n");
#endif
  return 0;
}

// Compiled by kaio-embed-tensor-map.test against the generated header: a
// launch passes rt::TensorMap objects where the kernel takes `tmap`.
#include "kernels.h"

kaio::rt::Error launch(tma::Kernels &k, const kaio::rt::LaunchConfig &config,
                       const kaio::rt::TensorMap &a, const kaio::rt::TensorMap &c,
                       kaio::rt::DeviceView<kaio::rt::Half> out) {
#ifdef WRONG_MAP
  return k.load_tile(config, out, out, c, std::int32_t(3));
#else
  return k.load_tile(config, a, out, c, std::int32_t(3));
#endif
}

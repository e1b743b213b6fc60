//===- OpsTestSupport.h - matrices for the op library's host tests -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_OPS_OPSTESTSUPPORT_H
#define KAIO_TEST_UNITTESTS_OPS_OPSTESTSUPPORT_H

#include "Kaio/Ops/Library.h"

#include <algorithm>
#include <string>
#include <type_traits>

namespace kaio::test {

/// `x` rounded to T (rt::Half or rt::BFloat16; float: itself).
template <class T> T roundTo16(float x) {
  if constexpr (std::is_same_v<T, float>)
    return x;
  else if constexpr (std::is_same_v<T, rt::Half>)
    return rt::toHalf(x);
  else
    return rt::toBFloat16(x);
}

/// A row-major matrix at a device address nothing dereferences (validation
/// and the fake driver only); ld 0: cols (at least 1).
inline ops::Matrix fakeMatrix(ops::DType type, std::int64_t rows,
                              std::int64_t cols, CUdeviceptr at = 0x100000,
                              std::int64_t ld = 0) {
  ops::Matrix m;
  m.data = at;
  m.dtype = type;
  m.rows = rows;
  m.cols = cols;
  m.ld = ld ? ld : std::max<std::int64_t>(cols, 1);
  return m;
}

/// The error's message, or "" for success.
/// The fake driver's device 1 (a 9.0 GPU, so the sm_90a kernels load) and
/// the library on it.
struct FakeHopper {
  rt::Device device;
  ops::Library lib;
};
inline rt::Expected<FakeHopper> loadOnFakeHopper() {
  rt::Expected<rt::Device> device = rt::Device::open(1);
  if (!device)
    return device.takeError();
  rt::Expected<ops::Library> lib = ops::Library::load(*device);
  if (!lib)
    return lib.takeError();
  return FakeHopper{std::move(*device), std::move(*lib)};
}

inline std::string messageOf(const rt::Error &e) {
  return e ? e.message() : std::string();
}

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_OPS_OPSTESTSUPPORT_H

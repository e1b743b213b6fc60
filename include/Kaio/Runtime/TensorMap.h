//===- TensorMap.h - TMA tensor maps as kernel arguments --------*- C++ -*-===//
//
// A kernel's `tmap` parameter (`.param .align 64 .b8 name[128]`, the
// `ptx.tensor_map` entry argument) takes a CUtensorMap by value: what the
// Tensor Memory Accelerator needs to copy boxes of a global tensor into
// shared memory. makeTensorMap checks a TensorMapDesc against the TMA's
// rules (a typed error naming the field) and encodes it with the driver's
// cuTensorMapEncodeTiled:
//
//   rt::TensorMapDesc d;            // a row-major M x K f16 matrix A
//   d.elem = rt::ScalarType::F16;
//   d.rank = 2;
//   d.address = a.ptr();
//   d.dims[0] = K;  d.dims[1] = M;
//   d.strides[0] = 2;  d.strides[1] = K * 2;
//   d.box[0] = 64;  d.box[1] = 128;
//   d.swizzle = rt::TensorMapSwizzle::B128;
//   rt::Expected<rt::TensorMap> map = rt::makeTensorMap(device, d);
//   kernel.launch(config, *map, ...);   // or KernelArg::tensorMap(*map)
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_TENSORMAP_H
#define KAIO_RUNTIME_TENSORMAP_H

#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Signature.h"
#include "Kaio/Runtime/TensorMapDesc.h"

namespace kaio::rt {

class Device;
class Kernel;
namespace detail {
struct DeviceState;
}

/// An encoded tensor map (the driver's 128 opaque bytes) and what it
/// describes.
class TensorMap {
public:
  const TensorMapDesc &desc() const { return desc_; }
  /// The bytes the kernel parameter receives.
  const void *data() const { return bytes_; }

private:
  friend Expected<TensorMap> encodeTensorMap(detail::DeviceState &device,
                                             const TensorMapDesc &desc);
  alignas(64) unsigned char bytes_[kTensorMapBytes] = {};
  TensorMapDesc desc_;
};

/// Kernel::launch(config, map, ...) passes it as a `tmap` argument.
KernelArg toKernelArg(const TensorMap &map);

/// Checks `desc` against cuTensorMapEncodeTiled's rules: rank 1-5; a
/// non-null, 16-byte aligned address; extents in [1, 2^32]; strides[0] the
/// element size, the others multiples of 16 below 2^40 (the driver may
/// refuse other combinations: an error from makeTensorMap); boxes of 1-256 elements, within the extent, whose
/// inner row is a multiple of 16 bytes and fits the swizzle span; element
/// strides 1-8; an element type the TMA moves; NaN fill for floats only.
/// InvalidValue errors name the field ("box[0]").
Error validateTensorMap(const TensorMapDesc &desc);

/// Validates `desc` and encodes it through the driver in `device`'s context
/// (the driver checks the address against the current context and answers
/// CUDA_ERROR_INVALID_CONTEXT without one); Unsupported when the driver has
/// no cuTensorMapEncodeTiled (CUDA < 12).
Expected<TensorMap> makeTensorMap(const Device &device,
                                  const TensorMapDesc &desc);
/// The same in the context of the device `kernel` was loaded on: for code
/// that holds the kernel that takes the map but not the Device.
Expected<TensorMap> makeTensorMap(const Kernel &kernel,
                                  const TensorMapDesc &desc);

} // namespace kaio::rt

#endif // KAIO_RUNTIME_TENSORMAP_H

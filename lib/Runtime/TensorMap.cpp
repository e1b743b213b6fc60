//===- TensorMap.cpp - validating and encoding TMA tensor maps ------------===//

#include "Kaio/Runtime/TensorMap.h"

#include "DriverAPI.h"
#include "Internal.h"

#include "Kaio/Runtime/Device.h"

#include <cstdint>
#include <string>

using namespace kaio::rt;
using namespace kaio::rt::detail;

namespace {

// CUtensorMapDataType (cuda.h), for the element types KAIO has.
std::optional<int> tmaDataType(ScalarType elem) {
  switch (elem) {
  case ScalarType::U8:
  case ScalarType::S8:
    return 0; // UINT8 (the copy does not care about the sign)
  case ScalarType::U16:
  case ScalarType::S16:
    return 1; // UINT16
  case ScalarType::U32:
    return 2;
  case ScalarType::S32:
    return 3;
  case ScalarType::U64:
    return 4;
  case ScalarType::S64:
    return 5;
  case ScalarType::F16:
    return 6;
  case ScalarType::F32:
    return 7;
  case ScalarType::F64:
    return 8;
  case ScalarType::BF16:
    return 9;
  default:
    return std::nullopt;
  }
}

Error invalid(const std::string &field, const std::string &why) {
  return Error::make(ErrorCode::InvalidValue,
                     "tensor map " + field + ": " + why);
}

std::string indexed(const char *name, unsigned i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

} // namespace

KernelArg kaio::rt::toKernelArg(const TensorMap &map) {
  return KernelArg::tensorMap(map);
}

Error kaio::rt::validateTensorMap(const TensorMapDesc &d) {
  if (d.rank < 1 || d.rank > TensorMapDesc::kMaxRank)
    return invalid("rank", std::to_string(d.rank) + " is outside 1-5");
  if (!tmaDataType(d.elem))
    return invalid("elem", std::string(getScalarTypeName(d.elem)) +
                               " is not a type the TMA copies");
  const std::uint64_t size = getScalarTypeSize(d.elem);
  if (d.address == 0 || d.address % 16 != 0)
    return invalid("address", d.address ? "not 16-byte aligned" : "null");
  if (d.strides[0] != size)
    return invalid("strides[0]", std::to_string(d.strides[0]) +
                                     " is not the element size " +
                                     std::to_string(size));
  for (unsigned i = 0; i < d.rank; ++i) {
    if (d.dims[i] < 1 || d.dims[i] > (std::uint64_t(1) << 32))
      return invalid(indexed("dims", i), std::to_string(d.dims[i]) +
                                             " is outside [1, 2^32]");
    if (i > 0) {
      if (d.strides[i] % 16 != 0 || d.strides[i] >= (std::uint64_t(1) << 40))
        return invalid(indexed("strides", i),
                       std::to_string(d.strides[i]) +
                           " bytes is not a multiple of 16 below 2^40");
    }
    if (d.box[i] < 1 || d.box[i] > 256)
      return invalid(indexed("box", i),
                     std::to_string(d.box[i]) + " is outside 1-256");
    // A box larger than the tensor is allowed: it reads the fill value
    // past the edges.
    if (d.elementStrides[i] < 1 || d.elementStrides[i] > 8)
      return invalid(indexed("elementStrides", i),
                     std::to_string(d.elementStrides[i]) + " is outside 1-8");
  }
  const std::uint64_t rowBytes = d.box[0] * size;
  if (rowBytes % 16 != 0)
    return invalid("box[0]", std::to_string(d.box[0]) + " elements are " +
                                 std::to_string(rowBytes) +
                                 " bytes, not a multiple of 16");
  if (unsigned span = getSwizzleBytes(d.swizzle); span && rowBytes > span)
    return invalid("box[0]", std::to_string(rowBytes) +
                                 " bytes exceed the " + std::to_string(span) +
                                 "-byte swizzle span");
  if (d.oobNaN && !isFloatType(d.elem))
    return invalid("oobNaN", "NaN fill needs a float element type");
  return Error::success();
}

namespace kaio::rt {
/// Validates and encodes `desc` in `device`'s context.
Expected<TensorMap> encodeTensorMap(detail::DeviceState &device,
                                    const TensorMapDesc &desc) {
  if (Error e = validateTensorMap(desc))
    return e;
  // TMA copies fault as a kernel would on an address the GPU cannot use.
  if (Error e = detail::checkPointer(device, desc.address, "tensor map address"))
    return e;
  const DriverApi *api = device.api;
  if (!api->cuTensorMapEncodeTiled)
    return Error::make(ErrorCode::Unsupported,
                       "the CUDA driver has no cuTensorMapEncodeTiled (tensor "
                       "maps need CUDA 12 and an sm_90 GPU)");
  TensorMap map;
  map.desc_ = desc;
  std::uint64_t globalStrides[TensorMapDesc::kMaxRank] = {};
  for (unsigned i = 1; i < desc.rank; ++i)
    globalStrides[i - 1] = desc.strides[i];
  const int kInterleaveNone = 0, kL2Promotion128B = 2;
  const char *doing = "encoding a tensor map";
  ScopedContext scope(device);
  if (Error e = scope.enter(doing))
    return e;
  CUresult r = api->cuTensorMapEncodeTiled(
      map.bytes_, *tmaDataType(desc.elem), desc.rank,
      reinterpret_cast<void *>(static_cast<std::uintptr_t>(desc.address)),
      desc.dims, globalStrides, desc.box, desc.elementStrides,
      kInterleaveNone, static_cast<int>(desc.swizzle), kL2Promotion128B,
      desc.oobNaN ? 1 : 0);
  if (r != CUDA_SUCCESS)
    return makeCudaError(*api, r, "cuTensorMapEncodeTiled", doing);
  return map;
}
} // namespace kaio::rt

Expected<TensorMap> kaio::rt::makeTensorMap(const Device &device,
                                            const TensorMapDesc &desc) {
  return encodeTensorMap(*device.state(), desc);
}

Expected<TensorMap> kaio::rt::makeTensorMap(const Kernel &kernel,
                                            const TensorMapDesc &desc) {
  return encodeTensorMap(*kernel.deviceState(), desc);
}

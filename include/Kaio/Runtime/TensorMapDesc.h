//===- TensorMapDesc.h - what a TMA tensor map describes --------*- C++ -*-===//
//
// A tensor map (CUtensorMap, 128 opaque bytes) tells the Tensor Memory
// Accelerator how to copy a box of a global tensor into shared memory:
// element type, rank (1-5), base address, extents, byte strides, box
// extents, element strides, swizzle and out-of-bounds fill. On a GPU the
// driver's cuTensorMapEncodeTiled encodes it in a format only the hardware
// knows. KAIO's CPU side (the fake driver and the ptx interpreter) needs the
// same facts back from those 128 bytes, so it uses its own documented
// encoding instead, written and read here:
//
//   bytes  0..3   magic "KTM1"
//   byte   4      element type (ScalarType)
//   byte   5      rank
//   byte   6      swizzle (TensorMapSwizzle)
//   byte   7      out-of-bounds fill (0 zero, 1 NaN)
//   bytes  8..15  global address
//   bytes 16..55  extents, innermost first (5 x u64)
//   bytes 56..95  byte strides of dimensions 0..4 (5 x u64; [0] is the
//                 element size)
//   bytes 96..115 box extents (5 x u32)
//   bytes 116..120 element strides (5 x u8)
//
// Header-only, no LLVM: the runtime and the interpreter both include it.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_TENSORMAPDESC_H
#define KAIO_RUNTIME_TENSORMAPDESC_H

#include "Kaio/Runtime/Types.h"

#include <cstdint>
#include <cstring>
#include <optional>

namespace kaio::rt {

/// Shared-memory swizzle of a TMA box (and the wgmma layout that reads it):
/// the 16-byte chunk index within each 32/64/128-byte row segment is XORed
/// with the row index modulo 2/4/8 (ptx::Swizzle<1|2|3, 4, 3> on the shared
/// byte address; Kaio/Dialect/PTX/IR/Swizzle.h).
enum class TensorMapSwizzle : std::uint8_t { None = 0, B32, B64, B128 };

/// Bytes of one swizzled row segment (0 for None).
inline unsigned getSwizzleBytes(TensorMapSwizzle s) {
  switch (s) {
  case TensorMapSwizzle::B32:
    return 32;
  case TensorMapSwizzle::B64:
    return 64;
  case TensorMapSwizzle::B128:
    return 128;
  default:
    return 0;
  }
}

struct TensorMapDesc {
  static constexpr unsigned kMaxRank = 5;
  ScalarType elem = ScalarType::F16;
  std::uint32_t rank = 2;
  std::uint64_t address = 0;
  /// Extents, innermost (contiguous) dimension first.
  std::uint64_t dims[kMaxRank] = {1, 1, 1, 1, 1};
  /// Byte strides; strides[0] is the element size of `elem` (the driver's
  /// globalStrides are strides[1..rank-1]).
  std::uint64_t strides[kMaxRank] = {};
  /// Box extents copied per instruction, innermost first.
  std::uint32_t box[kMaxRank] = {1, 1, 1, 1, 1};
  /// Traversal strides (1 = every element).
  std::uint32_t elementStrides[kMaxRank] = {1, 1, 1, 1, 1};
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  /// Out-of-bounds elements read as NaN instead of zero (float types).
  bool oobNaN = false;

  /// Bytes one load of the whole box writes to shared memory.
  std::uint64_t boxBytes() const {
    std::uint64_t n = strides[0];
    for (unsigned i = 0; i < rank; ++i)
      n *= box[i];
    return n;
  }
};

inline constexpr std::size_t kTensorMapBytes = 128;
inline constexpr char kTensorMapMagic[4] = {'K', 'T', 'M', '1'};

/// Writes KAIO's encoding of `desc` into `out` (128 bytes).
inline void encodeKaioTensorMap(const TensorMapDesc &desc, void *out) {
  auto *b = static_cast<unsigned char *>(out);
  std::memset(b, 0, kTensorMapBytes);
  std::memcpy(b, kTensorMapMagic, 4);
  b[4] = static_cast<unsigned char>(desc.elem);
  b[5] = static_cast<unsigned char>(desc.rank);
  b[6] = static_cast<unsigned char>(desc.swizzle);
  b[7] = desc.oobNaN ? 1 : 0;
  std::memcpy(b + 8, &desc.address, 8);
  std::memcpy(b + 16, desc.dims, 40);
  std::memcpy(b + 56, desc.strides, 40);
  std::memcpy(b + 96, desc.box, 20);
  for (unsigned i = 0; i < TensorMapDesc::kMaxRank; ++i)
    b[116 + i] = static_cast<unsigned char>(desc.elementStrides[i]);
}

/// Reads KAIO's encoding back; nullopt when the bytes are not one (no magic,
/// rank outside 1-5, unknown swizzle or element type).
inline std::optional<TensorMapDesc> decodeKaioTensorMap(const void *in) {
  const auto *b = static_cast<const unsigned char *>(in);
  if (std::memcmp(b, kTensorMapMagic, 4) != 0 || b[5] < 1 ||
      b[5] > TensorMapDesc::kMaxRank || b[6] > 3 ||
      b[4] > static_cast<unsigned char>(ScalarType::B8))
    return std::nullopt;
  TensorMapDesc d;
  d.elem = static_cast<ScalarType>(b[4]);
  d.rank = b[5];
  d.swizzle = static_cast<TensorMapSwizzle>(b[6]);
  d.oobNaN = b[7] != 0;
  std::memcpy(&d.address, b + 8, 8);
  std::memcpy(d.dims, b + 16, 40);
  std::memcpy(d.strides, b + 56, 40);
  std::memcpy(d.box, b + 96, 20);
  for (unsigned i = 0; i < TensorMapDesc::kMaxRank; ++i)
    d.elementStrides[i] = b[116 + i];
  return d;
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_TENSORMAPDESC_H

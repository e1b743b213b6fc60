//===- Swizzle.h - XOR swizzles of shared-memory tiles ----------*- C++ -*-===//
//
// A swizzle permutes the 16-byte chunks of a shared tile so that the
// accesses a tensor-core kernel makes are free of bank conflicts without
// padding: cp.async (and st.shared.v4) writing consecutive chunks of a row,
// and ldmatrix reading one 16-byte chunk from each of 8 consecutive rows.
// The form is CuTe's Swizzle<bits, base, shift> on byte offsets; Hopper's
// 32/64/128-byte shared-memory matrix modes are Swizzle<1|2|3, 4, 3>.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_SWIZZLE_H
#define KAIO_DIALECT_PTX_IR_SWIZZLE_H

#include <cstdint>
#include <optional>

namespace kaio::ptx {

/// offset ^ (((offset >> (base + shift)) & (2^bits - 1)) << base): bits
/// [base, base + bits) of a byte offset are XORed with bits [base + shift,
/// base + shift + bits). `bits == 0` is the identity.
struct Swizzle {
  unsigned bits = 0, base = 4, shift = 3;

  bool isIdentity() const { return bits == 0; }
  uint64_t apply(uint64_t offset) const {
    uint64_t mask = (1ull << bits) - 1;
    return offset ^ (((offset >> (base + shift)) & mask) << base);
  }
  /// The swizzle maps every aligned segment of this many bytes onto itself.
  uint64_t segmentBytes() const { return 1ull << (base + bits); }
  /// The pattern repeats every this many bytes: the alignment a tile needs
  /// for its offsets to fall in the banks the swizzle was chosen for.
  uint64_t periodBytes() const { return 1ull << (base + shift + bits); }
  /// Whether the parameters describe a swizzle (the XORed ranges are
  /// disjoint and stay within 32-bit offsets).
  bool isValid() const {
    return bits == 0 || (shift >= bits && base + shift + bits <= 32);
  }
  bool operator==(const Swizzle &o) const {
    return bits == o.bits && (bits == 0 || (base == o.base && shift == o.shift));
  }
};

/// The swizzle from KAIO's layout table that makes 16-byte chunk writes
/// along rows and 8-row ldmatrix reads conflict-free in a row-major tile of
/// `rowBytes` bytes per row: the identity for 16-byte rows (8 rows are 128
/// contiguous bytes), Swizzle<3, 4, 3> for 32 to 128 bytes, and a shift
/// reaching the row index above that. None (pad instead) when rows are not
/// a power of two of at least 16 bytes.
std::optional<Swizzle> getConflictFreeSwizzle(uint64_t rowBytes);

/// The same for reads of one 16-byte chunk from each of 8 rows `rowStep`
/// apart (rows r0 + rowStep t, t = 0..7: a CUDA-core kernel whose lanes own
/// rowStep consecutive rows each, reading 16 bytes of K from each): such
/// rows fall in the banks that consecutive rows of rowStep * rowBytes bytes
/// do, so the table's entry for those is the swizzle; consecutive chunk
/// writes stay conflict-free. rowStep 1 is the table itself; none where
/// rowStep is not a power of two or rowStep * rowBytes is under 128 bytes
/// (two of the 8 rows would share a 128-byte line).
std::optional<Swizzle> getConflictFreeSwizzle(uint64_t rowBytes,
                                              uint64_t rowStep);

} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_IR_SWIZZLE_H

//===- Swizzle.cpp - the swizzle layout table -----------------------------===//

#include "Kaio/Dialect/PTX/IR/Swizzle.h"

using namespace kaio::ptx;

namespace {
struct SwizzleEntry {
  uint64_t rowBytes;
  Swizzle swizzle;
};

// Shared memory serves 32 banks of 4 bytes: 128 bytes per wavefront, so a
// phase is conflict-free when its 16-byte chunks land in 8 distinct 16-byte
// bank groups (bits 4..6 of the address).
// - cp.async / st.v4: 8 lanes write 8 consecutive chunks of one 128-byte
//   line; any XOR of bits 4..6 keeps them distinct.
// - ldmatrix: 8 rows r0..r0+7 (r0 a multiple of 8), one chunk each. With
//   rows of R bytes, bits 4..6 of r*R + c*16 must differ across the 8 rows
//   after the XOR: XORing them with the row index (bits log2(R)..+2, or for
//   R < 128 with the 128-byte line index, which with the row's position in
//   its line spans all 8 values) does it.
// This is CuTe's Swizzle<3, 4, 3> (Hopper's 128-byte mode) up to 128-byte
// rows; wider rows shift the source bits up to the row index.
constexpr SwizzleEntry kSwizzleTable[] = {
    {16, {0, 4, 3}},   // 8 rows are 128 contiguous bytes already
    {32, {3, 4, 3}},   // 4 rows per line: line index ^ (row % 4, chunk)
    {64, {3, 4, 3}},   // 2 rows per line
    {128, {3, 4, 3}},  // one row per line: chunk ^ row % 8
    {256, {3, 4, 4}},  // chunk % 8 ^ row % 8
    {512, {3, 4, 5}},
    {1024, {3, 4, 6}},
    {2048, {3, 4, 7}},
    {4096, {3, 4, 8}},
};
} // namespace

std::optional<Swizzle> kaio::ptx::getConflictFreeSwizzle(uint64_t rowBytes) {
  for (const SwizzleEntry &e : kSwizzleTable)
    if (e.rowBytes == rowBytes)
      return e.swizzle;
  return std::nullopt;
}

std::optional<Swizzle> kaio::ptx::getConflictFreeSwizzle(uint64_t rowBytes,
                                                         uint64_t rowStep) {
  if (rowStep == 1)
    return getConflictFreeSwizzle(rowBytes);
  // Row r0 + rowStep t starts at r0 rowBytes + t (rowStep rowBytes): bits
  // 4..6 of that stride are 0 from 128 bytes on, so the 8 reads share a
  // bank group unless the XOR takes t — the bits of the table's entry for
  // rows of rowStep rowBytes bytes. Below 128 bytes it would not.
  if (rowStep == 0 || (rowStep & (rowStep - 1)) || rowStep * rowBytes < 128 ||
      !getConflictFreeSwizzle(rowBytes))
    return std::nullopt;
  return getConflictFreeSwizzle(rowStep * rowBytes);
}

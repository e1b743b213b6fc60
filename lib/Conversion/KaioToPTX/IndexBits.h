//===- IndexBits.h - what index arithmetic can set ---------------*- C++ -*-===//
//
// A shared-memory access under a swizzle costs a shift, a mask, a shift and
// an xor on its byte offset, which no assembler can fold across accesses:
// offsets that differ by a constant differ by a swizzled constant only when
// adding that constant carries into no bit the variable part may set. These
// helpers tell which bits an i32 index may set (from the ops that compute
// it: constants, thread/lane/warp ids bounded by the kernel's block size,
// shifts, masks, multiplies and unsigned divisions by constants, adds) and
// split an index into a variable part and a constant, so that
// kaio-to-ptx's shared accesses can use the swizzle's linearity over xor:
// S(v + c) = S(v) ^ S(c) when v and c share no bit.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_CONVERSION_KAIOTOPTX_INDEXBITS_H
#define KAIO_LIB_CONVERSION_KAIOTOPTX_INDEXBITS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace kaio {

/// The block shape an op runs in: the enclosing kaio.kernel's block_size,
/// or — once convert-kaio-to-ptx has moved the body into its ptx.entry —
/// the entry's `reqntid` (exact) or `maxntid` (a bound on the thread
/// count and the rank: a launch may shape its threads differently within
/// them). Empty dims when the op is in neither.
struct BlockBounds {
  llvm::ArrayRef<int32_t> dims;
  bool exact = false;
  int64_t getNumThreads() const;
  /// One more than the largest thread index in dimension `dim` (0-2).
  int64_t getThreadBound(unsigned dim) const;
};
BlockBounds getBlockBounds(mlir::Operation *op);

/// The bits an unsigned 32-bit index may have set: a superset (all 32 bits
/// when nothing is known).
uint64_t getPossibleOneBits(mlir::Value index);

/// The bits x * c may have set, for x with `bits` possible and c >= 0.
uint64_t getPossibleOneBitsOfProduct(uint64_t bits, uint64_t c);
/// The bits x + y may have set.
uint64_t getPossibleOneBitsOfSum(uint64_t x, uint64_t y);

/// `index` as `variable + constant` (constants added or subtracted along a
/// chain of arith.addi/subi); `variable` is null when the index is a
/// constant.
struct ConstantSplit {
  mlir::Value variable;
  int64_t constant = 0;
};
ConstantSplit splitConstant(mlir::Value index);

} // namespace kaio

#endif // KAIO_LIB_CONVERSION_KAIOTOPTX_INDEXBITS_H

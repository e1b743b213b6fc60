//===- KaioTypes.h - kaio dialect types and attributes ------------*- C++ -*-===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIOTYPES_H
#define KAIO_DIALECT_KAIO_IR_KAIOTYPES_H

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Dialect/PTX/IR/Swizzle.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "Kaio/Dialect/Kaio/IR/KaioEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioTypes.h.inc"

namespace kaio {
/// The PTX instruction type of an mma fragment element: f16, bf16, f32 (as
/// tf32 for A/B), s8/u8 (si8/ui8; i8 is s8), s4/u4, s32.
std::optional<ptx::PTXType> getMmaElementType(FragType type);
/// The mma table entry that multiplies these fragments, if legal.
const ptx::MmaVariant *lookupMma(FragType a, FragType b, FragType acc);
/// A table entry with this shape whose operand `role` has this element type
/// (for checking one fragment on its own).
const ptx::MmaVariant *lookupMmaFor(FragType frag);

/// Where element `i` of an A atom comes from when an accumulator tile
/// becomes an A tile (kaio.frag_to_operand): the accumulator atom `atomCol`
/// atoms right of the one at the A atom's first column, element `element`.
struct AccumulatorSource {
  unsigned atomCol, element;
};
/// The source of each element of an A atom of `a` in accumulators of
/// `acc`, for every lane; failure unless the fragment layouts put each A
/// element in the lane that holds it as an accumulator.
mlir::FailureOr<llvm::SmallVector<AccumulatorSource>>
getOperandFromAccumulator(FragType acc, FragType a);
} // namespace kaio

#endif // KAIO_DIALECT_KAIO_IR_KAIOTYPES_H

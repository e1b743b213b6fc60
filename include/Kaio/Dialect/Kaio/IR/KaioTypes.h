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
} // namespace kaio

#endif // KAIO_DIALECT_KAIO_IR_KAIOTYPES_H

//===- KaioOps.h - kaio dialect operations ------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIOOPS_H
#define KAIO_DIALECT_KAIO_IR_KAIOOPS_H

#include "Kaio/Dialect/Kaio/IR/KaioDialect.h"
#include "Kaio/Dialect/Kaio/IR/KaioTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioOps.h.inc"

namespace kaio {
/// Whether `chip` runs the sm_90 tile op `op` (TMA, mbarrier waits:
/// sm_90; warpgroup MMA and setmaxnreg: sm_90a); a located error if not.
/// Other ops succeed.
mlir::LogicalResult verifyHopperOpTarget(mlir::Operation *op,
                                         const ptx::ChipInfo &chip);
/// Tiles that wgmma or a TMA store read (the async proxy) and generic
/// stores write (shared_store, shared_store_vector, shared_store_fragment,
/// async_copy) need a kaio.fence_proxy_async in between: a located error
/// when the kernel has none at all (where the fence must go is not
/// checked).
mlir::LogicalResult verifyProxyFences(KernelOp kernel);
/// Whether `type` is one of the 8-bit floats (f8E4M3FN, f8E5M2) that shared
/// tiles and tensor maps hold for TMA and warpgroup_mma only.
bool isFloat8(mlir::Type type);
/// The wgmma operand type of a warpgroup_mma tile element (f16, bf16,
/// f8E4M3FN, f8E5M2).
ptx::PTXType getWgmmaType(mlir::Type type);
} // namespace kaio

#endif // KAIO_DIALECT_KAIO_IR_KAIOOPS_H

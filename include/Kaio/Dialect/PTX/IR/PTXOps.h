//===- PTXOps.h - ptx dialect operations -------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_PTX_IR_PTXOPS_H
#define KAIO_DIALECT_PTX_IR_PTXOPS_H

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kaio::ptx {
/// Static part of an op's requirement: PTX_Requires<sm, isa, arch> in
/// PTXOps.td.
template <unsigned SM, unsigned ISA, bool Arch>
struct PTXRequires {
  template <typename ConcreteOp>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteOp, Impl> {
  public:
    static PTXRequirement getStaticPTXRequirement() {
      return {SM, ISA, Arch};
    }
  };
};

/// Checks that `op`'s requirement is met by the ptx.target and ptx.version of
/// the nearest enclosing module that sets them.
mlir::LogicalResult verifyTargetRequirement(mlir::Operation *op);
} // namespace kaio::ptx

#include "Kaio/Dialect/PTX/IR/PTXInterfaces.h.inc"

#define GET_OP_CLASSES
#include "Kaio/Dialect/PTX/IR/PTXOps.h.inc"
#define GET_OP_CLASSES
#include "Kaio/Dialect/PTX/IR/PTXHopperOps.h.inc"

#endif // KAIO_DIALECT_PTX_IR_PTXOPS_H

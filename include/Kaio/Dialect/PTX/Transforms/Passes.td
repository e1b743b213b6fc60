//===- Passes.td - ptx dialect transforms ------------------*- tablegen -*-===//

#ifndef KAIO_DIALECT_PTX_TRANSFORMS_PASSES_TD
#define KAIO_DIALECT_PTX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PTXCleanup : Pass<"ptx-cleanup", "::mlir::ModuleOp"> {
  let summary = "final clean-up of lowered ptx kernels";
  let description = [{
    Removes the casts the conversions leave between converted types, checks
    that every op left in a kernel is a ptx op (a located error otherwise),
    and erases dead, side-effect-free instructions.
  }];
}

#endif // KAIO_DIALECT_PTX_TRANSFORMS_PASSES_TD

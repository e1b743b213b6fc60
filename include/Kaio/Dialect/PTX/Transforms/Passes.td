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

def PTXFoldAddressOffsets : Pass<"ptx-fold-address-offsets",
                                 "::mlir::ModuleOp"> {
  let summary = "fold constant additions into [reg+imm] address operands";
  let description = [{
    An address computed as `add x, imm` (or `sub x, imm`, chains of them)
    for ld, st, ldmatrix, stmatrix or cp.async's shared destination becomes
    `[x+imm]`: the memory instruction adds the immediate for free, and the
    accesses to one tile at constant steps share the register x. Without it
    each such address is its own (often loop-invariant, hoisted) register:
    FlashAttention's dK/dV kernel spilled for it. The adds left unused go
    in ptx-cleanup.
  }];
}

def PTXCheckWgmmaReads : Pass<"ptx-check-wgmma-reads", "::mlir::ModuleOp"> {
  let summary = "report reads of wgmma results before a wait_group retires them";
  let description = [{
    A wgmma's results are written when its group completes; reading them
    (or a block argument they were passed to) before a wgmma.wait_group
    that retires the group is undefined in PTX, and invisible in SSA: the
    CPU interpreter computes the results at issue. A forward dataflow over
    each kernel (Kaio/Dialect/PTX/IR/WgmmaHazards.h) reports every such read
    as an error at the reading instruction; a wgmma accumulating into the
    value is fine. The PTX printer runs the same check before printing.
  }];
}

#endif // KAIO_DIALECT_PTX_TRANSFORMS_PASSES_TD

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

def PTXPackConversions : Pass<"ptx-pack-conversions", "::mlir::ModuleOp"> {
  let summary = "pack pairs of f32 -> f16/bf16 conversions into one cvt";
  let description = [{
    Two `cvt.rn.bf16.f32` (or `.f16.f32`) whose results are only packed
    into one 32-bit register (`mov.b32 %r, {%lo, %hi}`: a 16-bit vector
    store's words, a packed operand) become one `cvt.rn.bf16x2.f32 %r, %hi,
    %lo` (sm_80 and later; the same rounding, element by element): an
    instruction a pair instead of three, in the 16-bit kernels' epilogues
    (row kernels, activations) that are bound by their arithmetic.
    Conversions that are guarded, saturate, flush subnormals or have other
    uses stay; so does everything in a module whose target is older than
    sm_80 or not named.
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

def PTXOrderOperandTrees : Pass<"ptx-order-operand-trees",
                                "::mlir::ModuleOp"> {
  let summary = "write each op's operand trees in operand order";
  let description = [{
    The effect-free ops right before an op whose results only it (and
    each other) consume -- what nested calls of a text generator write, in
    the host compiler's argument evaluation order -- are rewritten as a
    depth-first walk from the op, operands left to right. Ops with effects,
    regions or uses elsewhere stay where they are and nothing crosses them,
    so statement order is kept. The library's sm_90a kernels (ptx text from
    nested PtxWriter calls) are ordered with it, so gcc and clang builds of
    their generator write the same kernels.
  }];
}

#endif // KAIO_DIALECT_PTX_TRANSFORMS_PASSES_TD

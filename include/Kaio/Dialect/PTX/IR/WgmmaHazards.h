//===- WgmmaHazards.h - reads of wgmma results still in flight --*- C++ -*-===//
//
// wgmma.mma_async writes its results when its group completes, which a
// wgmma.wait_group makes sure of; reading them earlier is undefined in PTX.
// SSA hides this (the results are values from the issue on; the CPU
// interpreter even computes them at issue), so a forward dataflow over the
// kernel's CFG tracks which values are still in flight: a wgmma's results
// from its issue, the block arguments they are passed to, and how many
// groups were committed after each; wait_group N retires those with N or
// more newer groups; where paths join, the later retirement wins. Any
// instruction reading such a value is reported, except a wgmma that
// accumulates into it (the hardware chains those in order).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H
#define KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H

#include "mlir/Support/LLVM.h"

namespace kaio::ptx {

class EntryOp;

/// Emits an error at every instruction of `entry` that reads a wgmma result
/// before a wgmma.wait_group retires it; failure if there is one.
mlir::LogicalResult checkWgmmaResultReads(EntryOp entry);

} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H

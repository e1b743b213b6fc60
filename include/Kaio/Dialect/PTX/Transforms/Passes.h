//===- Passes.h - ptx dialect transforms --------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H
#define KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "mlir/Pass/Pass.h"

namespace kaio::ptx {
#define GEN_PASS_DECL
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"

/// Rewrites, in every block under `root`, each op's operand trees (the
/// effect-free ops right before it that only it and each other consume) as
/// a depth-first walk from it, operands left to right
/// (ptx-order-operand-trees).
void orderOperandTrees(mlir::Operation *root);

#define GEN_PASS_REGISTRATION
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H

//===- Passes.h - kaio dialect transforms -------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_H
#define KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_H

#include "Kaio/Dialect/Kaio/IR/KaioDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace kaio {
#define GEN_PASS_DECL
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"

/// Reorders the ops of every block under `root` (but a module's own) into
/// an order that depends only on the dataflow and on the order of the ops
/// with effects (kaio-order-by-dataflow; lib/Dialect/Kaio/Transforms/
/// OrderByDataflow.cpp).
void orderByDataflow(mlir::Operation *root);

/// Erases the ops under `root` nothing uses that have no effects
/// (isOpTriviallyDead), users before what they use. Run before
/// orderByDataflow on generated IR: unused ops could only keep their
/// creation order.
void eraseUnusedOps(mlir::Operation *root);

#define GEN_PASS_REGISTRATION
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

#endif // KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_H

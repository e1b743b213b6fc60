//===- Passes.h - ptx dialect transforms --------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H
#define KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "mlir/Pass/Pass.h"

namespace kaio::ptx {
#define GEN_PASS_DECL
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_TRANSFORMS_PASSES_H

//===- Passes.h - conversions to the ptx dialect ------------------*- C++ -*-===//

#ifndef KAIO_CONVERSION_PASSES_H
#define KAIO_CONVERSION_PASSES_H

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "mlir/Pass/Pass.h"

namespace kaio {
#define GEN_PASS_DECL
#include "Kaio/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Kaio/Conversion/Passes.h.inc"
} // namespace kaio

#endif // KAIO_CONVERSION_PASSES_H

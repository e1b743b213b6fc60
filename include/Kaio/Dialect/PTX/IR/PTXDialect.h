//===- PTXDialect.h - ptx dialect --------------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_PTX_IR_PTXDIALECT_H
#define KAIO_DIALECT_PTX_IR_PTXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Kaio/Dialect/PTX/IR/PTXDialect.h.inc"

#endif // KAIO_DIALECT_PTX_IR_PTXDIALECT_H

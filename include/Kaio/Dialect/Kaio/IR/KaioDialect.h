//===- KaioDialect.h - kaio dialect -------------------------------*- C++ -*-===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIODIALECT_H
#define KAIO_DIALECT_KAIO_IR_KAIODIALECT_H

#include "mlir/IR/Dialect.h"

#include "Kaio/Dialect/Kaio/IR/KaioDialect.h.inc"

#endif // KAIO_DIALECT_KAIO_IR_KAIODIALECT_H

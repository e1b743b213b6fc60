//===- InitAll.h - register every KAIO dialect, pass and translation -*- C++ -*-===//
//
// The one header a tool or another compiler includes to get all of KAIO.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_INITALL_H
#define KAIO_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kaio {
/// KAIO's dialects and the upstream ones its kernels use (arith, math, scf,
/// cf, func).
void registerAllDialects(mlir::DialectRegistry &registry);
/// KAIO's passes and pipelines.
void registerAllPasses();
/// KAIO's translations (--mlir-to-ptx).
void registerAllTranslations();
} // namespace kaio

#endif // KAIO_INITALL_H

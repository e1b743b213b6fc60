//===- Diagnostics.h - diagnostics as compiler-style text -------*- C++ -*-===//

#ifndef KAIO_SUPPORT_DIAGNOSTICS_H
#define KAIO_SUPPORT_DIAGNOSTICS_H

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class Diagnostic;
class Location;
} // namespace mlir

namespace kaio {
/// `file:line:col` of the first file location inside `loc` (through name,
/// call-site and fused locations), or the location as MLIR prints it.
void formatLocation(mlir::Location loc, llvm::raw_ostream &os);
/// `file:line:col: error: message`, then its notes, one per line.
void formatDiagnostic(mlir::Diagnostic &diag, llvm::raw_ostream &os);
} // namespace kaio

#endif // KAIO_SUPPORT_DIAGNOSTICS_H

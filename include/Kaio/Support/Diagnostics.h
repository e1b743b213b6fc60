//===- Diagnostics.h - diagnostics as compiler-style text -------*- C++ -*-===//

#ifndef KAIO_SUPPORT_DIAGNOSTICS_H
#define KAIO_SUPPORT_DIAGNOSTICS_H

#include <vector>

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
/// The command line of an MLIR tool with `--mlir-print-op-on-diagnostic=false`
/// added unless the user set it: a diagnostic on a kaio.kernel is otherwise
/// followed by a dump of the whole kernel ("see current operation"), and
/// the location already says where.
std::vector<char *> withoutOpDumpsOnDiagnostics(int argc, char **argv);
} // namespace kaio

#endif // KAIO_SUPPORT_DIAGNOSTICS_H

//===- Diagnostics.cpp - diagnostics as compiler-style text ---------------===//

#include "Kaio/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void kaio::formatLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLocation(name.getChildLoc(), os);
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee(), os);
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front(), os);
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  os << loc;
}

void kaio::formatDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  formatLocation(diag.getLocation(), os);
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << ": error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << ": warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << ": note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << ": remark: ";
    break;
  }
  os << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    formatDiagnostic(note, os);
}

std::vector<char *> kaio::withoutOpDumpsOnDiagnostics(int argc, char **argv) {
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  std::vector<char *> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).starts_with("--mlir-print-op-on-diagnostic") ||
        llvm::StringRef(argv[i]).starts_with("-mlir-print-op-on-diagnostic"))
      return args;
  args.insert(args.begin() + (argc > 0 ? 1 : 0), quiet);
  return args;
}

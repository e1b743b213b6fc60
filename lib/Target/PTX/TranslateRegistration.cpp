//===- TranslateRegistration.cpp - register --mlir-to-ptx -----------------===//

#include "Kaio/Target/PTX/PTXEmitter.h"
#include "Kaio/Target/PTX/PTXTranslation.h"

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

void kaio::registerToPTXTranslation() {
  static llvm::cl::opt<std::string> chip(
      "ptx-chip",
      llvm::cl::desc("Chip to target when the module has no ptx.target"),
      llvm::cl::init(""));
  static llvm::cl::opt<std::string> version(
      "ptx-version",
      llvm::cl::desc("PTX ISA version to print (default: the lowest the "
                     "target and the ops need)"),
      llvm::cl::init(""));
  static llvm::cl::opt<bool> lineInfo(
      "ptx-line-info",
      llvm::cl::desc("Emit .file/.loc from the MLIR source locations"),
      llvm::cl::init(false));
  static llvm::cl::opt<bool> noCoalesce(
      "ptx-no-coalesce",
      llvm::cl::desc("One register per SSA value: no register coalescing "
                     "(for debugging the printer)"),
      llvm::cl::init(false));
  static llvm::cl::opt<bool> verifyCoalescing(
      "ptx-verify-coalescing",
      llvm::cl::desc("Check register coalescing against an independent "
                     "liveness analysis"),
      llvm::cl::init(false));

  TranslateFromMLIRRegistration registration(
      "mlir-to-ptx", "print a module of ptx-dialect kernels as PTX text",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        ptx::PTXEmitOptions options;
        options.defaultChip = chip;
        options.lineInfo = lineInfo;
        options.coalesceRegisters = !noCoalesce;
        options.verifyCoalescing = verifyCoalescing;
        if (!version.empty()) {
          options.isaVersion = ptx::parseISA(version);
          if (!options.isaVersion)
            return module.emitError() << "invalid --ptx-version '" << version
                                      << "'; expected e.g. 8.0";
        }
        return ptx::translateModuleToPTX(module, os, options);
      },
      [](DialectRegistry &registry) { registry.insert<ptx::PTXDialect>(); });
}

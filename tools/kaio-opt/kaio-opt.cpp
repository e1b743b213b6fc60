//===- kaio-opt.cpp - KAIO's optimizer driver -----------------------------===//

#include "Kaio/InitAll.h"
#include "Kaio/Support/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kaio::registerAllDialects(registry);
  kaio::registerAllPasses();
  std::vector<char *> args = kaio::withoutOpDumpsOnDiagnostics(argc, argv);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      int(args.size()), args.data(), "KAIO optimizer driver\n", registry));
}

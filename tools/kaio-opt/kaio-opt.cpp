//===- kaio-opt.cpp - KAIO's optimizer driver -----------------------------===//

#include "Kaio/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kaio::registerAllDialects(registry);
  kaio::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "KAIO optimizer driver\n", registry));
}

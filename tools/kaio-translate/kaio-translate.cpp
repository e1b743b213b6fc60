//===- kaio-translate.cpp - KAIO's translation driver ---------------------===//

#include "Kaio/InitAll.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  kaio::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "KAIO translation driver"));
}

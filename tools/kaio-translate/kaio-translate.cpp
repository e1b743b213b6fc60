//===- kaio-translate.cpp - KAIO's translation driver ---------------------===//

#include "Kaio/InitAll.h"
#include "Kaio/Support/Diagnostics.h"
#include "Kaio/Support/SourceCheck.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  // Input MLIR's own parser would crash on: a located error instead.
  if (!kaio::checkInputFilesForKnownParserCrashes(argc, argv) ||
      (kaio::readsStandardInput(argc, argv) &&
       !kaio::checkStdinForKnownParserCrashes()))
    return 1;
  kaio::registerAllTranslations();
  std::vector<char *> args = kaio::withoutOpDumpsOnDiagnostics(argc, argv);
  return mlir::failed(mlir::mlirTranslateMain(int(args.size()), args.data(),
                                              "KAIO translation driver"));
}

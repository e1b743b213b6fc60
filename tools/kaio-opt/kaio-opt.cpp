//===- kaio-opt.cpp - KAIO's optimizer driver -----------------------------===//

#include "Kaio/InitAll.h"
#include "Kaio/Support/Diagnostics.h"
#include "Kaio/Support/SourceCheck.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Input MLIR's own parser would crash on: a located error instead.
  if (!kaio::checkInputFilesForKnownParserCrashes(argc, argv))
    return 1;
  mlir::DialectRegistry registry;
  kaio::registerAllDialects(registry);
  kaio::registerAllPasses();
  std::vector<char *> args = kaio::withoutOpDumpsOnDiagnostics(argc, argv);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      int(args.size()), args.data(), "KAIO optimizer driver\n", registry);
  // Standard input too, when it is the input (not for --show-dialects or
  // --list-passes, which read nothing).
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (input == "-" && !config.shouldShowDialects() &&
      !config.shouldListPasses() && !kaio::checkStdinForKnownParserCrashes())
    return 1;
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      int(args.size()), args.data(), input, output, registry));
}

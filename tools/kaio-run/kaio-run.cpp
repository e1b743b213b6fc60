//===- kaio-run.cpp - Run a PTX kernel from the command line --------------===//
//
// All the logic lives in KaioRunSupport; a compiler-aware front end can link
// the same library and pass RunHooks for .mlir inputs and --interpret.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"

#include <iostream>

int main(int argc, char **argv) {
  return kaio::run::runTool(argc, argv, kaio::run::RunHooks(), std::cout,
                            std::cerr);
}

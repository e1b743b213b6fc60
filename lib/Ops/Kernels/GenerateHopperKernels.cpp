//===- GenerateHopperKernels.cpp - the sm_90a kernels as .mlir ------------===//
//
// Writes the op library's sm_90a kernels (ptx-dialect text) to argv[1] (or
// stdout): `kaio-ops-hopper-gen k.mlir && kaio-translate --mlir-to-ptx k.mlir`.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include <cstdio>
#include <fstream>

int main(int argc, char **argv) {
  std::string text = kaio::ops::kernels::hopperKernelsModule();
  if (argc < 2) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "kaio-ops-hopper-gen: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}

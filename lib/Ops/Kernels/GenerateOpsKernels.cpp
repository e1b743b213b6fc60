//===- GenerateOpsKernels.cpp - the library's builder kernels as .mlir ----===//
//
// Run by kaio_add_kernels at build time: writes the op library's kernels
// written with the C++ builder as a .mlir module to argv[1].
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "Kaio/Builder/Builder.h"

int main(int argc, char **argv) {
  return kaio::builder::generatorMain(
      argc, argv, [](kaio::builder::ModuleBuilder &mb) {
        kaio::ops::kernels::buildRowKernels(mb);
        kaio::ops::kernels::buildElementwiseKernels(mb);
        kaio::ops::kernels::buildGemvKernels(mb);
        kaio::ops::kernels::buildTrainingKernels(mb);
        kaio::ops::kernels::buildNormBackwardKernels(mb);
        kaio::ops::kernels::buildAttentionKernels(mb);
        kaio::ops::kernels::buildSgemmKernels(mb);
        kaio::ops::kernels::buildMmaGemmKernels(mb);
        kaio::ops::kernels::buildGemmSplitKernels(mb);
      });
}

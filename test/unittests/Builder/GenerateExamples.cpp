//===- GenerateExamples.cpp - builder kernels as a build-time .mlir -------===//
//
// Run by kaio_add_kernels: writes fused_silu_gate and tiled_matmul, built
// with the C++ builder, as a .mlir module to argv[1].
//
//===----------------------------------------------------------------------===//

#include "ExampleKernels.h"

int main(int argc, char **argv) {
  return kaio::builder::generatorMain(
      argc, argv, [](kaio::builder::ModuleBuilder &mb) {
        kaio::builder::examples::buildFusedSiluGate(mb);
        kaio::builder::examples::buildTiledMatmul(mb);
      });
}

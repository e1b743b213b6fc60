//===- ExampleKernels.h - examples/*.mlir written with the builder -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_BUILDER_EXAMPLEKERNELS_H
#define KAIO_TEST_UNITTESTS_BUILDER_EXAMPLEKERNELS_H

#include "Kaio/Builder/Builder.h"

namespace kaio::builder::examples {
/// examples/vector_add.mlir
void buildVectorAdd(ModuleBuilder &mb);
/// examples/fused_silu_gate.mlir
void buildFusedSiluGate(ModuleBuilder &mb);
/// examples/tiled_matmul.mlir
void buildTiledMatmul(ModuleBuilder &mb);
/// examples/hopper_gemm.mlir (sm_90a: Kaio/Builder/Hopper.h)
void buildHopperGemm(ModuleBuilder &mb);
} // namespace kaio::builder::examples

#endif // KAIO_TEST_UNITTESTS_BUILDER_EXAMPLEKERNELS_H

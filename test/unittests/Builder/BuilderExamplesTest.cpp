//===- BuilderExamplesTest.cpp - builder kernels == examples/*.mlir -------===//
//
// The builder versions of the examples must be the same kernels: after
// canonicalize + cse and kaio-order-by-dataflow (the builder's finish() orders
// effect-free ops by dataflow, a hand-written example in its own order),
// equal kaio IR (printed without locations) and identical PTX through the
// whole pipeline.
//
//===----------------------------------------------------------------------===//

#include "ExampleKernels.h"

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Dialect/Kaio/Transforms/Passes.h"
#include "Kaio/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace kaio;
using namespace kaio::builder;

namespace {

/// Brings `module` to a form independent of the order of its effect-free
/// ops: canonicalize + cse (which also hoist constants), then
/// kaio-order-by-dataflow.
LogicalResult normalize(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(module)))
    return failure();
  kaio::orderByDataflow(module);
  return success();
}

std::string genericText(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, OpPrintingFlags().printGenericOpForm());
  return text;
}

void expectSameAsExample(void (*build)(ModuleBuilder &), const char *file,
                         std::initializer_list<const char *> chips = {
                             "sm_80", "sm_90"}) {
  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);

  ModuleBuilder mb(context);
  build(mb);
  OwningOpRef<ModuleOp> built = mb.finish();
  ASSERT_TRUE(built) << mb.diagnostics();

  std::string path = std::string(KAIO_SOURCE_DIR) + "/examples/" + file;
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(path, ParserConfig(&context));
  ASSERT_TRUE(parsed) << "cannot parse " << path;

  ASSERT_TRUE(succeeded(normalize(*built)));
  ASSERT_TRUE(succeeded(normalize(*parsed)));
  EXPECT_EQ(genericText(*built), genericText(*parsed)) << file;

  for (const char *chip : chips) {
    CompileOptions options;
    options.chip = chip;
    PTXResult fromBuilder = compileToPTX(*built, options);
    PTXResult fromText = compileToPTX(*parsed, options);
    ASSERT_TRUE(fromBuilder) << fromBuilder.diagnostics;
    ASSERT_TRUE(fromText) << fromText.diagnostics;
    EXPECT_EQ(fromBuilder.ptx, fromText.ptx) << file << " on " << chip;
    ASSERT_EQ(fromBuilder.kernels.size(), 1u);
    EXPECT_EQ(fromBuilder.kernels[0].signature,
              fromText.kernels[0].signature);
  }
}

TEST(BuilderExamples, VectorAdd) {
  expectSameAsExample(examples::buildVectorAdd, "vector_add.mlir");
}

TEST(BuilderExamples, FusedSiluGate) {
  expectSameAsExample(examples::buildFusedSiluGate, "fused_silu_gate.mlir");
}

TEST(BuilderExamples, TiledMatmul) {
  expectSameAsExample(examples::buildTiledMatmul, "tiled_matmul.mlir");
}

TEST(BuilderExamples, HopperGemm) {
  expectSameAsExample(examples::buildHopperGemm, "hopper_gemm.mlir",
                      {"sm_90a"});
}

} // namespace

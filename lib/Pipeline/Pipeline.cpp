//===- Pipeline.cpp - the kaio-to-ptx pipeline ----------------------------===//

#include "Kaio/Pipeline/Pipeline.h"

#include "Kaio/Conversion/Passes.h"
#include "Kaio/Dialect/Kaio/Transforms/Passes.h"
#include "Kaio/Dialect/PTX/Transforms/Passes.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kaio::buildKaioToPTXPipeline(OpPassManager &pm,
                                  const KaioToPTXOptions &options) {
  // Tile level → per-thread. Loops marked kaio.pipeline_stages become
  // multi-stage cp.async pipelines first, so that their buffers get layouts.
  pm.addPass(createPipelineCopies());
  // Loops marked kaio.unroll (e.g. a column walk: N loads in flight).
  pm.addPass(createUnrollLoops());
  pm.addPass(createAssignSharedLayouts());
  pm.addPass(createGroupAsyncCopies());
  pm.addPass(createLowerTiles());
  // Seeded bottom-up (the canonicalize pass's default is top-down): the same
  // fixpoint but for the order of the constants it hoists, and 7 times
  // faster on the op library's unrolled kernels, where top-down seeding
  // took 28 s of the 40 s that lowering the library for one chip took.
  // (The config's region simplification defaults to aggressive; the
  // pass's, kept here, to normal.)
  GreedyRewriteConfig canonicalize;
  canonicalize.setUseTopDownTraversal(false);
  canonicalize.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal);
  pm.addPass(createCanonicalizerPass(canonicalize));
  pm.addPass(createCSEPass());
  // Per-lane index arithmetic (fragment coordinates, copy addresses) does
  // not change across the K loop: hoist it while the loops are still scf.
  pm.addPass(createLoopInvariantCodeMotionPass());
  // ... except a constant away from a value the loop keeps anyway (the
  // XOR-stepped ldmatrix addresses of a tile): a register each, otherwise.
  pm.addPass(createRematerializeOffsets());
  pm.addPass(createCSEPass());
  // Structured control flow → blocks, then each dialect → ptx.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertKaioToPTX(ConvertKaioToPTXOptions{options.chip}));
  pm.addPass(createConvertMathToPTX());
  pm.addPass(createConvertArithToPTX(ConvertArithToPTXOptions{options.fastMath}));
  pm.addPass(createConvertCFToPTX());
  pm.addPass(ptx::createPTXFoldAddressOffsets());
  pm.addPass(ptx::createPTXPackConversions());
  pm.addPass(ptx::createPTXCleanup());
  pm.addPass(createCSEPass());
}

void kaio::buildPTXFormulaPipeline(OpPassManager &pm,
                                   const KaioToPTXOptions &options) {
  pm.addPass(createConvertMathToPTX());
  pm.addPass(createConvertArithToPTX(ConvertArithToPTXOptions{options.fastMath}));
}

void kaio::registerKaioToPTXPipeline() {
  PassPipelineRegistration<KaioToPTXOptions>(
      "kaio-to-ptx", "lower kaio kernels to the ptx dialect",
      buildKaioToPTXPipeline);
  PassPipelineRegistration<KaioToPTXOptions>(
      "ptx-lower-formulas",
      "lower the arith and math ops of ptx-level kernels, nothing else",
      buildPTXFormulaPipeline);
}

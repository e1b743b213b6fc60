//===- PTXCleanup.cpp - final clean-up of lowered ptx kernels -------------===//

#include "Kaio/Dialect/PTX/Transforms/Passes.h"

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kaio::ptx {
#define GEN_PASS_DEF_PTXCLEANUP
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

using namespace mlir;
using namespace kaio::ptx;

namespace {

struct PTXCleanupPass : kaio::ptx::impl::PTXCleanupBase<PTXCleanupPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Casts between a type and its converted form cancel in pairs.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    SmallVector<UnrealizedConversionCastOp> remaining;
    reconcileUnrealizedCasts(casts, &remaining);

    // Every op left in a kernel must print as PTX.
    WalkResult result = module.walk([](EntryOp entry) {
      WalkResult inner = entry.walk([](Operation *op) {
        if (isa<PTXDialect>(op->getDialect()))
          return WalkResult::advance();
        op->emitOpError("was not lowered to the ptx dialect");
        return WalkResult::interrupt();
      });
      return inner.wasInterrupted() ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    // Dead, side-effect-free instructions (and unused constants) go.
    if (failed(applyPatternsGreedily(module, RewritePatternSet(&getContext()))))
      return signalPassFailure();
  }
};

} // namespace

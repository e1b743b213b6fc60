//===- PTXCheckWgmmaReads.cpp - reads of wgmma results in flight ----------===//

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"
#include "Kaio/Dialect/PTX/Transforms/Passes.h"

namespace kaio::ptx {
#define GEN_PASS_DEF_PTXCHECKWGMMAREADS
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

using namespace mlir;
using namespace kaio::ptx;

namespace {
struct PTXCheckWgmmaReads
    : kaio::ptx::impl::PTXCheckWgmmaReadsBase<PTXCheckWgmmaReads> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](EntryOp entry) {
      failed |= mlir::failed(checkWgmmaResultReads(entry));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace

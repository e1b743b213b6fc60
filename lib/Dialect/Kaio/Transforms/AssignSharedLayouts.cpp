//===- AssignSharedLayouts.cpp - pad or swizzle shared tiles --------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kaio {
#define GEN_PASS_DEF_ASSIGNSHAREDLAYOUTS
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// Padding, in elements, that spreads consecutive rows over different banks
/// for the accesses the tile sees.
int64_t choosePadding(SharedAllocOp alloc) {
  SmemType type = alloc.getType();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  bool feedsFragments = llvm::any_of(alloc->getUsers(), [](Operation *user) {
    return isa<LoadFragmentOp>(user);
  });
  bool copyDestination = llvm::any_of(alloc->getUsers(), [](Operation *user) {
    return isa<AsyncCopyOp>(user);
  });
  // ldmatrix reads 16 bytes from each of 8 rows: a 16-byte pad puts the 8
  // rows in 8 distinct 16-byte bank groups whatever the row length. cp.async
  // writes 16-byte chunks, which stay aligned only if the pad is 16 bytes.
  if (feedsFragments || copyDestination)
    return 128 / bits;
  // Column walks over 4-byte elements: one element of padding makes the row
  // stride odd in banks.
  if (bits == 32)
    return 1;
  return 0;
}

struct AssignSharedLayoutsPass
    : kaio::impl::AssignSharedLayoutsBase<AssignSharedLayoutsPass> {
  void runOnOperation() override {
    getOperation().walk([](SharedAllocOp alloc) {
      SmemType type = alloc.getType();
      if (type.getShape().size() != 2 || type.getLayout())
        return;
      auto layout = LayoutAttr::get(alloc.getContext(), MatrixOrder::row_major,
                                    choosePadding(alloc), 0);
      alloc.getResult().setType(SmemType::get(
          alloc.getContext(), type.getShape(), type.getElementType(), layout));
    });
  }
};

} // namespace

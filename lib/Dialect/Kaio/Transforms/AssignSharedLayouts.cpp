//===- AssignSharedLayouts.cpp - swizzle or pad shared tiles --------------===//

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

bool feedsTensorCores(SharedAllocOp alloc) {
  return llvm::any_of(alloc->getUsers(), [](Operation *user) {
    return isa<LoadFragmentOp, AsyncCopyOp>(user);
  });
}

/// The layout of a tile that kaio-assign-shared-layouts sees without one.
/// Tiles that ldmatrix reads or cp.async fills get the swizzle table's
/// entry for their row width (no padding, conflict-free both ways); where
/// no swizzle applies, a 16-byte pad puts the 8 rows an ldmatrix reads in
/// 8 distinct bank groups (and keeps cp.async's 16-byte chunks aligned).
/// Other tiles of 4-byte elements get one element of padding, which makes
/// column walks conflict-free.
LayoutAttr chooseLayout(SharedAllocOp alloc) {
  SmemType type = alloc.getType();
  MLIRContext *ctx = alloc.getContext();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t rowBytes = type.getShape()[1] * std::max(1u, bits / 8);
  int64_t tileBytes = type.getShape()[0] * rowBytes;
  if (feedsTensorCores(alloc)) {
    std::optional<ptx::Swizzle> swizzle = ptx::getConflictFreeSwizzle(rowBytes);
    if (swizzle && swizzle->isIdentity())
      return LayoutAttr::get(ctx, MatrixOrder::row_major, 0, 0, 0, 0);
    if (swizzle && tileBytes % int64_t(swizzle->segmentBytes()) == 0)
      return LayoutAttr::get(ctx, MatrixOrder::row_major, 0, swizzle->bits,
                             swizzle->base, swizzle->shift);
    return LayoutAttr::get(ctx, MatrixOrder::row_major, 128 / bits, 0, 0, 0);
  }
  return LayoutAttr::get(ctx, MatrixOrder::row_major, bits == 32 ? 1 : 0, 0,
                         0, 0);
}

struct AssignSharedLayoutsPass
    : kaio::impl::AssignSharedLayoutsBase<AssignSharedLayoutsPass> {
  void runOnOperation() override {
    getOperation().walk([](SharedAllocOp alloc) {
      SmemType type = alloc.getType();
      if (type.getShape().size() != 2 || type.getLayout())
        return;
      alloc.getResult().setType(SmemType::get(alloc.getContext(),
                                              type.getShape(),
                                              type.getElementType(),
                                              chooseLayout(alloc)));
    });
  }
};

} // namespace

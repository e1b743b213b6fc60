//===- AssignSharedLayouts.cpp - swizzle or pad shared tiles --------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace kaio {
#define GEN_PASS_DEF_ASSIGNSHAREDLAYOUTS
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// Tile values that must share one type: an scf.for's init, iter_arg, yield
/// operand and result; an scf.if's yielded values and result; an
/// arith.select's operands and result (rotating pipeline stages pass tiles
/// through these).
using TileClasses = llvm::EquivalenceClasses<Value>;

bool isTile(Value v) {
  auto type = dyn_cast<SmemType>(v.getType());
  return type && type.getShape().size() == 2;
}

TileClasses collectTileClasses(Operation *root) {
  TileClasses classes;
  root->walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (isTile(r))
        classes.insert(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isTile(arg))
            classes.insert(arg);
    auto join = [&](Value a, Value b) {
      if (isTile(a) && isTile(b))
        classes.unionSets(a, b);
    };
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, result, yielded] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                     loop.getResults(), loop.getYieldedValues())) {
        join(init, arg);
        join(arg, result);
        join(result, yielded);
      }
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(branch.getResults())) {
        join(result, branch.thenYield().getOperand(i));
        if (!branch.getElseRegion().empty())
          join(result, branch.elseYield().getOperand(i));
      }
    } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
      join(select.getResult(), select.getTrueValue());
      join(select.getResult(), select.getFalseValue());
    }
  });
  return classes;
}

/// The layout of a class of tiles that has none: tiles that ldmatrix or
/// shared_load_vector reads or cp.async fills get the swizzle table's
/// entry for their row width (no padding, conflict-free both ways; 16-byte
/// chunks stay whole); where no swizzle applies, a 16-byte pad puts the 8
/// rows an ldmatrix reads in 8 distinct bank groups (and keeps 16-byte
/// accesses aligned). Other tiles of 4-byte elements get one element of
/// padding, which makes column walks conflict-free.
LayoutAttr chooseLayout(SmemType type, bool feedsTensorCores) {
  MLIRContext *ctx = type.getContext();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t rowBytes = type.getShape()[1] * std::max(1u, bits / 8);
  int64_t tileBytes = type.getShape()[0] * rowBytes;
  if (feedsTensorCores) {
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
    TileClasses classes = collectTileClasses(getOperation());
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      SmallVector<Value> members(classes.member_begin(**it),
                                 classes.member_end());
      // The ops that join them verify that they have one type: a layout
      // written on it is kept.
      auto type = cast<SmemType>(members.front().getType());
      if (type.getLayout())
        continue;
      // Tiles read or written 16 bytes a lane (ldmatrix, cp.async,
      // ld.shared.v4, st.shared.v4) keep rows of whole 16-byte chunks.
      bool feedsTensorCores = llvm::any_of(members, [](Value v) {
        return llvm::any_of(v.getUsers(), [](Operation *user) {
          return isa<LoadFragmentOp, AsyncCopyOp, SharedLoadVectorOp,
                     SharedStoreVectorOp>(user);
        });
      });
      LayoutAttr layout = chooseLayout(type, feedsTensorCores);
      auto typed = SmemType::get(type.getContext(), type.getShape(),
                                 type.getElementType(), layout);
      for (Value v : members)
        v.setType(typed);
    }
  }
};

} // namespace

//===- RematerializeOffsets.cpp - constant offsets back into loops --------===//
//
// After LICM, `y = x ^ c` (or `x + c`) defined outside a loop and used only
// inside it keeps y in a register for the whole loop. When x is used inside
// the loop by some other op, x is live there anyway: recomputing y next to
// each use frees that register for one integer op per use (the xor of a
// swizzled ldmatrix address; an add folds into the load's immediate). Any use
// moves: the saving is the register, whatever reads it (a TMA coordinate
// in a producer warp's loop as much as an ldmatrix address).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace kaio {
#define GEN_PASS_DEF_REMATERIALIZEOFFSETS
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// The operand of `op` that is not a constant, if `op` is an integer xor or
/// add of a value and a constant.
Value variableOperand(Operation *op) {
  if (!isa<arith::XOrIOp, arith::AddIOp>(op))
    return {};
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (matchPattern(rhs, m_Constant()) && !matchPattern(lhs, m_Constant()))
    return lhs;
  if (matchPattern(lhs, m_Constant()) && !matchPattern(rhs, m_Constant()))
    return rhs;
  return {};
}

/// The outermost loop around `user` that does not contain `def`.
LoopLikeOpInterface outermostLoopWithout(Operation *user, Operation *def) {
  LoopLikeOpInterface outermost;
  for (Operation *p = user->getParentOp(); p; p = p->getParentOp()) {
    if (p->isAncestor(def))
      break;
    if (auto loop = dyn_cast<LoopLikeOpInterface>(p))
      outermost = loop;
  }
  return outermost;
}

/// Whether `x` is live inside `loop` anyway: used there by an op other
/// than the offsets (`skip`), or itself an offset from such a value, which
/// then moves into the loop too.
bool isLiveIn(Value x, LoopLikeOpInterface loop,
              const llvm::SmallPtrSetImpl<Operation *> &skip,
              unsigned depth = 4) {
  if (llvm::any_of(x.getUsers(), [&](Operation *user) {
        return !skip.contains(user) && loop->isAncestor(user);
      }))
    return true;
  Operation *def = x.getDefiningOp();
  Value from = def ? variableOperand(def) : Value();
  return depth && from && !loop->isAncestor(def) &&
         isLiveIn(from, loop, skip, depth - 1);
}

struct RematerializeOffsetsPass
    : kaio::impl::RematerializeOffsetsBase<RematerializeOffsetsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (variableOperand(op))
        candidates.push_back(op);
    });
    // Uses by candidates (or their copies) do not make x live in a loop.
    llvm::SmallPtrSet<Operation *, 16> offsets(candidates.begin(),
                                               candidates.end());
    // Users before the values they use: `(x ^ c) + d` moves its add first,
    // so that every use of the xor is then in the loop and it moves too (a
    // copy whose original stays outside would be merged back by CSE).
    for (Operation *op : llvm::reverse(candidates)) {
      Value x = variableOperand(op);
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        Operation *user = use.getOwner();
        LoopLikeOpInterface loop = outermostLoopWithout(user, op);
        if (!loop || !isLiveIn(x, loop, offsets))
          continue;
        OpBuilder b(user);
        Operation *copy = b.clone(*op);
        offsets.insert(copy);
        use.set(copy->getResult(0));
      }
      if (op->use_empty())
        op->erase();
    }
  }
};

} // namespace

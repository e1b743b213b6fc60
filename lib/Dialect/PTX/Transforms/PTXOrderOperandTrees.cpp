//===- PTXOrderOperandTrees.cpp - operand trees in operand order ----------===//
//
// Text written by nested C++ calls, `w.add(w.mul(a, b), w.constant(4))`,
// comes out in the host compiler's argument evaluation order (gcc: last
// argument first; clang: first first), so two builds of one generator print
// different kernels and ptxas allocates them differently. This pass makes the
// order a function of the dataflow and of what statements sequence:
//
// The operand trees of an op are the effect-free ops right before it (a
// contiguous stretch, no op with effects, regions or a use elsewhere in it)
// whose results only it and that stretch consume. Nested calls write exactly
// such a stretch, in either order; the pass rewrites it as a depth-first walk
// from the op, operands left to right (clang's order), each op after its
// operands. Ops with effects are never moved, nor is anything moved across
// one. A stretch ends at the first op that does not qualify: statements
// written before it stay where they were unless only the expression uses
// them (then they join it and are ordered with it). Blocks are walked from
// their end, each stretch once, so the pass is linear in the block's size.
//
// What it cannot order: an expression with an op with effects inside it
// (`w.add32(w.let("ptx.ld ..."), w.i32(4))`): that op ends the stretch, and
// its siblings stay in the host compiler's order. Write such ops as
// statements of their own (scripts/compare-generator-output.sh finds them).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/PTX/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kaio::ptx {
#define GEN_PASS_DEF_PTXORDEROPERANDTREES
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

using namespace mlir;

namespace {

/// Whether `op` may move within its block: no effects, no regions, not a
/// terminator.
bool isMovable(Operation *op) {
  return op->getNumRegions() == 0 &&
         !op->hasTrait<OpTrait::IsTerminator>() && isMemoryEffectFree(op);
}

/// Whether `op`'s results are used (some of them), and only by ops in
/// `consumers`.
bool isConsumedOnlyBy(Operation *op,
                      const llvm::SmallPtrSetImpl<Operation *> &consumers) {
  if (op->use_empty())
    return false;
  for (Operation *user : op->getUsers())
    if (!consumers.contains(user))
      return false;
  return true;
}

/// Moves the ops of `stretch` reachable from `op` through operands (all of
/// them, by construction) before `op`, operands first, left to right.
void placeOperandsOf(Operation *op,
                     llvm::SmallPtrSetImpl<Operation *> &stretch,
                     Operation *root) {
  // An explicit stack: expressions can be deep (an unrolled reduction).
  struct Frame {
    Operation *op;
    unsigned next;
  };
  SmallVector<Frame> stack{{op, 0}};
  while (!stack.empty()) {
    Frame &top = stack.back();
    if (top.next < top.op->getNumOperands()) {
      Operation *def = top.op->getOperand(top.next++).getDefiningOp();
      // Erasing from the set marks the op placed (a shared operand once).
      if (def && stretch.erase(def))
        stack.push_back({def, 0});
      continue;
    }
    if (top.op != root)
      top.op->moveBefore(root);
    stack.pop_back();
  }
}

void orderBlock(Block &block) {
  Operation *op = block.empty() ? nullptr : &block.back();
  while (op) {
    // The stretch: the qualifying ops right before `op`.
    llvm::SmallPtrSet<Operation *, 16> consumers{op};
    Operation *first = op;
    for (Operation *prev = op->getPrevNode();
         prev && isMovable(prev) && isConsumedOnlyBy(prev, consumers);
         prev = prev->getPrevNode()) {
      consumers.insert(prev);
      first = prev;
    }
    Operation *before = first->getPrevNode();
    if (first != op) {
      consumers.erase(op);
      placeOperandsOf(op, consumers, op);
      assert(consumers.empty() && "a stretch op not reachable from its root");
    }
    op = before;
  }
}

struct PTXOrderOperandTreesPass
    : kaio::ptx::impl::PTXOrderOperandTreesBase<PTXOrderOperandTreesPass> {
  void runOnOperation() override { kaio::ptx::orderOperandTrees(getOperation()); }
};

} // namespace

void kaio::ptx::orderOperandTrees(Operation *root) {
  root->walk([](Block *block) { orderBlock(*block); });
}

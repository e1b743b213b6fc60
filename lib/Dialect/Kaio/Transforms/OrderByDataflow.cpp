//===- OrderByDataflow.cpp - an op order that depends only on the dataflow ===//
//
// C++ leaves the operands of `a + b * c` or `select(p, x, y)` unsequenced, so
// the C++ builder creates their ops in whichever order the host compiler
// evaluates them: gcc and clang builds of one generator printed different IR
// for 380 of the op library's 407 kernels, and ptxas gave the two PTX files
// different registers and spills. ModuleBuilder::finish therefore runs this
// (kaio-order-by-dataflow for .mlir): each block is reordered into an order
// that depends only on the dataflow and on the order of the ops with effects,
// which statements sequence:
//
//   - ops that may write memory, have regions or end the block ("anchors")
//     keep their order;
//   - reads (ops whose only effect is reading memory) stay between the same
//     two anchors, but in an order of their own;
//   - an effect-free op computed from a read's or an anchor's result (a
//     loaded value, a shuffle, a loop's result) comes as soon as its inputs
//     exist, as kernels are written: an mma right after its fragment loads;
//     but never above an anchor it was written after, which may be what
//     makes its input valid (wgmma.wait_group before a wgmma's results are
//     read);
//   - an effect-free op computed only from the kernel's parameters, ids and
//     constants comes right before the first op that needs it;
//   - the reads of one stretch and the ops computed from them are placed by
//     level (a read at the depth of its first use below the reads and
//     anchors, an op at the latest level of the reads it is computed from),
//     then in the order of a depth-first walk from the anchors (operands
//     left to right): a GEMM's loads and fmas k step by k step, independent
//     chains (an fma and an ex2 a score) together; effect-free ops nothing
//     uses end up before the terminator.
//
// Nested blocks are ordered first, so walking an anchor's regions sees their
// final order; a region's blocks go last to first, and values a block leaves
// to later blocks (a CFG) are ranked by where those use them. Ops nothing
// uses keep their creation order (the builder drops them first).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace kaio {
#define GEN_PASS_DEF_ORDERBYDATAFLOW
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;

namespace {
/// How far an op may move: effect-free ops anywhere their operands allow,
/// reads within the stretch between two anchors, anchors not at all.
enum class Motion { Free, Read, Anchor };

Motion motionOf(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumRegions() != 0)
    return Motion::Anchor;
  if (isMemoryEffectFree(op))
    return Motion::Free;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (effects && effects.onlyHasEffect<MemoryEffects::Read>())
    return Motion::Read;
  return Motion::Anchor;
}

/// Calls `fn` on each operand of `op` and of the ops nested in it, in order.
template <typename Fn> void forEachUse(Operation *op, Fn &&fn) {
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      fn(operand);
  });
}

class BlockScheduler {
public:
  explicit BlockScheduler(Block &block) : block(block) {
    // Steps from the nearest read or anchor of each op computed from one (0
    // for reads and anchors themselves).
    DenseMap<Operation *, unsigned> depth;
    for (Operation &op : block) {
      Motion motion = motionOf(&op);
      if (motion == Motion::Anchor) {
        anchors.push_back(&op);
        continue;
      }
      movable.insert(&op);
      floor[&op] = anchors.size();
      if (motion == Motion::Read) {
        reads.push_back({&op, anchors.size()});
        readOps.insert(&op);
        dependent.insert(&op);
        continue;
      }
      unsigned steps = 0;
      bool fromAnchorOrRead = false;
      for (Value v : op.getOperands()) {
        Operation *def = localDef(v);
        if (!def || (movable.contains(def) && !dependent.contains(def)))
          continue;
        fromAnchorOrRead = true;
        steps = std::max(steps, depth.lookup(def));
      }
      if (fromAnchorOrRead) {
        dependent.insert(&op);
        depth[&op] = steps + 1;
      }
    }
    // A read's level: the depth of its earliest use (1 at least; a use in
    // another block counts as 1).
    for (auto [read, stretch] : reads) {
      unsigned wanted = ~0u;
      for (Operation *user : read->getUsers())
        wanted = std::min(wanted, user->getBlock() == &block
                                      ? std::max(depth.lookup(user), 1u)
                                      : 1u);
      level[read] = wanted;
    }
    // An effect-free op goes at the latest level of the reads it is computed
    // from (0: none), so that a GEMM's k step comes after the previous one
    // while independent chains (an fma and an ex2 a score) stay together.
    for (Operation &op : block) {
      if (!dependent.contains(&op) || readOps.contains(&op))
        continue;
      unsigned stage = 0;
      for (Value v : op.getOperands())
        if (Operation *def = localDef(v); def && dependent.contains(def))
          stage = std::max(stage, level.lookup(def));
      level[&op] = stage;
    }
    numberInWalkOrder();
  }

  void run() {
    size_t nextRead = 0;
    for (size_t i = 0; i < anchors.size(); ++i) {
      Operation *anchor = anchors[i];
      // The reads before this anchor may not cross it: all of them now, in
      // walk order, each followed by what it makes computable.
      for (; nextRead < reads.size() && reads[nextRead].second <= i;
           ++nextRead)
        offer(reads[nextRead].first);
      drain();
      forEachUse(anchor, [&](Value v) { place(localDef(v)); });
      drain();
      if (anchor->hasTrait<OpTrait::IsTerminator>())
        placeRest();
      placed.insert(anchor);
      placedAnchors = static_cast<unsigned>(i + 1);
      // Ops that may not rise above this anchor (written after it) and
      // were computable before it.
      for (Operation *op : deferred.lookup(placedAnchors))
        if (!placed.contains(op))
          offer(op);
      order.push_back(anchor);
      offerUsers(anchor);
    }
    // A block without a terminator: the reads after its last anchor, then
    // the rest.
    for (; nextRead < reads.size(); ++nextRead)
      offer(reads[nextRead].first);
    drain();
    placeRest();

    for (Operation *op : order)
      block.getOperations().splice(block.end(), block.getOperations(),
                                   op->getIterator());
  }

private:
  /// The op of this block defining `v`, or null.
  Operation *localDef(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && def->getBlock() == &block ? def : nullptr;
  }

  /// Numbers the movable ops in the order a depth-first walk from the
  /// anchors (operands left to right) finishes them; unused ones last.
  void numberInWalkOrder() {
    SmallVector<std::pair<Operation *, unsigned>> stack;
    auto visit = [&](Value v) {
      Operation *root = localDef(v);
      if (!root || !movable.contains(root) ||
          !rank.try_emplace(root, 0).second)
        return;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        Operation *op = stack.back().first;
        unsigned next = stack.back().second++;
        if (next < op->getNumOperands()) {
          Operation *def = localDef(op->getOperand(next));
          if (def && movable.contains(def) && rank.try_emplace(def, 0).second)
            stack.push_back({def, 0});
          continue;
        }
        stack.pop_back();
        rank[op] = nextRank++;
      }
    };
    for (Operation *anchor : anchors)
      forEachUse(anchor, visit);
    // Values other blocks of the region use (a CFG's later blocks, already
    // ordered), in the order those blocks use them.
    Region *region = block.getParent();
    auto visitUsesIn = [&](Block &other) {
      other.walk([&](Operation *op) {
        for (Value v : op->getOperands())
          visit(v);
      });
    };
    for (Block &other : llvm::make_range(std::next(block.getIterator()),
                                         region->end()))
      visitUsesIn(other);
    for (Block &other : llvm::make_range(region->begin(), block.getIterator()))
      visitUsesIn(other);
    // Unused: creation order (the C++ builder drops these first).
    for (Operation &op : block)
      if (movable.contains(&op) && rank.lookup(&op) == 0)
        rank[&op] = nextRank++;
  }

  /// Whether `op` can be placed now: what it is computed from is placed, or
  /// effect-free and independent of anchors and reads (place() brings that
  /// along).
  bool ready(Operation *op) const {
    return llvm::all_of(op->getOperands(), [&](Value v) {
      Operation *def = localDef(v);
      return !def || placed.contains(def) ||
             (movable.contains(def) && !dependent.contains(def));
    });
  }

  void offer(Operation *op) {
    candidates.push({{level.lookup(op), rank.lookup(op)}, op});
  }

  /// Queues the effect-free users of `op` that it has made computable.
  void offerUsers(Operation *op) {
    for (Operation *user : op->getUsers()) {
      if (user->getBlock() != &block || !dependent.contains(user) ||
          placed.contains(user) || readOps.contains(user) || !ready(user))
        continue;
      // Never above an anchor it was written after: that anchor may be what
      // makes the value valid (wgmma.wait_group before reading a wgmma's
      // accumulators).
      unsigned after = floor.lookup(user);
      if (after > placedAnchors)
        deferred[after].push_back(user);
      else
        offer(user);
    }
  }

  /// Places the queued ops by level (see the constructor), then walk order:
  /// a GEMM's loads and fmas k step by k step, as written. A read queued
  /// before the value its address is computed from waits for it.
  void drain() {
    while (!candidates.empty()) {
      Operation *op = candidates.top().second;
      candidates.pop();
      if (!placed.contains(op) && ready(op))
        place(op);
      else if (!placed.contains(op))
        waiting.push_back(op);
      if (candidates.empty() && !waiting.empty()) {
        // Whatever still waits has an operand no anchor made available: a
        // read computed from a later read of the same stretch.
        for (Operation *w : waiting)
          place(w);
        waiting.clear();
      }
    }
  }

  /// Places `root` after the movable ops it needs, depth first, operands
  /// left to right; anchors and placed ops are skipped.
  void place(Operation *root) {
    if (!root || !movable.contains(root) || placed.contains(root))
      return;
    SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
    while (!stack.empty()) {
      Operation *op = stack.back().first;
      unsigned next = stack.back().second++;
      if (next < op->getNumOperands()) {
        Operation *def = localDef(op->getOperand(next));
        if (def && movable.contains(def) && !placed.contains(def))
          stack.push_back({def, 0});
        continue;
      }
      stack.pop_back();
      if (!placed.insert(op).second)
        continue;
      order.push_back(op);
      if (dependent.contains(op))
        offerUsers(op);
    }
  }

  /// Effect-free ops nothing placed yet, in walk order.
  void placeRest() {
    SmallVector<Operation *> rest;
    for (Operation &op : block)
      if (movable.contains(&op) && !placed.contains(&op))
        rest.push_back(&op);
    llvm::sort(rest, [&](Operation *a, Operation *b) {
      return rank.lookup(a) < rank.lookup(b);
    });
    for (Operation *op : rest)
      place(op);
  }

  Block &block;
  SmallVector<Operation *> anchors;
  /// Each read with the number of anchors before it.
  SmallVector<std::pair<Operation *, size_t>> reads;
  /// The effect-free ops and reads, and those of them computed from an
  /// anchor's or a read's result (reads count as such).
  DenseSet<Operation *> movable, dependent, readOps;
  /// The walk order of each placeable op, and its level (the first key:
  /// reads by their first use's depth, effect-free dependent ops by the
  /// latest level of the reads they are computed from).
  DenseMap<Operation *, unsigned> rank, level;
  /// The number of anchors before each movable op as written, and the
  /// computable ops waiting for that many anchors to be placed.
  DenseMap<Operation *, unsigned> floor;
  DenseMap<unsigned, SmallVector<Operation *>> deferred;
  unsigned placedAnchors = 0;
  unsigned nextRank = 1;
  using Candidate = std::pair<std::pair<unsigned, unsigned>, Operation *>;
  std::priority_queue<Candidate, std::vector<Candidate>,
                      std::greater<Candidate>>
      candidates;
  SmallVector<Operation *> waiting;
  DenseSet<Operation *> placed;
  SmallVector<Operation *> order;
};
} // namespace

void kaio::eraseUnusedOps(Operation *root) {
  root->walk<WalkOrder::PostOrder>([](Block *block) {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
      if (isOpTriviallyDead(&op))
        op.erase();
  });
}

void kaio::orderByDataflow(Operation *root) {
  // Inner regions first; a region's blocks last to first, so that a block's
  // values used further down are ranked by the final order of their users.
  root->walk<WalkOrder::PostOrder>([](Operation *op) {
    if (isa<ModuleOp>(op))
      return;
    for (Region &region : op->getRegions())
      for (Block &block : llvm::reverse(region))
        BlockScheduler(block).run();
  });
}

namespace {
struct OrderByDataflowPass
    : public kaio::impl::OrderByDataflowBase<OrderByDataflowPass> {
  void runOnOperation() override { kaio::orderByDataflow(getOperation()); }
};
} // namespace

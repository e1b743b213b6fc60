//===- RegisterCoalescing.cpp - values that can share a PTX register ------===//

#include "RegisterCoalescing.h"

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace kaio::ptx;

/// Groups larger than this pair count are not merged (interference is
/// checked pairwise; real groups are a loop's worth of values).
static constexpr size_t kMaxPairs = 4096;

RegisterCoalescing::RegisterCoalescing(EntryOp entry, bool enabled)
    : liveness(entry) {
  if (!enabled)
    return;
  computeInFlight(entry);
  // wgmma reads and writes its accumulators in place: tie them first.
  entry.walk([&](WgmmaMmaAsyncOp op) {
    if (wgmmaIgnoresAccumulators(op))
      return;
    for (auto [acc, d] : llvm::zip_equal(op.getAcc(), op.getD()))
      tryMerge(acc, d);
  });
  // Block arguments and the values their incoming edges pass.

  entry.walk([&](Operation *op) {
    auto branch = dyn_cast<BranchOpInterface>(op);
    if (!branch)
      return;
    for (unsigned s = 0, e = op->getNumSuccessors(); s < e; ++s) {
      Block *dest = op->getSuccessor(s);
      OperandRange passed =
          branch.getSuccessorOperands(s).getForwardedOperands();
      for (auto [arg, v] : llvm::zip(dest->getArguments(), passed))
        tryMerge(arg, v);
    }
  });
}

void RegisterCoalescing::computeInFlight(EntryOp entry) {
  bool any = false;
  entry.walk([&](WgmmaMmaAsyncOp) { any = true; });
  if (!any)
    return;
  // The wgmmas themselves in flight (their operands and results matter).
  using InFlight = WgmmaPending<Operation *>;
  auto transfer = [](Operation &op, InFlight &state) {
    if (isa<WgmmaMmaAsyncOp>(op))
      state[&op] = -1;
    applyWgmmaSync(op, state);
  };
  auto edge = [](Operation *, unsigned, const InFlight &state) {
    return state;
  };
  Region &region = entry.getBody();
  llvm::DenseMap<Block *, InFlight> atEntry =
      solveWgmmaPending<Operation *>(region, transfer, edge);
  for (Block &block : region) {
    InFlight state = atEntry[&block];
    for (Operation &op : block) {
      if (!state.empty() &&
          (op.getNumResults() || op.getNumSuccessors())) {
        auto &list = inFlightBefore[&op];
        for (const auto &entry : state)
          list.push_back(entry.first);
      }
      transfer(op, state);
    }
  }
}

bool RegisterCoalescing::writesUnderInFlightWgmma(ArrayRef<Value> group) const {
  if (inFlightBefore.empty())
    return false;
  llvm::DenseSet<Value> members(group.begin(), group.end());
  // Whether a wgmma in flight at `at` reads or writes a member; `chained`:
  // the write is itself a wgmma, which may accumulate into the registers of
  // an earlier one in flight (its accumulators, not its A fragments).
  auto hazard = [&](Operation *at, bool chained) {
    auto it = inFlightBefore.find(at);
    if (it == inFlightBefore.end())
      return false;
    for (Operation *w : it->second) {
      auto wgmma = cast<WgmmaMmaAsyncOp>(w);
      for (Value v : w->getOperands())
        if (members.contains(v) &&
            !(chained && llvm::is_contained(wgmma.getAcc(), v)))
          return true;
      if (!chained)
        for (Value v : w->getResults())
          if (members.contains(v))
            return true;
    }
    return false;
  };
  for (Value y : group) {
    if (Operation *def = y.getDefiningOp()) {
      if (hazard(def, isa<WgmmaMmaAsyncOp>(def)))
        return true;
      continue;
    }
    // A block argument is written by a move on each edge whose value is
    // not in the group.
    auto arg = cast<BlockArgument>(y);
    Block *block = arg.getOwner();
    for (auto pred = block->pred_begin(), e = block->pred_end(); pred != e;
         ++pred) {
      Operation *term = (*pred)->getTerminator();
      auto branch = cast<BranchOpInterface>(term);
      Value passed = branch.getSuccessorOperands(pred.getSuccessorIndex())
                         .getForwardedOperands()[arg.getArgNumber()];
      if (!members.contains(passed) && hazard(term, false))
        return true;
    }
  }
  return false;
}

Value RegisterCoalescing::leader(Value v) const {
  auto it = parent.find(v);
  if (it == parent.end() || it->second == v)
    return v;
  Value root = leader(it->second);
  it->second = root;
  return root;
}

bool RegisterCoalescing::liveAtDefinition(Value x, Value y) const {
  Block *block = y.getParentBlock();
  const LivenessBlockInfo *info = liveness.getLiveness(block);
  if (auto arg = dyn_cast<BlockArgument>(y)) {
    // Block arguments are written together, on the edge into the block.
    if (auto other = dyn_cast<BlockArgument>(x); other && other.getOwner() == block)
      return true;
    return info && info->isLiveIn(x);
  }
  Operation *def = y.getDefiningOp();
  if (x.getDefiningOp() == def)
    return true; // results of one instruction are written together
  if (x.getParentBlock() == block) {
    Operation *xDef = x.getDefiningOp();
    if (xDef && def->isBeforeInBlock(xDef))
      return false; // not defined yet
  } else if (!info || !info->isLiveIn(x)) {
    return false;
  }
  return !liveness.isDeadAfter(x, def);
}

bool RegisterCoalescing::interfere(Value x, Value y) const {
  return liveAtDefinition(x, y) || liveAtDefinition(y, x);
}

void RegisterCoalescing::tryMerge(Value a, Value b) {
  Value ra = leader(a), rb = leader(b);
  if (ra == rb)
    return;
  std::optional<RegisterClass> ca = getRegisterClass(ra.getType()),
                               cb = getRegisterClass(rb.getType());
  if (!ca || !cb || ca->prefix != cb->prefix)
    return;
  auto group = [&](Value r) {
    auto it = members.find(r);
    return it == members.end() ? SmallVector<Value, 4>{r} : it->second;
  };
  SmallVector<Value, 4> ga(group(ra)), gb(group(rb));
  if (ga.size() * gb.size() > kMaxPairs)
    return;
  for (Value x : ga)
    for (Value y : gb)
      if (interfere(x, y))
        return;
  SmallVector<Value, 8> merged(ga.begin(), ga.end());
  merged.append(gb.begin(), gb.end());
  if (writesUnderInFlightWgmma(merged))
    return;
  parent[ra] = ra;
  parent[rb] = ra;
  ga.append(gb.begin(), gb.end());
  members[ra] = std::move(ga);
  members.erase(rb);
}

/// Live-in sets by a plain backward dataflow over the blocks (independent of
/// mlir::Liveness, which the grouping uses).
static llvm::DenseMap<Block *, llvm::DenseSet<Value>> liveInSets(Region &region) {
  llvm::DenseMap<Block *, llvm::DenseSet<Value>> liveIn;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Block &b : llvm::reverse(region)) {
      llvm::DenseSet<Value> live;
      for (Block *succ : b.getSuccessors())
        live.insert(liveIn[succ].begin(), liveIn[succ].end());
      for (Operation &op : llvm::reverse(b)) {
        for (Value r : op.getResults())
          live.erase(r);
        live.insert(op.operand_begin(), op.operand_end());
      }
      for (Value a : b.getArguments())
        live.erase(a);
      if (live.size() != liveIn[&b].size()) { // sets only grow
        liveIn[&b] = std::move(live);
        changed = true;
      }
    }
  }
  return liveIn;
}

LogicalResult RegisterCoalescing::verify(EntryOp entry) const {
  Region &region = entry.getBody();
  llvm::DenseMap<Block *, llvm::DenseSet<Value>> liveIn = liveInSets(region);
  auto conflict = [&](Value x, Value y) {
    InFlightDiagnostic d = entry.emitError()
                           << "register coalescing gave one register to two "
                              "values live at once: ";
    d << x << " and " << y;
    return failure();
  };
  for (Block &b : region) {
    // A block's arguments are written together on its incoming edges, where
    // its live-in values must survive.
    for (Value a : b.getArguments()) {
      for (Value v : liveIn[&b])
        if (leader(v) == leader(a))
          return conflict(a, v);
      for (Value other : b.getArguments())
        if (other != a && leader(other) == leader(a))
          return conflict(a, other);
    }
    // An instruction's results are written where everything live after it
    // must survive.
    llvm::DenseSet<Value> live;
    for (Block *succ : b.getSuccessors())
      live.insert(liveIn[succ].begin(), liveIn[succ].end());
    for (Operation &op : llvm::reverse(b)) {
      for (Value r : op.getResults())
        for (Value v : live)
          if (v != r && leader(v) == leader(r))
            return conflict(r, v);
      for (Value r : op.getResults())
        for (Value r2 : op.getResults())
          if (r != r2 && leader(r) == leader(r2))
            return conflict(r, r2);
      for (Value r : op.getResults())
        live.erase(r);
      live.insert(op.operand_begin(), op.operand_end());
    }
  }
  return success();
}

//===- WgmmaHazards.cpp - reads of wgmma results still in flight ----------===//

#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/RegionGraphTraits.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"

using namespace mlir;
using namespace kaio::ptx;

namespace {

/// Values in flight and the groups committed after theirs (-1: their group
/// is still open).
using InFlight = llvm::MapVector<Value, int>;

constexpr int kMaxAge = 64;

void transfer(Operation &op, InFlight &state) {
  if (auto wgmma = dyn_cast<WgmmaMmaAsyncOp>(op)) {
    for (Value r : wgmma.getD())
      state[r] = -1;
  } else if (isa<WgmmaCommitGroupOp>(op)) {
    for (auto &entry : state)
      entry.second = std::min(entry.second + 1, kMaxAge);
  } else if (auto wait = dyn_cast<WgmmaWaitGroupOp>(op)) {
    int n = int(wait.getN());
    state.remove_if([&](const auto &entry) { return entry.second >= n; });
  }
}

/// The state entering `succ` along the edge from `term`: block arguments take
/// the age of the value passed to them.
InFlight edgeState(Operation *term, unsigned succIndex, const InFlight &state) {
  InFlight out = state;
  Block *succ = term->getSuccessor(succIndex);
  auto branch = cast<BranchOpInterface>(term);
  OperandRange passed =
      branch.getSuccessorOperands(succIndex).getForwardedOperands();
  for (auto [arg, v] : llvm::zip(succ->getArguments(), passed)) {
    out.remove_if([&](const auto &entry) { return entry.first == arg; });
    if (auto it = state.find(v); it != state.end())
      out[arg] = it->second;
  }
  return out;
}

bool join(InFlight &into, const InFlight &from) {
  bool changed = false;
  for (const auto &[v, age] : from) {
    auto [it, inserted] = into.insert({v, age});
    if (inserted) {
      changed = true;
    } else if (age < it->second) {
      it->second = age;
      changed = true;
    }
  }
  return changed;
}

} // namespace

LogicalResult kaio::ptx::checkWgmmaResultReads(EntryOp entry) {
  bool any = false;
  entry.walk([&](WgmmaMmaAsyncOp) { any = true; });
  if (!any)
    return success();
  Region &region = entry.getBody();
  llvm::DenseMap<Block *, InFlight> atEntry;
  llvm::ReversePostOrderTraversal<Region *> rpo(&region);
  // Sets only grow and ages only fall at joins: this converges.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Block *block : rpo) {
      InFlight state = atEntry[block];
      for (Operation &op : *block)
        transfer(op, state);
      Operation *term = block->getTerminator();
      for (unsigned s = 0, e = term->getNumSuccessors(); s < e; ++s)
        changed |= join(atEntry[term->getSuccessor(s)],
                        edgeState(term, s, state));
    }
  }
  bool failed = false;
  for (Block &block : region) {
    InFlight state = atEntry[&block];
    for (Operation &op : block) {
      // Branches pass values on; the printer gives such block arguments the
      // values' registers (RegisterCoalescing.h).
      if (!state.empty() && !isa<BranchOpInterface>(op)) {
        auto wgmma = dyn_cast<WgmmaMmaAsyncOp>(op);
        for (Value v : op.getOperands()) {
          if (!state.contains(v))
            continue;
          if (wgmma && llvm::is_contained(wgmma.getAcc(), v))
            continue; // accumulating into it: chained in order
          op.emitError() << "reads a wgmma result before a "
                            "wgmma.wait_group retires it (undefined in PTX)";
          failed = true;
          break;
        }
      }
      transfer(op, state);
    }
  }
  return failure(failed);
}

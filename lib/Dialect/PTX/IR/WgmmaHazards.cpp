//===- WgmmaHazards.cpp - reads of wgmma results still in flight ----------===//

#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using namespace kaio::ptx;

namespace {

/// Values in flight: a wgmma's results from its issue on.
using InFlight = WgmmaPending<Value>;

void transfer(Operation &op, InFlight &state) {
  if (auto wgmma = dyn_cast<WgmmaMmaAsyncOp>(op))
    for (Value r : wgmma.getD())
      state[r] = -1;
  applyWgmmaSync(op, state);
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

} // namespace

LogicalResult kaio::ptx::checkWgmmaResultReads(EntryOp entry) {
  bool any = false;
  entry.walk([&](WgmmaMmaAsyncOp) { any = true; });
  if (!any)
    return success();
  Region &region = entry.getBody();
  llvm::DenseMap<Block *, InFlight> atEntry =
      solveWgmmaPending<Value>(region, transfer, edgeState);
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

//===- WgmmaHazards.h - reads of wgmma results still in flight --*- C++ -*-===//
//
// wgmma.mma_async writes its results when its group completes, which a
// wgmma.wait_group makes sure of; reading them earlier is undefined in PTX.
// SSA hides this (the results are values from the issue on; the CPU
// interpreter even computes them at issue), so a forward dataflow over the
// kernel's CFG tracks which values are still in flight: a wgmma's results
// from its issue, the block arguments they are passed to, and how many
// groups were committed after each; wait_group N retires those with N or
// more newer groups; where paths join, the later retirement wins. Any
// instruction reading such a value is reported, except a wgmma that
// accumulates into it (the hardware chains those in order).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H
#define KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/RegionGraphTraits.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"

#include <algorithm>

namespace kaio::ptx {

/// Items in flight (wgmmas, or the values they write) and, for each, the
/// number of wgmma groups committed after its own (-1: its group is still
/// open). wait_group N retires the items with N or more newer groups; where
/// control flow joins, the smaller count (the later retirement) wins. Used by
/// checkWgmmaResultReads and by the printer's register coalescing.
template <class Key> using WgmmaPending = llvm::MapVector<Key, int>;

/// Applies `op` to `state` if it is a commit_group or a wait_group.
template <class Key>
void applyWgmmaSync(mlir::Operation &op, WgmmaPending<Key> &state) {
  constexpr int kMaxAge = 64; // bounds the lattice: the dataflow converges
  if (mlir::isa<WgmmaCommitGroupOp>(op)) {
    for (auto &entry : state)
      entry.second = std::min(entry.second + 1, kMaxAge);
  } else if (auto wait = mlir::dyn_cast<WgmmaWaitGroupOp>(op)) {
    int n = int(wait.getN());
    state.remove_if([&](const auto &entry) { return entry.second >= n; });
  }
}

/// Merges `from` into `into` (union, later retirement); whether it changed.
template <class Key>
bool joinWgmmaPending(WgmmaPending<Key> &into, const WgmmaPending<Key> &from) {
  bool changed = false;
  for (const auto &[key, age] : from) {
    auto [it, inserted] = into.insert({key, age});
    if (inserted) {
      changed = true;
    } else if (age < it->second) {
      it->second = age;
      changed = true;
    }
  }
  return changed;
}

/// The state entering each block of `region`, by a forward dataflow to a
/// fixed point: `transfer(op, state)` applies one instruction and
/// `edge(terminator, successorIndex, state)` gives the state an edge passes.
template <class Key, class Transfer, class Edge>
llvm::DenseMap<mlir::Block *, WgmmaPending<Key>>
solveWgmmaPending(mlir::Region &region, Transfer transfer, Edge edge) {
  llvm::DenseMap<mlir::Block *, WgmmaPending<Key>> atEntry;
  llvm::ReversePostOrderTraversal<mlir::Region *> rpo(&region);
  bool changed = true;
  while (changed) {
    changed = false;
    for (mlir::Block *block : rpo) {
      WgmmaPending<Key> state = atEntry[block];
      for (mlir::Operation &op : *block)
        transfer(op, state);
      mlir::Operation *term = block->getTerminator();
      for (unsigned s = 0, e = term->getNumSuccessors(); s < e; ++s)
        changed |= joinWgmmaPending(atEntry[term->getSuccessor(s)],
                                    edge(term, s, state));
    }
  }
  return atEntry;
}

/// Whether `op` ignores its old accumulators: scale-d an immediate 0 and no
/// guard (a guarded-off wgmma must leave the old values). Such a wgmma
/// needs neither the old values copied in nor its accumulators tied to them.
inline bool wgmmaIgnoresAccumulators(WgmmaMmaAsyncOp op) {
  return op.getScaleDImm() == 0u && !op.getGuard();
}

/// Emits an error at every instruction of `entry` that reads a wgmma result
/// before a wgmma.wait_group retires it; failure if there is one.
mlir::LogicalResult checkWgmmaResultReads(EntryOp entry);

} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_IR_WGMMAHAZARDS_H

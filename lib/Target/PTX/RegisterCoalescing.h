//===- RegisterCoalescing.h - values that can share a PTX register -*- C++ -*-===//
//
// The printer gives every SSA value its own virtual register and turns block
// arguments into moves on the edges that pass them. Where a block argument
// and the value an edge passes are never live at the same time they can
// share one register and the move disappears; the same holds for wgmma's new
// accumulators and the old ones it reads and writes in place. This matters
// beyond instruction counts: ptxas serialises wgmmas (note C7514) when a
// non-wgmma instruction, such as a loop back-edge's move, reads an in-flight
// wgmma's accumulators.
//
// The grouping is classic SSA-based coalescing: two values interfere when one
// is live where the other is defined (mlir::Liveness); groups merge only when
// no member of one interferes with a member of the other and all have one
// register class. SSA liveness ends at an instruction's issue, but a wgmma
// reads its registers and writes its accumulators until a wgmma.wait_group
// retires it: a forward dataflow over the CFG finds the wgmmas that may be
// in flight at each instruction, and a group is refused when any member is
// written (by an instruction, or by a move on an edge) while a wgmma using a
// member is in flight -- except the in-place accumulator chain of wgmmas
// itself.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_TARGET_PTX_REGISTERCOALESCING_H
#define KAIO_LIB_TARGET_PTX_REGISTERCOALESCING_H

#include "mlir/Analysis/Liveness.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace kaio::ptx {

class EntryOp;

/// Groups of an entry's values that may share one PTX register.
class RegisterCoalescing {
public:
  /// Groups `entry`'s values; with `enabled` false every value stays alone
  /// (one register each: for debugging the printer).
  RegisterCoalescing(EntryOp entry, bool enabled = true);

  /// The value standing for `v`'s group (`v` itself when it has none).
  mlir::Value leader(mlir::Value v) const;

  /// Checks the grouping against a plain liveness dataflow of its own: an
  /// error on `entry` names two values of one group that are live at once.
  mlir::LogicalResult verify(EntryOp entry) const;

private:
  /// Finds the wgmmas possibly in flight before each instruction.
  void computeInFlight(EntryOp entry);
  /// Whether giving `group` one register would let an instruction or an edge
  /// move write it while a wgmma reading or writing a member is in flight.
  bool writesUnderInFlightWgmma(llvm::ArrayRef<mlir::Value> group) const;
  /// Merges the groups of `a` and `b` when nothing interferes.
  void tryMerge(mlir::Value a, mlir::Value b);
  /// Whether `x` is still live right after `y` is defined.
  bool liveAtDefinition(mlir::Value x, mlir::Value y) const;
  bool interfere(mlir::Value x, mlir::Value y) const;

  mlir::Liveness liveness;
  /// The wgmmas possibly in flight just before each instruction that writes
  /// registers or branches (absent: none).
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Operation *, 4>>
      inFlightBefore;
  mutable llvm::DenseMap<mlir::Value, mlir::Value> parent;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value, 4>> members;
};

} // namespace kaio::ptx

#endif // KAIO_LIB_TARGET_PTX_REGISTERCOALESCING_H

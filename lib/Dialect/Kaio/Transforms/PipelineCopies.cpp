//===- PipelineCopies.cpp - N-stage cp.async pipelines from simple loops --===//
//
// A loop marked {kaio.pipeline_stages = N} whose body copies tiles into
// shared memory, waits for them and computes is rewritten in two steps:
//
//  1. Multi-buffering: every tile an async_copy in the loop fills (allocated
//     outside the loop) gets N - 1 more buffers; iteration i uses buffer
//     i mod N — a counter the loop carries — picked by a chain of
//     arith.select that kaio-assign-shared-layouts follows (one layout for
//     all buffers).
//  2. Pipelining with scf::pipelineForLoop: the copies, and the ops of the
//     body they depend on, run in stage 0; everything else in stage N - 1.
//     The kernel loop issues the copies of iteration i + N - 1 while it
//     computes iteration i; the tiles and tokens of the in-flight iterations
//     travel through iter_args. The epilogue is not peeled: in the last
//     N - 1 iterations the copies are predicated off (their row bound
//     becomes 0: nothing is read, the unused buffer is zero filled), and so
//     is what they depend on that may not run freely: global loads (a
//     block table's page index: their mask off) and integer divisions by a
//     run-time value (divisor 1). Running a load an iteration early is
//     only right when the loop writes no global memory (a later
//     iteration's load could read what an earlier one stores): such loops
//     are refused with a diagnostic.
//
// A refilled buffer was read N - 1 iterations earlier, so every warp must
// be done reading it first. Either a barrier follows the body's last read
// of a copied tile (the copies of iteration i + N - 1 are then issued at
// the top of iteration i), or — one barrier an iteration instead of two —
// a barrier lies between the body's last wait and its first read: the
// copies are then issued right after that barrier (CUTLASS's multistage
// order), when every warp has finished iteration i - 1, which read the
// buffer they refill.
//
// In the second form, a loop also marked {kaio.pipeline_prefetch} (N >= 3)
// issues its leading reads — the shared-tile reads between the fence and
// the first use of what they read (an mma's first fragments) — one
// iteration early, in stage N - 2 with the waits and the fence: iteration
// i's compute up to its last read, then iteration i + 1's wait, barrier and
// leading reads (and the refill copies), then the rest of iteration i's
// compute, which hides their latency (CUTLASS's fragment double buffering
// across k tiles). Every read of iteration i's buffers still precedes the
// barrier after which they are refilled; what follows the last read must
// touch no memory, as it now runs after that barrier.
//
// kaio-group-async-copies then counts, for each wait, the copies of the
// newer iterations that may stay in flight (cp.async.wait_group N - 1
// groups of copies, N - 2 in the second form, N - 3 with prefetch).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace kaio {
#define GEN_PASS_DEF_PIPELINECOPIES
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

constexpr StringLiteral kStagesAttrName = KaioDialect::kPipelineStagesAttrName;
constexpr StringLiteral kPrefetchAttrName =
    KaioDialect::kPipelinePrefetchAttrName;
/// Marks, between multiBuffer and schedule, the barrier after which the
/// copies are issued (the second form in the header).
constexpr StringLiteral kRefillFenceAttrName = "kaio.refill_fence";
/// Marks, between schedule and the end of pipelining, the waits, barrier and
/// reads prefetch runs an iteration ahead: past the loop's end they run
/// unpredicated (predicate).
constexpr StringLiteral kRunAheadAttrName = "kaio.run_ahead";

/// Gives every tile the loop's copies fill `stages` buffers; iteration i
/// uses buffer i mod stages (an arith.select chain at the top of the body),
/// counted by a new iter_arg (0, 1, ..., stages - 1, 0, ...) rather than a
/// remainder. Returns the loop, which carries the counter.
FailureOr<scf::ForOp> multiBuffer(scf::ForOp loop, unsigned stages,
                                  RewriterBase &rewriter) {
  Block *body = loop.getBody();
  SetVector<Value> tiles;
  for (auto copy : body->getOps<AsyncCopyOp>()) {
    auto alloc = copy.getDst().getDefiningOp<SharedAllocOp>();
    if (!alloc || alloc->getBlock() == body ||
        !alloc->getParentRegion()->isAncestor(loop->getParentRegion()))
      return copy.emitOpError()
             << "a pipelined loop's copies fill tiles allocated before the "
                "loop (kaio.shared_alloc)";
    tiles.insert(copy.getDst());
  }
  if (tiles.empty())
    return loop.emitOpError()
           << "'" << kStagesAttrName << "' on a loop with no kaio.async_copy";
  // A buffer is refilled N - 1 iterations after it was read: every warp
  // must be done reading it, so a barrier must follow the last read or
  // precede the first one after the waits (the copies then issued after
  // it).
  Operation *firstRead = nullptr, *lastRead = nullptr, *lastWait = nullptr;
  for (Operation &op : body->without_terminator()) {
    if (isa<AsyncWaitOp>(op))
      lastWait = &op;
    if (!isa<AsyncCopyOp>(op) && llvm::any_of(op.getOperands(), [&](Value v) {
          return tiles.contains(v);
        })) {
      lastRead = &op;
      if (!firstRead)
        firstRead = &op;
    }
  }
  auto barrierIn = [&](Block::iterator from,
                       Block::iterator to) -> Operation * {
    for (Operation &op : llvm::make_range(from, to))
      if (isa<BarrierOp>(op))
        return &op;
    return nullptr;
  };
  bool fenced = lastRead && barrierIn(std::next(lastRead->getIterator()),
                                      body->getTerminator()->getIterator());
  Operation *front = nullptr;
  if (lastRead && !fenced && lastWait && lastWait->isBeforeInBlock(firstRead))
    front = barrierIn(std::next(lastWait->getIterator()),
                      firstRead->getIterator());
  if (lastRead && !fenced && !front) {
    InFlightDiagnostic diag =
        loop.emitOpError()
        << "a pipelined loop needs a kaio.barrier after the last read of a "
           "copied tile, or between its last wait and its first read: a "
           "later iteration's copy refills the buffer while other warps "
           "may still read it";
    diag.attachNote(lastRead->getLoc()) << "the last read";
    return failure();
  }
  if (front)
    front->setAttr(kRefillFenceAttrName, rewriter.getUnitAttr());
  Location loc = loop.getLoc();
  Type indexType = loop.getInductionVar().getType();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getIntegerAttr(indexType, v));
  };
  rewriter.setInsertionPoint(loop);
  Value zero = constant(0);
  // slot' = slot + 1 == stages ? 0 : slot + 1
  FailureOr<LoopLikeOpInterface> counted = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{zero}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> args)
          -> SmallVector<Value> {
        Value next = arith::AddIOp::create(b, l, args[0], constant(1));
        Value wraps = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            next, constant(stages));
        return {arith::SelectOp::create(b, l, wraps, constant(0), next)};
      });
  if (failed(counted))
    return failure();
  loop = cast<scf::ForOp>(counted->getOperation());
  body = loop.getBody();
  Value slot = loop.getRegionIterArgs().back();
  rewriter.setInsertionPointToStart(body);
  for (Value tile : tiles) {
    auto alloc = tile.getDefiningOp<SharedAllocOp>();
    SmallVector<Value> buffers = {tile};
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(alloc);
      for (unsigned s = 1; s < stages; ++s)
        buffers.push_back(rewriter.clone(*alloc)->getResult(0));
    }
    // buffer = slot == 1 ? b1 : (slot == 2 ? b2 : ... b0)
    Value picked = buffers.front();
    for (unsigned s = stages - 1; s >= 1; --s) {
      Value is = arith::CmpIOp::create(rewriter, loc,
                                       arith::CmpIPredicate::eq, slot,
                                       constant(s));
      picked = arith::SelectOp::create(rewriter, loc, is, buffers[s], picked);
    }
    rewriter.replaceUsesWithIf(tile, picked, [&](OpOperand &use) {
      return body->findAncestorOpInBlock(*use.getOwner()) &&
             use.getOwner() != picked.getDefiningOp() &&
             !isa<arith::SelectOp>(use.getOwner());
    });
  }
  return loop;
}

/// scf::pipelineForLoop pipelines signed loops only: an unsigned loop (the
/// builder's U32 loops) becomes a signed i64 loop over its zero-extended
/// bounds — every value of a narrower unsigned type is a non-negative i64,
/// so the trip count is the same — whose body reads the induction value
/// truncated back.
FailureOr<scf::ForOp> signedLoop(scf::ForOp loop, RewriterBase &rewriter) {
  if (!loop.getUnsignedCmp())
    return loop;
  Location loc = loop.getLoc();
  Type type = loop.getInductionVar().getType();
  if (!type.isSignlessInteger() || type.getIntOrFloatBitWidth() >= 64)
    return loop.emitOpError()
           << "an unsigned loop over " << type
           << " cannot be pipelined (only narrower than 64 bits)";
  Type i64 = rewriter.getI64Type();
  rewriter.setInsertionPoint(loop);
  auto widen = [&](Value v) -> Value {
    return arith::ExtUIOp::create(rewriter, loc, i64, v);
  };
  Value lb = widen(loop.getLowerBound()), ub = widen(loop.getUpperBound()),
        step = widen(loop.getStep());
  auto wide = scf::ForOp::create(rewriter, loc, lb, ub, step,
                                 loop.getInitArgs(), nullptr,
                                 /*unsignedCmp=*/false);
  wide->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *body = wide.getBody();
  // Without iter_args the builder gave the new body a terminator; the old
  // body brings its own.
  if (!body->empty())
    rewriter.eraseOp(&body->back());
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> args{
      arith::TruncIOp::create(rewriter, loc, type, wide.getInductionVar())};
  llvm::append_range(args, wide.getRegionIterArgs());
  rewriter.mergeBlocks(loop.getBody(), body, args);
  rewriter.replaceOp(loop, wide.getResults());
  return wide;
}

/// The copies, the ops of the body they depend on, and what computes the
/// next value of the iter_args those read (the buffer counter): stage 0.
SetVector<Operation *> copySlices(Block *body) {
  SetVector<Operation *> early;
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) { return op->getBlock() == body; };
  options.inclusive = true;
  SmallVector<Operation *> work;
  for (auto copy : body->getOps<AsyncCopyOp>())
    work.push_back(copy);
  while (!work.empty()) {
    SetVector<Operation *> slice;
    (void)getBackwardSlice(work.pop_back_val(), &slice, options);
    for (Operation *op : slice) {
      if (!early.insert(op))
        continue;
      for (Value operand : op->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand);
        if (!arg || arg.getOwner() != body || arg.getArgNumber() == 0)
          continue;
        Value yielded =
            body->getTerminator()->getOperand(arg.getArgNumber() - 1);
        if (Operation *def = yielded.getDefiningOp();
            def && def->getBlock() == body && !early.contains(def))
          work.push_back(def);
      }
    }
  }
  return early;
}

/// A read of a shared tile that may run an iteration ahead (and past the
/// end: it reads a buffer that nobody uses then).
bool isTileRead(Operation *op) {
  return isa<LoadFragmentOp, SharedLoadOp, SharedLoadVectorOp>(op);
}

/// With kaio.pipeline_prefetch: the ops of stage N - 2 (`ahead`) — the ops
/// up to the fence that are not the copies' (waits, the fence, index
/// arithmetic) and the leading reads with the ops they depend on — and the
/// last read left in the last stage (null when every read runs ahead).
/// Fails, with a diagnostic, where the loop does not allow it.
LogicalResult planPrefetch(scf::ForOp loop, const SetVector<Operation *> &early,
                           Block::iterator split,
                           SetVector<Operation *> &ahead,
                           Operation *&lastRead) {
  Block *body = loop.getBody();
  auto refuse = [&](Operation *at, const Twine &why) {
    InFlightDiagnostic diag = loop.emitOpError()
                              << "'" << kPrefetchAttrName << "': " << why;
    if (at)
      diag.attachNote(at->getLoc()) << "here";
    return failure();
  };
  if (split == body->begin())
    return refuse(nullptr, "needs a kaio.barrier between the loop's last "
                           "wait and its first read of a copied tile");
  for (Operation &op : llvm::make_range(body->begin(), split)) {
    if (early.contains(&op))
      continue;
    if (!isa<AsyncWaitOp, BarrierOp>(op) && !isPure(&op))
      return refuse(&op, "an op before the barrier would run an iteration "
                         "ahead; only waits and pure ops may");
    ahead.insert(&op);
  }
  // The leading reads: up to the first op that uses what they read (or
  // that is neither a read nor pure).
  SmallPtrSet<Operation *, 8> reads;
  for (Operation &op :
       llvm::make_range(split, body->getTerminator()->getIterator())) {
    if (early.contains(&op))
      continue;
    if (isTileRead(&op)) {
      reads.insert(&op);
      continue;
    }
    if (!isPure(&op) || llvm::any_of(op.getOperands(), [&](Value v) {
          return reads.contains(v.getDefiningOp());
        }))
      break;
  }
  if (reads.empty())
    return refuse(nullptr, "no read of a copied tile leads the loop's "
                           "compute after its barrier");
  // Past the loop's end the leading reads run once more: where they read
  // must not move with the iteration (nor leave the tile there).
  for (Operation *read : reads) {
    SmallVector<Value> work;
    for (Value v : read->getOperands())
      if (!isa<SmemType>(v.getType()))
        work.push_back(v);
    SmallPtrSet<Value, 16> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == body)
          return refuse(read, "a leading read's indices depend on the "
                              "iteration; it runs once past the end");
        continue;
      }
      if (Operation *def = v.getDefiningOp(); def && def->getBlock() == body)
        llvm::append_range(work, def->getOperands());
    }
  }
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == body && !early.contains(op);
  };
  options.inclusive = true;
  for (Operation &op : *body) {
    if (!reads.contains(&op))
      continue;
    SetVector<Operation *> slice;
    (void)getBackwardSlice(&op, &slice, options);
    ahead.insert_range(slice);
  }
  lastRead = nullptr;
  for (Operation &op : body->without_terminator())
    if (!early.contains(&op) && !ahead.contains(&op) &&
        llvm::any_of(op.getOperandTypes(), llvm::IsaPred<SmemType>))
      lastRead = &op;
  // What follows the last read now runs after the next iteration's barrier.
  Block::iterator rest =
      lastRead ? std::next(lastRead->getIterator()) : split;
  for (Operation &op :
       llvm::make_range(rest, body->getTerminator()->getIterator()))
    if (!early.contains(&op) && !ahead.contains(&op) &&
        !isMemoryEffectFree(&op))
      return refuse(&op, "what follows the loop's last read of a copied "
                         "tile runs after the next iteration's barrier, so "
                         "it must not touch memory");
  // The ops predicate lets run past the end unchanged.
  for (Operation *op : ahead)
    if (isa<AsyncWaitOp, BarrierOp>(op) || isTileRead(op))
      op->setAttr(kRunAheadAttrName, UnitAttr::get(op->getContext()));
  return success();
}

/// Stage 0: the copies and their slices (copySlices); the last stage:
/// everything else, in the original order. The stage-0 ops come first or,
/// when multiBuffer marked a refill fence, right after it. With prefetch
/// (planPrefetch), stage N - 2's ops and the copies come right after the
/// last stage's last read.
LogicalResult schedule(scf::ForOp loop, unsigned stages, bool prefetch,
                       std::vector<std::pair<Operation *, unsigned>> &order) {
  Block *body = loop.getBody();
  SetVector<Operation *> early = copySlices(body);
  Block::iterator split = body->begin();
  for (Operation &op : body->without_terminator())
    if (op.hasAttr(kRefillFenceAttrName))
      split = std::next(op.getIterator());
  Block::iterator end = body->getTerminator()->getIterator();
  SetVector<Operation *> ahead;
  Operation *lastRead = nullptr;
  if (prefetch && failed(planPrefetch(loop, early, split, ahead, lastRead)))
    return failure();
  auto push = [&](Block::iterator from, Block::iterator to, auto pick,
                  unsigned stage) {
    for (Operation &op : llvm::make_range(from, to))
      if (pick(&op))
        order.push_back({&op, stage});
  };
  auto last = [&](Operation *op) {
    return !early.contains(op) && !ahead.contains(op);
  };
  auto isEarly = [&](Operation *op) { return early.contains(op); };
  if (!prefetch) {
    // The last stage's ops up to the fence (none without one), the copies
    // and their slices, then the rest of the last stage.
    push(body->begin(), split, last, stages - 1);
    push(body->begin(), end, isEarly, 0);
    push(split, end, last, stages - 1);
    return success();
  }
  Block::iterator rest = lastRead ? std::next(lastRead->getIterator()) : split;
  auto isAhead = [&](Operation *op) { return ahead.contains(op); };
  push(split, rest, last, stages - 1);
  push(body->begin(), split, isAhead, stages - 2);
  push(body->begin(), end, isEarly, 0);
  push(split, end, isAhead, stages - 2);
  push(rest, end, last, stages - 1);
  return success();
}

/// A global load the copies depend on (a page index from a block table,
/// say), run ahead for an iteration past the end, reads nothing: its mask
/// (all threads when it has none) and-ed with `pred`, the masked-off
/// threads' value kept (zero when it had no mask). Null when the result
/// type has no zero.
template <class LoadLike>
Operation *predicateLoad(RewriterBase &rewriter, LoadLike load, Value pred,
                         Type elementType) {
  rewriter.setInsertionPoint(load);
  Location loc = load.getLoc();
  Value mask = pred;
  if (Value old = load.getMask())
    mask = arith::AndIOp::create(rewriter, loc, old, pred);
  Value other = load.getOther();
  if (!other) {
    TypedAttr zero = dyn_cast_or_null<TypedAttr>(
        rewriter.getZeroAttr(elementType));
    if (!zero)
      return nullptr;
    other = arith::ConstantOp::create(rewriter, loc, zero);
  }
  rewriter.modifyOpInPlace(load, [&] {
    load.getMaskMutable().assign(mask);
    load.getOtherMutable().assign(other);
  });
  return load;
}

/// An integer division or remainder by a run-time value (not speculatable:
/// the divisor may be 0) divides by 1 past the end.
Operation *predicateDivisor(RewriterBase &rewriter, Operation *op,
                            Value pred) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value divisor = op->getOperand(1);
  Value one = arith::ConstantOp::create(
      rewriter, loc, rewriter.getOneAttr(divisor.getType()));
  Value safe = arith::SelectOp::create(rewriter, loc, pred, divisor, one);
  rewriter.modifyOpInPlace(op, [&] { op->setOperand(1, safe); });
  return op;
}

/// Whether the loop body writes global memory (stores, atomics, fragment
/// or TMA stores), so that its loads may not run ahead of it.
bool writesGlobalMemory(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<StoreOp, StoreVectorOp, AtomicOp, StoreFragmentOp,
                   TmaStoreOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Ops of iterations past the end, which the pipeline runs ahead: copies
/// get a row bound of 0 (nothing read), global loads a false mask,
/// divisions a divisor of 1. Pure ops (index arithmetic, the buffer
/// selects) need no predicate; anything else cannot run ahead (the loop is
/// not pipelined).
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
          arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op) &&
      !isPure(op))
    return predicateDivisor(rewriter, op, pred);
  if (auto load = dyn_cast<LoadOp>(op))
    return predicateLoad(rewriter, load, pred, load.getType());
  if (auto load = dyn_cast<LoadVectorOp>(op))
    return predicateLoad(rewriter, load, pred,
                         load.getResults().front().getType());
  // Prefetch's stage N - 2 past the end: waiting for copies that read
  // nothing, a barrier every thread reaches, reads of an unused buffer at
  // indices that do not move with the iteration (planPrefetch).
  if (op->hasAttr(kRunAheadAttrName))
    return op;
  auto copy = dyn_cast<AsyncCopyOp>(op);
  if (!copy)
    return isPure(op) ? op : nullptr;
  rewriter.setInsertionPoint(copy);
  Value zero = arith::ConstantIntOp::create(rewriter, copy.getLoc(), 0, 32);
  Value rows =
      arith::SelectOp::create(rewriter, copy.getLoc(), pred, copy.getRows(),
                              zero);
  rewriter.modifyOpInPlace(copy, [&] { copy.getRowsMutable().assign(rows); });
  return copy;
}

struct PipelineCopiesPass
    : kaio::impl::PipelineCopiesBase<PipelineCopiesPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kStagesAttrName))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      auto stagesAttr = loop->getAttrOfType<IntegerAttr>(kStagesAttrName);
      if (!stagesAttr || stagesAttr.getInt() < 2 ||
          stagesAttr.getInt() > KaioDialect::kMaxPipelineStages) {
        loop.emitOpError() << "'" << kStagesAttrName
                           << "' must be an integer from 2 to "
                           << KaioDialect::kMaxPipelineStages;
        return signalPassFailure();
      }
      unsigned stages = unsigned(stagesAttr.getInt());
      bool prefetch = loop->hasAttr(kPrefetchAttrName);
      if (prefetch && stages < 3) {
        loop.emitOpError() << "'" << kPrefetchAttrName
                           << "' needs at least 3 stages: the copies of the "
                              "iteration it reads ahead are then in flight";
        return signalPassFailure();
      }
      loop->removeAttr(kStagesAttrName);
      loop->removeAttr(kPrefetchAttrName);
      FailureOr<scf::ForOp> signedForm = signedLoop(loop, rewriter);
      if (failed(signedForm))
        return signalPassFailure();
      FailureOr<scf::ForOp> counted =
          multiBuffer(*signedForm, stages, rewriter);
      if (failed(counted))
        return signalPassFailure();
      loop = *counted;
      std::vector<std::pair<Operation *, unsigned>> order;
      if (failed(schedule(loop, stages, prefetch, order)))
        return signalPassFailure();
      scf::PipeliningOption options;
      options.getScheduleFn =
          [&order](scf::ForOp,
                   std::vector<std::pair<Operation *, unsigned>> &out) {
            out = order;
          };
      options.peelEpilogue = false;
      options.supportDynamicLoops = true;
      // Loads the copies depend on run an iteration ahead: not past the
      // loop's own global stores.
      if (writesGlobalMemory(loop)) {
        Operation *early = nullptr;
        for (auto [op, stage] : order)
          if (stage == 0 && isa<LoadOp, LoadVectorOp>(op) && !early)
            early = op;
        if (early) {
          early->emitOpError()
              << "feeds a pipelined copy, so it would run " << stages - 1
              << (stages == 2 ? " iteration" : " iterations")
              << " ahead of the loop's global stores; load it before the "
                 "loop or pipeline a loop that stores nothing";
          return signalPassFailure();
        }
      }
      options.predicateFn = predicate;
      bool modified = false;
      rewriter.setInsertionPoint(loop);
      FailureOr<scf::ForOp> pipelined =
          scf::pipelineForLoop(rewriter, loop, options, &modified);
      if (failed(pipelined)) {
        loop.emitOpError() << "could not be software-pipelined into "
                           << stages << " stages";
        return signalPassFailure();
      }
      // The fence is in the prologue too when prefetch runs it ahead.
      (*pipelined)->getParentOp()->walk([](Operation *op) {
        op->removeAttr(kRefillFenceAttrName);
        op->removeAttr(kRunAheadAttrName);
      });
    }
  }
};

} // namespace

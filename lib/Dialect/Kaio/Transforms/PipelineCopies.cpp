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
// kaio-group-async-copies then counts, for each wait, the copies of the
// newer iterations that may stay in flight (cp.async.wait_group N - 1
// groups of copies, N - 2 in the second form).
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
/// Marks, between multiBuffer and schedule, the barrier after which the
/// copies are issued (the second form in the header).
constexpr StringLiteral kRefillFenceAttrName = "kaio.refill_fence";

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

/// Stage 0: the copies, the ops of the body they depend on, and what
/// computes the next value of the iter_args those read (the buffer
/// counter); the last stage: everything else, in the original order. The
/// stage-0 ops come first or, when multiBuffer marked a refill fence,
/// right after it.
void schedule(scf::ForOp loop, unsigned stages,
              std::vector<std::pair<Operation *, unsigned>> &order) {
  Block *body = loop.getBody();
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
  // The last stage's ops up to the fence (none without one), the copies
  // and their slices, then the rest of the last stage.
  Block::iterator split = body->begin();
  for (Operation &op : body->without_terminator())
    if (op.hasAttr(kRefillFenceAttrName))
      split = std::next(op.getIterator());
  auto lastStage = [&](Block::iterator from, Block::iterator to) {
    for (Operation &op : llvm::make_range(from, to))
      if (!early.contains(&op))
        order.push_back({&op, stages - 1});
  };
  lastStage(body->begin(), split);
  for (Operation &op : body->without_terminator())
    if (early.contains(&op))
      order.push_back({&op, 0});
  lastStage(split, body->getTerminator()->getIterator());
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
      loop->removeAttr(kStagesAttrName);
      FailureOr<scf::ForOp> signedForm = signedLoop(loop, rewriter);
      if (failed(signedForm))
        return signalPassFailure();
      FailureOr<scf::ForOp> counted =
          multiBuffer(*signedForm, stages, rewriter);
      if (failed(counted))
        return signalPassFailure();
      loop = *counted;
      scf::PipeliningOption options;
      options.getScheduleFn =
          [stages](scf::ForOp forOp,
                   std::vector<std::pair<Operation *, unsigned>> &order) {
            schedule(forOp, stages, order);
          };
      options.peelEpilogue = false;
      options.supportDynamicLoops = true;
      // Loads the copies depend on run an iteration ahead: not past the
      // loop's own global stores.
      if (writesGlobalMemory(loop)) {
        Operation *early = nullptr;
        std::vector<std::pair<Operation *, unsigned>> order;
        schedule(loop, stages, order);
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
      pipelined->walk(
          [](BarrierOp barrier) { barrier->removeAttr(kRefillFenceAttrName); });
    }
  }
};

} // namespace

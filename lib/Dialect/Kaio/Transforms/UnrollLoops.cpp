//===- UnrollLoops.cpp - unroll scf.for loops marked kaio.unroll ----------===//
//
// {kaio.unroll = N} on an scf.for: a main loop of N iterations per trip
// (MLIR's generateUnrolledLoop) up to a split point, then the original loop
// from there for the remaining trip count mod N iterations.
//
// MLIR's loopUnrollByFactor splits dynamic loops with a signed remainder of
// the trip count, which is wrong for the unsigned loops kernels use (a trip
// count of 2^31 or more, or hi < lo, which an unsigned loop may have: the
// wrapped difference then rounds up past hi). With a constant step the
// split here is unsigned (and folds away for constant bounds):
//
//   trips = hi > lo ? ceil((hi - lo) / step) : 0   (ugt for unsigned loops)
//   split = lo + (trips - trips mod N) * step
//
// With a step known only at run time (a block-stride walk: step = ntid)
// that costs a run-time division, which a loop of a few trips notices. The
// main loop then runs while a whole trip fits, iv < hi - (N - 1) step (0
// for an unsigned loop whose hi is below (N - 1) step), and carries its next
// induction value, where the remainder loop starts: no division.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace kaio {
#define GEN_PASS_DEF_UNROLLLOOPS
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// The first induction value the remainder loop runs: lo plus the largest
/// multiple of `factor` trips that the loop has.
Value splitPoint(OpBuilder &b, scf::ForOp loop, uint64_t factor) {
  Location loc = loop.getLoc();
  Value lo = loop.getLowerBound(), hi = loop.getUpperBound(),
        step = loop.getStep();
  Type type = lo.getType();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value zero = constant(0);
  Value nonEmpty =
      arith::CmpIOp::create(b, loc,
                            loop.getUnsignedCmp() ? arith::CmpIPredicate::ugt
                                                  : arith::CmpIPredicate::sgt,
                            hi, lo);
  // hi - lo is the distance as an unsigned number whenever hi > lo (also
  // for a signed loop whose difference overflows the signed range).
  Value distance = arith::SubIOp::create(b, loc, hi, lo);
  Value whole = arith::DivUIOp::create(b, loc, distance, step);
  Value part = arith::RemUIOp::create(b, loc, distance, step);
  Value ragged =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, part, zero);
  Value trips = arith::AddIOp::create(
      b, loc, whole, arith::ExtUIOp::create(b, loc, type, ragged));
  trips = arith::SelectOp::create(b, loc, nonEmpty, trips, zero);
  Value left = arith::RemUIOp::create(b, loc, trips, constant(factor));
  Value mainTrips = arith::SubIOp::create(b, loc, trips, left);
  return arith::AddIOp::create(b, loc, lo,
                               arith::MulIOp::create(b, loc, mainTrips, step));
}

/// The main loop: N iterations per trip up to `upper`, iteration i at
/// iv + i * step.
void unrollBody(OpBuilder &b, scf::ForOp loop, uint64_t factor, Value upper) {
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  Value step = loop.getStep();
  Value factorValue = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(step.getType(), int64_t(factor)));
  loop.setUpperBound(upper);
  loop.setStep(arith::MulIOp::create(b, loc, step, factorValue));
  Block *body = loop.getBody();
  generateUnrolledLoop(
      body, loop.getInductionVar(), factor,
      [&](unsigned i, Value iv, OpBuilder ib) -> Value {
        Value offset = arith::MulIOp::create(
            ib, loc, step,
            arith::ConstantOp::create(
                ib, loc, ib.getIntegerAttr(step.getType(), int64_t(i))));
        return arith::AddIOp::create(ib, loc, iv, offset);
      },
      /*annotateFn=*/nullptr, loop.getRegionIterArgs(),
      body->getTerminator()->getOperands());
}

/// The remainder: a copy of the original loop after it, which takes over
/// the loop's uses; returns it (its bounds and inits still to be set).
scf::ForOp cloneRemainder(OpBuilder &b, scf::ForOp loop) {
  b.setInsertionPointAfter(loop);
  auto rest = cast<scf::ForOp>(b.clone(*loop));
  loop->replaceAllUsesWith(rest->getResults());
  return rest;
}

LogicalResult unroll(scf::ForOp loop, uint64_t factor) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Type type = loop.getLowerBound().getType();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  if (matchPattern(loop.getStep(), m_Constant())) {
    Value split = splitPoint(b, loop, factor);
    scf::ForOp rest = cloneRemainder(b, loop);
    rest.setLowerBound(split);
    for (auto [init, result] :
         llvm::zip(rest.getInitArgsMutable(), loop->getResults()))
      init.set(result);
    unrollBody(b, loop, factor, split);
    return success();
  }
  // A run-time step: the main loop runs while iv + (N - 1) step < hi and
  // carries the next induction value for the remainder.
  Value lo = loop.getLowerBound(), hi = loop.getUpperBound();
  Value span = arith::MulIOp::create(b, loc, loop.getStep(),
                                     constant(int64_t(factor) - 1));
  Value upper = arith::SubIOp::create(b, loc, hi, span);
  if (loop.getUnsignedCmp()) {
    Value fits =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, hi, span);
    upper = arith::SelectOp::create(b, loc, fits, upper, constant(0));
  }
  scf::ForOp rest = cloneRemainder(b, loop);
  unrollBody(b, loop, factor, upper);
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Value stride = loop.getStep();
  FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{lo}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> args) {
        Value iv = args.front().getOwner()->getArgument(0);
        return SmallVector<Value>{arith::AddIOp::create(yb, l, iv, stride)};
      });
  if (failed(carried))
    return loop.emitOpError() << "could not carry the next induction value "
                                 "out of the unrolled loop";
  auto main = cast<scf::ForOp>(carried->getOperation());
  unsigned n = rest.getInitArgs().size();
  for (unsigned i = 0; i < n; ++i)
    rest.getInitArgsMutable()[i].set(main->getResult(i));
  rest.setLowerBound(main->getResult(n));
  return success();
}

struct UnrollLoopsPass : kaio::impl::UnrollLoopsBase<UnrollLoopsPass> {
  void runOnOperation() override {
    // Post-order: inner loops first, so an outer loop clones unrolled ones.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(KaioDialect::kUnrollAttrName))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto factor =
          loop->getAttrOfType<IntegerAttr>(KaioDialect::kUnrollAttrName);
      if (!factor || factor.getInt() < 1 ||
          factor.getInt() > KaioDialect::kMaxUnroll) {
        loop.emitOpError() << "'" << KaioDialect::kUnrollAttrName
                           << "' is an integer from 1 to "
                           << KaioDialect::kMaxUnroll;
        return signalPassFailure();
      }
      loop->removeAttr(KaioDialect::kUnrollAttrName);
      if (factor.getInt() > 1 &&
          failed(unroll(loop, uint64_t(factor.getInt()))))
        return signalPassFailure();
    }
  }
};

} // namespace

//===- UnrollLoops.cpp - unroll scf.for loops marked kaio.unroll ----------===//
//
// {kaio.unroll = N} on an scf.for: a main loop of N iterations per trip
// (MLIR's generateUnrolledLoop) up to a split point, then the original loop
// from there for the remaining trip count mod N iterations.
//
// MLIR's loopUnrollByFactor splits dynamic loops with a signed remainder of
// the trip count, which is wrong for the unsigned loops kernels use (a trip
// count of 2^31 or more, or hi < lo, which an unsigned loop may have: the
// wrapped difference then rounds up past hi). The split here is unsigned:
//
//   trips = hi > lo ? ceil((hi - lo) / step) : 0   (ugt for unsigned loops)
//   split = lo + (trips - trips mod N) * step
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"

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
  Value nonEmpty = arith::CmpIOp::create(
      b, loc,
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
  return arith::AddIOp::create(
      b, loc, lo, arith::MulIOp::create(b, loc, mainTrips, step));
}

void unroll(scf::ForOp loop, uint64_t factor) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value split = splitPoint(b, loop, factor);
  // The remainder: the original loop from the split point on, fed by the
  // main loop's results.
  b.setInsertionPointAfter(loop);
  auto rest = cast<scf::ForOp>(b.clone(*loop));
  rest.setLowerBound(split);
  loop->replaceAllUsesWith(rest->getResults());
  for (auto [init, result] :
       llvm::zip(rest.getInitArgsMutable(), loop->getResults()))
    init.set(result);
  // The main loop: N iterations per trip, iteration i at iv + i * step.
  b.setInsertionPoint(loop);
  Value step = loop.getStep();
  Value factorValue = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(step.getType(), int64_t(factor)));
  loop.setUpperBound(split);
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
      if (factor.getInt() > 1)
        unroll(loop, uint64_t(factor.getInt()));
    }
  }
};

} // namespace

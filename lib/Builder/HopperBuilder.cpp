//===- HopperBuilder.cpp - the builder's sm_90a tile ops ------------------===//
//
// The out-of-line half of include/Kaio/Builder/Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Builder/Hopper.h"
#include "KernelState.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace kaio;
namespace kb = kaio::builder;
namespace kbd = kaio::builder::detail;
using kb::SrcLoc;
using kbd::KernelState;

Value kbd::tensorMapParam(kb::KernelBuilder &k, ScalarId elem,
                          ArrayRef<int64_t> box, unsigned swizzle,
                          StringRef name, SrcLoc where) {
  KernelState *st = k.state();
  Location loc = st->loc(where);
  // The type verifier's message, reported at the C++ call site.
  std::string message;
  TensorMapType type;
  {
    ScopedDiagnosticHandler handler(st->ctx(), [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    type = TensorMapType::getChecked([&] { return emitError(loc); },
                                     st->ctx(), box, scalarType(st, elem),
                                     int64_t(swizzle));
  }
  if (!type) {
    st->error(where, "invalid tensor map type: " + message);
    type = TensorMapType::get(st->ctx(), {1, 8}, st->b.getF16Type(), 0);
  }
  if (!name.empty())
    loc = NameLoc::get(StringAttr::get(st->ctx(), name), loc);
  st->argTypes.push_back(type);
  st->readOnly.push_back(false);
  st->isSigned.push_back(false);
  return st->kernel.getBody().front().addArgument(type, loc);
}

Value kbd::mbarriers(kb::KernelBuilder &k, int64_t count, SrcLoc where) {
  KernelState *st = k.state();
  if (count < 1) {
    st->error(where, "mbarriers: need at least one barrier");
    count = 1;
  }
  return SharedAllocOp::create(
      st->b, st->loc(where),
      SmemType::get(st->ctx(), {count}, st->b.getI64Type(), nullptr));
}

void kb::MBarriers::init(Index i, Index count, SrcLoc where) const {
  MBarrierInitOp::create(st_->b, st_->loc(where), value_, i.materialize(st_),
                         count.materialize(st_));
}

void kb::MBarriers::arrive(Index i, SrcLoc where) const {
  MBarrierArriveOp::create(st_->b, st_->loc(where), value_,
                           i.materialize(st_), Value(), Value());
}

void kb::MBarriers::arriveExpectTx(Index i, Index bytes, SrcLoc where) const {
  MBarrierArriveOp::create(st_->b, st_->loc(where), value_,
                           i.materialize(st_), bytes.materialize(st_),
                           Value());
}

void kb::MBarriers::wait(Index i, Index parity, SrcLoc where) const {
  MBarrierWaitOp::create(st_->b, st_->loc(where), value_, i.materialize(st_),
                         parity.materialize(st_));
}

void kbd::tmaLoad(KernelState *st, Value map, ArrayRef<Value> coords,
                  Value dst, Value row, Value bars, Value index,
                  SrcLoc where) {
  TmaLoadOp::create(st->b, st->loc(where), map, coords, dst, row, bars,
                    index, /*multicast=*/Value());
}

Value kbd::warpgroupMma(KernelState *st, Value a, Value aRow,
                        std::optional<int64_t> transposedAK, Value b,
                        Value bRow, bool transposeB, Value acc,
                        SrcLoc where) {
  IntegerAttr k = transposedAK ? st->b.getI64IntegerAttr(*transposedAK)
                               : IntegerAttr();
  return WarpgroupMmaOp::create(st->b, st->loc(where), acc.getType(), a, aRow,
                                transposedAK.has_value(), b, bRow, transposeB,
                                acc, k);
}

Value kbd::warpgroupWait(KernelState *st, Value acc, unsigned pending,
                         SrcLoc where) {
  return WarpgroupWaitOp::create(st->b, st->loc(where), ValueRange{acc},
                                 pending)
      .getResult(0);
}

void kb::warpgroupWait(KernelBuilder &k, unsigned pending, SrcLoc where) {
  KernelState *st = k.state();
  WarpgroupWaitOp::create(st->b, st->loc(where), ValueRange{}, pending);
}

void kb::setMaxNReg(KernelBuilder &k, RegisterAction action, unsigned count,
                    SrcLoc where) {
  KernelState *st = k.state();
  SetMaxNRegOp::create(st->b, st->loc(where), action, count);
}

void kbd::tmaStore(KernelState *st, Value src, Value row, Value map,
                   ArrayRef<Value> coords, SrcLoc where) {
  TmaStoreOp::create(st->b, st->loc(where), src, row, map, coords);
}

void kb::tmaStoreWait(KernelBuilder &k, unsigned pending, SrcLoc where) {
  KernelState *st = k.state();
  TmaStoreWaitOp::create(st->b, st->loc(where), pending);
}

void kb::fenceProxyAsync(KernelBuilder &k, SrcLoc where) {
  KernelState *st = k.state();
  FenceProxyAsyncOp::create(st->b, st->loc(where));
}

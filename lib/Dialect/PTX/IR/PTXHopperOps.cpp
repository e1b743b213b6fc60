//===- PTXHopperOps.cpp - sm_90 ptx operations ----------------------------===//
//
// Verifiers and attribute-dependent requirements of the Hopper instruction
// families (PTXHopperOps.td). The minimum PTX ISA versions are those ptxas
// (CUDA 13) enforces, which match the PTX ISA's "PTX ISA Notes".
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kaio::ptx;

#define GET_OP_CLASSES
#include "Kaio/Dialect/PTX/IR/PTXHopperOps.cpp.inc"

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

/// `.sem.scope` of the mbarrier ops: both or neither, `sem` one of
/// `allowed`, scope .cta or .cluster.
static LogicalResult verifySemScope(Operation *op, std::optional<MemOrder> sem,
                                    std::optional<MemScope> scope,
                                    ArrayRef<MemOrder> allowed) {
  if (sem.has_value() != scope.has_value())
    return op->emitOpError("memory order and scope come together");
  if (!sem)
    return success();
  if (!llvm::is_contained(allowed, *sem)) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "does not take ." << stringifyMemOrder(*sem)
                              << "; expected";
    for (MemOrder m : allowed)
      diag << " ." << stringifyMemOrder(m);
    return diag;
  }
  if (*scope != MemScope::cta && *scope != MemScope::cluster)
    return op->emitOpError("scope must be .cta or .cluster");
  return success();
}

/// The mbarrier operand of an op that may reach another CTA's barrier.
static LogicalResult verifyBarrierSpace(Operation *op, StateSpace space) {
  if (space != StateSpace::shared && space != StateSpace::shared_cluster)
    return op->emitOpError("the mbarrier is in .shared or .shared::cluster "
                           "memory");
  return success();
}

/// `.relaxed` arrived in PTX ISA 8.6, `.release`/`.acquire` in 8.0.
static PTXRequirement semRequirement(std::optional<MemOrder> sem) {
  if (!sem)
    return {};
  if (*sem == MemOrder::relaxed)
    return {90, 86};
  return {90, 80};
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyBarrierSpace(*this, getSpace())) ||
      failed(verifySemScope(*this, getSem(), getScope(),
                            {MemOrder::release, MemOrder::relaxed})))
    return failure();
  if (getExpectTx() && !getCount())
    return emitOpError(".expect_tx needs a transaction byte count");
  if (getSpace() == StateSpace::shared_cluster && getState())
    return emitOpError("an arrive on a .shared::cluster barrier returns no "
                       "state");
  return success();
}

PTXRequirement MBarrierArriveOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  if (getCount())
    req = req.join({90, 78});
  if (getExpectTx() || getSpace() == StateSpace::shared_cluster)
    req = req.join({90, 80});
  return req.join(semRequirement(getSem()));
}

LogicalResult MBarrierExpectTxOp::verify() {
  return failure(failed(verifyBarrierSpace(*this, getSpace())) ||
                 failed(verifySemScope(*this, getSem(), getScope(),
                                       {MemOrder::relaxed})));
}

LogicalResult MBarrierTryWaitOp::verify() {
  if (failed(verifySemScope(*this, getSem(), getScope(),
                            {MemOrder::acquire, MemOrder::relaxed})))
    return failure();
  if (getParity() != getPhase().getType().isInteger(32))
    return emitOpError(getParity() ? "the phase parity is an i32 register"
                                   : "the phase state is an i64 register");
  return success();
}

PTXRequirement MBarrierTryWaitOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(semRequirement(getSem()));
}

//===----------------------------------------------------------------------===//
// Proxy fences, elect.sync, setmaxnreg
//===----------------------------------------------------------------------===//

LogicalResult FenceProxyAsyncOp::verify() {
  std::optional<StateSpace> space = getSpace();
  if (space && *space != StateSpace::shared &&
      *space != StateSpace::shared_cluster && *space != StateSpace::global)
    return emitOpError("fence.proxy.async takes .shared, .shared::cluster or "
                       ".global");
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  uint32_t n = getCount();
  if (n < 24 || n > 256 || n % 8 != 0)
    return emitOpError("register count must be a multiple of 8 in [24, 256]");
  return success();
}

//===----------------------------------------------------------------------===//
// Thread block clusters
//===----------------------------------------------------------------------===//

LogicalResult BarrierClusterArriveOp::verify() {
  if (auto sem = getSem();
      sem && *sem != MemOrder::release && *sem != MemOrder::relaxed)
    return emitOpError("barrier.cluster.arrive takes .release or .relaxed");
  return success();
}

PTXRequirement BarrierClusterArriveOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  return getSem() ? req.join({90, 80}) : req;
}

LogicalResult BarrierClusterWaitOp::verify() {
  if (auto sem = getSem(); sem && *sem != MemOrder::acquire)
    return emitOpError("barrier.cluster.wait takes .acquire");
  return success();
}

PTXRequirement BarrierClusterWaitOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  return getSem() ? req.join({90, 80}) : req;
}

LogicalResult MapaOp::verify() {
  StateSpace space = getSpace();
  if (space != StateSpace::generic && space != StateSpace::shared_cluster)
    return emitOpError("mapa maps generic or .shared::cluster addresses");
  if (space == StateSpace::generic && !getAddr().getType().isInteger(64))
    return emitOpError("generic addresses are 64-bit");
  return success();
}

//===----------------------------------------------------------------------===//
// Bulk asynchronous copies (TMA)
//===----------------------------------------------------------------------===//

/// Bulk copies move multiples of 16 bytes; a size known at compile time (a
/// ptx.constant) is checked here.
static LogicalResult verifyBulkSize(Operation *op, Value size) {
  APInt bytes;
  if (!matchPattern(size, m_ConstantInt(&bytes)))
    return success();
  if (bytes.getSExtValue() <= 0 || bytes.getSExtValue() % 16 != 0)
    return op->emitOpError() << "copies a positive multiple of 16 bytes, got "
                             << bytes.getSExtValue();
  return success();
}

/// One s32 coordinate per dimension of the tensor map's box.
static LogicalResult verifyTensorCoords(Operation *op, uint32_t dim,
                                        ValueRange coords) {
  if (coords.size() != dim)
    return op->emitOpError() << "a " << dim << "d tensor copy takes " << dim
                             << " coordinates, got " << coords.size();
  return success();
}

/// `.multicast::cluster` assembles for sm_90 with an advisory to use sm_90a;
/// KAIO asks for sm_90a.
static PTXRequirement multicastRequirement(PTXRequirement base,
                                           Value ctaMask) {
  return ctaMask ? base.join({90, 80, /*archSpecific=*/true}) : base;
}

LogicalResult CpAsyncBulkLoadOp::verify() {
  return verifyBulkSize(*this, getSize());
}

PTXRequirement CpAsyncBulkLoadOp::getPTXRequirement() {
  return multicastRequirement(getStaticPTXRequirement(), getCtaMask());
}

LogicalResult CpAsyncBulkStoreOp::verify() {
  return verifyBulkSize(*this, getSize());
}

LogicalResult CpAsyncBulkWaitGroupOp::verify() {
  if (getNAttr().getInt() < 0)
    return emitOpError("group count must be non-negative");
  return success();
}

LogicalResult CpAsyncBulkTensorLoadOp::verify() {
  return verifyTensorCoords(*this, getDim(), getCoords());
}

PTXRequirement CpAsyncBulkTensorLoadOp::getPTXRequirement() {
  return multicastRequirement(getStaticPTXRequirement(), getCtaMask());
}

LogicalResult CpAsyncBulkTensorStoreOp::verify() {
  return verifyTensorCoords(*this, getDim(), getCoords());
}

LogicalResult CpAsyncBulkPrefetchTensorOp::verify() {
  return verifyTensorCoords(*this, getDim(), getCoords());
}

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

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// `m64n128k16`: the wgmma shape (M is always 64).
static ParseResult parseWgmmaShape(OpAsmParser &parser, IntegerAttr &n,
                                   IntegerAttr &k) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef shape;
  if (parser.parseKeyword(&shape))
    return failure();
  auto [nText, kText] = shape.split('k');
  unsigned nValue, kValue;
  if (!nText.consume_front("m64n") || nText.getAsInteger(10, nValue) ||
      kText.getAsInteger(10, kValue))
    return parser.emitError(loc, "expected a wgmma shape m64nNkK");
  n = parser.getBuilder().getI32IntegerAttr(nValue);
  k = parser.getBuilder().getI32IntegerAttr(kValue);
  return success();
}

static void printWgmmaShape(OpAsmPrinter &p, Operation *, IntegerAttr n,
                            IntegerAttr k) {
  p << "m64n" << n.getInt() << "k" << k.getInt();
}

/// `f32` or `f32, i32`: the one type of the accumulators (old and new) and,
/// when A is a register fragment, the one type of its registers. The
/// verifier checks that they are uniform.
static ParseResult
parseWgmmaTypes(OpAsmParser &parser,
                ArrayRef<OpAsmParser::UnresolvedOperand> acc,
                SmallVectorImpl<Type> &accTypes, SmallVectorImpl<Type> &dTypes,
                ArrayRef<OpAsmParser::UnresolvedOperand> a,
                SmallVectorImpl<Type> &aTypes) {
  Type accType;
  if (parser.parseType(accType))
    return failure();
  accTypes.assign(acc.size(), accType);
  dTypes.assign(acc.size(), accType);
  if (a.empty())
    return success();
  Type aType;
  if (parser.parseComma() || parser.parseType(aType))
    return failure();
  aTypes.assign(a.size(), aType);
  return success();
}

static void printWgmmaTypes(OpAsmPrinter &p, Operation *, OperandRange,
                            TypeRange accTypes, TypeRange, OperandRange,
                            TypeRange aTypes) {
  if (!accTypes.empty())
    p << accTypes.front();
  if (!aTypes.empty())
    p << ", " << aTypes.front();
}

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

//===----------------------------------------------------------------------===//
// Warpgroup matrix multiply-accumulate (wgmma)
//===----------------------------------------------------------------------===//

static std::string typeName(PTXType t) {
  return ("." + stringifyPTXType(t)).str();
}

LogicalResult WgmmaWaitGroupOp::verify() {
  if (getNAttr().getInt() < 0)
    return emitOpError("group count must be non-negative");
  return success();
}

/// The register type holding elements of `type` in a wgmma operand: packed
/// 16-bit pairs in .b32 (f16x2/bf16x2), 8-bit quads and tf32 in .b32, f32
/// and s32 accumulators in registers of their own type.
static PTXType wgmmaRegisterType(PTXType type) {
  switch (type) {
  case PTXType::f16:
    return PTXType::f16x2;
  case PTXType::bf16:
    return PTXType::bf16x2;
  case PTXType::f32:
  case PTXType::s32:
    return type;
  default:
    return PTXType::b32;
  }
}

/// `count` registers, all of one type, that hold `type`.
static LogicalResult verifyWgmmaRegs(Operation *op, StringRef name,
                                     TypeRange types, unsigned count,
                                     PTXType type) {
  if (types.size() != count)
    return op->emitOpError() << "takes " << count << " " << name
                             << " registers per thread, got " << types.size();
  if (!llvm::all_equal(types))
    return op->emitOpError() << name << " registers must have one type";
  if (!types.empty() &&
      !isRegisterCompatible(wgmmaRegisterType(type), types.front()))
    return op->emitOpError() << name << " register of type " << types.front()
                             << " does not hold " << typeName(type);
  return success();
}

LogicalResult WgmmaMmaAsyncOp::verify() {
  const WgmmaVariant *v = lookupWgmma(getDType(), getAType(), getBType());
  if (!v)
    return emitOpError() << "no wgmma.mma_async with D " << typeName(getDType())
                         << ", A " << typeName(getAType()) << ", B "
                         << typeName(getBType());
  if (getK() != v->k)
    return emitOpError() << "A " << typeName(getAType()) << " takes K = "
                         << v->k << ", got " << getK();
  if (!v->isLegalN(getN())) {
    InFlightDiagnostic diag = emitOpError()
                              << "N = " << getN() << " is not legal for "
                              << typeName(getAType()) << "; expected ";
    if (v->nFineUpTo)
      diag << "a multiple of 8 up to " << v->nFineUpTo << ", or ";
    return diag << "a multiple of " << v->nStep << " up to 256";
  }

  // Accumulators: read and written, so the results match them one to one.
  if (failed(verifyWgmmaRegs(*this, "accumulator", getAcc().getTypes(),
                             v->getAccRegs(getN()), getDType())))
    return failure();
  if (getD().getTypes() != getAcc().getTypes())
    return emitOpError("results must match the accumulators they update");

  // A: a register fragment or a descriptor.
  if (getA().empty() == !getADesc())
    return emitOpError("A is either a register fragment or a descriptor");
  if (!getA().empty() &&
      failed(verifyWgmmaRegs(*this, "A", getA().getTypes(), v->aRegs,
                             getAType())))
    return failure();

  // Modifiers, where the variant takes them.
  if (getScaleD() && getScaleDImm())
    return emitOpError("scale-d is a predicate or an immediate, not both");
  if (auto imm = getScaleDImm(); imm && *imm != 0 && *imm != 1)
    return emitOpError("immediate scale-d is 0 or 1");
  for (auto [name, scale] : {std::pair{"scale-a", getScaleA()},
                             std::pair{"scale-b", getScaleB()}}) {
    if (!scale)
      continue;
    if (!v->has(WgmmaModifier::ScaleAB))
      return emitOpError() << typeName(getAType()) << " wgmma takes no "
                           << "imm-" << name;
    if (static_cast<int32_t>(*scale) != 1 &&
        static_cast<int32_t>(*scale) != -1)
      return emitOpError() << "imm-" << name << " is 1 or -1";
  }
  if ((getTransA() || getTransB()) && !v->has(WgmmaModifier::Transpose))
    return emitOpError() << typeName(getAType())
                         << " wgmma takes no transpose";
  if (getTransA() && !getADesc())
    return emitOpError("imm-trans-a applies to A from a descriptor only");
  if (getSatfinite() && !v->has(WgmmaModifier::Satfinite))
    return emitOpError(".satfinite applies to integer wgmma only");
  return success();
}

PTXRequirement WgmmaMmaAsyncOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  if (const WgmmaVariant *v = lookupWgmma(getDType(), getAType(), getBType()))
    req = req.join(v->requirement);
  return req;
}

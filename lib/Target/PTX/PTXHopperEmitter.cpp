//===- PTXHopperEmitter.cpp - print the sm_90 ptx ops ---------------------===//
//
// The PTX text of the Hopper instruction families (PTXHopperOps.td).
//
//===----------------------------------------------------------------------===//

#include "InstPrinter.h"

#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kaio::ptx;

static std::string dot(StringRef s) { return ("." + s).str(); }

std::string kaio::ptx::explicitSpaceMod(StateSpace space) {
  switch (space) {
  case StateSpace::generic:
    return "";
  case StateSpace::shared:
    return ".shared::cta";
  case StateSpace::shared_cluster:
    return ".shared::cluster";
  default:
    return dot(stringifyStateSpace(space));
  }
}

static std::string semScope(std::optional<MemOrder> sem,
                            std::optional<MemScope> scope) {
  std::string s;
  if (sem)
    s += dot(stringifyMemOrder(*sem));
  if (scope)
    s += dot(stringifyMemScope(*scope));
  return s;
}

/// `[%rd1, {%r1, %r2}]`: a tensor map and the box coordinates.
static std::string tensorOperand(InstPrinter &p, Value tensorMap,
                                 ValueRange coords) {
  return "[" + p.reg(tensorMap) + ", " + p.regList(coords) + "]";
}

static std::string dimMod(uint32_t dim) {
  return "." + std::to_string(dim) + "d";
}

/// wgmma accumulates in place. Register coalescing (RegisterCoalescing.h)
/// gives each new accumulator its old one's register when nothing else
/// reads the old value later; otherwise the old value is copied into the new
/// register first (unless scale-d is 0 and nothing guards the wgmma: then
/// the old values do not matter), and a wgmma.fence follows the copies: PTX
/// requires one between a register write and the wgmma that reads it, and
/// the copies come after the fence the kernel put before its group. A
/// guarded-off wgmma then leaves the new accumulators equal to the old ones.
static void tieAccumulators(WgmmaMmaAsyncOp op, InstPrinter &p) {
  if (wgmmaIgnoresAccumulators(op))
    return;
  bool copied = false;
  for (auto [acc, d] : llvm::zip_equal(op.getAcc(), op.getD())) {
    if (p.reg(d) == p.reg(acc))
      continue;
    std::optional<RegisterClass> rc = getRegisterClass(d.getType());
    p.stream() << "\t" << (rc && rc->declType == ".f32" ? "mov.f32 " : "mov.b32 ")
               << p.reg(d) << ", " << p.reg(acc) << ";\n";
    copied = true;
  }
  if (copied)
    p.stream() << "\twgmma.fence.sync.aligned;\n";
}

std::optional<LogicalResult> kaio::ptx::emitHopperOp(Operation *op,
                                                     InstPrinter &p) {
  using Result = std::optional<LogicalResult>;
  return TypeSwitch<Operation *, Result>(op)
      .Case([&](MBarrierInitOp o) -> Result {
        p.begin(op) << "mbarrier.init.shared::cta.b64 " << p.address(o.getAddr())
                    << ", " << p.reg(o.getCount()) << ";\n";
        return success();
      })
      .Case([&](MBarrierInvalOp o) -> Result {
        p.begin(op) << "mbarrier.inval.shared::cta.b64 "
                    << p.address(o.getAddr()) << ";\n";
        return success();
      })
      .Case([&](MBarrierArriveOp o) -> Result {
        raw_ostream &os = p.begin(op);
        os << "mbarrier.arrive" << (o.getExpectTx() ? ".expect_tx" : "")
           << semScope(o.getSem(), o.getScope())
           << explicitSpaceMod(o.getSpace()) << ".b64 "
           << (o.getState() ? p.reg(o.getState()) : std::string("_")) << ", "
           << p.address(o.getAddr());
        if (o.getCount())
          os << ", " << p.reg(o.getCount());
        os << ";\n";
        return success();
      })
      .Case([&](MBarrierExpectTxOp o) -> Result {
        p.begin(op) << "mbarrier.expect_tx" << semScope(o.getSem(), o.getScope())
                    << explicitSpaceMod(o.getSpace()) << ".b64 "
                    << p.address(o.getAddr()) << ", " << p.reg(o.getTxCount())
                    << ";\n";
        return success();
      })
      .Case([&](MBarrierTryWaitOp o) -> Result {
        raw_ostream &os = p.begin(op);
        os << "mbarrier.try_wait" << (o.getParity() ? ".parity" : "")
           << semScope(o.getSem(), o.getScope()) << ".shared::cta.b64 "
           << p.reg(o.getReady()) << ", " << p.address(o.getAddr()) << ", "
           << p.reg(o.getPhase());
        if (o.getHint())
          os << ", " << p.reg(o.getHint());
        os << ";\n";
        return success();
      })
      .Case([&](FenceProxyAsyncOp o) -> Result {
        p.begin(op) << "fence.proxy.async"
                    << (o.getSpace() ? explicitSpaceMod(*o.getSpace()) : "")
                    << ";\n";
        return success();
      })
      .Case([&](FenceMBarrierInitOp) -> Result {
        p.begin(op) << "fence.mbarrier_init.release.cluster;\n";
        return success();
      })
      .Case([&](ElectSyncOp o) -> Result {
        p.begin(op) << "elect.sync "
                    << (o.getLeader().use_empty() ? std::string("_")
                                                  : p.reg(o.getLeader()))
                    << "|" << p.reg(o.getIsLeader()) << ", "
                    << p.reg(o.getMask()) << ";\n";
        return success();
      })
      .Case([&](SetMaxNRegOp o) -> Result {
        p.begin(op) << "setmaxnreg" << dot(stringifySetMaxNRegAction(o.getAction()))
                    << ".sync.aligned.u32 " << o.getCount() << ";\n";
        return success();
      })
      .Case([&](BarrierClusterArriveOp o) -> Result {
        p.begin(op) << "barrier.cluster.arrive"
                    << (o.getSem() ? dot(stringifyMemOrder(*o.getSem())) : "")
                    << (o.getAligned() ? ".aligned" : "") << ";\n";
        return success();
      })
      .Case([&](BarrierClusterWaitOp o) -> Result {
        p.begin(op) << "barrier.cluster.wait"
                    << (o.getSem() ? dot(stringifyMemOrder(*o.getSem())) : "")
                    << (o.getAligned() ? ".aligned" : "") << ";\n";
        return success();
      })
      .Case([&](MapaOp o) -> Result {
        p.begin(op) << "mapa" << explicitSpaceMod(o.getSpace())
                    << (o.getType().isInteger(64) ? ".u64 " : ".u32 ")
                    << p.reg(o.getResult()) << ", " << p.reg(o.getAddr())
                    << ", " << p.reg(o.getRank()) << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkLoadOp o) -> Result {
        raw_ostream &os = p.begin(op);
        os << "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
           << (o.getCtaMask() ? ".multicast::cluster " : " ")
           << p.address(o.getDst()) << ", " << p.address(o.getSrc()) << ", "
           << p.reg(o.getSize()) << ", " << p.address(o.getMbar());
        if (o.getCtaMask())
          os << ", " << p.reg(o.getCtaMask());
        os << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkStoreOp o) -> Result {
        p.begin(op) << "cp.async.bulk.global.shared::cta.bulk_group "
                    << p.address(o.getDst()) << ", " << p.address(o.getSrc())
                    << ", " << p.reg(o.getSize()) << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkCommitGroupOp) -> Result {
        p.begin(op) << "cp.async.bulk.commit_group;\n";
        return success();
      })
      .Case([&](CpAsyncBulkWaitGroupOp o) -> Result {
        p.begin(op) << "cp.async.bulk.wait_group" << (o.getRead() ? ".read " : " ")
                    << o.getN() << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkTensorLoadOp o) -> Result {
        raw_ostream &os = p.begin(op);
        os << "cp.async.bulk.tensor" << dimMod(o.getDim())
           << ".shared::cluster.global.tile.mbarrier::complete_tx::bytes"
           << (o.getCtaMask() ? ".multicast::cluster " : " ")
           << p.address(o.getDst()) << ", "
           << tensorOperand(p, o.getTensorMap(), o.getCoords()) << ", "
           << p.address(o.getMbar());
        if (o.getCtaMask())
          os << ", " << p.reg(o.getCtaMask());
        os << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkTensorStoreOp o) -> Result {
        p.begin(op) << "cp.async.bulk.tensor" << dimMod(o.getDim())
                    << ".global.shared::cta.tile.bulk_group "
                    << tensorOperand(p, o.getTensorMap(), o.getCoords())
                    << ", " << p.address(o.getSrc()) << ";\n";
        return success();
      })
      .Case([&](CpAsyncBulkPrefetchTensorOp o) -> Result {
        p.begin(op) << "cp.async.bulk.prefetch.tensor" << dimMod(o.getDim())
                    << ".L2.global.tile "
                    << tensorOperand(p, o.getTensorMap(), o.getCoords())
                    << ";\n";
        return success();
      })
      .Case([&](WgmmaFenceOp) -> Result {
        p.begin(op) << "wgmma.fence.sync.aligned;\n";
        return success();
      })
      .Case([&](WgmmaCommitGroupOp) -> Result {
        p.begin(op) << "wgmma.commit_group.sync.aligned;\n";
        return success();
      })
      .Case([&](WgmmaWaitGroupOp o) -> Result {
        p.begin(op) << "wgmma.wait_group.sync.aligned " << o.getN() << ";\n";
        return success();
      })
      .Case([&](WgmmaMmaAsyncOp o) -> Result {
        const WgmmaVariant *v =
            lookupWgmma(o.getDType(), o.getAType(), o.getBType());
        if (!v)
          return o.emitOpError("is not in the wgmma table");
        tieAccumulators(o, p);
        raw_ostream &os = p.begin(op);
        os << "wgmma.mma_async.sync.aligned.m64n" << o.getN() << "k" << o.getK()
           << (o.getSatfinite() ? ".satfinite" : "")
           << dot(stringifyPTXType(o.getDType()))
           << dot(stringifyPTXType(o.getAType()))
           << dot(stringifyPTXType(o.getBType())) << " " << p.regList(o.getD())
           << ", "
           << (o.getADesc() ? p.reg(o.getADesc()) : p.regList(o.getA()))
           << ", " << p.reg(o.getBDesc()) << ", ";
        if (o.getScaleD())
          os << p.reg(o.getScaleD());
        else
          os << o.getScaleDImm().value_or(1);
        if (v->has(WgmmaModifier::ScaleAB))
          os << ", " << static_cast<int32_t>(o.getScaleA().value_or(1)) << ", "
             << static_cast<int32_t>(o.getScaleB().value_or(1));
        if (v->has(WgmmaModifier::Transpose)) {
          if (o.getADesc())
            os << ", " << (o.getTransA() ? 1 : 0);
          os << ", " << (o.getTransB() ? 1 : 0);
        }
        os << ";\n";
        return success();
      })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

//===- PTXHopperEmitter.cpp - print the sm_90 ptx ops ---------------------===//
//
// The PTX text of the Hopper instruction families (PTXHopperOps.td).
//
//===----------------------------------------------------------------------===//

#include "InstPrinter.h"

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
      .Default([](Operation *) -> Result { return std::nullopt; });
}

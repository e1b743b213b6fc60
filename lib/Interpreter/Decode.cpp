//===- Decode.cpp - ptx.entry to the interpreter's instruction array ------===//

#include "Internal.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

std::string kaio::interp::detail::formatLocation(Location loc) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    return (fileLoc.getFilename().getValue() + ":" +
            Twine(fileLoc.getLine()) + ":" + Twine(fileLoc.getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

namespace {

unsigned regBits(Type type) {
  std::optional<RegisterClass> rc = getRegisterClass(type);
  return rc ? rc->bits : 64;
}

template <typename E>
uint8_t rndOf(std::optional<E> r) {
  return r ? uint8_t(*r) : kNoRnd;
}

class Decoder {
public:
  Decoder(EntryOp entry, const llvm::StringMap<uint64_t> &varAddress,
          std::string &error)
      : entry(entry), varAddress(varAddress), error(error) {}

  std::unique_ptr<Program> run();

private:
  uint32_t slot(Value v) {
    auto [it, inserted] = slots.try_emplace(v, p->numSlots);
    if (inserted)
      ++p->numSlots;
    return it->second * 32;
  }
  uint32_t optSlot(Value v) { return v ? slot(v) : kNoSlot; }
  uint32_t list(ValueRange values) {
    uint32_t begin = p->extra.size();
    for (Value v : values)
      p->extra.push_back(slot(v));
    return begin;
  }
  uint32_t list(ResultRange values) {
    uint32_t begin = p->extra.size();
    for (Value v : values)
      p->extra.push_back(slot(v));
    return begin;
  }
  uint32_t edge(Block *dest, ValueRange operands);
  LogicalResult layoutShared();
  LogicalResult decodeOp(Operation *op, Instr &in);
  LogicalResult fail(Operation *op, const Twine &msg) {
    error = (formatLocation(op->getLoc()) + ": " + msg).str();
    return failure();
  }

  EntryOp entry;
  const llvm::StringMap<uint64_t> &varAddress;
  std::string &error;
  std::unique_ptr<Program> p;
  llvm::DenseMap<Value, uint32_t> slots;
  llvm::DenseMap<Block *, uint32_t> blockPc;
  llvm::StringMap<uint64_t> sharedOffset;
};

} // namespace

uint32_t Decoder::edge(Block *dest, ValueRange operands) {
  Edge e;
  e.target = blockPc.lookup(dest);
  e.copyBegin = p->copies.size();
  for (auto [arg, v] : llvm::zip(dest->getArguments(), operands))
    p->copies.push_back({slot(v), slot(arg)});
  e.copyCount = p->copies.size() - e.copyBegin;
  for (uint32_t i = 0; i < e.copyCount; ++i)
    for (uint32_t j = 0; j < e.copyCount; ++j)
      if (i != j && p->copies[e.copyBegin + i].second ==
                        p->copies[e.copyBegin + j].first)
        e.needsTemp = true;
  p->edges.push_back(e);
  return p->edges.size() - 1;
}

LogicalResult Decoder::layoutShared() {
  // Static shared variables the kernel names, in module order; extern
  // (dynamic) arrays all start after them.
  llvm::StringSet<> used;
  entry.walk([&](AddressOfOp a) { used.insert(a.getName()); });
  auto module = entry->getParentOfType<ModuleOp>();
  uint64_t offset = 0, externAlign = 16;
  SmallVector<GlobalVarOp> externs;
  for (auto var : module.getOps<GlobalVarOp>()) {
    if (var.getSpace() != StateSpace::shared || !used.contains(var.getSymName()))
      continue;
    uint64_t align = var.getAlignment()
                         ? *var.getAlignment()
                         : std::max(1u, getBitWidth(var.getElemType()) / 8);
    if (var.getIsExtern()) {
      externAlign = std::max(externAlign, align);
      externs.push_back(var);
      continue;
    }
    offset = (offset + align - 1) / align * align;
    sharedOffset[var.getSymName()] = offset;
    offset += var.getSizeInBytes();
  }
  p->staticShared = offset;
  p->dynamicSharedOffset = (offset + externAlign - 1) / externAlign * externAlign;
  for (GlobalVarOp var : externs)
    sharedOffset[var.getSymName()] = p->dynamicSharedOffset;
  return success();
}

std::unique_ptr<Program> Decoder::run() {
  p = std::make_unique<Program>();
  p->name = entry.getSymName().str();
  if (auto dims = entry.getMaxntid())
    p->maxntid.assign(dims->begin(), dims->end());
  if (auto dims = entry.getReqntid())
    p->reqntid.assign(dims->begin(), dims->end());
  if (auto dims = entry.getReqnctapercluster())
    p->reqnctapercluster.assign(dims->begin(), dims->end());
  p->requiredDynamicShared = entry.getDynamicSmem().value_or(0);
  if (failed(layoutShared()))
    return nullptr;

  Region &body = entry.getBody();
  uint32_t pc = 0;
  for (Block &block : body) {
    blockPc[&block] = pc;
    pc += std::distance(block.begin(), block.end());
  }
  for (BlockArgument arg : body.front().getArguments()) {
    p->paramSlots.push_back(slot(arg));
    p->paramBits.push_back(regBits(arg.getType()));
  }
  p->code.reserve(pc);
  for (Block &block : body) {
    for (Operation &op : block) {
      Instr in;
      if (auto inst = dyn_cast<InstructionOpInterface>(&op)) {
        if (Value g = inst.getGuardPredicate()) {
          in.guard = slot(g);
          if (inst.isGuardNegated())
            in.flags |= FGuardNeg;
        }
      }
      if (op.getNumResults())
        in.rbits = regBits(op.getResult(0).getType());
      if (failed(decodeOp(&op, in)))
        return nullptr;
      p->code.push_back(in);
      p->locs.push_back(op.getLoc());
    }
  }
  return std::move(p);
}

LogicalResult Decoder::decodeOp(Operation *op, Instr &in) {
  auto arith = [&](auto o, Opc opc) {
    in.op = opc;
    in.type = o.getType();
    in.r = slot(o.getResult());
    return success();
  };
  auto floatMods = [&](auto o) {
    in.rnd = rndOf(o.getRnd());
    if (o.getFtz())
      in.flags |= FFtz;
    if (o.getSat())
      in.flags |= FSat;
  };
  auto unary = [&](auto o, Opc opc) {
    (void)arith(o, opc);
    in.a = slot(o.getSrc());
    return success();
  };
  auto binary = [&](auto o, Opc opc) {
    (void)arith(o, opc);
    in.a = slot(o.getLhs());
    in.b = slot(o.getRhs());
    return success();
  };
  auto special = [&](auto o, Opc opc) {
    (void)unary(o, opc);
    in.rnd = rndOf(o.getRnd());
    if (o.getApprox())
      in.flags |= FApprox;
    if (o.getFtz())
      in.flags |= FFtz;
    return success();
  };
  // `.shared::cluster` reaches another CTA's shared memory through the ops
  // that take it as their space (HopperOps.cpp, Memory.cpp).
  if (auto space = op->getAttrOfType<StateSpaceAttr>("space");
      space && space.getValue() == StateSpace::shared_cluster &&
      !isa<LoadOp, StoreOp, AtomOp, RedOp, CvtaOp, MapaOp, MBarrierArriveOp,
           MBarrierExpectTxOp, FenceProxyAsyncOp>(op))
    return fail(op, "the interpreter does not model .shared::cluster for " +
                        op->getName().getStringRef().str());
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ConstantOp o) {
        in.op = Opc::Const;
        in.r = slot(o.getResult());
        if (auto i = dyn_cast<IntegerAttr>(o.getValue()))
          in.imm = int64_t(i.getValue().getZExtValue());
        else if (auto f = dyn_cast<FloatAttr>(o.getValue()))
          in.imm = int64_t(f.getValue().bitcastToAPInt().getZExtValue());
        else
          return fail(op, "unsupported constant");
        return success();
      })
      .Case([&](MovOp o) {
        in.op = Opc::Mov;
        in.type = o.getType();
        in.a = slot(o.getSrc());
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](PackOp o) {
        in.op = Opc::Pack;
        in.type = o.getType();
        in.r = slot(o.getResult());
        in.n = o.getParts().size();
        in.ext = list(o.getParts());
        return success();
      })
      .Case([&](UnpackOp o) {
        in.op = Opc::Unpack;
        in.type = o.getType();
        in.a = slot(o.getSrc());
        in.n = o.getParts().size();
        in.ext = list(o.getParts());
        in.rbits = regBits(o.getParts().front().getType());
        return success();
      })
      .Case([&](SpecialRegOp o) -> LogicalResult {
        in.op = Opc::Sreg;
        in.aux = uint32_t(o.getReg());
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](AddressOfOp o) {
        in.op = Opc::AddrOf;
        in.r = slot(o.getResult());
        auto it = sharedOffset.find(o.getName());
        if (it != sharedOffset.end()) {
          in.imm = int64_t(it->second);
          in.aux = 1; // shared: see Opc::AddrOf
          return success();
        }
        auto git = varAddress.find(o.getName());
        if (git == varAddress.end())
          return fail(op, "no storage for variable '" + o.getName() + "'");
        in.imm = int64_t(git->second);
        return success();
      })
      .Case([&](AddOp o) {
        (void)binary(o, Opc::Add);
        floatMods(o);
        return success();
      })
      .Case([&](SubOp o) {
        (void)binary(o, Opc::Sub);
        floatMods(o);
        return success();
      })
      .Case([&](MulOp o) {
        (void)binary(o, Opc::Mul);
        floatMods(o);
        in.aux = o.getMode() ? uint32_t(*o.getMode()) : 0;
        return success();
      })
      .Case([&](MadOp o) {
        (void)arith(o, Opc::Mad);
        floatMods(o);
        in.aux = o.getMode() ? uint32_t(*o.getMode()) : 0;
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        return success();
      })
      .Case([&](FmaOp o) {
        (void)arith(o, Opc::Fma);
        floatMods(o);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        return success();
      })
      .Case([&](DivOp o) {
        (void)binary(o, Opc::Div);
        in.rnd = rndOf(o.getRnd());
        if (o.getApprox())
          in.flags |= FApprox;
        if (o.getFull())
          in.flags |= FFull;
        if (o.getFtz())
          in.flags |= FFtz;
        return success();
      })
      .Case([&](RemOp o) { return binary(o, Opc::Rem); })
      .Case([&](MinOp o) {
        (void)binary(o, Opc::Min);
        if (o.getFtz())
          in.flags |= FFtz;
        if (o.getNan())
          in.flags |= FNaN;
        return success();
      })
      .Case([&](MaxOp o) {
        (void)binary(o, Opc::Max);
        if (o.getFtz())
          in.flags |= FFtz;
        if (o.getNan())
          in.flags |= FNaN;
        return success();
      })
      .Case([&](AbsOp o) {
        (void)unary(o, Opc::Abs);
        if (o.getFtz())
          in.flags |= FFtz;
        return success();
      })
      .Case([&](NegOp o) {
        (void)unary(o, Opc::Neg);
        if (o.getFtz())
          in.flags |= FFtz;
        return success();
      })
      .Case([&](AndOp o) { return binary(o, Opc::And); })
      .Case([&](OrOp o) { return binary(o, Opc::Or); })
      .Case([&](XorOp o) { return binary(o, Opc::Xor); })
      .Case([&](NotOp o) { return unary(o, Opc::Not); })
      .Case([&](ShlOp o) { return binary(o, Opc::Shl); })
      .Case([&](ShrOp o) { return binary(o, Opc::Shr); })
      .Case([&](PopcOp o) { return unary(o, Opc::Popc); })
      .Case([&](ClzOp o) { return unary(o, Opc::Clz); })
      .Case([&](BrevOp o) { return unary(o, Opc::Brev); })
      .Case([&](BfeOp o) {
        (void)arith(o, Opc::Bfe);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        return success();
      })
      .Case([&](BfiOp o) {
        (void)arith(o, Opc::Bfi);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        in.d = slot(o.getD());
        return success();
      })
      .Case([&](PrmtOp o) {
        (void)arith(o, Opc::Prmt);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        in.aux = o.getMode() ? uint32_t(*o.getMode()) + 1 : 0;
        return success();
      })
      .Case([&](Lop3Op o) {
        (void)arith(o, Opc::Lop3);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getC());
        in.aux = o.getLut();
        return success();
      })
      .Case([&](SelpOp o) {
        (void)arith(o, Opc::Selp);
        in.a = slot(o.getA());
        in.b = slot(o.getB());
        in.c = slot(o.getCond());
        return success();
      })
      .Case([&](SetpOp o) {
        in.op = Opc::Setp;
        in.type = o.getType();
        in.r = slot(o.getResult());
        in.a = slot(o.getLhs());
        in.b = slot(o.getRhs());
        in.c = optSlot(o.getCombine());
        in.aux = uint32_t(o.getCmp());
        in.aux2 = o.getBoolOp() ? uint32_t(*o.getBoolOp()) : UINT32_MAX;
        if (o.getFtz())
          in.flags |= FFtz;
        return success();
      })
      .Case([&](CvtOp o) {
        in.op = Opc::Cvt;
        in.type = o.getDstType();
        in.aux = uint32_t(o.getSrcType());
        in.a = slot(o.getSrc());
        in.r = slot(o.getResult());
        in.rnd = rndOf(o.getRnd());
        if (o.getFtz())
          in.flags |= FFtz;
        if (o.getSat())
          in.flags |= FSat;
        if (o.getRelu())
          in.flags |= FRelu;
        return success();
      })
      .Case([&](CvtPackOp o) {
        in.op = Opc::CvtPack;
        in.type = o.getDstType();
        in.a = slot(o.getHi());
        in.b = slot(o.getLo());
        in.r = slot(o.getResult());
        in.rnd = uint8_t(o.getRnd());
        if (o.getRelu())
          in.flags |= FRelu;
        if (o.getSatfinite())
          in.flags |= FSatFinite;
        return success();
      })
      .Case([&](Ex2Op o) { return special(o, Opc::Ex2); })
      .Case([&](Lg2Op o) { return special(o, Opc::Lg2); })
      .Case([&](SinOp o) { return special(o, Opc::Sin); })
      .Case([&](CosOp o) { return special(o, Opc::Cos); })
      .Case([&](TanhOp o) { return special(o, Opc::Tanh); })
      .Case([&](RcpOp o) { return special(o, Opc::Rcp); })
      .Case([&](SqrtOp o) { return special(o, Opc::Sqrt); })
      .Case([&](RsqrtOp o) { return special(o, Opc::Rsqrt); })
      .Case([&](LoadOp o) {
        in.op = Opc::Ld;
        in.type = o.getType();
        in.aux = uint32_t(o.getSpace());
        if (o.getNc())
          in.flags |= FNc;
        in.a = slot(o.getAddr());
        in.imm = int64_t(o.getOffset());
        in.n = o.getResults().size();
        in.ext = list(o.getResults());
        return success();
      })
      .Case([&](StoreOp o) {
        in.op = Opc::St;
        in.type = o.getType();
        in.aux = uint32_t(o.getSpace());
        in.a = slot(o.getAddr());
        in.imm = int64_t(o.getOffset());
        in.n = o.getValues().size();
        in.ext = list(o.getValues());
        return success();
      })
      .Case([&](CvtaOp o) {
        in.op = Opc::Cvta;
        in.aux = uint32_t(o.getSpace());
        in.a = slot(o.getSrc());
        in.r = slot(o.getResult());
        if (o.getTo())
          in.flags |= FTo;
        return success();
      })
      .Case<AtomOp, RedOp>([&](auto o) {
        in.op = isa<AtomOp>(op) ? Opc::Atom : Opc::Red;
        in.type = o.getType();
        in.aux = uint32_t(o.getSpace());
        in.aux2 = uint32_t(o.getOp());
        in.a = slot(o.getAddr());
        in.imm = int64_t(o.getOffset());
        in.b = slot(o.getValues()[0]);
        if (o.getValues().size() > 1)
          in.c = slot(o.getValues()[1]);
        if (op->getNumResults())
          in.r = slot(op->getResult(0));
        return success();
      })
      .Case<MembarOp, FenceOp>([&](auto) {
        in.op = Opc::Nop;
        p->hasFences = true;
        return success();
      })
      .Case<BarSyncOp, BarrierSyncOp>([&](auto o) {
        in.op = Opc::BarSync;
        in.aux = o.getId();
        in.aux2 = o.getCount() ? *o.getCount() : 0;
        return success();
      })
      .Case([&](BarArriveOp o) {
        in.op = Opc::BarArrive;
        in.aux = o.getId();
        in.aux2 = o.getCount() ? *o.getCount() : 0;
        return success();
      })
      .Case([&](ShflSyncOp o) {
        in.op = Opc::Shfl;
        in.aux = uint32_t(o.getMode());
        in.a = slot(o.getValue());
        in.b = slot(o.getLane());
        in.c = slot(o.getClamp());
        in.d = slot(o.getMask());
        in.r = slot(o.getResult());
        in.r2 = slot(o.getValid());
        return success();
      })
      .Case([&](VoteSyncOp o) {
        in.op = Opc::Vote;
        in.aux = uint32_t(o.getMode());
        in.a = slot(o.getPred());
        in.d = slot(o.getMask());
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](MatchSyncOp o) {
        in.op = Opc::Match;
        in.aux = uint32_t(o.getMode());
        in.type = o.getType();
        in.a = slot(o.getValue());
        in.d = slot(o.getMask());
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](ReduxSyncOp o) {
        in.op = Opc::Redux;
        in.aux = uint32_t(o.getOp());
        in.type = o.getType();
        in.a = slot(o.getValue());
        in.d = slot(o.getMask());
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](ActiveMaskOp o) {
        in.op = Opc::ActiveMask;
        in.r = slot(o.getResult());
        return success();
      })
      .Case([&](MmaSyncOp o) {
        const MmaVariant *v =
            lookupMma(o.getShape(), o.getAType(), o.getBType(), o.getDType());
        if (!v)
          return fail(op, "mma.sync variant is not in the mma table");
        in.op = Opc::Mma;
        in.aux = p->mmaVariants.size();
        p->mmaVariants.push_back(v);
        if (o.getSatfinite())
          in.flags |= FSatFinite;
        // extra: D..., A..., B..., C...
        in.ext = list(o.getD());
        list(o.getA());
        list(o.getB());
        list(o.getC());
        return success();
      })
      .Case([&](LdMatrixOp o) {
        in.op = Opc::LdMatrix;
        in.a = slot(o.getAddr());
        in.imm = int64_t(o.getOffset());
        in.n = o.getResults().size();
        in.ext = list(o.getResults());
        if (o.getTrans())
          in.flags |= FTrans;
        return success();
      })
      .Case([&](StMatrixOp o) {
        in.op = Opc::StMatrix;
        in.a = slot(o.getAddr());
        in.imm = int64_t(o.getOffset());
        in.n = o.getValues().size();
        in.ext = list(o.getValues());
        if (o.getTrans())
          in.flags |= FTrans;
        return success();
      })
      .Case([&](CpAsyncOp o) {
        in.op = Opc::CpAsync;
        in.aux = o.getBytes();
        in.a = slot(o.getDst());
        in.imm = int64_t(o.getDstOffset());
        in.b = slot(o.getSrc());
        in.c = optSlot(o.getSrcSize());
        return success();
      })
      .Case([&](CpAsyncCommitGroupOp) {
        in.op = Opc::CpCommit;
        return success();
      })
      .Case([&](CpAsyncWaitGroupOp o) {
        in.op = Opc::CpWaitGroup;
        in.aux = o.getN();
        return success();
      })
      .Case([&](CpAsyncWaitAllOp) {
        in.op = Opc::CpWaitAll;
        return success();
      })
      // Hopper: mbarriers, bulk copies, wgmma (HopperOps.cpp).
      .Case([&](MBarrierInitOp o) {
        in.op = Opc::MbarInit;
        in.a = slot(o.getAddr());
        in.b = slot(o.getCount());
        return success();
      })
      .Case([&](MBarrierInvalOp o) {
        in.op = Opc::MbarInval;
        in.a = slot(o.getAddr());
        return success();
      })
      .Case([&](MBarrierArriveOp o) {
        in.op = Opc::MbarArrive;
        if (o.getSpace() == StateSpace::shared_cluster)
          in.flags |= FCluster;
        in.a = slot(o.getAddr());
        in.b = optSlot(o.getCount());
        in.r = optSlot(o.getState());
        if (o.getExpectTx())
          in.flags |= FExpectTx;
        return success();
      })
      .Case([&](MBarrierExpectTxOp o) {
        in.op = Opc::MbarExpectTx;
        if (o.getSpace() == StateSpace::shared_cluster)
          in.flags |= FCluster;
        in.a = slot(o.getAddr());
        in.b = slot(o.getTxCount());
        return success();
      })
      .Case([&](MBarrierTryWaitOp o) {
        in.op = Opc::MbarTryWait;
        in.a = slot(o.getAddr());
        in.b = slot(o.getPhase());
        in.r = slot(o.getReady());
        if (o.getParity())
          in.flags |= FParity;
        return success();
      })
      .Case([&](ElectSyncOp o) {
        in.op = Opc::Elect;
        in.d = slot(o.getMask());
        in.r = slot(o.getLeader());
        in.r2 = slot(o.getIsLeader());
        return success();
      })
      // .sync.aligned ops with no effect on the interpreter's state: every
      // lane of the warp must reach them together.
      .Case<SetMaxNRegOp, WgmmaFenceOp>([&](auto) {
        in.op = Opc::WarpSync;
        return success();
      })
      .Case([&](WgmmaCommitGroupOp) {
        in.op = Opc::WarpSync;
        in.aux = kWgmmaCommit;
        return success();
      })
      .Case([&](WgmmaWaitGroupOp o) {
        in.op = Opc::WarpSync;
        in.aux = kWgmmaWait;
        in.aux2 = o.getN();
        return success();
      })
      // Proxy fences order nothing in the interpreter (every copy lands in
      // program order of its completion); bulk stores complete at issue.
      .Case<FenceProxyAsyncOp, FenceMBarrierInitOp,
            CpAsyncBulkCommitGroupOp, CpAsyncBulkWaitGroupOp,
            CpAsyncBulkPrefetchTensorOp>([&](auto) {
        in.op = Opc::Nop;
        return success();
      })
      .Case([&](BarrierClusterArriveOp) {
        in.op = Opc::ClusterArrive;
        return success();
      })
      .Case([&](BarrierClusterWaitOp) {
        in.op = Opc::ClusterWait;
        return success();
      })
      .Case([&](MapaOp o) {
        in.op = Opc::Mapa;
        in.aux = uint32_t(o.getSpace());
        in.a = slot(o.getAddr());
        in.b = slot(o.getRank());
        in.r = slot(o.getResult());
        in.rbits = regBits(o.getResult().getType());
        return success();
      })
      .Case([&](CpAsyncBulkLoadOp o) {
        if (Value mask = o.getCtaMask()) {
          in.flags |= FMulticast;
          in.aux2 = slot(mask);
        }
        in.op = Opc::BulkLoad;
        in.a = slot(o.getDst());
        in.b = slot(o.getSrc());
        in.c = slot(o.getSize());
        in.d = slot(o.getMbar());
        return success();
      })
      .Case([&](CpAsyncBulkStoreOp o) {
        in.op = Opc::BulkStore;
        in.a = slot(o.getDst());
        in.b = slot(o.getSrc());
        in.c = slot(o.getSize());
        return success();
      })
      .Case([&](CpAsyncBulkTensorLoadOp o) {
        if (Value mask = o.getCtaMask()) {
          in.flags |= FMulticast;
          in.aux2 = slot(mask);
        }
        in.op = Opc::BulkTensorLoad;
        in.a = slot(o.getDst());
        in.b = slot(o.getTensorMap());
        in.d = slot(o.getMbar());
        in.n = o.getCoords().size();
        in.ext = list(o.getCoords());
        return success();
      })
      .Case([&](CpAsyncBulkTensorStoreOp o) {
        in.op = Opc::BulkTensorStore;
        in.a = slot(o.getSrc());
        in.b = slot(o.getTensorMap());
        in.n = o.getCoords().size();
        in.ext = list(o.getCoords());
        return success();
      })
      .Case([&](WgmmaMmaAsyncOp o) {
        WgmmaInfo w;
        w.variant = lookupWgmma(o.getDType(), o.getAType(), o.getBType());
        if (!w.variant)
          return fail(op, "wgmma variant is not in the wgmma table");
        w.n = o.getN();
        w.accRegs = o.getAcc().size();
        w.aRegs = o.getA().size();
        w.scaleA = o.getScaleA().value_or(1);
        w.scaleB = o.getScaleB().value_or(1);
        w.scaleD = o.getScaleDImm().value_or(1);
        w.transA = o.getTransA();
        w.transB = o.getTransB();
        w.satfinite = o.getSatfinite();
        in.op = Opc::Wgmma;
        in.aux = p->wgmmas.size();
        p->wgmmas.push_back(w);
        in.a = optSlot(o.getADesc());
        in.b = slot(o.getBDesc());
        in.c = optSlot(o.getScaleD());
        in.ext = list(o.getD());
        list(o.getAcc());
        list(o.getA());
        return success();
      })
      .Case([&](BraOp o) {
        in.op = Opc::Bra;
        in.aux = edge(o.getDest(), o.getDestOperands());
        return success();
      })
      .Case([&](CondBraOp o) {
        in.op = Opc::CondBra;
        in.a = slot(o.getCondition());
        in.aux = edge(o.getTrueDest(), o.getTrueOperands());
        in.aux2 = edge(o.getFalseDest(), o.getFalseOperands());
        return success();
      })
      .Case<RetOp, ExitOp>([&](auto) {
        in.op = Opc::Exit;
        return success();
      })
      .Case([&](TrapOp) {
        in.op = Opc::Trap;
        return success();
      })
      .Default([&](Operation *other) {
        return fail(other, "the interpreter cannot run '" +
                               other->getName().getStringRef() + "'");
      });
}

std::unique_ptr<Program>
kaio::interp::detail::decodeKernel(EntryOp entry,
                                   const llvm::StringMap<uint64_t> &varAddress,
                                   std::string &error) {
  return Decoder(entry, varAddress, error).run();
}

//===- PTXEmitter.cpp - print the ptx dialect as PTX text -----------------===//
//
// A kernel is printed in two steps: its body is emitted into a buffer while
// registers are named (temporaries for block-argument moves may be added),
// then the header, the `.reg` declarations and the body are written out.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Target/PTX/PTXEmitter.h"

#include "InstPrinter.h"
#include "RegisterCoalescing.h"

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Dialect/PTX/IR/WgmmaHazards.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kaio::ptx;

//===----------------------------------------------------------------------===//
// Pieces with unit tests
//===----------------------------------------------------------------------===//

static unsigned classIndex(Type type) {
  std::optional<RegisterClass> rc = getRegisterClass(type);
  assert(rc && "not a register type");
  ArrayRef<RegisterClass> classes = getRegisterClasses();
  for (unsigned i = 0; i < classes.size(); ++i)
    if (classes[i].prefix == rc->prefix)
      return i;
  llvm_unreachable("register class not in table");
}

std::string RegisterNamer::create(Type type) {
  unsigned idx = classIndex(type);
  return (getRegisterClasses()[idx].prefix + Twine(++counts[idx])).str();
}

unsigned RegisterNamer::count(StringRef prefix) const {
  ArrayRef<RegisterClass> classes = getRegisterClasses();
  for (unsigned i = 0; i < classes.size(); ++i)
    if (classes[i].prefix == prefix)
      return counts[i];
  return 0;
}

void RegisterNamer::printDeclarations(raw_ostream &os) const {
  ArrayRef<RegisterClass> classes = getRegisterClasses();
  for (unsigned i = 0; i < classes.size(); ++i)
    if (counts[i])
      os << "\t.reg " << classes[i].declType << " " << classes[i].prefix << "<"
         << counts[i] + 1 << ">;\n";
}

std::string kaio::ptx::formatFloatImmediate(const APFloat &value) {
  APInt bits = value.bitcastToAPInt();
  SmallString<24> hex;
  bits.toStringUnsigned(hex, 16);
  std::string digits = std::string(hex.str()).insert(
      0, bits.getBitWidth() / 4 - hex.size(), '0');
  for (char &c : digits)
    c = llvm::toUpper(c);
  switch (bits.getBitWidth()) {
  case 32:
    return "0f" + digits;
  case 64:
    return "0d" + digits;
  default:
    return "0x" + digits;
  }
}

static std::string elementName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  auto intType = cast<IntegerType>(type);
  return (intType.isSigned() ? "s" : "u") + std::to_string(intType.getWidth());
}

std::string kaio::ptx::formatKernelSignature(Operation *op) {
  auto entry = cast<EntryOp>(op);
  std::string sig = (entry.getSymName() + "(").str();
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    if (i)
      sig += ",";
    if (auto elem = entry.getArgAttrOfType<TypeAttr>(
            i, PTXDialect::kPtrElementAttrName)) {
      bool readOnly =
          entry.getArgAttr(i, PTXDialect::kReadOnlyAttrName) != nullptr;
      sig += "ptr<" + std::string(readOnly ? "const " : "") +
             elementName(elem.getValue()) + ">";
      continue;
    }
    // Scalars use the runtime's type names: f16/bf16 by name, packed pairs
    // as their 32 bits.
    if (entry.isTensorMapParam(i))
      sig += "tmap";
    else if (isa<VectorType>(type))
      sig += "u32";
    else if (isa<FloatType>(type))
      sig += elementName(type);
    else
      sig += stringifyPTXType(entry.getParamPTXType(i)).str();
  }
  sig += ")";
  if (std::optional<uint64_t> smem = entry.getDynamicSmem())
    sig += " smem=" + std::to_string(*smem);
  // The compiled cluster: the runtime checks launches against it.
  if (std::optional<ArrayRef<int32_t>> cluster =
          entry.getReqnctapercluster()) {
    sig += " cluster=";
    for (unsigned i = 0; i < 3; ++i)
      sig += (i ? "x" : "") +
             std::to_string(i < cluster->size() ? (*cluster)[i] : 1);
  }
  // The compiled block, its rank included: the runtime refuses launches
  // with more dimensions (a 1-D kernel's warp_id reads tid.x alone) or
  // more threads (or, for .reqntid, another shape).
  auto printBlock = [&](StringRef key, ArrayRef<int32_t> dims) {
    sig += " " + key.str() + "=";
    for (auto [i, d] : llvm::enumerate(dims))
      sig += (i ? "x" : "") + std::to_string(d);
  };
  if (std::optional<ArrayRef<int32_t>> req = entry.getReqntid())
    printBlock("reqntid", *req);
  else if (std::optional<ArrayRef<int32_t>> max = entry.getMaxntid())
    printBlock("maxntid", *max);
  return sig;
}

FailureOr<unsigned>
kaio::ptx::selectISAVersion(ModuleOp module, const ChipInfo &chip,
                            std::optional<unsigned> override) {
  PTXRequirement need{chip.sm, chip.minISA};
  Operation *strictest = nullptr;
  module.walk([&](InstructionOpInterface inst) {
    PTXRequirement req = inst.getPTXRequirement();
    if (req.isa > need.isa) {
      need.isa = req.isa;
      strictest = inst;
    }
  });
  if (!override)
    return need.isa;
  if (*override < need.isa) {
    InFlightDiagnostic diag =
        (strictest ? strictest->emitError() : module.emitError())
        << "PTX ISA " << formatISA(*override) << " is too old: ";
    if (strictest)
      diag << "this op needs " << formatISA(need.isa);
    else
      diag << chip.name << " needs " << formatISA(need.isa);
    return failure();
  }
  return *override;
}

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

namespace {

std::string dot(StringRef s) { return ("." + s).str(); }
std::string dotType(PTXType t) { return dot(stringifyPTXType(t)); }

class KernelEmitter : public InstPrinter {
public:
  KernelEmitter(EntryOp entry, unsigned kernelIndex,
                const PTXEmitOptions &options,
                llvm::MapVector<StringRef, unsigned> &files)
      : entry(entry), kernelIndex(kernelIndex), lineInfo(options.lineInfo),
        verifyCoalescing(options.verifyCoalescing), files(files), os(body),
        coalescing(entry, options.coalesceRegisters) {}

  LogicalResult emit(raw_ostream &out);

  /// InstPrinter.
  /// One register per group of coalesced values.
  const std::string &reg(Value v) override {
    Value group = coalescing.leader(v);
    auto it = names.find(group);
    if (it == names.end())
      it = names.try_emplace(group, namer.create(group.getType())).first;
    return it->second;
  }
  std::string address(Value addr, int64_t offset = 0) override {
    std::string s = "[" + reg(addr);
    if (offset)
      s += "+" + std::to_string(offset);
    return s + "]";
  }
  std::string regList(ValueRange values) override {
    std::string s = "{";
    for (auto [i, v] : llvm::enumerate(values))
      s += (i ? ", " : "") + reg(v);
    return s + "}";
  }
  raw_ostream &begin(Operation *op) override {
    emitGuard(op);
    return os;
  }
  raw_ostream &stream() override { return os; }

private:
  std::string label(Block *block) {
    return ("$L__BB" + Twine(kernelIndex) + "_" + Twine(blockIds[block])).str();
  }

  LogicalResult checkRegisters(Operation *op);
  void emitLocation(Location loc);
  void emitGuard(Operation *op);
  LogicalResult emitOp(Operation *op);
  /// Generic form: `opcode result, operands...;` (guard excluded).
  void emitSimple(Operation *op, StringRef opcode,
                  ArrayRef<std::string> extra = {});
  void emitMoves(Block *dest, ValueRange operands);
  /// Whether passing `operands` to `dest` needs any register move.
  bool needsMoves(Block *dest, ValueRange operands);
  void emitBranch(Block *dest, ValueRange operands, bool uni, Block *next);
  LogicalResult emitCondBranch(CondBraOp op, Block *next);

  EntryOp entry;
  unsigned kernelIndex;
  bool lineInfo;
  bool verifyCoalescing;
  llvm::MapVector<StringRef, unsigned> &files;
  std::string body;
  llvm::raw_string_ostream os;
  RegisterNamer namer;
  RegisterCoalescing coalescing;
  DenseMap<Value, std::string> names;
  DenseMap<Block *, unsigned> blockIds;
  unsigned tempLabels = 0;
  std::optional<std::pair<unsigned, unsigned>> lastLoc;
};

} // namespace

LogicalResult KernelEmitter::checkRegisters(Operation *op) {
  for (Value v : op->getOperands())
    if (!getRegisterClass(v.getType()))
      return op->emitError() << "cannot print a value of type " << v.getType()
                             << " as a PTX register";
  for (Value v : op->getResults())
    if (!getRegisterClass(v.getType()))
      return op->emitError() << "cannot print a value of type " << v.getType()
                             << " as a PTX register";
  return success();
}

void KernelEmitter::emitLocation(Location loc) {
  if (!lineInfo)
    return;
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (!fileLoc)
    return;
  StringRef file = fileLoc.getFilename().getValue();
  auto [it, inserted] = files.try_emplace(file, files.size() + 1);
  std::pair<unsigned, unsigned> key{it->second, fileLoc.getLine()};
  if (lastLoc == key)
    return;
  lastLoc = key;
  os << "\t.loc " << it->second << " " << fileLoc.getLine() << " "
     << fileLoc.getColumn() << "\n";
}

void KernelEmitter::emitGuard(Operation *op) {
  os << "\t";
  auto inst = dyn_cast<InstructionOpInterface>(op);
  if (!inst)
    return;
  if (Value guard = inst.getGuardPredicate())
    os << "@" << (inst.isGuardNegated() ? "!" : "") << reg(guard) << " ";
}

void KernelEmitter::emitSimple(Operation *op, StringRef opcode,
                               ArrayRef<std::string> extra) {
  // The guard is the op's last operand. Drop it by position, not by value:
  // the guard may also be a real operand (`@%p vote.sync.ballot.b32 %r, %p`).
  ValueRange operands = op->getOperands();
  if (auto inst = dyn_cast<InstructionOpInterface>(op);
      inst && inst.getGuardPredicate()) {
    assert(operands.back() == inst.getGuardPredicate() &&
           "the guard is the last operand");
    operands = operands.drop_back();
  }
  SmallVector<std::string> parts;
  for (Value r : op->getResults())
    parts.push_back(reg(r));
  for (Value v : operands)
    parts.push_back(reg(v));
  parts.append(extra.begin(), extra.end());
  emitGuard(op);
  os << opcode << " " << llvm::join(parts, ", ") << ";\n";
}

static StringRef movSuffix(Type type) {
  StringRef decl = getRegisterClass(type)->declType;
  return decl; // .pred / .b16 / .b32 / .b64 / .f32 / .f64
}

/// Block-argument moves with parallel-copy semantics: when a destination is
/// also read by another move, all sources go through fresh temporaries.
void KernelEmitter::emitMoves(Block *dest, ValueRange operands) {
  SmallVector<std::pair<std::string, std::string>> moves;
  SmallVector<Type> types;
  for (auto [arg, v] : llvm::zip(dest->getArguments(), operands)) {
    const std::string &d = reg(arg);
    const std::string &s = reg(v);
    if (d != s) {
      moves.push_back({d, s});
      types.push_back(arg.getType());
    }
  }
  bool overlap = false;
  for (auto &m : moves)
    for (auto &n : moves)
      if (&m != &n && m.first == n.second)
        overlap = true;
  if (overlap) {
    for (auto [m, type] : llvm::zip(moves, types)) {
      std::string tmp = namer.create(type);
      os << "\tmov" << movSuffix(type) << " " << tmp << ", " << m.second
         << ";\n";
      m.second = tmp;
    }
  }
  for (auto [m, type] : llvm::zip(moves, types))
    os << "\tmov" << movSuffix(type) << " " << m.first << ", " << m.second
       << ";\n";
}

bool KernelEmitter::needsMoves(Block *dest, ValueRange operands) {
  for (auto [arg, v] : llvm::zip(dest->getArguments(), operands))
    if (reg(arg) != reg(v))
      return true;
  return false;
}

void KernelEmitter::emitBranch(Block *dest, ValueRange operands, bool uni,
                               Block *next) {
  emitMoves(dest, operands);
  if (dest != next)
    os << "\tbra" << (uni ? ".uni " : " ") << label(dest) << ";\n";
}

LogicalResult KernelEmitter::emitCondBranch(CondBraOp op, Block *next) {
  std::string p = reg(op.getCondition());
  std::string bra = op.getUni() ? "bra.uni " : "bra ";
  Block *t = op.getTrueDest(), *f = op.getFalseDest();
  // Falling through to the true block: branch on the negated predicate.
  if (t == next && !needsMoves(t, op.getTrueOperands()) &&
      !needsMoves(f, op.getFalseOperands()) && f != next) {
    os << "\t@!" << p << " " << bra << label(f) << ";\n";
    return success();
  }
  if (!needsMoves(t, op.getTrueOperands())) {
    os << "\t@" << p << " " << bra << label(t) << ";\n";
    emitBranch(f, op.getFalseOperands(), op.getUni(), next);
    return success();
  }
  // The true edge needs moves: jump over them when the predicate is false.
  std::string skip =
      ("$L__K" + Twine(kernelIndex) + "_edge" + Twine(tempLabels++)).str();
  os << "\t@!" << p << " " << bra << skip << ";\n";
  emitBranch(t, op.getTrueOperands(), op.getUni(), /*next=*/nullptr);
  os << skip << ":\n";
  emitBranch(f, op.getFalseOperands(), op.getUni(), next);
  return success();
}

static std::string roundingMod(std::optional<Rounding> rnd) {
  return rnd ? dot(stringifyRounding(*rnd)) : "";
}
static std::string flag(bool set, StringRef name) {
  return set ? dot(name) : "";
}

template <typename OpTy>
static std::string specialFnOpcode(OpTy op, StringRef name) {
  return (name + flag(op.getApprox(), "approx") + roundingMod(op.getRnd()) +
          flag(op.getFtz(), "ftz") + dotType(op.getType()))
      .str();
}

template <typename OpTy> static std::string mulOpcode(OpTy op, StringRef name) {
  std::string mode = op.getMode() ? dot(stringifyMulMode(*op.getMode())) : "";
  return (name + mode + roundingMod(op.getRnd()) + flag(op.getFtz(), "ftz") +
          flag(op.getSat(), "sat") + dotType(op.getType()))
      .str();
}

template <typename OpTy>
static std::string floatOpcode(OpTy op, StringRef name) {
  return (name + roundingMod(op.getRnd()) + flag(op.getFtz(), "ftz") +
          flag(op.getSat(), "sat") + dotType(op.getType()))
      .str();
}

static std::string spaceMod(StateSpace space) {
  // `.shared` is the CTA's window; only `.shared::cluster` needs spelling out.
  if (space == StateSpace::generic || space == StateSpace::shared_cluster)
    return explicitSpaceMod(space);
  return dot(stringifyStateSpace(space));
}

static std::string vecMod(size_t n) {
  return n > 1 ? ".v" + std::to_string(n) : "";
}

template <typename OpTy>
static std::string atomicOpcode(OpTy op, StringRef name) {
  std::string s = name.str();
  if (op.getSem())
    s += dot(stringifyMemOrder(*op.getSem()));
  if (op.getScope())
    s += dot(stringifyMemScope(*op.getScope()));
  s += spaceMod(op.getSpace()) + dot(stringifyAtomicOp(op.getOp()));
  PTXType t = op.getType();
  if (op.getOp() == AtomicOp::add && isHalf(t))
    s += ".noftz";
  return s + dotType(t);
}

static std::string immediate(TypedAttr attr) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return formatFloatImmediate(f.getValue());
  APInt v = cast<IntegerAttr>(attr).getValue();
  return std::to_string(v.getZExtValue());
}

LogicalResult KernelEmitter::emitOp(Operation *op) {
  if (failed(checkRegisters(op)))
    return failure();
  emitLocation(op->getLoc());
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ConstantOp c) {
        Type type = c.getType();
        std::string suffix = type.isInteger(1)    ? ".pred"
                             : type.isInteger(16) ? ".u16"
                             : type.isInteger(32) ? ".u32"
                             : type.isInteger(64) ? ".u64"
                                                  : movSuffix(type).str();
        if (type.isF16() || type.isBF16())
          suffix = ".b16";
        os << "\tmov" << suffix << " " << reg(c.getResult()) << ", "
           << immediate(c.getValue()) << ";\n";
        return success();
      })
      .Case([&](MovOp m) {
        emitSimple(op, "mov" + dotType(m.getType()));
        return success();
      })
      .Case([&](PackOp p) {
        emitGuard(op);
        os << "mov" << dotType(p.getType()) << " " << reg(p.getResult()) << ", "
           << regList(p.getParts()) << ";\n";
        return success();
      })
      .Case([&](UnpackOp u) {
        emitGuard(op);
        os << "mov" << dotType(u.getType()) << " " << regList(u.getParts())
           << ", " << reg(u.getSrc()) << ";\n";
        return success();
      })
      .Case([&](SpecialRegOp s) {
        unsigned bits = getSpecialRegInfo(s.getReg()).bits;
        emitGuard(op);
        os << (bits == 1    ? "mov.pred "
               : bits == 64 ? "mov.u64 "
                            : "mov.u32 ")
           << reg(s.getResult()) << ", %"
           << stringifySpecialReg(s.getReg()) << ";\n";
        return success();
      })
      .Case([&](AddressOfOp a) {
        emitGuard(op);
        os << (a.getType().isInteger(64) ? "mov.u64 " : "mov.u32 ")
           << reg(a.getResult()) << ", " << a.getName() << ";\n";
        return success();
      })
      .Case([&](AddOp o) {
        emitSimple(op, floatOpcode(o, "add"));
        return success();
      })
      .Case([&](SubOp o) {
        emitSimple(op, floatOpcode(o, "sub"));
        return success();
      })
      .Case([&](FmaOp o) {
        emitSimple(op, floatOpcode(o, "fma"));
        return success();
      })
      .Case([&](MulOp o) {
        emitSimple(op, mulOpcode(o, "mul"));
        return success();
      })
      .Case([&](MadOp o) {
        emitSimple(op, mulOpcode(o, "mad"));
        return success();
      })
      .Case([&](DivOp o) {
        emitSimple(op, "div" + flag(o.getApprox(), "approx") +
                           flag(o.getFull(), "full") + roundingMod(o.getRnd()) +
                           flag(o.getFtz(), "ftz") + dotType(o.getType()));
        return success();
      })
      .Case([&](RemOp o) {
        emitSimple(op, "rem" + dotType(o.getType()));
        return success();
      })
      .Case<MinOp, MaxOp>([&](auto o) {
        emitSimple(op, (o->getName().stripDialect() + flag(o.getFtz(), "ftz") +
                        flag(o.getNan(), "NaN") + dotType(o.getType()))
                           .str());
        return success();
      })
      .Case<AbsOp, NegOp>([&](auto o) {
        emitSimple(op, (o->getName().stripDialect() + flag(o.getFtz(), "ftz") +
                        dotType(o.getType()))
                           .str());
        return success();
      })
      .Case<AndOp, OrOp, XorOp, NotOp, ShlOp, ShrOp, PopcOp, ClzOp, BrevOp,
            BfeOp, BfiOp, SelpOp>([&](auto o) {
        emitSimple(op,
                   (o->getName().stripDialect() + dotType(o.getType())).str());
        return success();
      })
      .Case([&](PrmtOp o) {
        std::string mode =
            o.getMode() ? dot(stringifyPrmtMode(*o.getMode())) : "";
        emitSimple(op, "prmt" + dotType(o.getType()) + mode);
        return success();
      })
      .Case([&](Lop3Op o) {
        emitSimple(op, "lop3" + dotType(o.getType()),
                   {std::to_string(o.getLut())});
        return success();
      })
      .Case([&](SetpOp o) {
        std::string boolOp =
            o.getBoolOp() ? dot(stringifyBoolOp(*o.getBoolOp())) : "";
        emitSimple(op, "setp" + dot(stringifyCmpOp(o.getCmp())) + boolOp +
                           flag(o.getFtz(), "ftz") + dotType(o.getType()));
        return success();
      })
      .Case([&](CvtOp o) {
        emitSimple(op, "cvt" + roundingMod(o.getRnd()) +
                           flag(o.getRelu(), "relu") + flag(o.getFtz(), "ftz") +
                           flag(o.getSat(), "sat") + dotType(o.getDstType()) +
                           dotType(o.getSrcType()));
        return success();
      })
      .Case([&](CvtPackOp o) {
        emitSimple(op, "cvt" + roundingMod(o.getRnd()) +
                           flag(o.getRelu(), "relu") +
                           flag(o.getSatfinite(), "satfinite") +
                           dotType(o.getDstType()) + ".f32");
        return success();
      })
      .Case([&](Ex2Op o) {
        emitSimple(op, specialFnOpcode(o, "ex2"));
        return success();
      })
      .Case([&](Lg2Op o) {
        emitSimple(op, specialFnOpcode(o, "lg2"));
        return success();
      })
      .Case([&](SinOp o) {
        emitSimple(op, specialFnOpcode(o, "sin"));
        return success();
      })
      .Case([&](CosOp o) {
        emitSimple(op, specialFnOpcode(o, "cos"));
        return success();
      })
      .Case([&](TanhOp o) {
        emitSimple(op, specialFnOpcode(o, "tanh"));
        return success();
      })
      .Case([&](RcpOp o) {
        emitSimple(op, specialFnOpcode(o, "rcp"));
        return success();
      })
      .Case([&](SqrtOp o) {
        emitSimple(op, specialFnOpcode(o, "sqrt"));
        return success();
      })
      .Case([&](RsqrtOp o) {
        emitSimple(op, specialFnOpcode(o, "rsqrt"));
        return success();
      })
      .Case([&](LoadOp o) {
        emitGuard(op);
        size_t n = o.getResults().size();
        // PTX ISA: ld.global{.cop}.nc - the cache operator precedes .nc.
        os << "ld" << flag(o.getIsVolatile(), "volatile")
           << spaceMod(o.getSpace())
           << (o.getCache() ? dot(stringifyCacheOp(*o.getCache())) : "")
           << flag(o.getNc(), "nc") << vecMod(n) << dotType(o.getType()) << " "
           << (n > 1 ? regList(o.getResults()) : reg(o.getResults()[0])) << ", "
           << address(o.getAddr(), o.getOffset()) << ";\n";
        return success();
      })
      .Case([&](StoreOp o) {
        emitGuard(op);
        size_t n = o.getValues().size();
        os << "st" << flag(o.getIsVolatile(), "volatile")
           << spaceMod(o.getSpace())
           << (o.getCache() ? dot(stringifyCacheOp(*o.getCache())) : "")
           << vecMod(n) << dotType(o.getType()) << " "
           << address(o.getAddr(), o.getOffset()) << ", "
           << (n > 1 ? regList(o.getValues()) : reg(o.getValues()[0])) << ";\n";
        return success();
      })
      .Case([&](CvtaOp o) -> LogicalResult {
        // cvta.u32 exists only with .address_size 32; ptxas rejects it in
        // the 64-bit modules printed here.
        if (!o.getType().isInteger(64))
          return op->emitError("cannot print a 32-bit cvta: PTX allows it "
                               "only with .address_size 32, and KAIO prints "
                               ".address_size 64");
        emitSimple(op, "cvta" + flag(o.getTo(), "to") + spaceMod(o.getSpace()) +
                           ".u64");
        return success();
      })
      .Case([&](AtomOp o) {
        emitGuard(op);
        os << atomicOpcode(o, "atom") << " " << reg(o.getResult()) << ", "
           << address(o.getAddr(), o.getOffset());
        for (Value v : o.getValues())
          os << ", " << reg(v);
        os << ";\n";
        return success();
      })
      .Case([&](RedOp o) {
        emitGuard(op);
        os << atomicOpcode(o, "red") << " "
           << address(o.getAddr(), o.getOffset());
        for (Value v : o.getValues())
          os << ", " << reg(v);
        os << ";\n";
        return success();
      })
      .Case([&](MembarOp o) {
        emitGuard(op);
        os << "membar" << dot(stringifyMembarLevel(o.getLevel())) << ";\n";
        return success();
      })
      .Case([&](FenceOp o) {
        emitGuard(op);
        os << "fence" << dot(stringifyMemOrder(o.getSem()))
           << dot(stringifyMemScope(o.getScope())) << ";\n";
        return success();
      })
      .Case<BarSyncOp, BarArriveOp, BarrierSyncOp>([&](auto o) {
        StringRef name = isa<BarSyncOp>(op)     ? "bar.sync"
                         : isa<BarArriveOp>(op) ? "bar.arrive"
                                                : "barrier.sync";
        emitGuard(op);
        os << name << " " << o.getId();
        if (o.getCount())
          os << ", " << *o.getCount();
        os << ";\n";
        return success();
      })
      .Case([&](ShflSyncOp o) {
        emitGuard(op);
        os << "shfl.sync" << dot(stringifyShflMode(o.getMode())) << ".b32 "
           << reg(o.getResult());
        if (!o.getValid().use_empty())
          os << "|" << reg(o.getValid());
        os << ", " << reg(o.getValue()) << ", " << reg(o.getLane()) << ", "
           << reg(o.getClamp()) << ", " << reg(o.getMask()) << ";\n";
        return success();
      })
      .Case([&](VoteSyncOp o) {
        bool ballot = o.getMode() == VoteMode::ballot;
        emitSimple(op, "vote.sync" + dot(stringifyVoteMode(o.getMode())) +
                           (ballot ? ".b32" : ".pred"));
        return success();
      })
      .Case([&](MatchSyncOp o) {
        emitSimple(op, "match" + dot(stringifyMatchMode(o.getMode())) +
                           ".sync" + dotType(o.getType()));
        return success();
      })
      .Case([&](ReduxSyncOp o) {
        emitSimple(op, "redux.sync" + dot(stringifyReduxOp(o.getOp())) +
                           dotType(o.getType()));
        return success();
      })
      .Case([&](ActiveMaskOp) {
        emitSimple(op, "activemask.b32");
        return success();
      })
      .Case([&](MmaSyncOp o) {
        emitGuard(op);
        os << "mma.sync.aligned" << dot(stringifyMMAShape(o.getShape()))
           << dot(stringifyMMALayout(o.getLayoutA()))
           << dot(stringifyMMALayout(o.getLayoutB()))
           << flag(o.getSatfinite(), "satfinite") << dotType(o.getDType())
           << dotType(o.getAType()) << dotType(o.getBType())
           << dotType(o.getCType()) << " " << regList(o.getD()) << ", "
           << regList(o.getA()) << ", " << regList(o.getB()) << ", "
           << regList(o.getC()) << ";\n";
        return success();
      })
      .Case([&](LdMatrixOp o) {
        emitGuard(op);
        os << "ldmatrix.sync.aligned.m8n8.x" << o.getResults().size()
           << flag(o.getTrans(), "trans") << ".shared.b16 "
           << regList(o.getResults()) << ", "
           << address(o.getAddr(), o.getOffset())
           << ";\n";
        return success();
      })
      .Case([&](StMatrixOp o) {
        emitGuard(op);
        os << "stmatrix.sync.aligned.m8n8.x" << o.getValues().size()
           << flag(o.getTrans(), "trans") << ".shared.b16 "
           << address(o.getAddr(), o.getOffset()) << ", "
           << regList(o.getValues())
           << ";\n";
        return success();
      })
      .Case([&](CpAsyncOp o) {
        emitGuard(op);
        os << "cp.async" << dot(stringifyCpAsyncCache(o.getCache()))
           << ".shared.global " << address(o.getDst(), o.getDstOffset())
           << ", "
           << address(o.getSrc(), 0) << ", " << o.getBytes();
        if (o.getSrcSize())
          os << ", " << reg(o.getSrcSize());
        os << ";\n";
        return success();
      })
      .Case([&](CpAsyncCommitGroupOp) {
        emitGuard(op);
        os << "cp.async.commit_group;\n";
        return success();
      })
      .Case([&](CpAsyncWaitGroupOp o) {
        emitGuard(op);
        os << "cp.async.wait_group " << o.getN() << ";\n";
        return success();
      })
      .Case([&](CpAsyncWaitAllOp) {
        emitGuard(op);
        os << "cp.async.wait_all;\n";
        return success();
      })
      .Case([&](TrapOp) {
        emitGuard(op);
        os << "trap;\n";
        return success();
      })
      .Case([&](RetOp) {
        os << "\tret;\n";
        return success();
      })
      .Case([&](ExitOp) {
        os << "\texit;\n";
        return success();
      })
      .Default([&](Operation *other) -> LogicalResult {
        if (std::optional<LogicalResult> hopper = emitHopperOp(other, *this))
          return *hopper;
        return other->emitError()
               << "cannot print '" << other->getName()
               << "' as PTX; lower it to the ptx dialect first";
      });
}

LogicalResult KernelEmitter::emit(raw_ostream &out) {
  if (failed(checkWgmmaResultReads(entry)))
    return failure();
  if (verifyCoalescing && failed(coalescing.verify(entry)))
    return failure();
  Region &region = entry.getBody();
  unsigned id = 0;
  for (Block &block : region)
    blockIds[&block] = id++;

  // Parameters are loaded into registers at the top.
  Block &entryBlock = region.front();
  for (BlockArgument arg : entryBlock.getArguments()) {
    if (entry.isTensorMapParam(arg.getArgNumber())) {
      os << "\tmov.u64 " << reg(arg) << ", "
         << entry.getParamName(arg.getArgNumber()) << ";\n\tcvta.param.u64 "
         << reg(arg) << ", " << reg(arg) << ";\n";
      continue;
    }
    PTXType type = entry.getParamPTXType(arg.getArgNumber());
    os << "\tld.param" << dotType(type) << " " << reg(arg) << ", ["
       << entry.getParamName(arg.getArgNumber()) << "];\n";
  }
  for (Block &block : region) {
    if (&block != &entryBlock)
      os << label(&block) << ":\n";
    Block *next = block.getNextNode();
    for (Operation &op : block) {
      if (auto bra = dyn_cast<BraOp>(op)) {
        emitLocation(op.getLoc());
        emitBranch(bra.getDest(), bra.getDestOperands(), bra.getUni(), next);
        continue;
      }
      if (auto cond = dyn_cast<CondBraOp>(op)) {
        emitLocation(op.getLoc());
        if (failed(emitCondBranch(cond, next)))
          return failure();
        continue;
      }
      if (failed(emitOp(&op)))
        return failure();
    }
  }

  // Header, parameters and launch bounds.
  out << "// kaio.kernel " << formatKernelSignature(entry) << "\n";
  out << ".visible .entry " << entry.getSymName() << "(";
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    out << (i ? ",\n" : "\n") << "\t.param ";
    if (entry.isTensorMapParam(i)) {
      out << ".align 64 .b8 " << entry.getParamName(i) << "["
          << 128 << "]";
      continue;
    }
    out << dotType(entry.getParamPTXType(i));
    if (entry.getArgAttr(i, PTXDialect::kPtrElementAttrName)) {
      out << " .ptr.global";
      if (auto align = entry.getArgAttrOfType<IntegerAttr>(
              i, PTXDialect::kAlignAttrName))
        out << ".align " << align.getInt();
    }
    out << " " << entry.getParamName(i);
  }
  out << (entry.getArgumentTypes().empty() ? ")\n" : "\n)\n");
  auto printDims = [&](StringRef name, std::optional<ArrayRef<int32_t>> dims) {
    if (!dims)
      return;
    out << "." << name << " ";
    llvm::interleave(*dims, out, ", ");
    out << "\n";
  };
  printDims("maxntid", entry.getMaxntid());
  printDims("reqntid", entry.getReqntid());
  if (auto n = entry.getMinnctapersm())
    out << ".minnctapersm " << *n << "\n";
  if (auto n = entry.getMaxnreg())
    out << ".maxnreg " << *n << "\n";
  printDims("reqnctapercluster", entry.getReqnctapercluster());
  out << "{\n";
  namer.printDeclarations(out);
  out << "\n" << body << "}\n";
  return success();
}

static void printVariable(GlobalVarOp var, raw_ostream &os) {
  if (var.getIsExtern())
    os << ".extern ";
  os << dot(stringifyStateSpace(var.getSpace()));
  if (auto align = var.getAlignment())
    os << " .align " << *align;
  // ptxas has no .bf16 variables: declare their bits.
  PTXType elem = var.getElemType();
  if (elem == PTXType::bf16)
    elem = PTXType::b16;
  os << " " << dotType(elem) << " " << var.getSymName() << "[";
  if (auto count = var.getCount())
    os << *count;
  os << "];\n";
}

LogicalResult kaio::ptx::translateModuleToPTX(ModuleOp module, raw_ostream &os,
                                              const PTXEmitOptions &options) {
  std::string chipName = options.defaultChip;
  if (auto target =
          module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName))
    chipName = target.str();
  // An empty module is what a failed producer upstream of a pipe leaves
  // (`kaio-opt ... | kaio-translate`): say that, not that a chip is missing.
  if (module.getBody()->empty() && module->getAttrs().empty())
    return emitError(module.getLoc())
           << "the input has no kernels (empty module); if it came from a "
              "pipe, the command before this one probably failed";
  if (chipName.empty())
    return emitError(module.getLoc())
           << "module has no '" << PTXDialect::kTargetAttrName
           << "' attribute and no chip was given";
  const ChipInfo *chip = lookupChip(chipName);
  if (!chip)
    return emitError(module.getLoc()) << "unknown chip '" << chipName << "'";

  std::optional<unsigned> override = options.isaVersion;
  if (!override)
    if (auto v =
            module->getAttrOfType<StringAttr>(PTXDialect::kVersionAttrName))
      override = parseISA(v.getValue());
  FailureOr<unsigned> isa = selectISAVersion(module, *chip, override);
  if (failed(isa))
    return failure();
  // A forced chip (no ptx.target) still has to satisfy every op.
  WalkResult walk = module.walk([&](InstructionOpInterface inst) {
    PTXRequirement req = inst.getPTXRequirement();
    if (satisfies(*chip, req))
      return WalkResult::advance();
    inst->emitOpError() << "requires " << formatSMRequirement(req)
                        << ", but the target is " << chip->name;
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();

  std::string kernels;
  llvm::raw_string_ostream kos(kernels);
  llvm::MapVector<StringRef, unsigned> files;
  unsigned kernelIndex = 0;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto var = dyn_cast<GlobalVarOp>(op)) {
      printVariable(var, kos);
      kos << "\n";
      continue;
    }
    if (auto entry = dyn_cast<EntryOp>(op)) {
      KernelEmitter emitter(entry, kernelIndex++, options, files);
      if (failed(emitter.emit(kos)))
        return failure();
      kos << "\n";
      continue;
    }
    return op.emitError() << "cannot print '" << op.getName()
                          << "' at module level as PTX";
  }

  os << "//\n// Generated by KAIO\n//\n\n";
  os << ".version " << formatISA(*isa) << "\n";
  os << ".target " << chip->name << "\n";
  os << ".address_size 64\n\n";
  for (auto &[file, id] : files)
    os << ".file " << id << " \"" << file << "\"\n";
  if (!files.empty())
    os << "\n";
  os << kernels;
  return success();
}

//===- PTXOps.cpp - ptx dialect operations --------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Runtime/Types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kaio::ptx;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `[%addr]` / `[%addr + 16]` / `[%addr + -16]`.
static ParseResult parseAddress(OpAsmParser &parser,
                                OpAsmParser::UnresolvedOperand &addr,
                                IntegerAttr &offset) {
  int64_t value = 0;
  if (parser.parseLSquare() || parser.parseOperand(addr))
    return failure();
  if (succeeded(parser.parseOptionalPlus()) && parser.parseInteger(value))
    return failure();
  offset = parser.getBuilder().getI64IntegerAttr(value);
  return parser.parseRSquare();
}

static void printAddress(OpAsmPrinter &p, Operation *, Value addr,
                         IntegerAttr offset) {
  p << "[" << addr;
  if (offset && offset.getInt() != 0)
    p << " + " << offset.getInt();
  p << "]";
}

/// A single type when the operands and the result agree, otherwise
/// `(operand types) -> result type`.
static ParseResult parseTypeSigImpl(OpAsmParser &parser,
                                    ArrayRef<Type *> operandTypes,
                                    Type &resultType) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLParen())) {
    SmallVector<Type> types;
    if (parser.parseTypeList(types) || parser.parseRParen() ||
        parser.parseArrow() || parser.parseType(resultType))
      return failure();
    if (types.size() != operandTypes.size())
      return parser.emitError(loc) << "expected " << operandTypes.size()
                                   << " operand types, got " << types.size();
    for (auto [slot, type] : llvm::zip(operandTypes, types))
      *slot = type;
    return success();
  }
  Type type;
  if (parser.parseType(type))
    return failure();
  for (Type *slot : operandTypes)
    *slot = type;
  resultType = type;
  return success();
}

static void printTypeSigImpl(OpAsmPrinter &p, ArrayRef<Type> operandTypes,
                             Type resultType) {
  if (llvm::all_of(operandTypes, [&](Type t) { return t == resultType; })) {
    p << resultType;
    return;
  }
  p << "(";
  llvm::interleaveComma(operandTypes, p);
  p << ") -> " << resultType;
}

static ParseResult parseTypeSig(OpAsmParser &parser, Type &a, Type &result) {
  return parseTypeSigImpl(parser, {&a}, result);
}
static ParseResult parseTypeSig(OpAsmParser &parser, Type &a, Type &b,
                                Type &result) {
  return parseTypeSigImpl(parser, {&a, &b}, result);
}
static ParseResult parseTypeSig(OpAsmParser &parser, Type &a, Type &b,
                                Type &c, Type &result) {
  return parseTypeSigImpl(parser, {&a, &b, &c}, result);
}
static ParseResult parseTypeSig(OpAsmParser &parser, Type &a, Type &b,
                                Type &c, Type &d, Type &result) {
  return parseTypeSigImpl(parser, {&a, &b, &c, &d}, result);
}
static void printTypeSig(OpAsmPrinter &p, Operation *, Type a, Type result) {
  printTypeSigImpl(p, {a}, result);
}
static void printTypeSig(OpAsmPrinter &p, Operation *, Type a, Type b,
                         Type result) {
  printTypeSigImpl(p, {a, b}, result);
}
static void printTypeSig(OpAsmPrinter &p, Operation *, Type a, Type b, Type c,
                         Type result) {
  printTypeSigImpl(p, {a, b, c}, result);
}
static void printTypeSig(OpAsmPrinter &p, Operation *, Type a, Type b, Type c,
                         Type d, Type result) {
  printTypeSigImpl(p, {a, b, c, d}, result);
}

#define GET_OP_CLASSES
#include "Kaio/Dialect/PTX/IR/PTXOps.cpp.inc"

#include "Kaio/Dialect/PTX/IR/PTXEnums.cpp.inc"
#include "Kaio/Dialect/PTX/IR/PTXInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifier helpers
//===----------------------------------------------------------------------===//

using T = PTXType;

static std::string typeName(PTXType t) {
  return ("." + stringifyPTXType(t)).str();
}

static LogicalResult checkTypeIn(Operation *op, PTXType type,
                                 std::initializer_list<PTXType> allowed) {
  if (llvm::is_contained(allowed, type))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "does not support type " << typeName(type)
                            << "; expected one of";
  for (PTXType t : allowed)
    diag << " " << typeName(t);
  return diag;
}

static LogicalResult checkReg(Operation *op, PTXType type, Type reg,
                              StringRef what, bool allowWider = false) {
  if (isRegisterCompatible(type, reg, allowWider))
    return success();
  return op->emitOpError() << what << " of type " << reg
                           << " is not a valid register for "
                           << typeName(type);
}

static bool isFloatRounding(Rounding r) {
  return r == Rounding::rn || r == Rounding::rz || r == Rounding::rm ||
         r == Rounding::rp;
}
static bool isIntRounding(Rounding r) {
  return r == Rounding::rni || r == Rounding::rzi || r == Rounding::rmi ||
         r == Rounding::rpi;
}

/// Rounding, ftz and sat as add/sub/mul/fma accept them.
static LogicalResult checkFloatMods(Operation *op, PTXType type,
                                    std::optional<Rounding> rnd, bool ftz,
                                    bool sat) {
  if (rnd) {
    if (!isFloat(type))
      return op->emitOpError("rounding modifier requires a float type");
    if (!isFloatRounding(*rnd))
      return op->emitOpError() << "rounding ." << stringifyRounding(*rnd)
                               << " is not valid here; expected .rn, .rz, "
                                  ".rm or .rp";
    if (isHalf(type) && *rnd != Rounding::rn)
      return op->emitOpError("half-precision arithmetic only rounds .rn");
  }
  if (ftz && type != PTXType::f32 && type != PTXType::f16 &&
      type != PTXType::f16x2)
    return op->emitOpError(".ftz requires .f32, .f16 or .f16x2");
  if (sat && type != PTXType::s32 && type != PTXType::f32 &&
      type != PTXType::f16 && type != PTXType::f16x2)
    return op->emitOpError(".sat requires .s32, .f32, .f16 or .f16x2");
  return success();
}

/// All operands and the result use registers valid for `type`.
static LogicalResult checkUniform(Operation *op, PTXType type) {
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (auto inst = dyn_cast<InstructionOpInterface>(op);
        inst && v == inst.getGuardPredicate())
      continue;
    if (failed(checkReg(op, type, v.getType(),
                        "operand #" + std::to_string(i))))
      return failure();
  }
  for (Value r : op->getResults())
    if (failed(checkReg(op, type, r.getType(), "result")))
      return failure();
  return success();
}

static LogicalResult checkI32(Operation *op, Value v, StringRef what) {
  if (v.getType().isInteger(32))
    return success();
  return op->emitOpError() << what << " must be an i32 register, got "
                           << v.getType();
}

#define INT_TYPES T::s16, T::u16, T::s32, T::u32, T::s64, T::u64
#define FLOAT_TYPES                                                            \
  T::f16, T::f16x2, T::bf16, T::bf16x2, T::f32, T::f64

/// Extra requirement of half-precision arithmetic.
static PTXRequirement halfRequirement(PTXType type, PTXRequirement bf16Req) {
  if (isBF16(type))
    return bf16Req;
  return {};
}

//===----------------------------------------------------------------------===//
// EntryOp
//===----------------------------------------------------------------------===//

ParseResult EntryOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void EntryOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

PTXType EntryOp::getParamPTXType(unsigned i) {
  Type type = getArgumentTypes()[i];
  PTXType t = *getParamType(type);
  if (getArgAttr(i, PTXDialect::kSignedAttrName) && isUnsigned(t))
    return getBitWidth(t) == 16   ? PTXType::s16
           : getBitWidth(t) == 32 ? PTXType::s32
                                  : PTXType::s64;
  return t;
}

bool EntryOp::isTensorMapParam(unsigned i) {
  return getArgAttr(i, PTXDialect::kTensorMapAttrName) != nullptr;
}

std::string EntryOp::getParamName(unsigned i) {
  if (auto name = getArgAttrOfType<StringAttr>(i, PTXDialect::kParamNameAttrName))
    return name.str();
  return (getSymName() + "_param_" + Twine(i)).str();
}

LogicalResult EntryOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernels return no values");
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    if (!getParamType(type))
      return emitOpError() << "parameter #" << i << " has type " << type
                           << ", which is not a PTX parameter type";
    if (Attribute elem = getArgAttr(i, PTXDialect::kPtrElementAttrName)) {
      if (!type.isInteger(64))
        return emitOpError() << "pointer parameter #" << i << " must be i64";
      auto elemType = dyn_cast<TypeAttr>(elem);
      Type t = elemType ? elemType.getValue() : Type();
      auto intType = dyn_cast_or_null<IntegerType>(t);
      bool validInt = intType && llvm::is_contained({8u, 16u, 32u, 64u},
                                                    intType.getWidth());
      bool validFloat = t && (t.isF16() || t.isBF16() || t.isF32() ||
                              t.isF64());
      if (!validInt && !validFloat)
        return emitOpError() << "'" << PTXDialect::kPtrElementAttrName
                             << "' of parameter #" << i
                             << " must be a scalar element type";
    }
    if (auto align = getArgAttr(i, PTXDialect::kAlignAttrName)) {
      auto value = dyn_cast<IntegerAttr>(align);
      if (!value || value.getInt() <= 0 ||
          !llvm::isPowerOf2_64(value.getInt()))
        return emitOpError() << "'" << PTXDialect::kAlignAttrName
                             << "' of parameter #" << i
                             << " must be a power of two";
    }
    // Both describe the pointee: `.ptr.global.align N` and ld.global.nc.
    bool isPtr = getArgAttr(i, PTXDialect::kPtrElementAttrName) != nullptr;
    if (isTensorMapParam(i)) {
      if (!type.isInteger(64))
        return emitOpError() << "tensor map parameter #" << i
                             << " must be i64 (its address)";
      if (isPtr || getArgAttr(i, PTXDialect::kSignedAttrName))
        return emitOpError() << "tensor map parameter #" << i
                             << " cannot also be a pointer or signed";
      if (auto module = (*this)->getParentOfType<ModuleOp>())
        if (auto target = module->getAttrOfType<StringAttr>(
                PTXDialect::kTargetAttrName))
          if (const ChipInfo *chip = lookupChip(target.getValue());
              chip && chip->sm < 90)
            return emitOpError() << "tensor map parameter #" << i
                                 << " needs sm_90 or newer (target is "
                                 << chip->name << ")";
    }
    for (StringRef attr :
         {PTXDialect::kAlignAttrName, PTXDialect::kReadOnlyAttrName})
      if (getArgAttr(i, attr) && !isPtr)
        return emitOpError() << "'" << attr << "' of parameter #" << i
                             << " needs '" << PTXDialect::kPtrElementAttrName
                             << "'";
  }
  llvm::StringSet<> names;
  for (unsigned i = 0, e = getArgumentTypes().size(); i < e; ++i)
    if (!names.insert(getParamName(i)).second)
      return emitOpError() << "parameter name '" << getParamName(i)
                           << "' is used twice";
  auto checkDims = [&](std::optional<ArrayRef<int32_t>> dims,
                       StringRef name) -> LogicalResult {
    if (!dims)
      return success();
    if (dims->empty() || dims->size() > 3)
      return emitOpError() << name << " takes 1 to 3 dimensions";
    int64_t total = 1;
    for (int32_t d : *dims) {
      if (d <= 0)
        return emitOpError() << name << " dimensions must be positive";
      // (Saturating: three int32 extents overflow an int64 product.)
      total = std::min<int64_t>(total * d, int64_t(1) << 32);
    }
    if (total > 1024)
      return emitOpError() << name << " allows " << total
                           << " threads; a block has at most 1024";
    return success();
  };
  if (failed(checkDims(getMaxntid(), "maxntid")) ||
      failed(checkDims(getReqntid(), "reqntid")))
    return failure();
  if (getMaxnreg() && (*getMaxnreg() < 16 || *getMaxnreg() > 255))
    return emitOpError("maxnreg must be between 16 and 255");
  if (getMinnctapersm() && *getMinnctapersm() <= 0)
    return emitOpError("minnctapersm must be positive");
  if (std::optional<ArrayRef<int32_t>> dims = getReqnctapercluster()) {
    if (dims->empty() || dims->size() > 3)
      return emitOpError("reqnctapercluster takes 1 to 3 dimensions");
    int64_t total = 1;
    for (int32_t d : *dims) {
      if (d <= 0)
        return emitOpError("reqnctapercluster dimensions must be positive");
      total *= d;
    }
    if (total > kaio::rt::kPortableClusterBlocks)
      return emitOpError() << "reqnctapercluster asks for " << total
                           << " blocks; a kernel's cluster has at most "
                           << kaio::rt::kPortableClusterBlocks
                           << " (the portable size)";
    if (auto module = (*this)->getParentOfType<ModuleOp>())
      if (auto target = module->getAttrOfType<StringAttr>(
              PTXDialect::kTargetAttrName))
        if (const ChipInfo *chip = lookupChip(target.getValue());
            chip && chip->sm < 90)
          return emitOpError() << "reqnctapercluster needs sm_90 or newer "
                                  "(target is "
                               << chip->name << ")";
  }
  if (std::optional<uint64_t> smem = getDynamicSmem()) {
    uint64_t limit = 0;
    for (const ChipInfo &chip : getChips())
      limit = std::max<uint64_t>(limit, chip.maxSharedPerBlock);
    if (*smem == 0 || *smem > limit)
      return emitOpError() << "dynamic_smem must be between 1 and " << limit
                           << " bytes";
    if (auto module = (*this)->getParentOfType<ModuleOp>())
      if (auto target =
              module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName))
        if (const ChipInfo *chip = lookupChip(target.getValue());
            chip && *smem > chip->maxSharedPerBlock)
          return emitOpError()
                 << "needs " << *smem << " bytes of dynamic shared memory; "
                 << chip->name << " allows at most " << chip->maxSharedPerBlock
                 << " per block";
  }
  return success();
}

LogicalResult EntryOp::verifyRegions() {
  // FunctionOpInterface has checked the entry block against the signature.
  if (getBody().empty())
    return emitOpError("kernel must have a body");
  for (Block &block : getBody()) {
    for (BlockArgument arg : block.getArguments())
      if (!getRegisterClass(arg.getType()))
        return emitOpError() << "block argument of type " << arg.getType()
                             << " is not a PTX register type";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalVarOp, AddressOfOp
//===----------------------------------------------------------------------===//

LogicalResult GlobalVarOp::verify() {
  StateSpace space = getSpace();
  if (space != StateSpace::shared && space != StateSpace::global &&
      space != StateSpace::Const)
    return emitOpError("module variables live in .shared, .global or .const");
  if (getElemType() == PTXType::pred || getElemType() == PTXType::u4 ||
      getElemType() == PTXType::s4 || isPacked(getElemType()) ||
      getElemType() == PTXType::tf32 || isFP8(getElemType()))
    return emitOpError() << "element type " << typeName(getElemType())
                         << " cannot be stored in memory";
  if (getIsExtern()) {
    if (space != StateSpace::shared)
      return emitOpError("only .shared arrays can be extern (dynamic)");
    if (getCount())
      return emitOpError("extern shared arrays have no static size");
  } else if (!getCount() || *getCount() <= 0) {
    return emitOpError("array needs a positive element count");
  }
  if (auto align = getAlignment())
    if (*align <= 0 || !llvm::isPowerOf2_64(*align))
      return emitOpError("alignment must be a power of two");
  return success();
}

int64_t GlobalVarOp::getSizeInBytes() {
  if (getIsExtern() || !getCount())
    return 0;
  return *getCount() * std::max(1u, getBitWidth(getElemType()) / 8);
}

LogicalResult
AddressOfOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto var = symbolTable.lookupNearestSymbolFrom<GlobalVarOp>(*this,
                                                               getNameAttr());
  if (!var)
    return emitOpError() << "'" << getName()
                         << "' does not name a ptx.var";
  if (getResult().getType().isInteger(32) &&
      var.getSpace() != StateSpace::shared)
    return emitOpError("32-bit addresses exist only for .shared variables");
  return success();
}

//===----------------------------------------------------------------------===//
// Moves and constants
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  TypedAttr value;
  if (parser.parseAttribute(value) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addAttribute("value", value);
  result.addTypes(value.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printAttribute(getValue());
  p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
}

LogicalResult ConstantOp::verify() {
  Type type = getValue().getType();
  if (type != getResult().getType())
    return emitOpError("value and result types differ");
  if (!isa<IntegerAttr, FloatAttr>(getValue()) || !getRegisterClass(type) ||
      isa<VectorType>(type))
    return emitOpError("value must be a scalar integer or float of a PTX "
                       "register type");
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

static unsigned registerBits(Type type) {
  std::optional<RegisterClass> rc = getRegisterClass(type);
  return rc ? rc->bits : 0;
}

LogicalResult MovOp::verify() {
  if (failed(checkTypeIn(*this, getType(),
                         {T::pred, T::b16, T::b32, T::b64, T::u16, T::u32,
                          T::u64, T::s16, T::s32, T::s64, T::f32, T::f64})) ||
      failed(checkReg(*this, getType(), getSrc().getType(), "source")) ||
      failed(checkReg(*this, getType(), getResult().getType(), "result")))
    return failure();
  return success();
}

static LogicalResult verifyPackParts(Operation *op, PTXType type,
                                     TypeRange parts, Type whole) {
  if (type != PTXType::b32 && type != PTXType::b64)
    return op->emitOpError("pack/unpack use .b32 or .b64");
  if (!isRegisterCompatible(type, whole))
    return op->emitOpError() << "packed register of type " << whole
                             << " is not a valid register for "
                             << typeName(type);
  if (parts.size() != 2 && parts.size() != 4)
    return op->emitOpError("expected 2 or 4 parts");
  unsigned bits = 0;
  for (Type part : parts) {
    if (registerBits(part) != registerBits(parts.front()) ||
        part.isInteger(1))
      return op->emitOpError("parts must be registers of one width");
    bits += registerBits(part);
  }
  if (bits != getBitWidth(type))
    return op->emitOpError() << "parts hold " << bits << " bits, but "
                             << typeName(type) << " has "
                             << getBitWidth(type);
  return success();
}

LogicalResult PackOp::verify() {
  return verifyPackParts(*this, getType(), getParts().getTypes(),
                         getResult().getType());
}

LogicalResult UnpackOp::verify() {
  return verifyPackParts(*this, getType(), getParts().getTypes(),
                         getSrc().getType());
}

LogicalResult SpecialRegOp::verify() {
  const SpecialRegInfo &info = getSpecialRegInfo(getReg());
  if (getResult().getType().isInteger(info.bits))
    return success();
  InFlightDiagnostic diag = emitOpError()
                            << "%" << stringifySpecialReg(getReg()) << " is ";
  if (info.bits == 1)
    return diag << "a predicate";
  return diag << info.bits << "-bit";
}

void SpecialRegOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // A register that may change reads like volatile memory: not merged with
  // another read, not moved, not dropped.
  if (!getSpecialRegInfo(getReg()).varies)
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

PTXRequirement SpecialRegOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(
      getSpecialRegInfo(getReg()).requirement);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

LogicalResult AddOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {INT_TYPES, FLOAT_TYPES})) ||
      failed(checkUniform(*this, getType())))
    return failure();
  return checkFloatMods(*this, getType(), getRnd(), getFtz(), getSat());
}
PTXRequirement AddOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {90, 78}));
}

LogicalResult SubOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {INT_TYPES, FLOAT_TYPES})) ||
      failed(checkUniform(*this, getType())))
    return failure();
  return checkFloatMods(*this, getType(), getRnd(), getFtz(), getSat());
}
PTXRequirement SubOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {90, 78}));
}

/// mul and mad: integers take .lo/.hi/.wide, floats take rounding.
static LogicalResult verifyMulLike(Operation *op, PTXType type,
                                   std::optional<MulMode> mode,
                                   std::optional<Rounding> rnd, bool ftz,
                                   bool sat, ValueRange narrow, Value wideIn,
                                   Value result, bool isMad) {
  if (failed(checkTypeIn(op, type, {INT_TYPES, FLOAT_TYPES})))
    return failure();
  if (isFloat(type)) {
    if (mode)
      return op->emitOpError(".lo/.hi/.wide apply to integer types only");
    if (isMad && isHalf(type))
      return op->emitOpError("mad has no half-precision form; use fma");
    if (isMad && !rnd)
      return op->emitOpError("float mad needs a rounding modifier");
    if (failed(checkFloatMods(op, type, rnd, ftz, sat)))
      return failure();
  } else {
    if (!mode)
      return op->emitOpError("integer multiply needs .lo, .hi or .wide");
    if (rnd || ftz)
      return op->emitOpError("rounding and .ftz apply to float types only");
    if (sat && !(isMad && *mode == MulMode::hi && type == PTXType::s32))
      return op->emitOpError(".sat is only valid on mad.hi.s32");
    if (*mode == MulMode::wide && getBitWidth(type) == 64)
      return op->emitOpError(".wide needs a 16- or 32-bit type");
  }
  for (Value v : narrow)
    if (failed(checkReg(op, type, v.getType(), "operand")))
      return failure();
  bool wide = mode && *mode == MulMode::wide;
  if (!wide) {
    if (wideIn && failed(checkReg(op, type, wideIn.getType(), "addend")))
      return failure();
    return checkReg(op, type, result.getType(), "result");
  }
  unsigned bits = 2 * getBitWidth(type);
  for (Value v : {wideIn, result}) {
    if (v && (registerBits(v.getType()) != bits || !v.getType().isInteger()))
      return op->emitOpError() << ".wide produces a " << bits
                               << "-bit integer, got " << v.getType();
  }
  return success();
}

LogicalResult MulOp::verify() {
  return verifyMulLike(*this, getType(), getMode(), getRnd(), getFtz(),
                       getSat(), {getLhs(), getRhs()}, Value(), getResult(),
                       /*isMad=*/false);
}
PTXRequirement MulOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {90, 78}));
}

LogicalResult MadOp::verify() {
  return verifyMulLike(*this, getType(), getMode(), getRnd(), getFtz(),
                       getSat(), {getA(), getB()}, getC(), getResult(),
                       /*isMad=*/true);
}
PTXRequirement MadOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {90, 78}));
}

LogicalResult FmaOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {FLOAT_TYPES})) ||
      failed(checkUniform(*this, getType())))
    return failure();
  if (!getRnd())
    return emitOpError("fma needs a rounding modifier");
  return checkFloatMods(*this, getType(), getRnd(), getFtz(), getSat());
}
PTXRequirement FmaOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {80, 70}));
}

LogicalResult DivOp::verify() {
  if (failed(checkTypeIn(*this, getType(),
                         {INT_TYPES, PTXType::f32, PTXType::f64})) ||
      failed(checkUniform(*this, getType())))
    return failure();
  PTXType type = getType();
  if (!isFloat(type)) {
    if (getRnd() || getApprox() || getFull() || getFtz())
      return emitOpError("integer division takes no modifiers");
    return success();
  }
  unsigned modes = (getRnd() ? 1 : 0) + getApprox() + getFull();
  if (modes != 1)
    return emitOpError("float division needs exactly one of a rounding "
                       "modifier, .approx or .full");
  if (getRnd() && !isFloatRounding(*getRnd()))
    return emitOpError("division rounds .rn, .rz, .rm or .rp");
  if (type == PTXType::f64 && (getApprox() || getFull() || getFtz()))
    return emitOpError(".approx, .full and .ftz apply to .f32 only");
  return success();
}
PTXRequirement DivOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult RemOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {INT_TYPES})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement RemOp::getPTXRequirement() { return getStaticPTXRequirement(); }

static LogicalResult verifyMinMax(Operation *op, PTXType type, bool ftz,
                                  bool nan) {
  if (failed(checkTypeIn(op, type, {INT_TYPES, FLOAT_TYPES})) ||
      failed(checkUniform(op, type)))
    return failure();
  if (ftz && type != PTXType::f32 && type != PTXType::f16 &&
      type != PTXType::f16x2)
    return op->emitOpError(".ftz requires .f32, .f16 or .f16x2");
  if (nan && (!isFloat(type) || type == PTXType::f64))
    return op->emitOpError(".NaN requires a float type other than .f64");
  return success();
}
static PTXRequirement minMaxRequirement(PTXRequirement base, PTXType type,
                                        bool nan) {
  if (isHalf(type) || nan)
    return base.join({80, 70});
  return base;
}

LogicalResult MinOp::verify() {
  return verifyMinMax(*this, getType(), getFtz(), getNan());
}
PTXRequirement MinOp::getPTXRequirement() {
  return minMaxRequirement(getStaticPTXRequirement(), getType(), getNan());
}
LogicalResult MaxOp::verify() {
  return verifyMinMax(*this, getType(), getFtz(), getNan());
}
PTXRequirement MaxOp::getPTXRequirement() {
  return minMaxRequirement(getStaticPTXRequirement(), getType(), getNan());
}

static LogicalResult verifyAbsNeg(Operation *op, PTXType type, bool ftz) {
  if (failed(checkTypeIn(op, type,
                         {T::s16, T::s32, T::s64, FLOAT_TYPES})) ||
      failed(checkUniform(op, type)))
    return failure();
  if (ftz && type != PTXType::f32 && type != PTXType::f16 &&
      type != PTXType::f16x2)
    return op->emitOpError(".ftz requires .f32, .f16 or .f16x2");
  return success();
}
LogicalResult AbsOp::verify() {
  return verifyAbsNeg(*this, getType(), getFtz());
}
PTXRequirement AbsOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  if (isBF16(getType()))
    return req.join({80, 70});
  if (isHalf(getType()))
    return req.join({0, 65});
  return req;
}
LogicalResult NegOp::verify() {
  return verifyAbsNeg(*this, getType(), getFtz());
}
PTXRequirement NegOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(halfRequirement(getType(), {80, 70}));
}

#define LOGIC_TYPES T::pred, T::b16, T::b32, T::b64
LogicalResult AndOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {LOGIC_TYPES})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement AndOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult OrOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {LOGIC_TYPES})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement OrOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult XorOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {LOGIC_TYPES})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement XorOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult NotOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {LOGIC_TYPES})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement NotOp::getPTXRequirement() { return getStaticPTXRequirement(); }

static LogicalResult verifyShift(Operation *op, PTXType type, Value lhs,
                                 Value rhs, Value result, bool isShl) {
  if (isShl) {
    if (failed(checkTypeIn(op, type, {T::b16, T::b32, T::b64})))
      return failure();
  } else if (failed(checkTypeIn(op, type,
                                {T::b16, T::b32, T::b64, INT_TYPES}))) {
    return failure();
  }
  if (failed(checkReg(op, type, lhs.getType(), "operand")) ||
      failed(checkReg(op, type, result.getType(), "result")))
    return failure();
  return checkI32(op, rhs, "shift amount");
}
LogicalResult ShlOp::verify() {
  return verifyShift(*this, getType(), getLhs(), getRhs(), getResult(), true);
}
PTXRequirement ShlOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult ShrOp::verify() {
  return verifyShift(*this, getType(), getLhs(), getRhs(), getResult(), false);
}
PTXRequirement ShrOp::getPTXRequirement() { return getStaticPTXRequirement(); }

static LogicalResult verifyBitCount(Operation *op, PTXType type, Value src,
                                    Value result) {
  if (failed(checkTypeIn(op, type, {T::b32, T::b64})) ||
      failed(checkReg(op, type, src.getType(), "operand")))
    return failure();
  return checkI32(op, result, "result");
}
LogicalResult PopcOp::verify() {
  return verifyBitCount(*this, getType(), getSrc(), getResult());
}
PTXRequirement PopcOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult ClzOp::verify() {
  return verifyBitCount(*this, getType(), getSrc(), getResult());
}
PTXRequirement ClzOp::getPTXRequirement() { return getStaticPTXRequirement(); }
LogicalResult BrevOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::b32, T::b64})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement BrevOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult BfeOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::u32, T::u64, T::s32, T::s64})) ||
      failed(checkReg(*this, getType(), getA().getType(), "operand")) ||
      failed(checkReg(*this, getType(), getResult().getType(), "result")) ||
      failed(checkI32(*this, getB(), "position")))
    return failure();
  return checkI32(*this, getC(), "length");
}
PTXRequirement BfeOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult BfiOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::b32, T::b64})) ||
      failed(checkReg(*this, getType(), getA().getType(), "operand")) ||
      failed(checkReg(*this, getType(), getB().getType(), "operand")) ||
      failed(checkReg(*this, getType(), getResult().getType(), "result")) ||
      failed(checkI32(*this, getC(), "position")))
    return failure();
  return checkI32(*this, getD(), "length");
}
PTXRequirement BfiOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult PrmtOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::b32})))
    return failure();
  return checkUniform(*this, getType());
}
PTXRequirement PrmtOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult Lop3Op::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::b32})) ||
      failed(checkUniform(*this, getType())))
    return failure();
  if (getLut() > 255)
    return emitOpError("lookup table must be between 0 and 255");
  return success();
}
PTXRequirement Lop3Op::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult SelpOp::verify() {
  if (failed(checkTypeIn(*this, getType(),
                         {T::b16, T::b32, T::b64, INT_TYPES, T::f32, T::f64})))
    return failure();
  for (Value v : {getA(), getB(), getResult()})
    if (failed(checkReg(*this, getType(), v.getType(), "operand")))
      return failure();
  return success();
}
PTXRequirement SelpOp::getPTXRequirement() { return getStaticPTXRequirement(); }

LogicalResult SetpOp::verify() {
  PTXType type = getType();
  if (failed(checkTypeIn(*this, type,
                         {T::b16, T::b32, T::b64, INT_TYPES, T::f16, T::bf16,
                          T::f32, T::f64})) ||
      failed(checkReg(*this, type, getLhs().getType(), "operand")) ||
      failed(checkReg(*this, type, getRhs().getType(), "operand")))
    return failure();
  CmpOp cmp = getCmp();
  bool unsignedCmp = cmp == CmpOp::lo || cmp == CmpOp::ls ||
                     cmp == CmpOp::hi || cmp == CmpOp::hs;
  bool nanCmp = static_cast<unsigned>(cmp) >= static_cast<unsigned>(CmpOp::equ);
  if (isBits(type) && cmp != CmpOp::eq && cmp != CmpOp::ne)
    return emitOpError("bit types compare only with eq and ne");
  if (unsignedCmp && !isUnsigned(type))
    return emitOpError() << "." << stringifyCmpOp(cmp)
                         << " compares unsigned integer types only";
  if (nanCmp && !isFloat(type))
    return emitOpError() << "." << stringifyCmpOp(cmp)
                         << " compares float types only";
  if (getFtz() && type != PTXType::f32 && type != PTXType::f16)
    return emitOpError(".ftz requires .f32 or .f16");
  if (getBoolOp().has_value() != (getCombine() != nullptr))
    return emitOpError("a combining operation needs a predicate operand, and "
                       "the reverse");
  return success();
}
PTXRequirement SetpOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(
      getType() == PTXType::bf16 ? PTXRequirement{90, 78} : PTXRequirement{});
}

//===----------------------------------------------------------------------===//
// Conversions and special functions
//===----------------------------------------------------------------------===//

LogicalResult CvtOp::verify() {
  PTXType dst = getDstType(), src = getSrcType();
  std::initializer_list<PTXType> allowed = {
      T::u8,  T::u16, T::u32, T::u64, T::s8,  T::s16,  T::s32,
      T::s64, T::f16, T::bf16, T::tf32, T::f32, T::f64};
  if (failed(checkTypeIn(*this, dst, allowed)) ||
      failed(checkTypeIn(*this, src, allowed)) ||
      failed(checkReg(*this, src, getSrc().getType(), "source",
                      /*allowWider=*/true)) ||
      failed(checkReg(*this, dst, getResult().getType(), "result",
                      /*allowWider=*/true)))
    return failure();
  std::optional<Rounding> rnd = getRnd();
  if (dst == PTXType::tf32) {
    if (src != PTXType::f32 ||
        (rnd != Rounding::rna && rnd != Rounding::rn && rnd != Rounding::rz))
      return emitOpError("tf32 conversion is cvt.rna.tf32.f32 (or .rn/.rz "
                         "on sm_90)");
    if (getFtz() || getSat())
      return emitOpError("tf32 conversion takes no .ftz or .sat");
    if (getRelu() && rnd == Rounding::rna)
      return emitOpError(".relu tf32 conversion rounds .rn or .rz");
    return success();
  }
  if (src == PTXType::tf32)
    return emitOpError("tf32 is only a conversion destination");
  bool fd = isFloat(dst), fs = isFloat(src);
  if (fd && fs) {
    unsigned dstBits = getBitWidth(dst), srcBits = getBitWidth(src);
    if (dstBits < srcBits) {
      if (!rnd || !isFloatRounding(*rnd))
        return emitOpError("narrowing float conversion needs .rn, .rz, .rm "
                           "or .rp");
    } else if (dstBits > srcBits) {
      if (rnd)
        return emitOpError("widening float conversion takes no rounding");
    } else if (dst != src) {
      // f16 <-> bf16: same width, different precision.
      if (rnd && !isFloatRounding(*rnd))
        return emitOpError("f16/bf16 conversion rounds .rn, .rz, .rm or .rp");
    } else if (rnd && !isIntRounding(*rnd)) {
      return emitOpError("same-type float conversion rounds to an integral "
                         "value: .rni, .rzi, .rmi or .rpi");
    }
  } else if (fs) {
    if (!rnd || !isIntRounding(*rnd))
      return emitOpError("float-to-integer conversion needs .rni, .rzi, .rmi "
                         "or .rpi");
  } else if (fd) {
    if (!rnd || !isFloatRounding(*rnd))
      return emitOpError("integer-to-float conversion needs .rn, .rz, .rm or "
                         ".rp");
  } else {
    if (rnd)
      return emitOpError("integer conversion takes no rounding");
    // .sat clamps; PTX rejects it where the source range fits the
    // destination.
    unsigned dstBits = getBitWidth(dst), srcBits = getBitWidth(src);
    bool fits = (isSigned(dst) == isSigned(src) && dstBits >= srcBits) ||
                (isUnsigned(src) && isSigned(dst) && dstBits > srcBits);
    if (getSat() && fits)
      return emitOpError() << ".sat needs a conversion that can overflow; "
                           << typeName(src) << " always fits "
                           << typeName(dst);
  }
  if (isBF16(dst) || isBF16(src)) {
    if (getSat())
      return emitOpError(".sat is not valid on .bf16 conversions");
    if (getBitWidth(dst) == 8 || getBitWidth(src) == 8)
      return emitOpError(".bf16 does not convert to or from 8-bit integers");
  }
  if (getRelu()) {
    if ((dst != PTXType::f16 && dst != PTXType::bf16) || src != PTXType::f32)
      return emitOpError(".relu converts .f32 to .f16 or .bf16");
    if (rnd != Rounding::rn && rnd != Rounding::rz)
      return emitOpError(".relu conversion rounds .rn or .rz");
    if (getSat() || getFtz())
      return emitOpError(".relu excludes .sat and .ftz");
  }
  if (getFtz() && src != PTXType::f32 && dst != PTXType::f32)
    return emitOpError(".ftz requires an .f32 source or destination");
  return success();
}
PTXRequirement CvtOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  PTXType dst = getDstType(), src = getSrcType();
  if (dst == PTXType::tf32)
    return req.join(getRnd() == Rounding::rna ? PTXRequirement{80, 70}
                                              : PTXRequirement{90, 78});
  // bf16 <-> f32 came with sm_80; bf16 with any other type, and .ftz on
  // bf16 -> f32, with sm_90.
  if (isBF16(src))
    return req.join(dst == PTXType::f32 && !getFtz() ? PTXRequirement{80, 71}
                                                      : PTXRequirement{90, 78});
  if (isBF16(dst))
    return req.join(src == PTXType::f32 ? PTXRequirement{80, 70}
                                        : PTXRequirement{90, 78});
  if (getRelu())
    return req.join({80, 70});
  return req;
}

LogicalResult CvtPackOp::verify() {
  if (failed(checkTypeIn(*this, getDstType(), {T::f16x2, T::bf16x2})) ||
      failed(checkReg(*this, getDstType(), getResult().getType(), "result")))
    return failure();
  if (getRnd() != Rounding::rn && getRnd() != Rounding::rz)
    return emitOpError("packed conversion rounds .rn or .rz");
  return success();
}
PTXRequirement CvtPackOp::getPTXRequirement() {
  return getStaticPTXRequirement().join(
      getSatfinite() ? PTXRequirement{80, 81} : PTXRequirement{});
}

static LogicalResult verifySpecialFn(Operation *op, StringRef name,
                                     PTXType type, bool approx,
                                     std::optional<Rounding> rnd, bool ftz) {
  bool approxOnly = name == "ex2" || name == "lg2" || name == "sin" ||
                    name == "cos" || name == "tanh" || name == "rsqrt";
  if (name == "ex2" || name == "tanh") {
    if (failed(checkTypeIn(op, type, {T::f32, T::f16, T::f16x2, T::bf16,
                                      T::bf16x2})))
      return failure();
  } else if (name == "rcp" || name == "sqrt" || name == "rsqrt") {
    if (failed(checkTypeIn(op, type, {T::f32, T::f64})))
      return failure();
  } else if (failed(checkTypeIn(op, type, {T::f32}))) {
    return failure();
  }
  if (failed(checkUniform(op, type)))
    return failure();
  if (approx && rnd)
    return op->emitOpError(".approx and a rounding modifier exclude each "
                           "other");
  if (approxOnly && !approx)
    return op->emitOpError() << name << " is only available as .approx";
  if (!approxOnly && !approx && !rnd)
    return op->emitOpError() << name
                             << " needs .approx or an IEEE rounding modifier";
  if (rnd && !isFloatRounding(*rnd))
    return op->emitOpError("rounding must be .rn, .rz, .rm or .rp");
  if (approx && type == PTXType::f64 && !(name == "rsqrt" || name == "rcp"))
    return op->emitOpError(".approx.f64 exists only for rcp and rsqrt");
  if (approx && type == PTXType::f64 && name == "rcp" && !ftz)
    return op->emitOpError("rcp.approx.f64 requires .ftz");
  if (ftz && type == PTXType::f64 && !approx)
    return op->emitOpError(".ftz on .f64 exists only with .approx");
  if (ftz && name == "tanh")
    return op->emitOpError("tanh has no .ftz");
  if (ftz && isHalf(type) && !isBF16(type))
    return op->emitOpError() << ".ftz is not valid on " << typeName(type);
  if (!ftz && isBF16(type) && name == "ex2")
    return op->emitOpError() << name << ".approx" << typeName(type)
                             << " requires .ftz";
  return success();
}

static PTXRequirement specialFnRequirement(PTXRequirement base, PTXType type) {
  if (isBF16(type))
    return base.join({90, 78});
  if (isHalf(type))
    return base.join({75, 70});
  return base;
}

#define SPECIAL_FN(OP, NAME)                                                   \
  LogicalResult OP::verify() {                                                 \
    return verifySpecialFn(*this, NAME, getType(), getApprox(), getRnd(),      \
                           getFtz());                                          \
  }                                                                            \
  PTXRequirement OP::getPTXRequirement() {                                     \
    PTXRequirement req = specialFnRequirement(getStaticPTXRequirement(),       \
                                              getType());                      \
    return StringRef(NAME) == "tanh" ? req.join({75, 70}) : req;               \
  }
SPECIAL_FN(Ex2Op, "ex2")
SPECIAL_FN(Lg2Op, "lg2")
SPECIAL_FN(SinOp, "sin")
SPECIAL_FN(CosOp, "cos")
SPECIAL_FN(TanhOp, "tanh")
SPECIAL_FN(RcpOp, "rcp")
SPECIAL_FN(SqrtOp, "sqrt")
SPECIAL_FN(RsqrtOp, "rsqrt")
#undef SPECIAL_FN

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static LogicalResult verifyAddress(Operation *op, StateSpace space,
                                   Value addr) {
  if (addr.getType().isInteger(32) && space != StateSpace::shared &&
      space != StateSpace::shared_cluster)
    return op->emitOpError("32-bit addresses are valid only for .shared");
  return success();
}

/// `.shared::cluster` (another CTA's shared memory) came with sm_90.
static PTXRequirement spaceRequirement(PTXRequirement base, StateSpace space) {
  if (space == StateSpace::shared_cluster)
    return base.join({90, 78});
  return base;
}

static LogicalResult verifyMemAccess(Operation *op, StateSpace space,
                                     PTXType type, ValueRange regs,
                                     bool isVolatile) {
  if (failed(checkTypeIn(op, type,
                         {T::b8, T::b16, T::b32, T::b64, T::u8, T::u16,
                          T::u32, T::u64, T::s8, T::s16, T::s32, T::s64,
                          T::f32, T::f64})))
    return failure();
  size_t n = regs.size();
  if (n != 1 && n != 2 && n != 4)
    return op->emitOpError() << "vector width must be 1, 2 or 4, got " << n;
  if (n > 1 && n * getBitWidth(type) > 128)
    return op->emitOpError() << ".v" << n << typeName(type)
                             << " exceeds 128 bits";
  for (Value v : regs) {
    if (v.getType() != regs.front().getType())
      return op->emitOpError("vector elements must share one register type");
    if (failed(checkReg(op, type, v.getType(), "value", /*allowWider=*/true)))
      return failure();
  }
  if (isVolatile && space != StateSpace::global &&
      space != StateSpace::shared && space != StateSpace::generic)
    return op->emitOpError(".volatile applies to generic, global and shared "
                           "accesses");
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyAddress(*this, getSpace(), getAddr())) ||
      failed(verifyMemAccess(*this, getSpace(), getType(),
                             ValueRange(getResults()), getIsVolatile())))
    return failure();
  if (getNc() && getSpace() != StateSpace::global)
    return emitOpError(".nc loads read .global memory only");
  if (getNc() && getIsVolatile())
    return emitOpError(".nc and .volatile exclude each other");
  if (auto cache = getCache()) {
    if (getNc() && (*cache == CacheOp::lu || *cache == CacheOp::cv))
      return emitOpError() << "ld.global.nc takes .ca, .cg or .cs, not ."
                           << stringifyCacheOp(*cache);
    if (*cache == CacheOp::wb || *cache == CacheOp::wt)
      return emitOpError() << "." << stringifyCacheOp(*cache)
                           << " is a store cache operator";
    if (getIsVolatile())
      return emitOpError(".volatile takes no cache operator");
  }
  return success();
}
PTXRequirement LoadOp::getPTXRequirement() {
  return spaceRequirement(getStaticPTXRequirement(), getSpace());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyAddress(*this, getSpace(), getAddr())) ||
      failed(verifyMemAccess(*this, getSpace(), getType(), getValues(),
                             getIsVolatile())))
    return failure();
  if (getSpace() == StateSpace::Const || getSpace() == StateSpace::param)
    return emitOpError() << "cannot store to ."
                         << stringifyStateSpace(getSpace());
  if (auto cache = getCache()) {
    if (*cache == CacheOp::ca || *cache == CacheOp::lu || *cache == CacheOp::cv)
      return emitOpError() << "." << stringifyCacheOp(*cache)
                           << " is a load cache operator";
    if (getIsVolatile())
      return emitOpError(".volatile takes no cache operator");
  }
  return success();
}
PTXRequirement StoreOp::getPTXRequirement() {
  return spaceRequirement(getStaticPTXRequirement(), getSpace());
}

LogicalResult CvtaOp::verify() {
  if (getSpace() == StateSpace::generic)
    return emitOpError("cvta converts to or from a named state space");
  // Generic addresses are 64-bit in a 64-bit module, and cvta keeps the
  // size: ptxas rejects cvta.u32 there.
  if (!getSrc().getType().isInteger(64) || !getResult().getType().isInteger(64))
    return emitOpError("cvta converts 64-bit addresses");
  return success();
}
PTXRequirement CvtaOp::getPTXRequirement() {
  PTXRequirement req = spaceRequirement(getStaticPTXRequirement(), getSpace());
  if (getSpace() == StateSpace::param)
    return req.join({70, 77});
  return req;
}

static LogicalResult verifyAtomic(Operation *op, StateSpace space,
                                  std::optional<MemOrder> sem, AtomicOp kind,
                                  PTXType type, Value addr, ValueRange values,
                                  Value result) {
  if (space != StateSpace::global && space != StateSpace::shared &&
      space != StateSpace::shared_cluster && space != StateSpace::generic)
    return op->emitOpError("atomics operate on generic, .global, .shared or "
                           ".shared::cluster memory");
  if (failed(verifyAddress(op, space, addr)))
    return failure();
  switch (kind) {
  case AtomicOp::add:
    if (failed(checkTypeIn(op, type,
                           {T::u32, T::s32, T::u64, T::f32, T::f64, T::f16,
                            T::f16x2, T::bf16, T::bf16x2})))
      return failure();
    break;
  case AtomicOp::min:
  case AtomicOp::max:
    if (failed(checkTypeIn(op, type, {T::u32, T::s32, T::u64, T::s64})))
      return failure();
    break;
  case AtomicOp::inc:
  case AtomicOp::dec:
    if (failed(checkTypeIn(op, type, {T::u32})))
      return failure();
    break;
  case AtomicOp::And:
  case AtomicOp::Or:
  case AtomicOp::Xor:
  case AtomicOp::exch:
    if (failed(checkTypeIn(op, type, {T::b32, T::b64})))
      return failure();
    break;
  case AtomicOp::cas:
    if (failed(checkTypeIn(op, type, {T::b16, T::b32, T::b64})))
      return failure();
    break;
  }
  size_t expected = kind == AtomicOp::cas ? 2 : 1;
  if (values.size() != expected)
    return op->emitOpError() << "." << stringifyAtomicOp(kind) << " takes "
                             << expected << " value operand"
                             << (expected == 1 ? "" : "s");
  for (Value v : values)
    if (failed(checkReg(op, type, v.getType(), "value")))
      return failure();
  if (result && failed(checkReg(op, type, result.getType(), "result")))
    return failure();
  if (sem && *sem == MemOrder::sc)
    return op->emitOpError("atomics take .relaxed, .acquire, .release or "
                           ".acq_rel");
  return success();
}

static PTXRequirement atomicRequirement(PTXRequirement base, PTXType type,
                                        std::optional<MemOrder> sem,
                                        std::optional<MemScope> scope) {
  PTXRequirement req = base;
  if (type == PTXType::f16 || type == PTXType::f16x2)
    req = req.join({70, 63});
  if (isBF16(type))
    req = req.join({90, 78});
  if (type == PTXType::b16)
    req = req.join({70, 63});
  if (sem)
    req = req.join({70, 63});
  if (scope && *scope == MemScope::cluster)
    req = req.join({90, 78});
  return req;
}

LogicalResult AtomOp::verify() {
  return verifyAtomic(*this, getSpace(), getSem(), getOp(), getType(),
                      getAddr(), getValues(), getResult());
}
PTXRequirement AtomOp::getPTXRequirement() {
  return atomicRequirement(spaceRequirement(getStaticPTXRequirement(),
                                            getSpace()),
                           getType(), getSem(), getScope());
}

LogicalResult RedOp::verify() {
  if (getOp() == AtomicOp::cas || getOp() == AtomicOp::exch)
    return emitOpError("red has no .cas or .exch; use atom");
  if (auto sem = getSem();
      sem && *sem != MemOrder::relaxed && *sem != MemOrder::release)
    return emitOpError("red takes .relaxed or .release");
  return verifyAtomic(*this, getSpace(), getSem(), getOp(), getType(),
                      getAddr(), getValues(), Value());
}
PTXRequirement RedOp::getPTXRequirement() {
  return atomicRequirement(spaceRequirement(getStaticPTXRequirement(),
                                            getSpace()),
                           getType(), getSem(), getScope());
}

LogicalResult FenceOp::verify() {
  if (getSem() != MemOrder::sc && getSem() != MemOrder::acq_rel)
    return emitOpError("fence semantics are .sc or .acq_rel");
  return success();
}
PTXRequirement FenceOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  if (getScope() == MemScope::cluster)
    req = req.join({90, 78});
  return req;
}

//===----------------------------------------------------------------------===//
// Synchronisation and warp-level ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyBarrier(Operation *op, uint32_t id,
                                   std::optional<uint32_t> count,
                                   bool countRequired) {
  if (id > 15)
    return op->emitOpError("barrier id must be between 0 and 15");
  if (countRequired && !count)
    return op->emitOpError("bar.arrive needs a thread count");
  if (count && (*count == 0 || *count % 32 != 0 || *count > 1024))
    return op->emitOpError("thread count must be a positive multiple of 32, "
                           "at most 1024");
  return success();
}
LogicalResult BarSyncOp::verify() {
  return verifyBarrier(*this, getId(), getCount(), false);
}
LogicalResult BarArriveOp::verify() {
  return verifyBarrier(*this, getId(), getCount(), true);
}
LogicalResult BarrierSyncOp::verify() {
  return verifyBarrier(*this, getId(), getCount(), false);
}

LogicalResult ShflSyncOp::verify() {
  if (getValue().getType() != getResult().getType())
    return emitOpError("shuffled value and result must have the same type");
  return success();
}

LogicalResult VoteSyncOp::verify() {
  bool ballot = getMode() == VoteMode::ballot;
  if (getResult().getType().isInteger(32) != ballot)
    return emitOpError(ballot ? "vote.ballot yields an i32 mask"
                              : "vote.all/any/uni yield an i1 predicate");
  return success();
}

LogicalResult MatchSyncOp::verify() {
  if (failed(checkTypeIn(*this, getType(), {T::b32, T::b64})))
    return failure();
  return checkReg(*this, getType(), getValue().getType(), "value");
}

LogicalResult ReduxSyncOp::verify() {
  ReduxOp op = getOp();
  if (op == ReduxOp::add || op == ReduxOp::min || op == ReduxOp::max)
    return checkTypeIn(*this, getType(), {T::u32, T::s32});
  return checkTypeIn(*this, getType(), {T::b32});
}

//===----------------------------------------------------------------------===//
// Tensor cores and async copies
//===----------------------------------------------------------------------===//

LogicalResult MmaSyncOp::verify() {
  if (getLayoutA() != MMALayout::row || getLayoutB() != MMALayout::col)
    return emitOpError("m16n8 mma.sync takes A row-major and B column-major");
  if (getCType() != getDType())
    return emitOpError("accumulator types of C and D must match");
  const MmaVariant *v =
      lookupMma(getShape(), getAType(), getBType(), getDType());
  if (!v)
    return emitOpError() << "no mma.sync." << stringifyMMAShape(getShape())
                         << " with D/C " << typeName(getDType()) << ", A "
                         << typeName(getAType()) << ", B "
                         << typeName(getBType());
  auto checkRegs = [&](StringRef name, TypeRange types, unsigned count,
                       PTXType type) -> LogicalResult {
    if (types.size() != count)
      return emitOpError() << "operand " << name << " takes " << count
                           << " registers per thread, got " << types.size();
    for (Type t : types) {
      // Packed operands live in .b32 registers; f32/s32 accumulators in
      // registers of their own type.
      PTXType regType = getBitWidth(type) < 32 || type == PTXType::tf32
                            ? PTXType::b32
                            : type;
      if (type == PTXType::f16)
        regType = PTXType::f16x2;
      if (!isRegisterCompatible(regType, t))
        return emitOpError() << "operand " << name << " register of type "
                             << t << " does not hold " << typeName(type);
    }
    return success();
  };
  if (failed(checkRegs("A", getA().getTypes(), v->aRegs, getAType())) ||
      failed(checkRegs("B", getB().getTypes(), v->bRegs, getBType())) ||
      failed(checkRegs("C", getC().getTypes(), v->accRegs, getCType())) ||
      failed(checkRegs("D", getD().getTypes(), v->accRegs, getDType())))
    return failure();
  if (getSatfinite() && getDType() != PTXType::s32)
    return emitOpError(".satfinite applies to integer mma only");
  return success();
}

PTXRequirement MmaSyncOp::getPTXRequirement() {
  PTXRequirement req = getStaticPTXRequirement();
  if (const MmaVariant *v =
          lookupMma(getShape(), getAType(), getBType(), getDType()))
    req = req.join(v->requirement);
  return req;
}

LogicalResult LdMatrixOp::verify() {
  size_t n = getResults().size();
  if (n != 1 && n != 2 && n != 4)
    return emitOpError() << "ldmatrix loads 1, 2 or 4 matrices, got " << n;
  return success();
}

LogicalResult StMatrixOp::verify() {
  size_t n = getValues().size();
  if (n != 1 && n != 2 && n != 4)
    return emitOpError() << "stmatrix stores 1, 2 or 4 matrices, got " << n;
  return success();
}

LogicalResult CpAsyncWaitGroupOp::verify() {
  if (getNAttr().getInt() < 0)
    return emitOpError("group count must be non-negative");
  return success();
}

LogicalResult CpAsyncOp::verify() {
  uint32_t bytes = getBytes();
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError("cp.async copies 4, 8 or 16 bytes");
  if (getCache() == CpAsyncCache::cg && bytes != 16)
    return emitOpError("cp.async.cg copies 16 bytes");
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

SuccessorOperands BraOp::getSuccessorOperands(unsigned index) {
  assert(index == 0 && "invalid successor index");
  return SuccessorOperands(getDestOperandsMutable());
}

SuccessorOperands CondBraOp::getSuccessorOperands(unsigned index) {
  assert(index < 2 && "invalid successor index");
  return SuccessorOperands(index == 0 ? getTrueOperandsMutable()
                                      : getFalseOperandsMutable());
}

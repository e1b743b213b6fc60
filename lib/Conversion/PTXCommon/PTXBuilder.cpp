//===- PTXBuilder.cpp - terse construction of ptx instructions ------------===//

#include "Kaio/Conversion/PTXBuilder.h"

#include "Kaio/Dialect/Kaio/IR/KaioTypes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace kaio::ptx;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

PTXTypeConverter::PTXTypeConverter() {
  addConversion([](Type type) -> std::optional<Type> {
    if (getRegisterClass(type))
      return type;
    return std::nullopt;
  });
  addConversion([](kaio::PtrType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  addConversion([](IndexType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  addConversion([](kaio::TensorMapType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  addConversion([](kaio::SmemType type) -> Type {
    return IntegerType::get(type.getContext(), 32);
  });
  addConversion([](IntegerType type) -> std::optional<Type> {
    if (type.getWidth() == 8)
      return IntegerType::get(type.getContext(), 16);
    if (getRegisterClass(type))
      return IntegerType::get(type.getContext(), type.getWidth());
    return std::nullopt;
  });
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

PTXType kaio::ptx::getIntType(Type type, bool isSigned) {
  unsigned width = type.getIntOrFloatBitWidth();
  switch (width) {
  case 1:
    return PTXType::pred;
  case 8:
    return isSigned ? PTXType::s8 : PTXType::u8;
  case 16:
    return isSigned ? PTXType::s16 : PTXType::u16;
  case 32:
    return isSigned ? PTXType::s32 : PTXType::u32;
  default:
    return isSigned ? PTXType::s64 : PTXType::u64;
  }
}

PTXType kaio::ptx::getBitType(Type type) {
  if (auto vec = dyn_cast<VectorType>(type))
    return PTXType::b32;
  switch (type.getIntOrFloatBitWidth()) {
  case 1:
    return PTXType::pred;
  case 8:
  case 16:
    return PTXType::b16;
  case 32:
    return PTXType::b32;
  default:
    return PTXType::b64;
  }
}

PTXType kaio::ptx::getFloatType(Type type) {
  if (type.isF16())
    return PTXType::f16;
  if (type.isBF16())
    return PTXType::bf16;
  if (type.isF64())
    return PTXType::f64;
  return PTXType::f32;
}

PTXType kaio::ptx::getMemoryType(Type type) {
  if (type.isF32())
    return PTXType::f32;
  if (type.isF64())
    return PTXType::f64;
  if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() == 8)
    return i.isUnsigned() ? PTXType::u8 : PTXType::s8;
  return getBitType(type);
}

//===----------------------------------------------------------------------===//
// Constants and special registers
//===----------------------------------------------------------------------===//

Value PTXBuilder::i1(bool v) {
  return ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(v));
}
Value PTXBuilder::i32(int64_t v) {
  return ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}
Value PTXBuilder::i64(int64_t v) {
  return ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}
Value PTXBuilder::f32(double v) {
  return ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(v));
}
Value PTXBuilder::constant(Type type, Attribute value) {
  return ConstantOp::create(b, loc, type, cast<TypedAttr>(value));
}
Value PTXBuilder::number(Type type, double v) {
  if (isa<FloatType>(type))
    return constant(type, b.getFloatAttr(type, v));
  return constant(type, b.getIntegerAttr(type, static_cast<int64_t>(v)));
}

Value PTXBuilder::sreg(SpecialReg reg) {
  bool wide = reg == SpecialReg::clock64 || reg == SpecialReg::globaltimer;
  return SpecialRegOp::create(b, loc, wide ? b.getI64Type() : b.getI32Type(),
                              reg, Value(), false);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

static RoundingAttr roundingAttr(OpBuilder &b, std::optional<Rounding> rnd) {
  return rnd ? RoundingAttr::get(b.getContext(), *rnd) : RoundingAttr();
}

Value PTXBuilder::add(PTXType t, Value a, Value c,
                      std::optional<Rounding> rnd) {
  return AddOp::create(b, loc, a.getType(), t, roundingAttr(b, rnd), false,
                       false, a, c, Value(), false);
}
Value PTXBuilder::sub(PTXType t, Value a, Value c,
                      std::optional<Rounding> rnd) {
  return SubOp::create(b, loc, a.getType(), t, roundingAttr(b, rnd), false,
                       false, a, c, Value(), false);
}
Value PTXBuilder::mul(PTXType t, Value a, Value c,
                      std::optional<Rounding> rnd) {
  return MulOp::create(b, loc, a.getType(), t, MulModeAttr(),
                       roundingAttr(b, rnd), false, false, a, c, Value(),
                       false);
}
Value PTXBuilder::mulLo(PTXType t, Value a, Value c) {
  return MulOp::create(b, loc, a.getType(), t,
                       MulModeAttr::get(context(), MulMode::lo),
                       RoundingAttr(), false, false, a, c, Value(), false);
}
Value PTXBuilder::mulWide(PTXType t, Value a, Value c) {
  return MulOp::create(b, loc, b.getI64Type(), t,
                       MulModeAttr::get(context(), MulMode::wide),
                       RoundingAttr(), false, false, a, c, Value(), false);
}
Value PTXBuilder::madLo(PTXType t, Value a, Value c, Value d) {
  return MadOp::create(b, loc, a.getType(), t,
                       MulModeAttr::get(context(), MulMode::lo),
                       RoundingAttr(), false, false, a, c, d, Value(), false);
}
Value PTXBuilder::fma(PTXType t, Value a, Value c, Value d) {
  return FmaOp::create(b, loc, a.getType(), t,
                       RoundingAttr::get(context(), Rounding::rn), false,
                       false, a, c, d, Value(), false);
}
Value PTXBuilder::div(PTXType t, Value a, Value c,
                      std::optional<Rounding> rnd, bool approx) {
  return DivOp::create(b, loc, a.getType(), t, roundingAttr(b, rnd), approx,
                       false, false, a, c, Value(), false);
}
Value PTXBuilder::min(PTXType t, Value a, Value c, bool nan) {
  return MinOp::create(b, loc, a.getType(), t, false, nan, a, c, Value(),
                       false);
}
Value PTXBuilder::max(PTXType t, Value a, Value c, bool nan) {
  return MaxOp::create(b, loc, a.getType(), t, false, nan, a, c, Value(),
                       false);
}
Value PTXBuilder::andOp(PTXType t, Value a, Value c) {
  return AndOp::create(b, loc, a.getType(), t, a, c, Value(), false);
}
Value PTXBuilder::orOp(PTXType t, Value a, Value c) {
  return OrOp::create(b, loc, a.getType(), t, a, c, Value(), false);
}
Value PTXBuilder::xorOp(PTXType t, Value a, Value c) {
  return XorOp::create(b, loc, a.getType(), t, a, c, Value(), false);
}
Value PTXBuilder::notOp(PTXType t, Value a) {
  return NotOp::create(b, loc, a.getType(), t, a, Value(), false);
}
Value PTXBuilder::shl(PTXType t, Value a, Value amount) {
  return ShlOp::create(b, loc, a.getType(), t, a, amount, Value(), false);
}
Value PTXBuilder::shr(PTXType t, Value a, Value amount) {
  return ShrOp::create(b, loc, a.getType(), t, a, amount, Value(), false);
}
Value PTXBuilder::abs(PTXType t, Value a) {
  return AbsOp::create(b, loc, a.getType(), t, false, a, Value(), false);
}
Value PTXBuilder::neg(PTXType t, Value a) {
  return NegOp::create(b, loc, a.getType(), t, false, a, Value(), false);
}
Value PTXBuilder::setp(CmpOp cmp, PTXType t, Value a, Value c) {
  return SetpOp::create(b, loc, b.getI1Type(), cmp, BoolOpAttr(), false, t,
                        a, c, Value(), Value(), false);
}
Value PTXBuilder::selp(PTXType t, Value ifTrue, Value ifFalse, Value cond) {
  return SelpOp::create(b, loc, ifTrue.getType(), t, ifTrue, ifFalse, cond,
                        Value(), false);
}
Value PTXBuilder::cvt(PTXType dst, PTXType src, Value v, Type result,
                      std::optional<Rounding> rnd) {
  return CvtOp::create(b, loc, result, roundingAttr(b, rnd), false, false,
                       false, dst, src, v, Value(), false);
}
Value PTXBuilder::mov(PTXType t, Value v, Type result) {
  return MovOp::create(b, loc, result, t, v, Value(), false);
}
Value PTXBuilder::widenToF32(Value v) {
  Type t = v.getType();
  if (t.isF32())
    return v;
  if (t.isBF16()) {
    Value zero = ConstantOp::create(b, loc, b.getI16Type(),
                                    b.getI16IntegerAttr(0));
    Value bits = PackOp::create(b, loc, b.getI32Type(), PTXType::b32,
                                ValueRange{zero, v}, Value(), false);
    return mov(PTXType::b32, bits, b.getF32Type());
  }
  return cvt(PTXType::f32, getFloatType(t), v, b.getF32Type());
}

Value PTXBuilder::narrowFromF32(Value v, Type to) {
  if (to.isF32())
    return v;
  return cvt(getFloatType(to), PTXType::f32, v, to, Rounding::rn);
}

Value PTXBuilder::ex2(Value v) {
  return Ex2Op::create(b, loc, v.getType(), PTXType::f32, true,
                       RoundingAttr(), true, v, Value(), false);
}
Value PTXBuilder::lg2(Value v) {
  return Lg2Op::create(b, loc, v.getType(), PTXType::f32, true,
                       RoundingAttr(), false, v, Value(), false);
}
Value PTXBuilder::rcpApprox(Value v) {
  return RcpOp::create(b, loc, v.getType(), PTXType::f32, true,
                       RoundingAttr(), true, v, Value(), false);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Value PTXBuilder::ld(StateSpace space, PTXType t, Value addr, int64_t offset,
                     Type result, bool nc, Value guard) {
  return LoadOp::create(b, loc, TypeRange{result}, space, nc, false,
                        CacheOpAttr(), t, addr, offset, guard, false)
      .getResult(0);
}

void PTXBuilder::st(StateSpace space, PTXType t, Value addr, int64_t offset,
                    Value value, Value guard) {
  StoreOp::create(b, loc, space, false, CacheOpAttr(), t, addr, offset,
                  ValueRange{value}, guard, false);
}

Value PTXBuilder::elementAddress(Value base, Value index,
                                 unsigned elementBytes) {
  Value offset;
  if (index.getType().isInteger(32))
    offset = mulWide(PTXType::s32, index, i32(elementBytes));
  else
    offset = mulLo(PTXType::s64, index, i64(elementBytes));
  return add(PTXType::s64, base, offset);
}

Value PTXBuilder::addressOf(StringRef symbol, Type type) {
  return AddressOfOp::create(b, loc, type,
                             FlatSymbolRefAttr::get(context(), symbol),
                             Value(), UnitAttr());
}

void PTXBuilder::barSync(unsigned id) {
  BarSyncOp::create(b, loc, id, IntegerAttr(), Value(), false);
}

Value PTXBuilder::shfl(ShflMode mode, Value v, Value lane, int64_t c) {
  Value mask = i32(-1);
  auto op = ShflSyncOp::create(b, loc, v.getType(), b.getI1Type(), mode, v,
                               lane, i32(c), mask, Value(), false);
  return op.getResult();
}

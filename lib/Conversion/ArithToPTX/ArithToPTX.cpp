//===- ArithToPTX.cpp - arith ops inside ptx kernels to ptx ---------------===//
//
// Integers follow arith's two's-complement semantics in registers of their
// width (i8 in 16-bit registers, re-extended where the upper bits matter).
// Floats: f32/f64 ops without the `contract` fast-math flag get an explicit
// rounding modifier, which also stops ptxas from fusing them into fma; f16
// computes natively; bf16, which has no add/mul before sm_90, is computed in
// f32 and rounded once.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Conversion/Passes.h"

#include "Kaio/Conversion/PTXBuilder.h"
#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kaio {
#define GEN_PASS_DEF_CONVERTARITHTOPTX
#include "Kaio/Conversion/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio::ptx;

namespace {

bool isI8(Type t) { return t.isInteger(8); }

/// The value of an i8 (held in 16 bits) extended so the register holds the
/// true signed or unsigned value.
Value extendI8(PTXBuilder &p, Value v, bool isSigned) {
  return p.cvt(isSigned ? PTXType::s16 : PTXType::u16,
               isSigned ? PTXType::s8 : PTXType::u8, v, v.getType());
}

bool contracts(Operation *op) {
  auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
  return fmf && arith::bitEnumContainsAny(fmf.getFastMathFlagsAttr().getValue(),
                                          arith::FastMathFlags::contract);
}

/// Rounds `r`, an f32 that `cvt.rz` produced from a wider value, to odd:
/// when the conversion was inexact the lowest mantissa bit is set. Rounding
/// that to bf16 (16 fewer bits) then gives the correctly rounded result of
/// the wide value, with no double-rounding error.
Value roundToOddF32(PTXBuilder &p, Value r, Value inexact) {
  OpBuilder &b = p.builder();
  Value bits = p.mov(PTXType::b32, r, b.getI32Type());
  Value sticky = p.selp(PTXType::b32, p.i32(1), p.i32(0), inexact);
  return p.mov(PTXType::b32, p.orOp(PTXType::b32, bits, sticky),
               b.getF32Type());
}

/// An integer of any width as bf16, correctly rounded, without the sm_90
/// integer/bf16 cvt: through f32, exactly for up to 16 bits and rounded to
/// odd beyond.
Value intToBF16(PTXBuilder &p, Value v, Type from, bool isSigned, Type bf16) {
  OpBuilder &b = p.builder();
  PTXType src = getIntType(from, isSigned);
  Value f;
  if (from.getIntOrFloatBitWidth() <= 16) {
    f = p.cvt(PTXType::f32, src, v, b.getF32Type(), Rounding::rn);
  } else {
    Value r = p.cvt(PTXType::f32, src, v, b.getF32Type(), Rounding::rz);
    Value back = p.cvt(src, PTXType::f32, r, v.getType(), Rounding::rzi);
    Value inexact = p.setp(CmpOp::ne, getBitType(from), back, v);
    f = roundToOddF32(p, r, inexact);
  }
  return p.cvt(PTXType::bf16, PTXType::f32, f, bf16, Rounding::rn);
}

/// f64 to bf16, correctly rounded, without the sm_90 f64/bf16 cvt.
Value f64ToBF16(PTXBuilder &p, Value v, Type bf16) {
  OpBuilder &b = p.builder();
  Value r = p.cvt(PTXType::f32, PTXType::f64, v, b.getF32Type(), Rounding::rz);
  Value back = p.cvt(PTXType::f64, PTXType::f32, r, b.getF64Type());
  Value inexact = p.setp(CmpOp::ne, PTXType::f64, back, v);
  return p.cvt(PTXType::bf16, PTXType::f32, roundToOddF32(p, r, inexact),
               bf16, Rounding::rn);
}

/// Runs `compute` in f32 for bf16 operands and rounds the result back.
template <typename Fn>
Value viaF32IfBF16(PTXBuilder &p, Type type, ValueRange operands, Fn compute) {
  if (!type.isBF16())
    return compute(operands);
  SmallVector<Value> wide;
  for (Value v : operands)
    wide.push_back(p.widenToF32(v));
  Value r = compute(wide);
  return p.cvt(PTXType::bf16, PTXType::f32, r, type, Rounding::rn);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct ConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "not a scalar constant");
    Attribute value = op.getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      APInt v = i.getValue();
      if (!type.isInteger(1))
        v = v.sextOrTrunc(type.getIntOrFloatBitWidth());
      value = IntegerAttr::get(type, v);
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(op, type, cast<TypedAttr>(value));
    return success();
  }
};

enum class IntOp { Add, Sub, Mul, DivS, DivU, RemS, RemU, MaxS, MaxU, MinS,
                   MinU, And, Or, Xor, Shl, ShrS, ShrU };

template <typename SourceOp, IntOp kind>
struct IntBinaryLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type orig = op.getType();
    if (isa<VectorType>(orig))
      return rewriter.notifyMatchFailure(op, "vector arith is not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    Type type = a.getType();
    bool isSigned = kind == IntOp::DivS || kind == IntOp::RemS ||
                    kind == IntOp::MaxS || kind == IntOp::MinS ||
                    kind == IntOp::ShrS;
    bool needsExt = kind != IntOp::Add && kind != IntOp::Sub &&
                    kind != IntOp::Mul && kind != IntOp::And &&
                    kind != IntOp::Or && kind != IntOp::Xor &&
                    kind != IntOp::Shl;
    if (isI8(orig) && needsExt) {
      a = extendI8(p, a, isSigned);
      if (kind != IntOp::ShrS && kind != IntOp::ShrU)
        b = extendI8(p, b, isSigned);
    }
    Value amount = b;
    if (kind == IntOp::Shl || kind == IntOp::ShrS || kind == IntOp::ShrU) {
      // PTX takes the shift amount as u32.
      // An i8's register may hold garbage above bit 7 (after an add, say).
      if (isI8(orig))
        amount = p.cvt(PTXType::u32, PTXType::u8, b, rewriter.getI32Type());
      else if (type.isInteger(64))
        amount = p.cvt(PTXType::u32, PTXType::u64, b, rewriter.getI32Type());
      else if (type.isInteger(16))
        amount = p.cvt(PTXType::u32, PTXType::u16, b, rewriter.getI32Type());
    }
    PTXType s = getIntType(type, true), u = getIntType(type, false);
    PTXType bits = getBitType(type);
    if (type.isInteger(1)) {
      // Arithmetic modulo 2: add and sub are xor, mul is and.
      if (kind == IntOp::Add || kind == IntOp::Sub) {
        rewriter.replaceOp(op, p.xorOp(PTXType::pred, a, b));
        return success();
      }
      if (kind == IntOp::Mul) {
        rewriter.replaceOp(op, p.andOp(PTXType::pred, a, b));
        return success();
      }
      if (kind != IntOp::And && kind != IntOp::Or && kind != IntOp::Xor)
        return rewriter.notifyMatchFailure(op, "i1 arithmetic");
    }
    // Unsigned division and remainder by a power of two are a shift and a
    // mask: ptxas does not strength-reduce a divisor held in a register.
    APInt divisor;
    if ((kind == IntOp::DivU || kind == IntOp::RemU) && !isI8(orig) &&
        !type.isInteger(1) &&
        matchPattern(op.getRhs(), m_ConstantInt(&divisor)) &&
        divisor.isPowerOf2()) {
      Value r = kind == IntOp::DivU
                    ? p.shr(u, a, p.i32(divisor.logBase2()))
                    : p.andOp(bits, a,
                              p.constant(type, rewriter.getIntegerAttr(
                                                   type, divisor - 1)));
      rewriter.replaceOp(op, r);
      return success();
    }
    Value r;
    switch (kind) {
    case IntOp::Add:
      r = p.add(s, a, b);
      break;
    case IntOp::Sub:
      r = p.sub(s, a, b);
      break;
    case IntOp::Mul:
      r = p.mulLo(s, a, b);
      break;
    case IntOp::DivS:
      r = p.div(s, a, b, std::nullopt);
      break;
    case IntOp::DivU:
      r = p.div(u, a, b, std::nullopt);
      break;
    case IntOp::RemS:
      r = RemOp::create(rewriter, op.getLoc(), type, s, a, b, Value(), false);
      break;
    case IntOp::RemU:
      r = RemOp::create(rewriter, op.getLoc(), type, u, a, b, Value(), false);
      break;
    case IntOp::MaxS:
      r = p.max(s, a, b);
      break;
    case IntOp::MaxU:
      r = p.max(u, a, b);
      break;
    case IntOp::MinS:
      r = p.min(s, a, b);
      break;
    case IntOp::MinU:
      r = p.min(u, a, b);
      break;
    case IntOp::And:
      r = p.andOp(bits, a, b);
      break;
    case IntOp::Or:
      r = p.orOp(bits, a, b);
      break;
    case IntOp::Xor:
      r = p.xorOp(bits, a, b);
      break;
    case IntOp::Shl:
      r = p.shl(bits, a, amount);
      break;
    case IntOp::ShrS:
      r = p.shr(s, a, amount);
      break;
    case IntOp::ShrU:
      r = p.shr(u, a, amount);
      break;
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

enum class FloatOp { Add, Sub, Mul, Div, Max, Min };

/// a / b in f32 within 2 ulp over the whole range (div.full.f32).
Value divFull(PTXBuilder &p, Value a, Value b) {
  return DivOp::create(p.builder(), p.location(), a.getType(), PTXType::f32,
                       RoundingAttr(), /*approx=*/false, /*full=*/true,
                       /*ftz=*/false, a, b, Value(), false);
}

template <typename SourceOp, FloatOp kind>
struct FloatBinaryLowering : OpConversionPattern<SourceOp> {
  FloatBinaryLowering(const TypeConverter &converter, MLIRContext *ctx,
                      bool fastMath)
      : OpConversionPattern<SourceOp>(converter, ctx), fastMath(fastMath) {}
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "vector arith is not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    bool strict = !contracts(op) && !fastMath;
    // A reciprocal approximation allowed (arcp): div.full, within 2 ulp.
    const bool full = kind == FloatOp::Div &&
                      arith::bitEnumContainsAll(op.getFastmath(),
                                                arith::FastMathFlags::arcp);
    Value r = viaF32IfBF16(
        p, type, {adaptor.getLhs(), adaptor.getRhs()}, [&](ValueRange v) {
          Type t = v[0].getType();
          PTXType pt = getFloatType(t);
          std::optional<Rounding> rn;
          if (strict)
            rn = Rounding::rn;
          switch (kind) {
          case FloatOp::Add:
            return p.add(pt, v[0], v[1], rn);
          case FloatOp::Sub:
            return p.sub(pt, v[0], v[1], rn);
          case FloatOp::Mul:
            return p.mul(pt, v[0], v[1], rn);
          case FloatOp::Max:
            return p.max(pt, v[0], v[1]);
          case FloatOp::Min:
            return p.min(pt, v[0], v[1]);
          case FloatOp::Div:
            break;
          }
          if (t.isF16()) {
            // f16 has no division: divide in f32, round once.
            Type f32 = p.builder().getF32Type();
            Value a = p.cvt(PTXType::f32, PTXType::f16, v[0], f32);
            Value b = p.cvt(PTXType::f32, PTXType::f16, v[1], f32);
            Value q = full ? divFull(p, a, b)
                      : fastMath
                          ? p.div(PTXType::f32, a, b, std::nullopt, true)
                          : p.div(PTXType::f32, a, b, Rounding::rn);
            return p.cvt(PTXType::f16, PTXType::f32, q, t, Rounding::rn);
          }
          if (full && t.isF32())
            return divFull(p, v[0], v[1]);
          if (fastMath && t.isF32())
            return p.div(pt, v[0], v[1], std::nullopt, /*approx=*/true);
          return p.div(pt, v[0], v[1], Rounding::rn);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
  bool fastMath;
};

struct NegFLowering : OpConversionPattern<arith::NegFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::NegFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Type type = op.getType();
    Value r;
    if (type.isBF16()) // flip the sign bit
      r = p.xorOp(PTXType::b16, adaptor.getOperand(),
                  p.constant(type, rewriter.getFloatAttr(type, -0.0)));
    else
      r = p.neg(getFloatType(type), adaptor.getOperand());
    rewriter.replaceOp(op, r);
    return success();
  }
};

CmpOp intPredicate(arith::CmpIPredicate pred) {
  switch (pred) {
  case arith::CmpIPredicate::eq:
    return CmpOp::eq;
  case arith::CmpIPredicate::ne:
    return CmpOp::ne;
  case arith::CmpIPredicate::slt:
    return CmpOp::lt;
  case arith::CmpIPredicate::sle:
    return CmpOp::le;
  case arith::CmpIPredicate::sgt:
    return CmpOp::gt;
  case arith::CmpIPredicate::sge:
    return CmpOp::ge;
  case arith::CmpIPredicate::ult:
    return CmpOp::lo;
  case arith::CmpIPredicate::ule:
    return CmpOp::ls;
  case arith::CmpIPredicate::ugt:
    return CmpOp::hi;
  case arith::CmpIPredicate::uge:
    return CmpOp::hs;
  }
  llvm_unreachable("unknown predicate");
}

struct CmpILowering : OpConversionPattern<arith::CmpIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::CmpIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type orig = op.getLhs().getType();
    if (isa<VectorType>(orig))
      return rewriter.notifyMatchFailure(op, "vector compare");
    PTXBuilder p(rewriter, op.getLoc());
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    arith::CmpIPredicate pred = op.getPredicate();
    if (orig.isInteger(1)) {
      // Predicates: eq is xnor, ne is xor; ordered compares on i1 treat
      // true as 1 (unsigned) or -1 (signed).
      if (pred != arith::CmpIPredicate::eq && pred != arith::CmpIPredicate::ne)
        return rewriter.notifyMatchFailure(op, "ordered compare of i1");
      Value x = p.xorOp(PTXType::pred, a, b);
      rewriter.replaceOp(op, pred == arith::CmpIPredicate::ne
                                 ? x
                                 : p.notOp(PTXType::pred, x));
      return success();
    }
    bool isSigned = pred == arith::CmpIPredicate::slt ||
                    pred == arith::CmpIPredicate::sle ||
                    pred == arith::CmpIPredicate::sgt ||
                    pred == arith::CmpIPredicate::sge;
    if (isI8(orig)) {
      a = extendI8(p, a, isSigned);
      b = extendI8(p, b, isSigned);
    }
    PTXType t = getIntType(a.getType(), isSigned);
    rewriter.replaceOp(op, p.setp(intPredicate(pred), t, a, b));
    return success();
  }
};

struct CmpFLowering : OpConversionPattern<arith::CmpFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::CmpFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getLhs().getType();
    if (isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "vector compare");
    PTXBuilder p(rewriter, op.getLoc());
    using P = arith::CmpFPredicate;
    P pred = op.getPredicate();
    if (pred == P::AlwaysFalse || pred == P::AlwaysTrue) {
      rewriter.replaceOp(op, p.i1(pred == P::AlwaysTrue));
      return success();
    }
    CmpOp cmp;
    switch (pred) {
    case P::OEQ: cmp = CmpOp::eq; break;
    case P::OGT: cmp = CmpOp::gt; break;
    case P::OGE: cmp = CmpOp::ge; break;
    case P::OLT: cmp = CmpOp::lt; break;
    case P::OLE: cmp = CmpOp::le; break;
    case P::ONE: cmp = CmpOp::ne; break;
    case P::ORD: cmp = CmpOp::num; break;
    case P::UEQ: cmp = CmpOp::equ; break;
    case P::UGT: cmp = CmpOp::gtu; break;
    case P::UGE: cmp = CmpOp::geu; break;
    case P::ULT: cmp = CmpOp::ltu; break;
    case P::ULE: cmp = CmpOp::leu; break;
    case P::UNE: cmp = CmpOp::neu; break;
    case P::UNO: cmp = CmpOp::nan; break;
    default: llvm_unreachable("handled above");
    }
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    if (type.isBF16()) {
      a = p.widenToF32(a);
      b = p.widenToF32(b);
    }
    rewriter.replaceOp(op, p.setp(cmp, getFloatType(a.getType()), a, b));
    return success();
  }
};

struct SelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<VectorType>(op.getType()) ||
        !adaptor.getCondition().getType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "vector select");
    PTXBuilder p(rewriter, op.getLoc());
    Value c = adaptor.getCondition(), t = adaptor.getTrueValue(),
          f = adaptor.getFalseValue();
    Type type = t.getType();
    Value r;
    if (type.isInteger(1)) {
      // One statement an op: the order of the IR (and of the PTX) must not
      // depend on the compiler's order of evaluating arguments.
      Value nc = p.notOp(PTXType::pred, c);
      Value onFalse = p.andOp(PTXType::pred, nc, f);
      Value onTrue = p.andOp(PTXType::pred, c, t);
      r = p.orOp(PTXType::pred, onTrue, onFalse);
    } else {
      PTXType pt = type.isF32()   ? PTXType::f32
                   : type.isF64() ? PTXType::f64
                                  : getBitType(type);
      r = p.selp(pt, t, f, c);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Integer width changes.
struct IntCastLowering : public ConversionPattern {
  IntCastLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
             arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return failure();
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    if (isa<VectorType>(from))
      return rewriter.notifyMatchFailure(op, "vector cast");
    if (isa<IndexType>(from))
      from = rewriter.getI64Type();
    if (isa<IndexType>(to))
      to = rewriter.getI64Type();
    Type resultType = getTypeConverter()->convertType(to);
    PTXBuilder p(rewriter, op->getLoc());
    Value v = operands[0];
    bool isSigned = isa<arith::ExtSIOp, arith::IndexCastOp>(op);
    Value r;
    if (from.isInteger(1)) {
      // (The constants in a fixed order, not the compiler's argument
      // order.)
      Value zero = p.number(resultType, 0);
      Value one = p.number(resultType, isSigned ? -1 : 1);
      r = p.selp(getBitType(resultType), one, zero, v);
    } else if (to.isInteger(1)) {
      Value low = p.andOp(getBitType(v.getType()), v,
                          p.number(v.getType(), 1));
      r = p.setp(CmpOp::ne, getBitType(v.getType()), low,
                 p.number(v.getType(), 0));
    } else if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth()) {
      r = v;
    } else {
      PTXType dst = getIntType(to, isSigned), src = getIntType(from, isSigned);
      if (isa<arith::TruncIOp>(op)) {
        dst = getIntType(to, false);
        src = getIntType(from, false);
      }
      r = p.cvt(dst, src, v, resultType);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Float ↔ int and float width changes.
struct FloatCastLowering : public ConversionPattern {
  FloatCastLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
             arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp,
             arith::BitcastOp>(op))
      return failure();
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    if (isa<VectorType>(from) || isa<VectorType>(to))
      return rewriter.notifyMatchFailure(op, "vector cast");
    Type resultType = getTypeConverter()->convertType(to);
    PTXBuilder p(rewriter, op->getLoc());
    Value v = operands[0];
    Value r;
    if (isa<arith::BitcastOp>(op)) {
      r = p.mov(getBitType(from), v, resultType);
    } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
      bool isSigned = isa<arith::SIToFPOp>(op);
      if (from.isInteger(1))
        return rewriter.notifyMatchFailure(op, "i1 to float");
      // cvt between integers and bf16 needs sm_90 (and never takes 8 bits).
      if (to.isBF16())
        r = intToBF16(p, v, from, isSigned, resultType);
      else
        r = p.cvt(getFloatType(to), getIntType(from, isSigned), v,
                  resultType, Rounding::rn);
    } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
      bool isSigned = isa<arith::FPToSIOp>(op);
      if (to.isInteger(1))
        return rewriter.notifyMatchFailure(op, "float to i1");
      // bf16 widens to f32 exactly; f32 converts on every chip.
      if (from.isBF16()) {
        v = p.widenToF32(v);
        from = rewriter.getF32Type();
      }
      r = p.cvt(getIntType(to, isSigned), getFloatType(from), v, resultType,
                Rounding::rzi);
    } else if (isa<arith::ExtFOp>(op)) {
      if (from.isBF16()) {
        r = p.widenToF32(v);
        if (to.isF64())
          r = p.cvt(PTXType::f64, PTXType::f32, r, resultType);
      } else {
        r = p.cvt(getFloatType(to), getFloatType(from), v, resultType);
      }
    } else if (from.isF64() && to.isBF16()) {
      r = f64ToBF16(p, v, resultType);
    } else {
      // truncf: round to nearest even (arith's default rounding).
      r = p.cvt(getFloatType(to), getFloatType(from), v, resultType,
                Rounding::rn);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Whether the module targets a chip with min/max.NaN: sm_80 on and PTX ISA
/// 7.0 on (the ptx.target that convert-kaio-to-ptx sets, and ptx.version
/// when given; the innermost module with either, as the ops' verifier
/// reads them). Unknown: no.
bool hasNaNMinMax(Operation *op) {
  for (auto module = op->getParentOfType<ModuleOp>(); module;
       module = module->getParentOfType<ModuleOp>()) {
    auto target =
        module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName);
    auto version =
        module->getAttrOfType<StringAttr>(PTXDialect::kVersionAttrName);
    if (!target && !version)
      continue;
    const ChipInfo *chip = target ? lookupChip(target.getValue()) : nullptr;
    std::optional<unsigned> isa =
        version ? parseISA(version.getValue()) : std::nullopt;
    return chip && chip->sm >= 80 && (!version || (isa && *isa >= 70));
  }
  return false;
}

/// IEEE 754-2019 maximum/minimum (arith.maximumf/minimumf): NaN if either
/// operand is NaN, and -0 < +0. On sm_80 and later that is one f32
/// min/max.NaN (the PTX ISA orders +0.0 above -0.0 for both forms; f16 and
/// bf16 widen exactly, and the result is one of the inputs). Before sm_80
/// (and for f64, which has no .NaN form) PTX max/min give maxNum's answer:
/// NaN is selected explicitly, and for equal operands (only ±0 can differ)
/// the bitwise and (max) or or (min) picks the right zero. An attention
/// kernel's row maximum (kaio.frag_reduce_rows) is thirty of these a key
/// block: one instruction each instead of nine.
template <typename SourceOp, bool isMax>
struct IEEEMinMaxLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "vector arith is not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    bool wide = type.isF64();
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    if (!wide) {
      // f16 and bf16 widen exactly, and the result is one of the inputs.
      a = p.widenToF32(a);
      b = p.widenToF32(b);
    }
    if (!wide && hasNaNMinMax(op)) {
      Value r = isMax ? p.max(PTXType::f32, a, b, /*nan=*/true)
                      : p.min(PTXType::f32, a, b, /*nan=*/true);
      rewriter.replaceOp(op, p.narrowFromF32(r, type));
      return success();
    }
    Type ft = a.getType();
    PTXType t = wide ? PTXType::f64 : PTXType::f32;
    PTXType bits = wide ? PTXType::b64 : PTXType::b32;
    Type it = wide ? rewriter.getI64Type() : rewriter.getI32Type();
    Value m = isMax ? p.max(t, a, b) : p.min(t, a, b);
    Value ai = p.mov(bits, a, it), bi = p.mov(bits, b, it);
    Value zeros = p.mov(bits, isMax ? p.andOp(bits, ai, bi) : p.orOp(bits, ai, bi),
                        ft);
    Value r = p.selp(t, zeros, m, p.setp(CmpOp::eq, t, a, b));
    Value nan = p.constant(ft, rewriter.getFloatAttr(
                                   ft, std::numeric_limits<double>::quiet_NaN()));
    r = p.selp(t, nan, r, p.setp(CmpOp::nan, t, a, b));
    rewriter.replaceOp(op, wide ? r : p.narrowFromF32(r, type));
    return success();
  }
};

struct ConvertArithToPTXPass
    : kaio::impl::ConvertArithToPTXBase<ConvertArithToPTXPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // ceildiv/floordiv are first expanded into ops with a direct PTX form.
    // (Not the other arith expansions: they would turn min/max into
    // compare-and-select pairs.)
    {
      RewritePatternSet expand(ctx);
      arith::populateCeilFloorDivExpandOpsPatterns(expand);
      if (failed(applyPatternsGreedily(getOperation(), std::move(expand))))
        return signalPassFailure();
    }
    PTXTypeConverter converter;
    RewritePatternSet patterns(ctx);
    patterns.add<ConstantLowering, NegFLowering, CmpILowering, CmpFLowering,
                 SelectLowering, IntCastLowering, FloatCastLowering>(converter,
                                                                     ctx);
    patterns.add<IntBinaryLowering<arith::AddIOp, IntOp::Add>,
                 IntBinaryLowering<arith::SubIOp, IntOp::Sub>,
                 IntBinaryLowering<arith::MulIOp, IntOp::Mul>,
                 IntBinaryLowering<arith::DivSIOp, IntOp::DivS>,
                 IntBinaryLowering<arith::DivUIOp, IntOp::DivU>,
                 IntBinaryLowering<arith::RemSIOp, IntOp::RemS>,
                 IntBinaryLowering<arith::RemUIOp, IntOp::RemU>,
                 IntBinaryLowering<arith::MaxSIOp, IntOp::MaxS>,
                 IntBinaryLowering<arith::MaxUIOp, IntOp::MaxU>,
                 IntBinaryLowering<arith::MinSIOp, IntOp::MinS>,
                 IntBinaryLowering<arith::MinUIOp, IntOp::MinU>,
                 IntBinaryLowering<arith::AndIOp, IntOp::And>,
                 IntBinaryLowering<arith::OrIOp, IntOp::Or>,
                 IntBinaryLowering<arith::XOrIOp, IntOp::Xor>,
                 IntBinaryLowering<arith::ShLIOp, IntOp::Shl>,
                 IntBinaryLowering<arith::ShRSIOp, IntOp::ShrS>,
                 IntBinaryLowering<arith::ShRUIOp, IntOp::ShrU>>(converter,
                                                                 ctx);
    patterns.add<FloatBinaryLowering<arith::AddFOp, FloatOp::Add>,
                 FloatBinaryLowering<arith::SubFOp, FloatOp::Sub>,
                 FloatBinaryLowering<arith::MulFOp, FloatOp::Mul>,
                 FloatBinaryLowering<arith::DivFOp, FloatOp::Div>,
                 FloatBinaryLowering<arith::MaxNumFOp, FloatOp::Max>,
                 FloatBinaryLowering<arith::MinNumFOp, FloatOp::Min>>(
        converter, ctx, fastMath);
    patterns.add<IEEEMinMaxLowering<arith::MaximumFOp, true>,
                 IEEEMinMaxLowering<arith::MinimumFOp, false>>(converter, ctx);

    if (failed(convertDialectToPTX<arith::ArithDialect>(getOperation(),
                                        std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

//===- MathToPTX.cpp - math ops inside ptx kernels to ptx -----------------===//
//
// Error bounds (f32; docs/design.md has the table):
//   sqrt, fma, abs, floor/ceil/trunc/roundeven  exact (IEEE)
//   exp   ex2.approx of a compensated x*log2(e)   ~2 ulp
//   exp2  ex2.approx                              ~2 ulp
//         (fastmath<afn>: ex2.approx.ftz, results below 2^-126 are 0)
//   log   lg2.approx * ln 2                       ~3 ulp
//   log2  lg2.approx                              2^-22 abs in [0.5, 2]
//   tanh  exp-based; odd Taylor series below 0.55  ~4 ulp
//   erf   series below 1, Abramowitz-Stegun above  3e-7 abs
//   sin, cos  .approx                             2^-20.9 abs in [-pi, pi]
//   rsqrt .approx                                 ~2 ulp
// f16 and bf16 compute in f32 and round once.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Conversion/Passes.h"

#include "Kaio/Conversion/PTXBuilder.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kaio {
#define GEN_PASS_DEF_CONVERTMATHTOPTX
#include "Kaio/Conversion/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio::ptx;

namespace {

constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

Value mulRn(PTXBuilder &p, Value a, Value b) {
  return p.mul(PTXType::f32, a, b, Rounding::rn);
}
Value addRn(PTXBuilder &p, Value a, Value b) {
  return p.add(PTXType::f32, a, b, Rounding::rn);
}

/// 2^(x log2 e) with the product's rounding error carried into a correction
/// term: r = 2^hi * (1 + err ln 2). Where |hi| >= 128 the result is 0, a
/// denormal or inf and the correction is skipped: for x = -inf it is NaN
/// (0 * NaN), and for an overflowing x inf * (negative) + inf.
Value expF32(PTXBuilder &p, Value x) {
  float l = static_cast<float>(kLog2E);
  double lo = kLog2E - static_cast<double>(l);
  Value L = p.f32(l);
  Value hi = mulRn(p, x, L);
  Value err = p.fma(PTXType::f32, x, L, p.neg(PTXType::f32, hi));
  err = p.fma(PTXType::f32, x, p.f32(lo), err);
  Value r = p.ex2(hi);
  Value scale = mulRn(p, err, p.f32(kLn2));
  Value corrected = p.fma(PTXType::f32, r, scale, r);
  Value extreme =
      p.setp(CmpOp::ge, PTXType::f32, p.abs(PTXType::f32, hi), p.f32(128.0));
  return p.selp(PTXType::f32, r, corrected, extreme);
}

/// `magnitude` (non-negative) with the sign bit of `x`.
Value withSignOf(PTXBuilder &p, Value magnitude, Value x) {
  Type i32 = p.builder().getI32Type();
  Value sign = p.andOp(PTXType::b32, p.mov(PTXType::b32, x, i32),
                       p.i32(INT32_MIN));
  Value bits = p.orOp(PTXType::b32, p.mov(PTXType::b32, magnitude, i32), sign);
  return p.mov(PTXType::b32, bits, p.builder().getF32Type());
}

/// tanh(x) = sign(x) (1 - 2 / (e^{2|x|} + 1)); below |x| = 0.55, where that
/// cancels, the odd Taylor series to x^17 (truncation < 5e-9 relative).
Value tanhF32(PTXBuilder &p, Value x) {
  Value ax = p.abs(PTXType::f32, x);
  Value e = expF32(p, mulRn(p, ax, p.f32(2.0)));
  Value q = p.div(PTXType::f32, p.f32(2.0), addRn(p, e, p.f32(1.0)),
                  Rounding::rn);
  Value big = p.sub(PTXType::f32, p.f32(1.0), q, Rounding::rn);
  Value signedBig = withSignOf(p, big, x); // tanh is odd
  Value x2 = mulRn(p, x, x);
  Value poly = p.f32(6404582.0 / 10854718875.0);
  for (double c : {-929569.0 / 638512875.0, 21844.0 / 6081075.0,
                   -1382.0 / 155925.0, 62.0 / 2835.0, -17.0 / 315.0,
                   2.0 / 15.0, -1.0 / 3.0})
    poly = p.fma(PTXType::f32, poly, x2, p.f32(c));
  Value small = p.fma(PTXType::f32, mulRn(p, poly, x2), x, x);
  Value isSmall = p.setp(CmpOp::lt, PTXType::f32, ax, p.f32(0.55));
  return p.selp(PTXType::f32, small, signedBig, isSmall);
}

/// erf: below |x| = 1 the Maclaurin series 2/sqrt(pi) sum (-1)^n x^(2n+1) /
/// (n! (2n+1)) to n = 10; above, 1 - erfc with erfc from Abramowitz & Stegun
/// 7.1.26 (1.5e-7). Within 3e-7 absolute overall.
Value erfF32(PTXBuilder &p, Value x) {
  Value ax = p.abs(PTXType::f32, x);
  Value t = p.div(PTXType::f32, p.f32(1.0),
                  p.fma(PTXType::f32, p.f32(0.3275911), ax, p.f32(1.0)),
                  Rounding::rn);
  Value poly = p.f32(1.061405429);
  for (double c : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
    poly = p.fma(PTXType::f32, poly, t, p.f32(c));
  poly = mulRn(p, poly, t);
  Value e = expF32(p, p.neg(PTXType::f32, mulRn(p, ax, ax)));
  Value y = p.fma(PTXType::f32, p.neg(PTXType::f32, poly), e, p.f32(1.0));
  Value large = withSignOf(p, y, x); // erf is odd
  // Series in x^2, Horner from the x^21 term down.
  Value x2 = mulRn(p, x, x);
  Value series = p.f32(0.0);
  double fact = 1;
  SmallVector<double> coeffs;
  for (int n = 0; n <= 10; ++n) {
    if (n)
      fact *= n;
    coeffs.push_back((n % 2 ? -1.0 : 1.0) / (fact * (2 * n + 1)));
  }
  for (double c : llvm::reverse(coeffs))
    series = p.fma(PTXType::f32, series, x2, p.f32(c));
  Value small = mulRn(p, mulRn(p, series, x), p.f32(1.1283791670955126));
  Value isSmall = p.setp(CmpOp::lt, PTXType::f32, ax, p.f32(1.0));
  return p.selp(PTXType::f32, small, large, isSmall);
}

template <typename SourceOp>
struct UnaryLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "vector math is not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    Value x = adaptor.getOperand();
    if (type.isF64()) {
      Value r;
      if constexpr (std::is_same_v<SourceOp, math::SqrtOp>)
        r = SqrtOp::create(rewriter, op.getLoc(), type, PTXType::f64, false,
                           RoundingAttr::get(rewriter.getContext(),
                                             Rounding::rn),
                           false, x, Value(), false);
      else if constexpr (std::is_same_v<SourceOp, math::AbsFOp>)
        r = p.abs(PTXType::f64, x);
      else
        return op.emitOpError("on f64 is not supported by the PTX lowering");
      rewriter.replaceOp(op, r);
      return success();
    }
    Value v = p.widenToF32(x);
    Value r = compute(p, v, op);
    rewriter.replaceOp(op, p.narrowFromF32(r, type));
    return success();
  }

  Value compute(PTXBuilder &p, Value v, SourceOp op) const {
    OpBuilder &b = p.builder();
    Location loc = p.location();
    auto rn = RoundingAttr::get(b.getContext(), Rounding::rn);
    if constexpr (std::is_same_v<SourceOp, math::SqrtOp>)
      return SqrtOp::create(b, loc, v.getType(), PTXType::f32, false, rn,
                            false, v, Value(), false);
    if constexpr (std::is_same_v<SourceOp, math::RsqrtOp>)
      return RsqrtOp::create(b, loc, v.getType(), PTXType::f32, true,
                             RoundingAttr(), false, v, Value(), false);
    if constexpr (std::is_same_v<SourceOp, math::ExpOp>)
      return expF32(p, v);
    if constexpr (std::is_same_v<SourceOp, math::Exp2Op>) {
      // Approximate functions allowed: flush subnormal results (one MUFU).
      const bool ftz = arith::bitEnumContainsAll(op.getFastmath(),
                                                 arith::FastMathFlags::afn);
      return Ex2Op::create(b, loc, v.getType(), PTXType::f32, true,
                           RoundingAttr(), ftz, v, Value(), false);
    }
    if constexpr (std::is_same_v<SourceOp, math::LogOp>)
      return mulRn(p, p.lg2(v), p.f32(kLn2));
    if constexpr (std::is_same_v<SourceOp, math::Log2Op>)
      return p.lg2(v);
    if constexpr (std::is_same_v<SourceOp, math::TanhOp>)
      return tanhF32(p, v);
    if constexpr (std::is_same_v<SourceOp, math::ErfOp>)
      return erfF32(p, v);
    if constexpr (std::is_same_v<SourceOp, math::SinOp>)
      return SinOp::create(b, loc, v.getType(), PTXType::f32, true,
                           RoundingAttr(), false, v, Value(), false);
    if constexpr (std::is_same_v<SourceOp, math::CosOp>)
      return CosOp::create(b, loc, v.getType(), PTXType::f32, true,
                           RoundingAttr(), false, v, Value(), false);
    if constexpr (std::is_same_v<SourceOp, math::AbsFOp>)
      return p.abs(PTXType::f32, v);
    if constexpr (std::is_same_v<SourceOp, math::FloorOp>)
      return p.cvt(PTXType::f32, PTXType::f32, v, v.getType(), Rounding::rmi);
    if constexpr (std::is_same_v<SourceOp, math::CeilOp>)
      return p.cvt(PTXType::f32, PTXType::f32, v, v.getType(), Rounding::rpi);
    if constexpr (std::is_same_v<SourceOp, math::TruncOp>)
      return p.cvt(PTXType::f32, PTXType::f32, v, v.getType(), Rounding::rzi);
    if constexpr (std::is_same_v<SourceOp, math::RoundEvenOp>)
      return p.cvt(PTXType::f32, PTXType::f32, v, v.getType(), Rounding::rni);
    llvm_unreachable("unhandled math op");
  }
};

struct FmaLowering : OpConversionPattern<math::FmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::FmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (isa<VectorType>(type))
      return rewriter.notifyMatchFailure(op, "vector math is not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, p.fma(getFloatType(type), adaptor.getA(),
                                 adaptor.getB(), adaptor.getC()));
    return success();
  }
};

struct ConvertMathToPTXPass
    : kaio::impl::ConvertMathToPTXBase<ConvertMathToPTXPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    PTXTypeConverter converter;
    RewritePatternSet patterns(ctx);
    patterns.add<UnaryLowering<math::SqrtOp>, UnaryLowering<math::RsqrtOp>,
                 UnaryLowering<math::ExpOp>, UnaryLowering<math::Exp2Op>,
                 UnaryLowering<math::LogOp>, UnaryLowering<math::Log2Op>,
                 UnaryLowering<math::TanhOp>, UnaryLowering<math::ErfOp>,
                 UnaryLowering<math::SinOp>, UnaryLowering<math::CosOp>,
                 UnaryLowering<math::AbsFOp>, UnaryLowering<math::FloorOp>,
                 UnaryLowering<math::CeilOp>, UnaryLowering<math::TruncOp>,
                 UnaryLowering<math::RoundEvenOp>, FmaLowering>(converter,
                                                                ctx);
    if (failed(convertDialectToPTX<math::MathDialect>(getOperation(),
                                        std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

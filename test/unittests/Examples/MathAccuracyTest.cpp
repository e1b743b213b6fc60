//===- MathAccuracyTest.cpp - the documented error bounds of math lowering ===//
//
// Each math op is lowered through the pipeline and run in the interpreter
// over a sweep of inputs; the worst error against an f64 reference must stay
// within the bound docs/design.md states. The interpreter computes .approx
// instructions with the host's libm, so this measures the lowering's own
// error (range reduction, compensation, polynomials), not the hardware's.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/InitAll.h"
#include "Lowering.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;
using kaio::interp::Interpreter;

namespace {

/// Distance in units in the last place between two floats.
double ulpDistance(float got, double want) {
  if (std::isnan(want))
    return std::isnan(got) ? 0 : INFINITY;
  float w = static_cast<float>(want);
  if (std::isinf(w))
    return got == w ? 0 : INFINITY;
  double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
  return std::fabs(double(got) - want) / ulp;
}

struct MathCase {
  const char *op;
  std::function<double(double)> reference;
  float lo, hi;
  /// Bound in ulp, or (when absBound > 0) an absolute bound.
  double ulpBound;
  double absBound;
};

/// y = op(x) element-wise, run in the interpreter.
std::vector<float> applyInInterpreter(const char *op,
                                      const std::vector<float> &x) {
  std::string source = std::string(R"(
    kaio.kernel @apply(%x: !kaio.ptr<f32>, %y: !kaio.ptr<f32>, %n: i32)
        attributes {block_size = array<i32: 256>} {
      %tid = kaio.thread_id x : i32
      %bid = kaio.block_id x : i32
      %bdim = kaio.block_dim x : i32
      %base = arith.muli %bid, %bdim : i32
      %i = arith.addi %base, %tid : i32
      %inside = arith.cmpi ult, %i, %n : i32
      scf.if %inside {
        %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
        %r = )") + op + R"( %v : f32
        kaio.store %r, %y[%i] : f32, !kaio.ptr<f32>, i32
      }
      kaio.return
    })";
  MLIRContext context;
  OwningOpRef<ModuleOp> module = kaio::test::lowerSource(context, source);
  EXPECT_TRUE(module);
  if (!module)
    return {};
  uint32_t n = x.size();
  Interpreter interp(*module);
  uint64_t dx = interp.allocGlobal(n * 4), dy = interp.allocGlobal(n * 4);
  EXPECT_TRUE(interp.write(dx, x));
  auto r = interp.launch("apply", {(n + 255) / 256}, {256}, {dx, dy, n});
  EXPECT_TRUE(r.success) << r.message();
  std::vector<float> y(n);
  EXPECT_TRUE(interp.read(dy, y));
  return y;
}

class MathAccuracyTest : public ::testing::TestWithParam<MathCase> {};

TEST_P(MathAccuracyTest, WithinDocumentedBound) {
  const MathCase &c = GetParam();
  const uint32_t n = 20000;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i)
    x[i] = c.lo + (c.hi - c.lo) * (float(i) / (n - 1));
  std::vector<float> y = applyInInterpreter(c.op, x);
  ASSERT_EQ(y.size(), n);
  double worst = 0;
  float worstAt = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double want = c.reference(x[i]);
    double err = c.absBound > 0 ? std::fabs(double(y[i]) - want)
                                : ulpDistance(y[i], want);
    if (err > worst) {
      worst = err;
      worstAt = x[i];
    }
  }
  double bound = c.absBound > 0 ? c.absBound : c.ulpBound;
  EXPECT_LE(worst, bound) << c.op << " worst error " << worst << " at x = "
                          << worstAt;
}

// The bounds of docs/design.md's accuracy table.
INSTANTIATE_TEST_SUITE_P(
    Math, MathAccuracyTest,
    ::testing::Values(
        MathCase{"math.exp", [](double v) { return std::exp(v); }, -87.0f,
                 88.0f, 2, 0},
        MathCase{"math.exp2", [](double v) { return std::exp2(v); }, -126.0f,
                 127.0f, 2, 0},
        MathCase{"math.log", [](double v) { return std::log(v); }, 1e-6f,
                 1e6f, 3, 0},
        MathCase{"math.tanh", [](double v) { return std::tanh(v); }, -10.0f,
                 10.0f, 4, 0},
        MathCase{"math.tanh", [](double v) { return std::tanh(v); }, -0.7f,
                 0.7f, 4, 0},
        MathCase{"math.erf", [](double v) { return std::erf(v); }, -4.0f,
                 4.0f, 0, 3e-7},
        MathCase{"math.erf", [](double v) { return std::erf(v); }, -0.1f,
                 0.1f, 0, 3e-7},
        MathCase{"math.sqrt", [](double v) { return std::sqrt(v); }, 0.0f,
                 1e6f, 0.5, 0},
        MathCase{"math.sin", [](double v) { return std::sin(v); }, -3.14f,
                 3.14f, 0, 6e-7},
        MathCase{"math.rsqrt", [](double v) { return 1.0 / std::sqrt(v); },
                 1e-3f, 1e3f, 2, 0}),
    [](const ::testing::TestParamInfo<MathCase> &info) {
      std::string name = std::string(info.param.op).substr(5) + "_" +
                         std::to_string(info.index);
      return name;
    });

// Infinities, NaN and arguments whose result overflows or underflows give
// the exact IEEE result (exp(-inf) = 0, not 0 * NaN; exp(100) = inf, not
// inf - inf), also through tanh and erf, which are built on exp.
TEST(MathSpecialValuesTest, InfinitiesNaNAndOverflow) {
  const float inf = INFINITY, nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {-inf, inf,   nan,    100.0f, 88.8f, 88.7f,
                          -87.0f, -104.0f, -200.0f, 50.0f, -50.0f, 0.0f};
  struct Fn {
    const char *op;
    double (*ref)(double);
  };
  for (Fn f : {Fn{"math.exp", [](double v) { return std::exp(v); }},
               Fn{"math.tanh", [](double v) { return std::tanh(v); }},
               Fn{"math.erf", [](double v) { return std::erf(v); }}}) {
    std::vector<float> y = applyInInterpreter(f.op, x);
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_LE(ulpDistance(y[i], f.ref(x[i])), 4)
          << f.op << "(" << x[i] << ") = " << y[i];
  }
}

// arith.maximumf/minimumf are IEEE 754-2019 maximum/minimum: NaN wins and
// -0 < +0; maxnumf/minnumf return the number when one operand is NaN. On
// sm_80 and later maximumf is one max.NaN, before it a longer sequence:
// both lowered and run.
class ArithSemanticsTest : public ::testing::TestWithParam<const char *> {};

TEST_P(ArithSemanticsTest, MinMaxNaNAndSignedZeros) {
  const char *source = R"(
    kaio.kernel @minmax(%a: !kaio.ptr<f32>, %b: !kaio.ptr<f32>,
                        %out: !kaio.ptr<f32>, %n: i32)
        attributes {block_size = array<i32: 32>} {
      %c4 = arith.constant 4 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %i = kaio.thread_id x : i32
      %inside = arith.cmpi ult, %i, %n : i32
      scf.if %inside {
        %x = kaio.load %a[%i] : !kaio.ptr<f32>, i32 -> f32
        %y = kaio.load %b[%i] : !kaio.ptr<f32>, i32 -> f32
        %o = arith.muli %i, %c4 : i32
        %o1 = arith.addi %o, %c1 : i32
        %o2 = arith.addi %o, %c2 : i32
        %o3 = arith.addi %o, %c3 : i32
        %mx = arith.maximumf %x, %y : f32
        %mn = arith.minimumf %x, %y : f32
        %nx = arith.maxnumf %x, %y : f32
        %nn = arith.minnumf %x, %y : f32
        kaio.store %mx, %out[%o] : f32, !kaio.ptr<f32>, i32
        kaio.store %mn, %out[%o1] : f32, !kaio.ptr<f32>, i32
        kaio.store %nx, %out[%o2] : f32, !kaio.ptr<f32>, i32
        kaio.store %nn, %out[%o3] : f32, !kaio.ptr<f32>, i32
      }
      kaio.return
    })";
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      kaio::test::lowerSource(context, source, GetParam());
  ASSERT_TRUE(module);
  bool nanForm = false;
  module->walk([&](kaio::ptx::MaxOp op) { nanForm |= op.getNan(); });
  EXPECT_EQ(nanForm, std::string(GetParam()) != "sm_75");
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {0.0f, -0.0f, 1.0f, nan, 2.0f, -3.0f, nan};
  std::vector<float> b = {-0.0f, 0.0f, nan, 1.0f, 2.0f, 5.0f, nan};
  uint32_t n = a.size();
  Interpreter interp(*module);
  uint64_t da = interp.allocGlobal(n * 4), db = interp.allocGlobal(n * 4),
           dout = interp.allocGlobal(n * 16);
  ASSERT_TRUE(interp.write(da, a));
  ASSERT_TRUE(interp.write(db, b));
  auto r = interp.launch("minmax", {1}, {32}, {da, db, dout, n});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> out(n * 4);
  ASSERT_TRUE(interp.read(dout, out));
  auto same = [](float got, float want) {
    if (std::isnan(want))
      return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
  };
  for (uint32_t i = 0; i < n; ++i) {
    float x = a[i], y = b[i];
    bool anyNaN = std::isnan(x) || std::isnan(y);
    float mx = anyNaN ? nan
               : x == y ? (std::signbit(x) ? y : x)
                        : std::max(x, y);
    float mn = anyNaN ? nan
               : x == y ? (std::signbit(x) ? x : y)
                        : std::min(x, y);
    EXPECT_TRUE(same(out[4 * i], mx)) << "maximumf " << x << ", " << y
                                      << " = " << out[4 * i];
    EXPECT_TRUE(same(out[4 * i + 1], mn)) << "minimumf " << x << ", " << y
                                          << " = " << out[4 * i + 1];
    EXPECT_TRUE(same(out[4 * i + 2], std::fmax(x, y)) ||
                (x == y && out[4 * i + 2] == x))
        << "maxnumf " << x << ", " << y;
    EXPECT_TRUE(same(out[4 * i + 3], std::fmin(x, y)) ||
                (x == y && out[4 * i + 3] == x))
        << "minnumf " << x << ", " << y;
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, ArithSemanticsTest,
                         ::testing::Values("sm_75", "sm_80", "sm_90"));

} // namespace

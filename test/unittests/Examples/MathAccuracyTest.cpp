//===- MathAccuracyTest.cpp - the documented error bounds of math lowering ===//
//
// Each math op is lowered through the pipeline and run in the interpreter
// over a sweep of inputs; the worst error against an f64 reference must stay
// within the bound docs/design.md states. The interpreter computes .approx
// instructions with the host's libm, so this measures the lowering's own
// error (range reduction, compensation, polynomials), not the hardware's.
//
//===----------------------------------------------------------------------===//

#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <functional>

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

class MathAccuracyTest : public ::testing::TestWithParam<MathCase> {};

TEST_P(MathAccuracyTest, WithinDocumentedBound) {
  const MathCase &c = GetParam();
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
        %r = )") + c.op + R"( %v : f32
        kaio.store %r, %y[%i] : f32, !kaio.ptr<f32>, i32
      }
      kaio.return
    })";
  MLIRContext context;
  DialectRegistry registry;
  kaio::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  kaio::buildKaioToPTXPipeline(pm, kaio::KaioToPTXOptions());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  const uint32_t n = 20000;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i)
    x[i] = c.lo + (c.hi - c.lo) * (float(i) / (n - 1));
  Interpreter interp(*module);
  uint64_t dx = interp.allocGlobal(n * 4), dy = interp.allocGlobal(n * 4);
  ASSERT_TRUE(interp.write(dx, x));
  auto r = interp.launch("apply", {(n + 255) / 256}, {256}, {dx, dy, n});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> y(n);
  ASSERT_TRUE(interp.read(dy, y));
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

} // namespace

//===- ElementwiseKernelsTest.cpp - activations, GLUs, adds in the interpreter ===//
//
// The library's element-wise kernels, every dtype and variant, against f64
// references at ragged shapes (columns not a multiple of the vector or the
// block, padded rows, more rows than one grid column of blocks covers), and
// at special values (overflowing and infinite activations).
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "KernelTestSupport.h"

#include <cmath>
#include <functional>

using namespace kaio;
using namespace kaio::test;
using kaio::ops::Activation;

namespace {

class ElementwiseKernelsTest : public OpsKernelsTest {
public:
  /// Launches `name` over rows x cols with the element-wise grid (gridY
  /// rows of blocks at most, to exercise the grid-stride over rows).
  void launch(Interpreter &interp, const std::string &name, uint32_t rows,
              uint32_t cols, std::vector<uint64_t> args, uint32_t gridY = 0) {
    uint32_t chunks = (cols + width() - 1) / width();
    uint32_t gx = (chunks + kElementwiseBlock - 1) / kElementwiseBlock;
    auto r = interp.launch(name, {gx, gridY ? gridY : rows},
                           {kElementwiseBlock}, args);
    ASSERT_TRUE(r.success) << name << ": " << r.message();
  }
};

/// Checks rows x cols of `got` (leading dimension ld) against want(r, c) and
/// that the padding kept its sentinel.
void expectMatrix(const std::vector<double> &got, uint32_t rows,
                  uint32_t cols, uint32_t ld, double tol,
                  const std::function<double(uint32_t, uint32_t)> &want,
                  const std::string &what) {
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < ld; ++c) {
      double g = got[size_t(r) * ld + c];
      if (c >= cols) {
        ASSERT_EQ(g, 7.0) << what << ": wrote past the row at " << r << ", "
                          << c;
        continue;
      }
      double w = want(r, c);
      if (std::isinf(w) || std::isnan(w)) {
        ASSERT_TRUE(g == w || (std::isnan(w) && std::isnan(g)))
            << what << " at " << r << ", " << c << ": " << g << " vs " << w;
        continue;
      }
      // + 1e-6: erf's documented 3e-7 absolute error, times x / 2, where
      // GELU's 1 + erf cancels (|x| <= 6 here).
      ASSERT_NEAR(g, w, tol * (std::fabs(w) + 0.01) + 1e-6)
          << what << " at " << r << ", " << c;
    }
}

TEST_P(ElementwiseKernelsTest, BiasActivationAtRaggedShapes) {
  for (Activation act : {Activation::None, Activation::Relu, Activation::Silu,
                         Activation::GeluTanh, Activation::GeluErf})
    for (bool withBias : {true, false})
      for (auto [rows, cols] : {std::pair{3u, 1u}, std::pair{5u, 77u},
                                std::pair{2u, 2100u}}) {
        Interpreter interp(**module);
        uint32_t ld = leading(cols);
        std::vector<double> x = random(size_t(rows) * ld, -6, 6);
        std::vector<double> b = random(cols, -1, 1);
        uint64_t dx = upload(interp, x), db = upload(interp, b),
                 dout = upload(interp,
                               std::vector<double>(size_t(rows) * ld, 7.0));
        std::string name =
            kernel((std::string("bias_") + getActivationName(act)).c_str());
        launch(interp, name, rows, cols,
               {dx, db, dout, rows, cols, ld, ld,
                withBias ? uint32_t(kBiasPresent) : 0u});
        if (HasFatalFailure())
          return;
        expectMatrix(download(interp, dout, size_t(rows) * ld), rows, cols,
                     ld, tolerance(elem()),
                     [&](uint32_t r, uint32_t c) {
                       return roundTo(
                           elem(),
                           referenceActivation(act, x[size_t(r) * ld + c] +
                                             (withBias ? b[c] : 0.0)));
                     },
                     name);
        if (HasFatalFailure())
          return;
      }
}

TEST_P(ElementwiseKernelsTest, GatedActivationsAndRowGridStride) {
  // 300 rows on a grid of 7 block rows: each block walks ~43 rows.
  const uint32_t rows = 300, cols = 45, ld = leading(cols);
  for (Activation act :
       {Activation::Silu, Activation::GeluTanh, Activation::GeluErf}) {
    Interpreter interp(**module);
    std::vector<double> g = random(size_t(rows) * ld, -5, 5);
    std::vector<double> u = random(size_t(rows) * ld, -2, 2);
    uint64_t dg = upload(interp, g), du = upload(interp, u),
             dout = upload(interp, std::vector<double>(size_t(rows) * ld, 7.0));
    std::string name =
        kernel((std::string("glu_") + getActivationName(act)).c_str());
    launch(interp, name, rows, cols, {dg, du, dout, rows, cols, ld, ld, ld},
           /*gridY=*/7);
    if (HasFatalFailure())
      return;
    expectMatrix(download(interp, dout, size_t(rows) * ld), rows, cols, ld,
                 tolerance(elem()),
                 [&](uint32_t r, uint32_t c) {
                   size_t i = size_t(r) * ld + c;
                   return referenceActivation(act, g[i]) * u[i];
                 },
                 name);
    if (HasFatalFailure())
      return;
  }
}

TEST_P(ElementwiseKernelsTest, AddAndSpecialValues) {
  const uint32_t rows = 2, cols = 19, ld = leading(cols);
  Interpreter interp(**module);
  std::vector<double> a = random(size_t(rows) * ld, -1, 1);
  std::vector<double> b = random(size_t(rows) * ld, -1, 1);
  uint64_t da = upload(interp, a), db = upload(interp, b),
           dout = upload(interp, std::vector<double>(size_t(rows) * ld, 7.0));
  launch(interp, kernel("add"), rows, cols, {da, db, dout, rows, cols, ld, ld,
                                             ld});
  if (HasFatalFailure())
    return;
  expectMatrix(download(interp, dout, size_t(rows) * ld), rows, cols, ld,
               tolerance(elem()),
               [&](uint32_t r, uint32_t c) {
                 size_t i = size_t(r) * ld + c;
                 return roundTo(elem(), a[i] + b[i]);
               },
               "add");
  // Activations at the ends of the range: silu(-inf) = -0 (not NaN),
  // silu(+inf) = inf, GELUs saturate to x and 0 for large finite x.
  const double inf = INFINITY;
  std::vector<double> special = {-inf, inf, -100, 100, -30, 30, 0, -0.0};
  for (Activation act : {Activation::Silu, Activation::GeluTanh,
                         Activation::GeluErf, Activation::Relu}) {
    uint32_t n = special.size(), ldS = leading(n);
    std::vector<double> x(ldS, 0.0);
    std::copy(special.begin(), special.end(), x.begin());
    uint64_t dx = upload(interp, x),
             dy = upload(interp, std::vector<double>(ldS, 7.0));
    std::string name =
        kernel((std::string("bias_") + getActivationName(act)).c_str());
    launch(interp, name, 1, n, {dx, dx, dy, 1u, n, ldS, ldS, 0u});
    if (HasFatalFailure())
      return;
    std::vector<double> y = download(interp, dy, ldS);
    for (uint32_t i = 0; i < n; ++i) {
      // GELU(-inf) is -inf * 0: NaN, as in PyTorch.
      double want = roundTo(elem(), referenceActivation(act, special[i]));
      if (std::isnan(want) || std::isinf(want))
        EXPECT_TRUE(y[i] == want || (std::isnan(want) && std::isnan(y[i])))
            << name << "(" << special[i] << ") = " << y[i];
      else
        EXPECT_NEAR(y[i], want, 1e-6) << name << "(" << special[i] << ")";
    }
  }
}

TEST_P(ElementwiseKernelsTest, RotaryEmbeddingBothLayouts) {
  // The vector kernels need whole 16-byte chunks per half head (rows
  // aligned): head_dim 32; the scalar ones take any even head_dim.
  const uint32_t rows = 6, heads = 3, headDim = vectorized() ? 32 : 10,
                 cols = heads * headDim, ld = cols + (vectorized() ? 8 : 2),
                 maxPos = 40, half = headDim / 2;
  std::vector<float> cosT(maxPos * half), sinT(maxPos * half);
  for (uint32_t p = 0; p < maxPos; ++p)
    for (uint32_t i = 0; i < half; ++i) {
      double angle = p * std::pow(10000.0, -2.0 * i / headDim);
      cosT[p * half + i] = std::cos(angle);
      sinT[p * half + i] = std::sin(angle);
    }
  // Offsets and packed sequences are just positions; -1 and 40 are out of
  // range (NaN rows).
  std::vector<int32_t> pos = {0, 7, 39, 3, -1, 40};
  for (bool interleaved : {false, true}) {
    Interpreter interp(**module);
    std::vector<double> x = random(size_t(rows) * ld, -2, 2);
    uint64_t dx = upload(interp, x),
             dout = upload(interp, std::vector<double>(x.size(), 7.0)),
             dpos = interp.allocGlobal(rows * 4),
             dcos = interp.allocGlobal(cosT.size() * 4),
             dsin = interp.allocGlobal(sinT.size() * 4);
    ASSERT_TRUE(interp.write(dpos, pos));
    ASSERT_TRUE(interp.write(dcos, cosT));
    ASSERT_TRUE(interp.write(dsin, sinT));
    std::string name = kernel(interleaved ? "rope_interleaved" : "rope_half");
    // Two block rows: each strides over three token rows.
    auto r = interp.launch(name, {1, 2}, {kElementwiseBlock},
                           {dx, dout, dpos, dcos, dsin, rows, heads, headDim,
                            ld, ld, half, maxPos});
    ASSERT_TRUE(r.success) << name << ": " << r.message();
    std::vector<double> out = download(interp, dout, x.size());
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t h = 0; h < heads; ++h)
        for (uint32_t i = 0; i < half; ++i) {
          uint32_t a = h * headDim + (interleaved ? 2 * i : i);
          uint32_t b = interleaved ? a + 1 : a + half;
          double xa = x[row * ld + a], xb = x[row * ld + b];
          double ga = out[row * ld + a], gb = out[row * ld + b];
          std::string at = name + " row " + std::to_string(row) + " head " +
                           std::to_string(h) + " pair " + std::to_string(i);
          if (pos[row] < 0 || pos[row] >= int32_t(maxPos)) {
            ASSERT_TRUE(std::isnan(ga) && std::isnan(gb)) << at;
            continue;
          }
          double c = cosT[pos[row] * half + i], s = sinT[pos[row] * half + i];
          ASSERT_NEAR(ga, xa * c - xb * s, tolerance(elem()) * 2 + 1e-6) << at;
          ASSERT_NEAR(gb, xa * s + xb * c, tolerance(elem()) * 2 + 1e-6) << at;
        }
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t c = cols; c < ld; ++c)
        ASSERT_EQ(out[row * ld + c], 7.0) << "wrote past the row";
  }
}

INSTANTIATE_TEST_SUITE_P(Types, ElementwiseKernelsTest, elemVariants(), elemVariantName);

} // namespace

//===- GemvKernelsTest.cpp - y = A x in the interpreter -------------------===//
//
// The library's GEMV kernels, every dtype and variant, against an f64
// reference at ragged shapes (k below a warp's chunks, not a multiple of
// the vector, rows not a multiple of the warps per block, padded rows), and
// a profile check that a warp streams A in whole 16-byte chunks.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

class GemvKernelsTest : public OpsKernelsTest {
public:
  /// Runs gemv on an m x k A (leading dimension ld) and returns y; checks
  /// y against the f64 reference and that nothing past y was written.
  void check(uint32_t m, uint32_t k, bool withBias,
             interp::Profile *profile = nullptr, uint32_t ld = 0) {
    ld = ld ? ld : leading(k);
    Interpreter interp(**module);
    std::vector<double> a = random(size_t(m) * ld, -1, 1);
    std::vector<double> x = random(k, -1, 1), bias = random(m, -1, 1);
    uint64_t da = upload(interp, a), dx = upload(interp, x),
             db = upload(interp, bias),
             dy = upload(interp, std::vector<double>(m + 8, 7.0));
    interp::LaunchOptions options;
    options.profile = profile;
    std::string name = kernel("gemv");
    auto r = interp.launch(
        name, {(m + kGemvRowsPerBlock - 1) / kGemvRowsPerBlock}, {kGemvBlock},
        {da, dx, db, dy, m, k, ld, withBias ? uint32_t(kGemvBias) : 0u},
        options);
    ASSERT_TRUE(r.success) << name << ": " << r.message();
    std::vector<double> y = download(interp, dy, m + 8);
    for (uint32_t i = 0; i < m; ++i) {
      double want = withBias ? bias[i] : 0, mag = std::fabs(want);
      for (uint32_t j = 0; j < k; ++j) {
        want += a[size_t(i) * ld + j] * x[j];
        mag += std::fabs(a[size_t(i) * ld + j] * x[j]);
      }
      // f32 accumulation: error relative to the sum of magnitudes; the
      // result is rounded to the element type.
      double tol = 1e-6 * mag + tolerance(elem()) * std::fabs(want) + 1e-7;
      ASSERT_NEAR(y[i], want, tol) << name << " " << m << "x" << k << " row "
                                   << i;
    }
    for (uint32_t i = m; i < m + 8; ++i)
      ASSERT_EQ(y[i], 7.0) << name << ": wrote past y at " << i;
  }
};

TEST_P(GemvKernelsTest, MatchesAnF64ReferenceAtRaggedShapes) {
  for (auto [m, k] : {std::pair{1u, 1u}, std::pair{5u, 7u},
                      std::pair{13u, 300u}, std::pair{9u, 4099u},
                      std::pair{70u, 64u}})
    for (bool withBias : {false, true}) {
      check(m, k, withBias);
      if (HasFatalFailure())
        return;
    }
}

TEST_P(GemvKernelsTest, StreamsAInWhole16ByteChunks) {
  if (!vectorized())
    GTEST_SKIP() << "scalar variant";
  interp::Profile profile;
  // k a multiple of 32 chunks: every lane loads a whole chunk each step;
  // rows unpadded, so that each starts on a 32-byte sector.
  uint32_t k = 32 * width() * 4;
  check(16, k, false, &profile, k);
  ASSERT_EQ(profile.kernels().size(), 1u);
  const interp::KernelProfile &p = profile.kernels().front();
  // A (16 rows) and x (read by every warp): 16-byte loads only.
  uint64_t chunks = 2 * 16ull * k / width();
  EXPECT_EQ(p.mix.at("ld.global.16B"), chunks / 32);
  EXPECT_EQ(p.global.at("ld.global").sectors,
            p.global.at("ld.global").idealSectors);
  // The only divergence: lane 0 storing the row's y, once per warp.
  EXPECT_EQ(p.divergentBranches, 16u);

}

TEST_P(GemvKernelsTest, TransposedProductInSlicesAtRaggedShapes) {
  // y = xᵀ A for a k x n A: slices of rows into f32 partials, then their
  // sum in order (+ bias).
  for (auto [k, n, splits] : {std::tuple{1u, 1u, 1u}, std::tuple{37u, 24u, 3u},
                              std::tuple{300u, 1000u, 7u},
                              std::tuple{5u, 2048u, 5u}}) {
    // The vector kernel needs n and the leading dimension multiples of
    // the vector.
    uint32_t nn = vectorized() ? (n + width() - 1) / width() * width() : n;
    uint32_t ld = vectorized() ? nn + width() : nn + 1;
    Interpreter interp(**module);
    std::vector<double> a = random(size_t(k) * ld, -1, 1);
    std::vector<double> x = random(k, -1, 1), bias = random(nn, -1, 1);
    uint64_t da = upload(interp, a), dx = upload(interp, x),
             db = upload(interp, bias),
             dp = interp.allocGlobal(size_t(splits) * nn * 4),
             dy = upload(interp, std::vector<double>(nn + 8, 7.0));
    uint32_t perSplit = (k + splits - 1) / splits;
    uint32_t chunks = (nn + width() - 1) / width();
    std::string partial = kernel("gemv_t_partial");
    auto r1 = interp.launch(partial,
                            {(chunks + kGemvBlock - 1) / kGemvBlock, splits},
                            {kGemvBlock},
                            {da, dx, dp, k, nn, ld, perSplit});
    ASSERT_TRUE(r1.success) << partial << ": " << r1.message();
    std::string reduce = std::string("gemv_t_reduce_") + elemName(elem());
    auto r2 = interp.launch(reduce, {(nn + kGemvBlock - 1) / kGemvBlock},
                            {kGemvBlock},
                            {dp, db, dy, nn, splits, uint32_t(kGemvBias)});
    ASSERT_TRUE(r2.success) << reduce << ": " << r2.message();
    std::vector<double> y = download(interp, dy, nn + 8);
    for (uint32_t c = 0; c < nn; ++c) {
      double want = bias[c], mag = std::fabs(want);
      for (uint32_t r = 0; r < k; ++r) {
        want += x[r] * a[size_t(r) * ld + c];
        mag += std::fabs(x[r] * a[size_t(r) * ld + c]);
      }
      ASSERT_NEAR(y[c], want,
                  1e-6 * mag + tolerance(elem()) * std::fabs(want) + 1e-7)
          << partial << " " << k << "x" << nn << " col " << c;
    }
    for (uint32_t c = nn; c < nn + 8; ++c)
      ASSERT_EQ(y[c], 7.0) << "wrote past y";
  }
}

TEST_P(GemvKernelsTest, ColumnReductionsInSlicesAtRaggedShapes) {
  // out[c] = sum / max / min of column c: slices of rows into f32 partials,
  // then the slices in order. NaN propagates through max and min.
  for (const char *op : {"sum", "max", "min"})
    for (auto [k, n, splits] :
         {std::tuple{1u, 1u, 1u}, std::tuple{37u, 24u, 3u},
          std::tuple{300u, 1000u, 7u}, std::tuple{5u, 2048u, 5u}}) {
      uint32_t nn = vectorized() ? (n + width() - 1) / width() * width() : n;
      uint32_t ld = vectorized() ? nn + width() : nn + 1;
      Interpreter interp(**module);
      std::vector<double> a = random(size_t(k) * ld, -1, 1);
      // A NaN in the last column (if there are several).
      if (nn > 1)
        a[size_t(k / 2) * ld + nn - 1] = NAN;
      uint64_t da = upload(interp, a),
               dp = interp.allocGlobal(size_t(splits) * nn * 4),
               dout = interp.allocGlobal((nn + 8) * 4);
      std::vector<float> guard(nn + 8, 7.0f);
      ASSERT_TRUE(interp.write(dout, guard.data(), guard.size() * 4));
      uint32_t perSplit = (k + splits - 1) / splits;
      uint32_t chunks = (nn + width() - 1) / width();
      std::string partial = kernel((std::string("reduce_cols_") + op).c_str());
      auto r1 = interp.launch(partial,
                              {(chunks + kGemvBlock - 1) / kGemvBlock, splits},
                              {kGemvBlock}, {da, dp, k, nn, ld, perSplit});
      ASSERT_TRUE(r1.success) << partial << ": " << r1.message();
      std::string finish = std::string("reduce_cols_finish_") + op;
      auto r2 = interp.launch(finish, {(nn + kGemvBlock - 1) / kGemvBlock},
                              {kGemvBlock}, {dp, dout, nn, splits});
      ASSERT_TRUE(r2.success) << finish << ": " << r2.message();
      std::vector<float> out(nn + 8);
      ASSERT_TRUE(interp.read(dout, out.data(), out.size() * 4));
      for (uint32_t c = 0; c < nn; ++c) {
        double want = op[0] == 's' ? 0 : op[1] == 'a' ? -INFINITY : INFINITY;
        double mag = 0;
        bool nan = false;
        for (uint32_t r = 0; r < k; ++r) {
            double v = a[size_t(r) * ld + c];
          nan |= std::isnan(v);
          want = op[0] == 's' ? want + v
                 : op[1] == 'a' ? std::max(want, v)
                                : std::min(want, v);
          mag += std::fabs(v);
        }
        if (nan) {
          ASSERT_TRUE(std::isnan(out[c]))
              << partial << " col " << c << " should be NaN";
          continue;
        }
        ASSERT_NEAR(out[c], want, op[0] == 's' ? 1e-6 * mag + 1e-7 : 0)
            << partial << " " << k << "x" << nn << " col " << c;
      }
      for (uint32_t c = nn; c < nn + 8; ++c)
        ASSERT_EQ(out[c], 7.0f) << "wrote past out";
    }
}

INSTANTIATE_TEST_SUITE_P(Types, GemvKernelsTest, elemVariants(), elemVariantName);

} // namespace

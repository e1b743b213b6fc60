//===- SgemmKernelsTest.cpp - the full-precision f32 GEMM in the interpreter ===//
//
// sgemm_f32 and sgemm_f32_aligned against an f64 reference at ragged shapes
// (partial tiles in M, N and K, padded rows, beta reading C), and their
// profile: no shared-memory bank conflicts (the main loop's scalar reads
// are one wavefront each), only 16-byte cp.async copies where aligned.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

/// (M, N, K, aligned variant, beta, epilogue: HopperGemmEpilogue bits).
class SgemmKernelsTest
    : public ::testing::TestWithParam<
          std::tuple<uint32_t, uint32_t, uint32_t, bool, float, uint32_t>> {
public:
  static void SetUpTestSuite() {
    kernels = buildLoweredKernels(
        [](builder::ModuleBuilder &mb) { buildSgemmKernels(mb); });
    ASSERT_EQ(kernels->error, "");
  }
  static void TearDownTestSuite() { kernels.reset(); }
  inline static std::unique_ptr<LoweredKernels> kernels;
};

TEST_P(SgemmKernelsTest, MatchesF64WithoutBankConflicts) {
  const auto [m, n, k, aligned, beta, epilogue] = GetParam();
  const auto act = ops::Activation(epilogue & kGemmActivationMask);
  const bool biasCols = epilogue & kGemmBiasColumns,
             biasRows = epilogue & kGemmBiasRows;
  // Aligned: leading dimensions multiples of 4 (16-byte rows); else odd.
  const uint32_t lda = aligned ? (k + 3) / 4 * 4 + 4 : k + 3,
                 ldb = aligned ? (n + 3) / 4 * 4 + 4 : n + 1, ldc = n + 2;
  std::mt19937 rng(m * 7 + n * 3 + k);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(size_t(m) * lda), b(size_t(k) * ldb),
      c0(size_t(m) * ldc);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  for (float &x : c0)
    x = dist(rng);
  Interpreter in(*kernels->module);
  auto upload = [&](const std::vector<float> &v) {
    uint64_t at = in.allocGlobal(std::max<size_t>(v.size() * 4, 16));
    EXPECT_TRUE(in.write(at, v));
    return at;
  };
  std::vector<float> bias(biasRows ? m : n);
  for (float &x : bias)
    x = dist(rng);
  uint64_t da = upload(a), db = upload(b), dc = upload(c0),
           dbias = upload(bias);
  const float alpha = -1.25f;
  const char *name = aligned ? "sgemm_f32_aligned" : "sgemm_f32";
  interp::Profile profile;
  interp::LaunchOptions options;
  options.profile = &profile;
  const uint32_t tile = kSgemmBlockTile;
  auto r = in.launch(name, {(n + tile - 1) / tile, (m + tile - 1) / tile},
                     {kSgemmThreads},
                     {da, db, dc, m, n, k, lda, ldb, ldc,
                      Interpreter::argF32(alpha), Interpreter::argF32(beta),
                      dbias, epilogue},
                     options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> c(c0.size());
  ASSERT_TRUE(in.read(dc, c));
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < ldc; ++j) {
      const size_t at = size_t(i) * ldc + j;
      if (j >= n) {
        ASSERT_EQ(c[at], c0[at]) << "padding written at " << i << ", " << j;
        continue;
      }
      double sum = 0, mag = 0;
      for (uint32_t p = 0; p < k; ++p) {
        double x = double(a[size_t(i) * lda + p]) * b[size_t(p) * ldb + j];
        sum += x;
        mag += std::fabs(x);
      }
      double want = referenceActivation(
          act, alpha * sum + (beta != 0 ? beta * c0[at] : 0.0) +
                   (biasCols ? bias[j] : biasRows ? bias[i] : 0.0));
      // f32 accumulation: a few ulps of the sum of magnitudes. Full
      // precision (tf32 would be off by ~1e-3 of the magnitudes).
      ASSERT_NEAR(c[at], want, 1e-6 * (mag + 1) * std::fabs(alpha) + 1e-6)
          << "C(" << i << ", " << j << ")";
    }
  const interp::KernelProfile *kp = profile.find(name);
  ASSERT_NE(kp, nullptr);
  // The main loop's reads never conflict; with aligned rows the tiles
  // arrive by 16-byte cp.async only (unaligned rows take the copies'
  // element-wise path, whose scalar stores may).
  ASSERT_TRUE(kp->shared.count("ld.shared"));
  EXPECT_EQ(kp->shared.at("ld.shared").bankConflicts(), 0u);
  if (aligned) {
    for (const auto &[kind, stats] : kp->shared)
      EXPECT_EQ(stats.bankConflicts(), 0u) << kind;
    for (const auto &[kind, count] : kp->mix)
      EXPECT_TRUE(kind.rfind("cp.async", 0) != 0 || kind == "cp.async.16B" ||
                  kind == "cp.async.commit" || kind == "cp.async.wait")
          << kind << ": " << count;
    EXPECT_GT(kp->mix.at("cp.async.16B"), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SgemmKernelsTest,
    ::testing::Values(
        std::make_tuple(1u, 1u, 1u, false, 0.0f, 0u),
        std::make_tuple(17u, 33u, 40u, false, 0.5f, 0u),
        std::make_tuple(17u, 33u, 40u, true, 0.0f, 0u),
        std::make_tuple(130u, 70u, 96u, true, -2.0f, 0u),
        std::make_tuple(64u, 64u, 64u, true, 0.0f, 0u),
        std::make_tuple(130u, 136u, 33u, false, 1.0f, 0u),
        std::make_tuple(256u, 256u, 256u, true, 0.0f, 0u),
        // The fused epilogue: bias along columns or rows, activations.
        std::make_tuple(70u, 130u, 24u, true, 0.5f,
                        uint32_t(kGemmBiasColumns) |
                            uint32_t(ops::Activation::GeluTanh)),
        std::make_tuple(33u, 17u, 40u, false, 0.0f,
                        uint32_t(kGemmBiasRows) |
                            uint32_t(ops::Activation::Silu)),
        std::make_tuple(20u, 140u, 16u, true, 0.0f,
                        uint32_t(ops::Activation::Relu))));

} // namespace

//===- MmaGemmKernelsTest.cpp - the mma.sync GEMM in the interpreter ------===//
//
// Every embedded mma_gemm configuration (f16 and bf16 in; f32 or 16-bit
// out; row- or column-major A and B; aligned rows or not) against an f64
// reference at ragged shapes (partial tiles in M, N and K, padded leading
// dimensions, beta reading C), and the profile of its main loop: no
// shared-memory bank conflicts (swizzled tiles: 16-byte cp.async writes and
// ldmatrix reads), only 16-byte cp.async copies where rows are aligned, and
// 32 mma.sync per warp per 16 of K.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

struct Shape {
  uint32_t m, n, k;
  float beta;
};

Elem toElem(GemmElem e) {
  return e == GemmElem::F32 ? Elem::F32
         : e == GemmElem::F16 ? Elem::F16
                              : Elem::BF16;
}

class MmaGemmKernelsTest
    : public ::testing::TestWithParam<std::tuple<MmaGemmConfig, Shape>> {
public:
  static void SetUpTestSuite() {
    kernels = buildLoweredKernels(
        [](builder::ModuleBuilder &mb) { buildMmaGemmKernels(mb); });
    ASSERT_EQ(kernels->error, "");
  }
  static void TearDownTestSuite() { kernels.reset(); }
  inline static std::unique_ptr<LoweredKernels> kernels;
};

TEST_P(MmaGemmKernelsTest, MatchesF64WithoutBankConflicts) {
  const auto [config, shape] = GetParam();
  const auto [m, n, k, beta] = shape;
  const Elem in = toElem(config.in), out = toElem(config.out);
  // Stored rows: A's are K long (M for a column-major A), B's N long (K).
  const uint32_t aRows = config.aColMajor ? k : m,
                 aLine = config.aColMajor ? m : k,
                 bRows = config.bColMajor ? n : k,
                 bLine = config.bColMajor ? k : n;
  // Aligned: leading dimensions of 16-byte multiples; else odd ones.
  auto ld = [&](uint32_t line) {
    return config.aligned ? (line + 7) / 8 * 8 + 8 : line + 3;
  };
  const uint32_t lda = ld(aLine), ldb = ld(bLine), ldc = n + 3;
  std::mt19937 rng(m * 7 + n * 3 + k);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](size_t size, Elem e) {
    std::vector<double> v(size);
    for (double &x : v)
      x = roundTo(e, dist(rng));
    return v;
  };
  std::vector<double> a = random(size_t(aRows) * lda, in),
                      b = random(size_t(bRows) * ldb, in),
                      c0 = random(size_t(m) * ldc, out);
  auto aAt = [&](uint32_t i, uint32_t p) {
    return config.aColMajor ? a[size_t(p) * lda + i] : a[size_t(i) * lda + p];
  };
  auto bAt = [&](uint32_t p, uint32_t j) {
    return config.bColMajor ? b[size_t(j) * ldb + p] : b[size_t(p) * ldb + j];
  };
  Interpreter interp(*kernels->module);
  auto upload = [&](const std::vector<double> &v, Elem e) {
    std::vector<unsigned char> bytes = encode(e, v);
    uint64_t at = interp.allocGlobal(std::max<size_t>(bytes.size(), 16));
    EXPECT_TRUE(interp.write(at, bytes));
    return at;
  };
  uint64_t da = upload(a, in), db = upload(b, in), dc = upload(c0, out);
  const float alpha = -1.25f;
  const std::string name = mmaGemmName(config);
  interp::Profile profile;
  interp::LaunchOptions options;
  options.profile = &profile;
  auto r = interp.launch(
      name,
      {(n + kMmaGemmBlockN - 1) / kMmaGemmBlockN,
       (m + kMmaGemmBlockM - 1) / kMmaGemmBlockM},
      {kMmaGemmThreads},
      {da, db, dc, m, n, k, lda, ldb, ldc, Interpreter::argF32(alpha),
       Interpreter::argF32(beta)},
      options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<unsigned char> bytes(c0.size() * elemBytes(out));
  ASSERT_TRUE(interp.read(dc, bytes));
  std::vector<double> c = decode(out, bytes);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < ldc; ++j) {
      const size_t at = size_t(i) * ldc + j;
      if (j >= n) {
        ASSERT_EQ(c[at], c0[at]) << "padding written at " << i << ", " << j;
        continue;
      }
      double sum = 0, mag = 0;
      for (uint32_t p = 0; p < k; ++p) {
        double x = aAt(i, p) * bAt(p, j);
        sum += x;
        mag += std::fabs(x);
      }
      double want = alpha * sum + (beta != 0 ? beta * c0[at] : 0.0);
      // f32 accumulation of exact products, then one rounding to C's type.
      ASSERT_NEAR(c[at], want,
                  1e-5 * (mag + 1) + tolerance(out) * std::fabs(want))
          << name << " C(" << i << ", " << j << ")";
    }
  const interp::KernelProfile *kp = profile.find(name);
  ASSERT_NE(kp, nullptr);
  // ldmatrix reads never conflict; with aligned rows neither do the
  // 16-byte cp.async writes, and every copy is one (unaligned rows take the
  // copies' element-wise path, whose scalar stores may conflict).
  ASSERT_TRUE(kp->shared.count("ldmatrix"));
  EXPECT_EQ(kp->shared.at("ldmatrix").bankConflicts(), 0u);
  if (config.aligned) {
    for (const auto &[kind, stats] : kp->shared)
      EXPECT_EQ(stats.bankConflicts(), 0u) << kind;
    for (const auto &[kind, count] : kp->mix)
      EXPECT_TRUE(kind.rfind("cp.async", 0) != 0 || kind == "cp.async.16B" ||
                  kind == "cp.async.commit" || kind == "cp.async.wait")
          << kind << ": " << count;
    EXPECT_GT(kp->mix.at("cp.async.16B"), 0u);
  }
}

std::vector<std::tuple<MmaGemmConfig, Shape>> cases() {
  std::vector<std::tuple<MmaGemmConfig, Shape>> out;
  for (const MmaGemmConfig &c : getMmaGemmConfigs()) {
    // Partial tiles in M, N and K (one block row, two block columns), beta
    // reading C.
    out.push_back({c, {17, 136, 40, 0.5f}});
    if (c.in == GemmElem::F16 && c.out == GemmElem::F32) {
      out.push_back({c, {130, 70, 96, 0.0f}});
      out.push_back({c, {1, 1, 16, -2.0f}});
    }
  }
  // A full 256 x 256 x 256 (2 x 2 blocks, eight K steps through the
  // four-stage pipeline) in bf16 with both operands column-major.
  out.push_back({{GemmElem::BF16, GemmElem::BF16, true, true, true},
                 {256, 256, 256, 1.0f}});
  return out;
}

std::string caseName(
    const ::testing::TestParamInfo<std::tuple<MmaGemmConfig, Shape>> &info) {
  const auto &[c, s] = info.param;
  return mmaGemmName(c) + "_" + std::to_string(s.m) + "x" +
         std::to_string(s.n) + "x" + std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(Configs, MmaGemmKernelsTest,
                         ::testing::ValuesIn(cases()), caseName);

} // namespace

//===- MmaGemmKernelsTest.cpp - the mma.sync GEMM in the interpreter ------===//
//
// Every embedded mma_gemm configuration (f16 and bf16 in; f32 or 16-bit
// out; row- or column-major A and B; aligned rows or not; built for 2 or 3
// blocks an SM; K-major tf32, and s8 into s32, f32, f16 or bf16) against
// an f64 reference (exact for s32 sums) at ragged shapes (partial tiles in
// M, N and K, padded leading dimensions, beta reading C, K not a multiple
// of 8), with the fused epilogue (bias along C's columns or rows, each
// activation), and the profile: no shared-memory bank conflicts (swizzled
// tiles: 16-byte cp.async writes and ldmatrix reads; the padded staging of
// the epilogue), only 16-byte cp.async copies where rows are aligned, and
// 32 mma.sync per warp per 32 bytes of K.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "KernelTestSupport.h"
#include "Tf32Reference.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

/// Bias along C's columns or rows (the epilogue argument's bits).
enum class Bias { None, Columns, Rows };

struct Shape {
  uint32_t m, n, k;
  float beta;
  ops::Activation act = ops::Activation::None;
  Bias bias = Bias::None;
  /// Lines of A and B padded to odd lengths where unaligned variants run:
  /// else aligned lda with an odd ldb (the checked copies' aligned branch).
  bool bothOdd = true;
};

Elem toElem(GemmElem e) {
  return e == GemmElem::F32    ? Elem::F32
         : e == GemmElem::F16  ? Elem::F16
         : e == GemmElem::S8   ? Elem::S8
         : e == GemmElem::S32  ? Elem::S32
                               : Elem::BF16;
}

/// A value of `e` from u in [-1, 1): s8 over [-128, 127], s32 over
/// [-127, 127], f32
/// inputs rounded to tf32 (the tensor cores' precision: products of them
/// are exact in f32, so the reference does not depend on how the kernel
/// rounds).
double sample(Elem e, double u, bool tf32 = false) {
  if (e == Elem::S8 || e == Elem::S32)
    return roundTo(e, (e == Elem::S8 ? 128.5 : 127) * u);
  return tf32 ? roundToTf32(float(u)) : roundTo(e, u);
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
  const uint32_t m = shape.m, n = shape.n, k = shape.k;
  const Elem in = toElem(config.in), out = toElem(config.out);
  // An s32 C takes the exact sums: alpha 1, beta 0 or 1, no epilogue.
  const bool sums = out == Elem::S32;
  const float beta = sums && shape.beta != 0 ? 1.0f : shape.beta;
  ASSERT_TRUE(!sums || (shape.act == ops::Activation::None &&
                        shape.bias == Bias::None));
  // Stored rows: A's are K long (M for a column-major A), B's N long (K).
  const uint32_t aRows = config.aColMajor ? k : m,
                 aLine = config.aColMajor ? m : k,
                 bRows = config.bColMajor ? n : k,
                 bLine = config.bColMajor ? k : n;
  // Aligned: leading dimensions of 16-byte multiples (and one more 16
  // bytes of padding); else odd ones.
  const uint32_t perLine = 16 / elemBytes(in);
  auto ld = [&](uint32_t line, bool odd) {
    return config.aligned || !odd
               ? (line + perLine - 1) / perLine * perLine + perLine
               : line + 3;
  };
  const uint32_t lda = ld(aLine, shape.bothOdd), ldb = ld(bLine, true),
                 ldc = n + 3;
  std::mt19937 rng(m * 7 + n * 3 + k);
  std::uniform_real_distribution<double> dist(-1, 1);
  const bool tf32 = config.in == GemmElem::F32;
  auto random = [&](size_t size, Elem e, bool asTf32) {
    std::vector<double> v(size);
    for (double &x : v)
      x = sample(e, dist(rng), asTf32);
    return v;
  };
  std::vector<double> a = random(size_t(aRows) * lda, in, tf32),
                      b = random(size_t(bRows) * ldb, in, tf32),
                      c0 = random(size_t(m) * ldc, out, false);
  auto aAt = [&](uint32_t i, uint32_t p) {
    return config.aColMajor ? a[size_t(p) * lda + i] : a[size_t(i) * lda + p];
  };
  auto bAt = [&](uint32_t p, uint32_t j) {
    return config.bColMajor ? b[size_t(j) * ldb + p] : b[size_t(p) * ldb + j];
  };
  Interpreter interp(*kernels->module);
  auto upload = [&](const std::vector<double> &v, Elem e) {
    return uploadAs(interp, v, e);
  };
  std::vector<double> bias =
      random(shape.bias == Bias::Rows ? m : n, out, false);
  uint64_t da = upload(a, in), db = upload(b, in), dc = upload(c0, out),
           dbias = upload(bias, out);
  const uint32_t epilogue =
      uint32_t(shape.act) |
      (shape.bias == Bias::Columns ? uint32_t(kGemmBiasColumns)
       : shape.bias == Bias::Rows  ? uint32_t(kGemmBiasRows)
                                   : 0u);
  // s8 sums dequantized by a scale that keeps them in f16's range.
  const float alpha = sums ? 1.0f : in == Elem::S8 ? -1.25f / 512 : -1.25f;
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
       Interpreter::argF32(beta), dbias, epilogue, k, 0},
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
      double pre = alpha * sum + (beta != 0 ? beta * c0[at] : 0.0) +
                   (shape.bias == Bias::Columns ? bias[j]
                    : shape.bias == Bias::Rows  ? bias[i]
                                                : 0.0);
      double want = referenceActivation(shape.act, pre);
      if (sums) {
        ASSERT_EQ(c[at], want) << name << " C(" << i << ", " << j << ")";
        continue;
      }
      // f32 accumulation of exact products (s32 sums converted exactly),
      // then one rounding to C's type.
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
    ASSERT_TRUE(kp->mix.count("cp.async.16B"));
    EXPECT_GT(kp->mix.at("cp.async.16B"), 0u);
  }
  // 32 mma.sync per warp per 32 bytes of K: the warp's 4 x 8 atoms, every
  // K step of every block (past K the predicated-off steps are not run).
  const uint64_t blocks = uint64_t((n + kMmaGemmBlockN - 1) / kMmaGemmBlockN) *
                          ((m + kMmaGemmBlockM - 1) / kMmaGemmBlockM);
  const uint32_t blockK = mmaGemmBlockK(config.in);
  const uint64_t steps = (k + blockK - 1) / blockK;
  uint64_t mmas = 0;
  for (const auto &[kind, count] : kp->mix)
    if (kind.rfind("mma", 0) == 0)
      mmas += count;
  EXPECT_EQ(mmas, blocks * steps * 4 * 64) << "mma.sync per warp-step";
  // One barrier a K step (it publishes the step's tiles and fences the
  // refill of the previous step's buffers, whose copies follow it; a
  // prefetching pipeline also runs the barrier of the step past the last
  // one, ahead with its reads), then two per staged pass of the epilogue.
  ASSERT_TRUE(kp->mix.count("bar"));
  const uint64_t loopBarriers = steps + (mmaGemmPrefetches(config) ? 1 : 0);
  EXPECT_EQ(kp->mix.at("bar"),
            blocks * 4 *
                (loopBarriers + 2 * (kMmaGemmBlockM / kMmaGemmStageRows)))
      << "barriers per warp";
}

std::vector<std::tuple<MmaGemmConfig, Shape>> cases() {
  std::vector<std::tuple<MmaGemmConfig, Shape>> out;
  for (const MmaGemmConfig &c : getMmaGemmConfigs()) {
    // Partial tiles in M, N and K (one block row, two block columns), beta
    // reading C.
    out.push_back({c, {17, 136, 40, 0.5f}});
    // One element; one whole tile of each; 2 x 1 blocks of partial tiles
    // (issue 10's shape list, for every dtype, layout and variant).
    out.push_back({c, {1, 1, 16, -2.0f}});
    out.push_back({c, {64, 64, 64, 0.0f}});
    out.push_back({c, {130, 70, 96, 0.0f}});
    if ((c.in == GemmElem::F16 || c.in == GemmElem::S8) &&
        c.out == GemmElem::F32) {
      // K not a multiple of 8: the last 16-byte chunk of a line is partial.
      out.push_back({c, {33, 40, 36, 0.0f, ops::Activation::Relu,
                         Bias::Columns}});
    }
  }
  // The fused epilogue: each activation, bias along columns and rows (a
  // column-major C computed as C^T), 16-bit results.
  const MmaGemmConfig f16Out{GemmElem::F16, GemmElem::F16, false, true, true};
  const MmaGemmConfig bf16F32{GemmElem::BF16, GemmElem::F32, true, false,
                              true};
  out.push_back({f16Out, {40, 136, 72, 0.5f, ops::Activation::Silu,
                          Bias::Columns}});
  out.push_back({f16Out, {129, 24, 40, 0.0f, ops::Activation::GeluTanh,
                          Bias::Rows}});
  out.push_back({bf16F32, {70, 130, 48, -1.0f, ops::Activation::GeluErf,
                           Bias::Rows}});
  out.push_back({bf16F32, {17, 9, 24, 0.0f, ops::Activation::None,
                           Bias::Columns}});
  // Dequantized s8 (bias, activation) and tf32 with both; s8 into s32 over
  // 2 x 2 blocks and a long K (sums past 2^20), accumulating into C.
  const MmaGemmConfig s8F16{GemmElem::S8, GemmElem::F16, false, true, true};
  const MmaGemmConfig tf32{GemmElem::F32, GemmElem::F32, false, true, true};
  out.push_back({s8F16, {70, 130, 96, 0.5f, ops::Activation::GeluTanh,
                         Bias::Columns}});
  out.push_back({tf32, {129, 24, 40, -1.0f, ops::Activation::Silu,
                        Bias::Rows}});
  // K not a multiple of 4: tf32's last 16-byte chunk of a line is partial.
  out.push_back({tf32, {33, 40, 38, 0.0f}});
  out.push_back({{GemmElem::S8, GemmElem::S32, false, true, true},
                 {256, 256, 256, 1.0f}});
  out.push_back({{GemmElem::S8, GemmElem::S32, false, true, true},
                 {40, 24, 1024, 1.0f}});
  // Unaligned variants with aligned A lines and odd B lines: the checked
  // copies take cp.async for A and the element-wise path for B.
  out.push_back({{GemmElem::F16, GemmElem::F32, false, false, false},
                 {65, 33, 41, 1.0f, ops::Activation::Relu, Bias::None,
                  /*bothOdd=*/false}});
  // A full 256 x 256 x 256 (2 x 2 blocks, eight K steps through the
  // four-stage pipeline) in bf16 with both operands column-major.
  out.push_back({{GemmElem::BF16, GemmElem::BF16, true, true, true},
                 {256, 256, 256, 1.0f}});
  // A long K (32 steps through the pipeline) in one block.
  out.push_back({{GemmElem::F16, GemmElem::F32, false, false, true},
                 {128, 128, 1024, 0.0f}});
  // The same through the three-stage variant (three blocks an SM), and
  // 2 x 2 blocks of it with both operands column-major.
  out.push_back({{GemmElem::F16, GemmElem::F32, false, false, true, 3},
                 {128, 128, 1024, 0.0f}});
  out.push_back({{GemmElem::BF16, GemmElem::BF16, true, true, true, 3},
                 {256, 256, 256, 1.0f}});
  return out;
}

std::string caseName(
    const ::testing::TestParamInfo<std::tuple<MmaGemmConfig, Shape>> &info) {
  const auto &[c, s] = info.param;
  return mmaGemmName(c) + "_" + std::to_string(s.m) + "x" +
         std::to_string(s.n) + "x" + std::to_string(s.k) + "_act" +
         std::to_string(unsigned(s.act)) + "_bias" +
         std::to_string(unsigned(s.bias)) + (s.bothOdd ? "" : "_alignedA");
}

INSTANTIATE_TEST_SUITE_P(Configs, MmaGemmKernelsTest,
                         ::testing::ValuesIn(cases()), caseName);

/// K split over grid z (k_per_split 64: 2 k tiles; K 168 ends in a partial
/// tile, so the last of the 3 splits is short): block z writes exactly the
/// sum over its K range into its f32 partial C (c + z c_split), for row-
/// and column-major operands; no split reads or writes outside it.
class MmaGemmSplitTest : public MmaGemmKernelsTest {};

TEST_P(MmaGemmSplitTest, EachSplitSumsItsKRange) {
  const MmaGemmConfig config = std::get<0>(GetParam());
  // Rows of 136 (n 134: the last two columns stay the sentinel).
  const uint32_t m = 70, n = 134, k = 168, kps = 64, splits = 3, ldw = 136;
  const uint32_t aRows = config.aColMajor ? k : m,
                 aLine = config.aColMajor ? m : k,
                 bRows = config.bColMajor ? n : k,
                 bLine = config.bColMajor ? k : n;
  const Elem in = toElem(config.in);
  const uint32_t perLine = 16 / elemBytes(in);
  const uint32_t lda = (aLine + perLine - 1) / perLine * perLine,
                 ldb = (bLine + perLine - 1) / perLine * perLine;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](size_t size) {
    std::vector<double> v(size);
    for (double &x : v)
      x = sample(in, dist(rng), config.in == GemmElem::F32);
    return v;
  };
  std::vector<double> a = random(size_t(aRows) * lda),
                      b = random(size_t(bRows) * ldb);
  Interpreter interp(*kernels->module);
  // The partial Cs, one row of slack after each, as a sentinel.
  const uint64_t stride = uint64_t(m + 1) * ldw;
  std::vector<double> init(splits * stride, 7.0);
  uint64_t da = uploadAs(interp, a, in), db = uploadAs(interp, b, in),
           dc = uploadAs(interp, init, Elem::F32);
  auto r = interp.launch(
      mmaGemmName(config),
      {(n + kMmaGemmBlockN - 1) / kMmaGemmBlockN,
       (m + kMmaGemmBlockM - 1) / kMmaGemmBlockM, splits},
      {kMmaGemmThreads},
      {da, db, dc, m, n, k, lda, ldb, ldw, Interpreter::argF32(1.0f),
       Interpreter::argF32(0.0f), dc, 0u, kps, stride});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<unsigned char> bytes(init.size() * 4);
  ASSERT_TRUE(interp.read(dc, bytes));
  std::vector<double> c = decode(Elem::F32, bytes);
  auto aAt = [&](uint32_t i, uint32_t p) {
    return config.aColMajor ? a[size_t(p) * lda + i] : a[size_t(i) * lda + p];
  };
  auto bAt = [&](uint32_t p, uint32_t j) {
    return config.bColMajor ? b[size_t(j) * ldb + p] : b[size_t(p) * ldb + j];
  };
  for (uint32_t s = 0; s < splits; ++s)
    for (uint32_t i = 0; i <= m; ++i)
      for (uint32_t j = 0; j < ldw; ++j) {
        const double got = c[s * stride + size_t(i) * ldw + j];
        if (i == m || j >= n) {
          ASSERT_EQ(got, 7.0) << "split " << s << " wrote (" << i << ", "
                              << j << ")";
          continue;
        }
        double want = 0;
        for (uint32_t p = s * kps; p < std::min(k, (s + 1) * kps); ++p)
          want += aAt(i, p) * bAt(p, j);
        ASSERT_NEAR(got, want, 1e-5 * (std::fabs(want) + 1) *
                                   (in == Elem::S8 ? 0 : 1))
            << "split " << s << " C(" << i << ", " << j << ")";
      }
}

INSTANTIATE_TEST_SUITE_P(
    Split, MmaGemmSplitTest,
    ::testing::Values(
        std::make_tuple(MmaGemmConfig{GemmElem::F16, GemmElem::F32, false,
                                      false, true},
                        Shape{}),
        std::make_tuple(MmaGemmConfig{GemmElem::BF16, GemmElem::F32, true,
                                      true, true},
                        Shape{}),
        std::make_tuple(MmaGemmConfig{GemmElem::F32, GemmElem::F32, false,
                                      true, true},
                        Shape{}),
        std::make_tuple(MmaGemmConfig{GemmElem::S8, GemmElem::F32, false,
                                      true, true},
                        Shape{})),
    [](const ::testing::TestParamInfo<std::tuple<MmaGemmConfig, Shape>>
           &info) { return mmaGemmName(std::get<0>(info.param)); });

} // namespace

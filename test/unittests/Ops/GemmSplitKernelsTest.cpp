//===- GemmSplitKernelsTest.cpp - the split-K GEMM's reduction ------------===//
//
// gemm_split_reduce_<f32|f16|bf16> in the interpreter: three splits of
// partial sums (rows padded to a multiple of 4) added in split order and
// finished with the GEMM's epilogue — alpha, beta reading C, a bias along
// C's columns or rows, each activation — into a C with a ragged leading
// dimension, against an f64 reference; nothing outside C's m x n written;
// one 16-byte load per split and thread, every global access whole
// sectors where the rows allow.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

enum class Bias { None, Columns, Rows };

class GemmSplitKernelsTest
    : public ::testing::TestWithParam<
          std::tuple<Elem, ops::Activation, Bias, bool>> {
public:
  static void SetUpTestSuite() {
    kernels = buildLoweredKernels(
        [](builder::ModuleBuilder &mb) { buildGemmSplitKernels(mb); });
    ASSERT_EQ(kernels->error, "");
  }
  static void TearDownTestSuite() { kernels.reset(); }
  inline static std::unique_ptr<LoweredKernels> kernels;
};

TEST_P(GemmSplitKernelsTest, AddsTheSplitsThenTheEpilogue) {
  const auto [out, act, bias, vectorC] = GetParam();
  // 70 x 601 (a ragged last chunk of 4 and block of 512 columns), ldw 604,
  // ldc 608 (vector accesses of C) or 605; 3 splits 2 rows of slack apart.
  const uint32_t m = 70, n = 601, ldw = 604, ldc = vectorC ? 608 : 605,
                 splits = 3;
  const uint64_t stride = uint64_t(m + 2) * ldw;
  std::mt19937 rng(uint32_t(out) * 31 + uint32_t(act) * 7 + uint32_t(bias));
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<double> ws(splits * stride), c0(size_t(m) * ldc),
      b(bias == Bias::Rows ? m : n);
  for (double &x : ws)
    x = double(float(dist(rng)));
  for (double &x : c0)
    x = roundTo(out, dist(rng));
  for (double &x : b)
    x = roundTo(out, dist(rng));
  Interpreter interp(*kernels->module);
  auto upload = [&](const std::vector<double> &v, Elem e) {
    return uploadAs(interp, v, e);
  };
  uint64_t dws = upload(ws, Elem::F32), dc = upload(c0, out),
           dbias = upload(b, out);
  const float alpha = 0.75f, beta = act == ops::Activation::None ? 0.0f : -0.5f;
  const uint32_t epilogue = uint32_t(act) |
                            (bias == Bias::Columns ? uint32_t(kGemmBiasColumns)
                             : bias == Bias::Rows  ? uint32_t(kGemmBiasRows)
                                                   : 0u) |
                            (vectorC ? uint32_t(kGemmVectorC) : 0u);
  const std::string name = std::string("gemm_split_reduce_") + elemName(out);
  interp::Profile profile;
  interp::LaunchOptions options;
  options.profile = &profile;
  const uint32_t perBlock = 4 * kGemmSplitReduceThreads;
  // Fewer grid rows than C's: each block walks several.
  auto r = interp.launch(
      name, {(n + perBlock - 1) / perBlock, 16}, {kGemmSplitReduceThreads},
      {dws, splits, stride, ldw, dc, m, n, ldc, Interpreter::argF32(alpha),
       Interpreter::argF32(beta), dbias, epilogue},
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
      double sum = 0;
      for (uint32_t s = 0; s < splits; ++s)
        sum += ws[s * stride + size_t(i) * ldw + j];
      double pre = alpha * sum + beta * c0[at] +
                   (bias == Bias::Columns ? b[j]
                    : bias == Bias::Rows  ? b[i]
                                          : 0.0);
      double want = referenceActivation(act, pre);
      ASSERT_NEAR(c[at], want, 1e-5 + tolerance(out) * std::fabs(want))
          << name << " C(" << i << ", " << j << ")";
    }
  const interp::KernelProfile *kp = profile.find(name);
  ASSERT_NE(kp, nullptr);
  // Warp instructions: a 16-byte load per split and row for each warp's
  // chunks (151 chunks: 5 warps a row), plus, for an f32 C with vector
  // accesses, C's and the column bias's (predicated: issued either way).
  const uint64_t warps = (((n + 3) / 4) + 31) / 32;
  const uint64_t wide = kp->mix.count("ld.global.16B")
                            ? kp->mix.at("ld.global.16B") : 0;
  EXPECT_EQ(wide, uint64_t(m) * warps *
                      (splits + (vectorC && out == Elem::F32 ? 2 : 0)));
  // With vector accesses of C every global access takes whole sectors
  // (but the ragged last chunk's).
  if (vectorC)
    for (const auto &[kind, g] : kp->global)
      EXPECT_LE(double(g.sectors), 1.03 * double(g.idealSectors)) << kind;
}

INSTANTIATE_TEST_SUITE_P(
    Reduce, GemmSplitKernelsTest,
    ::testing::Values(
        std::make_tuple(Elem::F32, ops::Activation::None, Bias::None, false),
        std::make_tuple(Elem::F32, ops::Activation::Relu, Bias::Rows, true),
        std::make_tuple(Elem::F32, ops::Activation::Silu, Bias::Columns,
                        true),
        std::make_tuple(Elem::F16, ops::Activation::Silu, Bias::Columns,
                        false),
        std::make_tuple(Elem::F16, ops::Activation::None, Bias::Columns,
                        true),
        std::make_tuple(Elem::BF16, ops::Activation::GeluTanh, Bias::Rows,
                        true),
        std::make_tuple(Elem::BF16, ops::Activation::GeluErf, Bias::None,
                        false)),
    [](const ::testing::TestParamInfo<
        std::tuple<Elem, ops::Activation, Bias, bool>> &info) {
      Bias b = std::get<2>(info.param);
      return std::string(elemName(std::get<0>(info.param))) + "_act" +
             std::to_string(unsigned(std::get<1>(info.param))) +
             (b == Bias::Rows      ? "_rowbias"
              : b == Bias::Columns ? "_colbias"
                                   : "") +
             (std::get<3>(info.param) ? "_vector" : "");
    });

} // namespace

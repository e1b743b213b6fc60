//===- GemmTest.cpp - kaio::ops::gemm: validation, launch, results --------===//
//
// Validation needs no device; the launch is checked against the fake CUDA
// driver (what is launched, and that bad input launches nothing); on a GPU
// the results are compared with an f64 CPU reference at ragged shapes.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include "Kaio/Ops/Library.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;

namespace {

Matrix fakeMatrix(DType type, std::int64_t rows, std::int64_t cols,
                  CUdeviceptr at = 0x10000) {
  return kaio::test::fakeMatrix(type, rows, cols, at);
}

std::string errorOf(const Matrix &a, const Matrix &b, const Matrix &c,
                    GemmOptions options = {}) {
  rt::Error e = validateGemm(a, b, c, options);
  return e ? e.message() : std::string();
}

TEST(GemmValidation, AcceptsTheSupportedCase) {
  EXPECT_EQ(errorOf(fakeMatrix(DType::F16, 130, 96),
                    fakeMatrix(DType::F16, 96, 70),
                    fakeMatrix(DType::F32, 130, 70)),
            "");
  // Empty problems are fine (nothing to do).
  EXPECT_EQ(errorOf(fakeMatrix(DType::F16, 0, 16, 0),
                    fakeMatrix(DType::F16, 16, 8),
                    fakeMatrix(DType::F32, 0, 8, 0)),
            "");
}

TEST(GemmValidation, NamesTheArgument) {
  Matrix a = fakeMatrix(DType::F16, 64, 32), b = fakeMatrix(DType::F16, 32, 16),
         c = fakeMatrix(DType::F32, 64, 16);
  EXPECT_EQ(errorOf(a, fakeMatrix(DType::F16, 48, 16), c),
            "gemm: a, b: inner dimensions differ: a is 64x32, b is 48x16");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::F32, 64, 17)),
            "gemm: c: is 64x17 but a x b is 64x16");
  Matrix nullB = b;
  nullB.data = 0;
  EXPECT_EQ(errorOf(a, nullB, c), "gemm: b: null device pointer");
  Matrix shortLd = a;
  shortLd.ld = 31;
  EXPECT_EQ(errorOf(shortLd, b, c),
            "gemm: a: leading dimension 31 is less than the 32 columns of a "
            "64x32 matrix");
  Matrix negative = c;
  negative.rows = -1;
  EXPECT_EQ(errorOf(a, b, negative), "gemm: c: negative shape -1x16");
  Matrix small = c;
  small.capacityBytes = 64 * 16 * 4 - 4;
  EXPECT_EQ(errorOf(a, b, small),
            "gemm: c: a 64x16 f32 matrix with leading dimension 16 needs "
            "4096 bytes, but the buffer has 4092");
  Matrix odd = a;
  odd.data = 0x10001;
  EXPECT_EQ(errorOf(odd, b, c),
            "gemm: a: device pointer is not aligned to its 2-byte elements");
}

TEST(GemmValidation, SaysWhatIsNotSupportedYet) {
  Matrix a = fakeMatrix(DType::F16, 64, 32), b = fakeMatrix(DType::F16, 32, 16),
         c = fakeMatrix(DType::F32, 64, 16);
  rt::Error e = validateGemm(fakeMatrix(DType::F32, 64, 32), b, c);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(), "gemm: a: dtype f32 is not supported yet (A and B "
                         "f16 or bf16, C f32 or A's type)");
  // C in A's 16-bit type passes the check (the sm_90a kernel writes it);
  // another 16-bit type does not.
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::F16, 64, 16)), "");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::BF16, 64, 16)),
            "gemm: c: dtype bf16 is not supported yet (A and B f16 or bf16, "
            "C f32 or A's type)");
  EXPECT_EQ(errorOf(fakeMatrix(DType::BF16, 64, 32), b, c),
            "gemm: b: dtype f16 differs from a's bf16");
  Matrix colMajor = b;
  colMajor.layout = Layout::ColMajor;
  colMajor.ld = 32;
  EXPECT_EQ(errorOf(a, colMajor, c),
            "gemm: b: column-major matrices are not supported yet (row-major "
            "only)");
  Matrix padded = c;
  padded.ld = 24;
  EXPECT_EQ(errorOf(a, b, padded),
            "gemm: c: leading dimension 24 != 16 columns: padded matrices are "
            "not supported yet");
}

TEST(GemmValidation, AlphaAndBetaAreAnyFiniteNumbers) {
  Matrix a = fakeMatrix(DType::F16, 64, 32), b = fakeMatrix(DType::F16, 32, 16),
         c = fakeMatrix(DType::F32, 64, 16);
  GemmOptions scaled;
  scaled.alpha = -2.5f;
  scaled.beta = 0.75f;
  EXPECT_EQ(errorOf(a, b, c, scaled), "");
  GemmOptions nanAlpha;
  nanAlpha.alpha = std::nanf("");
  rt::Error e = validateGemm(a, b, c, nanAlpha);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::InvalidValue);
  EXPECT_EQ(e.message(), "gemm: alpha: must be finite, got nan");
  GemmOptions infBeta;
  infBeta.beta = INFINITY;
  EXPECT_EQ(errorOf(a, b, c, infBeta), "gemm: beta: must be finite, got inf");
}

/// The library on the fake driver (what is launched) and on a GPU (what it
/// computes).
class GemmTest : public BackendTest {};

TEST_P(GemmTest, LaunchesOneBlockPerOutputTileAndNothingOnBadInput) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  const std::int64_t m = 300, n = 130, k = 64;
  auto a = rt::DeviceBuffer<rt::Half>::allocate(*device, m * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(*device, k * n);
  auto c = rt::DeviceBuffer<float>::allocate(*device, m * n);
  ASSERT_TRUE(a && b && c);
  FakeCudaCounters *counters = getFakeCounters();
  int launches = counters->launches;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, n),
                         Matrix::rowMajor(c->view(), m, n)));
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_EQ(counters->lastGrid[0], 2u); // ceil(130 / 128)
  EXPECT_EQ(counters->lastGrid[1], 3u); // ceil(300 / 128)
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // N = 130: B's rows are not 16-byte aligned, the general kernel.
  EXPECT_STREQ(counters->lastKernel, "tensor_core_matmul_tiled");
  // N = 128, K = 64: aligned rows, the variant without alignment tests.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, 128),
                         Matrix::rowMajor(c->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "tensor_core_matmul_tiled_aligned");
  launches += 1;
  // A buffer too small for the shape: a typed error, no launch.
  rt::Error e = lib->gemm(Matrix::rowMajor(a->view(), m, k),
                          Matrix::rowMajor(b->view(), k, n),
                          Matrix::rowMajor(c->view(), m + 1, n));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::InvalidValue);
  EXPECT_EQ(counters->launches, launches + 1);
  // A 16-bit C needs the sm_90a kernel: Unsupported here (an 8.0 GPU),
  // naming c; nothing launched.
  auto c16 = rt::DeviceBuffer<rt::Half>::allocate(*device, m * 128);
  ASSERT_TRUE(c16);
  rt::Error half = lib->gemm(Matrix::rowMajor(a->view(), m, k),
                             Matrix::rowMajor(b->view(), k, 128),
                             Matrix::rowMajor(c16->view(), m, 128));
  ASSERT_TRUE(half);
  EXPECT_EQ(half.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(kaio::test::messageOf(half).find("gemm: c: a 16-bit C runs on the sm_90 kernel only"),
            std::string::npos)
      << kaio::test::messageOf(half);
  EXPECT_EQ(counters->launches, launches + 1);
}

TEST_P(GemmTest, UsesTheTmaWgmmaKernelOnA90Gpu) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  // The fake's device 1 is a 9.0 GPU with 132 SMs.
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  rt::Device *h100 = &fake->device;
  Library *lib = &fake->lib;
  const std::int64_t m = 4096, n = 4096, k = 64;
  auto a = rt::DeviceBuffer<rt::Half>::allocate(*h100, m * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(*h100, k * n);
  auto c = rt::DeviceBuffer<float>::allocate(*h100, m * n);
  ASSERT_TRUE(a && b && c);
  FakeCudaCounters *counters = getFakeCounters();
  int maps = counters->tensorMapsEncoded;
  // beta 0, wide C: 128 x 256 tiles, one persistent block per SM.
  rt::Error e = lib->gemm(Matrix::rowMajor(a->view(), m, k),
                          Matrix::rowMajor(b->view(), k, n),
                          Matrix::rowMajor(c->view(), m, n));
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4");
  EXPECT_EQ(counters->lastGrid[0], 132u);
  EXPECT_EQ(counters->lastGrid[1], 1u);
  EXPECT_EQ(counters->lastBlock[0], 384u);
  EXPECT_EQ(counters->lastSharedBytes, 196608u);
  EXPECT_EQ(counters->tensorMapsEncoded, maps + 2);
  // beta 0 but 128 x 128 tiles fit in one wave (64 <= 132 SMs): the
  // narrower tile halves each block's work.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), 1024, k),
                         Matrix::rowMajor(b->view(), k, 1024),
                         Matrix::rowMajor(c->view(), 1024, 1024)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4");
  EXPECT_EQ(counters->lastGrid[0], 64u);
  // beta != 0 and a small C: 128 x 128 tiles, fewer tiles than SMs.
  GemmOptions blend;
  blend.beta = 0.5f;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), 300, k),
                         Matrix::rowMajor(b->view(), k, 256),
                         Matrix::rowMajor(c->view(), 300, 256), blend));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4");
  EXPECT_EQ(counters->lastGrid[0], 6u); // 3 x 2 tiles
  EXPECT_EQ(counters->lastSharedBytes, 131072u);
  // Rows that are not 16-byte multiples cannot be tensor-mapped: the
  // portable kernel.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), 300, k),
                         Matrix::rowMajor(b->view(), k, 130),
                         Matrix::rowMajor(c->view(), 300, 130)));
  EXPECT_STREQ(counters->lastKernel, "tensor_core_matmul_tiled");
  // C in A's 16-bit type: the kernel that rounds once in its epilogue.
  auto c16 = rt::DeviceBuffer<rt::Half>::allocate(*h100, m * n);
  ASSERT_TRUE(c16);
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, n),
                         Matrix::rowMajor(c16->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f16_128x256x64_s4");
  // bf16 runs on the sm_90 kernel (and only there).
  Matrix a16 = Matrix::rowMajor(a->view(), m, k),
         b16 = Matrix::rowMajor(b->view(), k, n);
  a16.dtype = b16.dtype = DType::BF16;
  ASSERT_FALSE(lib->gemm(a16, b16, Matrix::rowMajor(c->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_bf16_f32_128x256x64_s4");
  b16.cols = b16.ld = 130;
  rt::Error unaligned =
      lib->gemm(a16, b16, Matrix::rowMajor(c->view(), m, 130));
  ASSERT_TRUE(unaligned);
  EXPECT_EQ(unaligned.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(kaio::test::messageOf(unaligned).find("bf16 runs on the sm_90 kernel only"),
            std::string::npos);
}

struct GemmCase {
  int m, n, k;
  float alpha, beta;
};

/// Runs each case through Library::gemm with T (Half or BFloat16) inputs
/// drawn from [-1, 1] and C of type CT (float, or T: one rounding of the
/// f32 result) and compares C with an f64 reference.
template <class T, class CT = float>
void expectGemmMatchesReference(rt::Device &device, Library &lib,
                                std::initializer_list<GemmCase> cases) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto [m, n, k, alpha, beta] : cases) {
    std::vector<T> ha(std::size_t(m) * k), hb(std::size_t(k) * n);
    for (T &x : ha)
      x = kaio::test::roundTo16<T>(dist(rng));
    for (T &x : hb)
      x = kaio::test::roundTo16<T>(dist(rng));
    auto a = rt::DeviceBuffer<T>::fromHost(device, ha);
    auto b = rt::DeviceBuffer<T>::fromHost(device, hb);
    // C starts as NaN where beta is 0 (it must not be read) and random
    // otherwise.
    std::vector<float> c0(std::size_t(m) * n, std::nanf(""));
    if (beta != 0)
      for (float &x : c0)
        x = dist(rng);
    std::vector<CT> cInit(c0.size());
    for (std::size_t i = 0; i < c0.size(); ++i) {
      if constexpr (std::is_same_v<CT, float>) {
        cInit[i] = c0[i];
      } else {
        cInit[i] = kaio::test::roundTo16<CT>(c0[i]);
        c0[i] = rt::toFloat(cInit[i]); // the reference reads what C holds
      }
    }
    auto c = rt::DeviceBuffer<CT>::fromHost(device, cInit);
    ASSERT_TRUE(a && b && c);
    GemmOptions options;
    options.alpha = alpha;
    options.beta = beta;
    rt::Error e = lib.gemm(Matrix::rowMajor(a->view(), m, k),
                           Matrix::rowMajor(b->view(), k, n),
                           Matrix::rowMajor(c->view(), m, n), options);
    ASSERT_FALSE(e) << e.message();
    std::vector<CT> hc(std::size_t(m) * n);
    ASSERT_FALSE(c->copyToHost(hc.data(), hc.size()));
    // A 16-bit C adds one rounding: half an ulp of the value.
    const double rel = std::is_same_v<CT, float>         ? 1e-4
                       : std::is_same_v<CT, rt::BFloat16> ? 1.0 / 256
                                                         : 1.0 / 2048;
    std::vector<double> fa(ha.size()), fb(hb.size());
    for (std::size_t i = 0; i < ha.size(); ++i)
      fa[i] = rt::toFloat(ha[i]);
    for (std::size_t i = 0; i < hb.size(); ++i)
      fb[i] = rt::toFloat(hb[i]);
    std::vector<double> want(std::size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) {
        double x = fa[std::size_t(i) * k + p];
        for (int j = 0; j < n; ++j)
          want[std::size_t(i) * n + j] += x * fb[std::size_t(p) * n + j];
      }
    // Count every mismatch and show the first few: the pattern (a row, a
    // column, a tile edge) says more than the first bad element alone.
    std::size_t wrong = 0;
    std::string examples;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double w = alpha * want[std::size_t(i) * n + j];
        if (beta != 0)
          w += double(beta) * c0[std::size_t(i) * n + j];
        double got;
        if constexpr (std::is_same_v<CT, float>)
          got = hc[std::size_t(i) * n + j];
        else
          got = rt::toFloat(hc[std::size_t(i) * n + j]);
        if (std::fabs(got - w) <= 1e-4 + rel * std::fabs(w))
          continue;
        if (wrong++ < 8)
          examples += " (" + std::to_string(i) + ", " + std::to_string(j) +
                      "): " + std::to_string(got) + " vs " +
                      std::to_string(w) + ";";
      }
    ASSERT_EQ(wrong, 0u) << m << "x" << n << "x" << k << " alpha " << alpha
                         << " beta " << beta << ": " << wrong
                         << " elements differ, first" << examples;
  }
}

TEST_P(GemmTest, MatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  // Rows that are not 16-byte multiples: the portable kernel everywhere.
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{1, 1, 16, 1, 0}, {17, 33, 40, 1, 0}, {130, 70, 96, 1, 0},
       {257, 300, 512, 1, 0}, {130, 70, 96, -0.5f, 2.0f},
       {17, 33, 40, 1.5f, 1.0f}});
}

/// 16-byte rows: the TMA/wgmma kernel on a 9.0 GPU (128 x 256 tiles with
/// beta 0 and N >= 256, else 128 x 128; ragged edges the tensor maps fill
/// and clip; more tiles than SMs, so the persistent loop turns), the
/// aligned mma.sync kernel elsewhere.
TEST_P(GemmTest, AlignedShapesMatchAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{8, 8, 8, 1, 0}, {300, 264, 72, 1, 0}, {300, 264, 72, -0.5f, 2.0f},
       {129, 136, 520, 1, 0}, {2048, 2304, 64, 1, 0},
       {1100, 1040, 200, 0.5f, 1.0f}});
  if (device->properties().computeCapability() != 90)
    return;
  expectGemmMatchesReference<rt::BFloat16>(
      *device, *lib, {{300, 264, 72, 1, 0}, {1100, 1040, 200, 0.5f, 1.0f}});
  // C in A's 16-bit type (the sm_90a kernel only).
  expectGemmMatchesReference<rt::Half, rt::Half>(
      *device, *lib,
      {{300, 264, 72, 1, 0}, {129, 136, 520, -0.5f, 2.0f}, {2048, 2304, 64, 1, 0}});
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib, {{300, 264, 72, 1, 0}, {1100, 1040, 200, 0.5f, 1.0f}});
}

INSTANTIATE_TEST_SUITE_P(Backends, GemmTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

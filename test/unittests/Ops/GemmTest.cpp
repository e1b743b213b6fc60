//===- GemmTest.cpp - kaio::ops::gemm: validation, launch, results --------===//
//
// Validation needs no device; the launch is checked against the fake CUDA
// driver (what is launched, and that bad input launches nothing); on a GPU
// the results are compared with an f64 CPU reference at ragged shapes.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "DriverBackends.h"
#include "OpsTestSupport.h"
#include "Tf32Reference.h"

#include "Kaio/Runtime/Cache.h"

#include "Kaio/Ops/Library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
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
  rt::Error e = validateGemm(fakeMatrix(DType::S32, 64, 32), b, c);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(), "gemm: a: dtype s32 is not supported yet (A and B "
                         "f16, bf16, e4m3, e5m2, f32 or s8; C f32, a 16-bit "
                         "type or s32)");
  // C in A's 16-bit type passes the check (the sm_90a kernel writes it);
  // another 16-bit type does not.
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::F16, 64, 16)), "");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::BF16, 64, 16)),
            "gemm: c: dtype bf16 is not supported with f16 inputs (C f32, or "
            "A's type)");
  EXPECT_EQ(errorOf(fakeMatrix(DType::BF16, 64, 32), b, c),
            "gemm: b: dtype f16 differs from a's bf16");
  // Column-major and padded matrices pass the check (the sm_90a kernel
  // takes them; elsewhere gemm() says so: LaunchesOneBlockPerOutputTile...).
  Matrix colMajor = b;
  colMajor.layout = Layout::ColMajor;
  colMajor.ld = 32;
  EXPECT_EQ(errorOf(a, colMajor, c), "");
  colMajor.ld = 31;
  EXPECT_EQ(errorOf(a, colMajor, c),
            "gemm: b: leading dimension 31 is less than the 32 rows of a "
            "32x16 matrix");
  Matrix padded = c;
  padded.ld = 24;
  EXPECT_EQ(errorOf(a, b, padded), "");
}

TEST(GemmValidation, FP8TakesKMajorOperandsOfOneType) {
  Matrix a = fakeMatrix(DType::E4M3, 64, 32),
         b = fakeMatrix(DType::E4M3, 16, 32); // N x K, seen column-major
  b.layout = Layout::ColMajor;
  std::swap(b.rows, b.cols);
  for (DType out : {DType::F32, DType::F16, DType::BF16})
    EXPECT_EQ(errorOf(a, b, fakeMatrix(out, 64, 16)), "");
  Matrix c = fakeMatrix(DType::F32, 64, 16);
  Matrix rowB = fakeMatrix(DType::E4M3, 32, 16);
  rt::Error e = validateGemm(a, rowB, c);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(),
            "gemm: b: an e4m3 B must be column-major (K contiguous, e.g. the "
            "transpose of a row-major N x K weight): FP8 tensor cores read "
            "K-major operands only");
  Matrix colA = fakeMatrix(DType::E4M3, 32, 64);
  colA.layout = Layout::ColMajor;
  std::swap(colA.rows, colA.cols);
  EXPECT_EQ(errorOf(colA, b, c),
            "gemm: a: an e4m3 A must be row-major (K contiguous): FP8 tensor "
            "cores read K-major operands only");
  Matrix mixed = b;
  mixed.dtype = DType::E5M2;
  EXPECT_EQ(errorOf(a, mixed, c), "gemm: b: dtype e5m2 differs from a's e4m3");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::E4M3, 64, 16)),
            "gemm: c: dtype e4m3 is not supported with e4m3 inputs (C f32, or "
            "f16 or bf16)");
  // 16-bit inputs keep C f32 or their own type.
  EXPECT_EQ(errorOf(fakeMatrix(DType::F16, 64, 32), fakeMatrix(DType::F16, 32, 16),
                    fakeMatrix(DType::BF16, 64, 16)),
            "gemm: c: dtype bf16 is not supported with f16 inputs (C f32, or "
            "A's type)");
}

TEST(GemmValidation, F32TakesAnF32C) {
  // Any layout passes the check (the kernels decide: the full-precision
  // one reads row-major A and B, tf32 K-major ones: see
  // RunsF32InFullPrecisionOrAsTf32WhenAllowed).
  Matrix a = fakeMatrix(DType::F32, 64, 32), b = fakeMatrix(DType::F32, 32, 16);
  Matrix c = fakeMatrix(DType::F32, 64, 16);
  EXPECT_EQ(errorOf(a, b, c), "");
  Matrix colB = fakeMatrix(DType::F32, 16, 32);
  colB.layout = Layout::ColMajor;
  std::swap(colB.rows, colB.cols);
  EXPECT_EQ(errorOf(a, colB, c), "");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::BF16, 64, 16)),
            "gemm: c: dtype bf16 is not supported with f32 inputs (C f32)");
}

TEST(GemmValidation, S8TakesKMajorOperandsAndAnExactS32OrAScaledC) {
  Matrix a = fakeMatrix(DType::S8, 64, 32),
         b = fakeMatrix(DType::S8, 16, 32); // N x K, seen column-major
  b.layout = Layout::ColMajor;
  std::swap(b.rows, b.cols);
  Matrix c = fakeMatrix(DType::S32, 64, 16);
  for (DType out : {DType::S32, DType::F32, DType::F16, DType::BF16})
    EXPECT_EQ(errorOf(a, b, fakeMatrix(out, 64, 16)), "");
  EXPECT_EQ(errorOf(a, fakeMatrix(DType::S8, 32, 16), c),
            "gemm: b: an s8 B must be column-major (K contiguous, e.g. the "
            "transpose of a row-major N x K weight): int8 tensor cores read "
            "K-major operands only");
  // An s32 C holds exact sums: C = A B or C += A B.
  GemmOptions accumulate;
  accumulate.beta = 1.0f;
  EXPECT_EQ(errorOf(a, b, c, accumulate), "");
  GemmOptions scaled;
  scaled.alpha = 0.5f;
  rt::Error e = validateGemm(a, b, c, scaled);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(), "gemm: alpha: an s32 C takes alpha 1 only (exact "
                         "integer sums; a scaled result needs an f32, f16 or "
                         "bf16 C), got 0.500000");
  scaled.alpha = 1.0f;
  scaled.beta = 2.0f;
  EXPECT_EQ(errorOf(a, b, c, scaled),
            "gemm: beta: an s32 C takes beta 0 or 1 only (C = A B or C += A "
            "B), got 2.000000");
  GemmOptions relu;
  relu.activation = Activation::Relu;
  EXPECT_EQ(errorOf(a, b, c, relu),
            "gemm: c: an s32 C takes no bias or activation (they apply to an "
            "f32, f16 or bf16 C)");
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::F32, 64, 16), relu), "");
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

TEST(GemmValidation, ChecksTheEpilogue) {
  Matrix a = fakeMatrix(DType::F16, 64, 32), b = fakeMatrix(DType::F16, 32, 16),
         c = fakeMatrix(DType::F32, 64, 16);
  GemmOptions fused;
  fused.bias = fakeMatrix(DType::F32, 1, 16, 0x100000);
  fused.activation = Activation::GeluErf;
  EXPECT_EQ(errorOf(a, b, c, fused), "");
  // The kernel reads the bias while it writes C: no overlap.
  GemmOptions aliased = fused;
  aliased.bias.data = c.data + 64;
  EXPECT_EQ(errorOf(a, b, c, aliased), "gemm: bias: overlaps c");
  fused.bias.cols = fused.bias.ld = 64; // one per row: not what it takes
  EXPECT_EQ(errorOf(a, b, c, fused),
            "gemm: bias: is 1x64 but must be a contiguous vector of 16 "
            "elements (one per column of c)");
  fused.bias = fakeMatrix(DType::F16, 1, 16, 0x100000);
  EXPECT_EQ(errorOf(a, b, c, fused),
            "gemm: bias: dtype f16 but must be f32");
  // A 16-bit C takes a bias of its type.
  EXPECT_EQ(errorOf(a, b, fakeMatrix(DType::F16, 64, 16), fused), "");
  GemmOptions bad;
  bad.activation = static_cast<Activation>(9);
  EXPECT_EQ(errorOf(a, b, c, bad),
            "gemm: activation: is not an Activation (code 9)");
}

TEST(GemmTuning, TheTableRoundTripsAndABadFileIsAnError) {
  Matrix a = fakeMatrix(DType::BF16, 3000, 64),
         b = fakeMatrix(DType::BF16, 64, 4096), c = fakeMatrix(DType::F32, 3000, 4096);
  // Sizes round up to powers of two: one class for nearby shapes.
  const std::string key =
      getGemmTuningKey("NVIDIA H100", a, b, c, false, false);
  EXPECT_EQ(key, "NVIDIA H100|bf16|f32|rr|m4096|n4096|k64|plain");
  EXPECT_EQ(getGemmTuningKey("NVIDIA H100", a, b, c, false, true),
            key + "|beta");
  // A column-major B, a fused epilogue; the device name's tab (the file's
  // separator) becomes a space.
  b.layout = Layout::ColMajor;
  EXPECT_EQ(getGemmTuningKey("dev\tice", a, b, c, true, false),
            "dev ice|bf16|f32|rc|m4096|n4096|k64|fused");
  GemmTuningTable table = {{key, "n128"}, {"other", "n256"}};
  rt::Expected<GemmTuningTable> parsed =
      parseGemmTuningTable(formatGemmTuningTable(table));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(*parsed, table);
  auto errorOf = [](const std::string &text) {
    rt::Expected<GemmTuningTable> t = parseGemmTuningTable(text);
    return t ? std::string() : t.error().message();
  };
  EXPECT_EQ(errorOf(""), "the file is empty");
  EXPECT_EQ(errorOf("kaio-gemm-tuning 2\n"),
            "line 1: expected the header 'kaio-gemm-tuning 1'");
  EXPECT_EQ(errorOf("kaio-gemm-tuning 1\nkey n128\n"),
            "line 2: expected a key, a tab and a choice");
  EXPECT_EQ(errorOf("kaio-gemm-tuning 1\n\nkey\tn512\n"),
            "line 3: unknown choice 'n512'");
  EXPECT_EQ(errorOf("kaio-gemm-tuning 1\nkey\tn256"), "");
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
  EXPECT_EQ(counters->lastBlock[0], 128u); // 4 warps of 64 x 64
  // N = 130: B's rows are not 16-byte aligned, the general kernel.
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32");
  // N = 128, K = 64: aligned rows, the variant without alignment tests.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, 128),
                         Matrix::rowMajor(c->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  launches += 1;
  // A buffer too small for the shape: a typed error, no launch.
  rt::Error e = lib->gemm(Matrix::rowMajor(a->view(), m, k),
                          Matrix::rowMajor(b->view(), k, n),
                          Matrix::rowMajor(c->view(), m + 1, n));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::InvalidValue);
  EXPECT_EQ(counters->launches, launches + 1);
  launches = counters->launches;
  // A 16-bit C of the inputs' type: the kernel that rounds once.
  auto c16 = rt::DeviceBuffer<rt::Half>::allocate(*device, m * 128);
  ASSERT_TRUE(c16);
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, 128),
                         Matrix::rowMajor(c16->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f16_aligned");
  launches += 1;
  // bf16 inputs with a bf16 C; a bf16 C from f16 inputs is no C gemm
  // takes (naming c).
  auto abf = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, m * k);
  auto bbf = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, k * 128);
  auto cbf = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, m * 128);
  ASSERT_TRUE(abf && bbf && cbf);
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(abf->view(), m, k),
                         Matrix::rowMajor(bbf->view(), k, 128),
                         Matrix::rowMajor(cbf->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_bf16_bf16_aligned");
  launches += 1;
  rt::Error mixed = lib->gemm(Matrix::rowMajor(a->view(), m, k),
                              Matrix::rowMajor(b->view(), k, 128),
                              Matrix::rowMajor(cbf->view(), m, 128));
  ASSERT_TRUE(mixed);
  EXPECT_NE(kaio::test::messageOf(mixed).find(
                "gemm: c: dtype bf16 is not supported with f16 inputs"),
            std::string::npos)
      << kaio::test::messageOf(mixed);
  EXPECT_EQ(counters->launches, launches);
  // A column-major B (W of x W^T) with aligned lines: its own variant.
  Matrix colB = Matrix::rowMajor(b->view(), 128, k);
  colB.layout = Layout::ColMajor;
  colB.rows = k;
  colB.cols = 128;
  colB.ld = k;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k), colB,
                         Matrix::rowMajor(c->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_bcol_aligned");
  launches += 1;
  // Padded rows: any leading dimension.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, 32, k),
                         Matrix::rowMajor(b->view(), 32, 128),
                         Matrix::rowMajor(c->view(), m, 128)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  launches += 1;
  // A column-major operand whose lines are not 16-byte aligned: not
  // embedded (Unsupported, naming it; nothing launched).
  Matrix oddB = colB;
  oddB.ld = k + 1;
  rt::Error odd = lib->gemm(Matrix::rowMajor(a->view(), m, k), oddB,
                            Matrix::rowMajor(c->view(), m, 128));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(kaio::test::messageOf(odd).find(
                "gemm: b: a column-major matrix needs 16-byte aligned lines"),
            std::string::npos)
      << kaio::test::messageOf(odd);
  EXPECT_EQ(counters->launches, launches);
  // A column-major C with column-major A and B is C^T = B^T A^T, all
  // row-major: the portable kernel runs it (A^T's 300-element rows are not
  // 16-byte multiples: the variant that tests alignment).
  Matrix colA = Matrix::rowMajor(a->view(), k, m);
  colA.layout = Layout::ColMajor;
  std::swap(colA.rows, colA.cols);
  colA.ld = m;
  Matrix colC = Matrix::rowMajor(c->view(), 128, m);
  colC.layout = Layout::ColMajor;
  std::swap(colC.rows, colC.cols);
  colC.ld = m;
  ASSERT_FALSE(lib->gemm(colA, colB, colC));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32");
  EXPECT_EQ(counters->lastGrid[0], 3u); // ceil(300 / 128) columns of C^T
  EXPECT_EQ(counters->lastGrid[1], 1u); // 128 rows of C^T
  EXPECT_EQ(counters->launches, launches + 1);
  launches += 1;
  // The portable kernels index in signed 32 bits: a leading dimension of
  // 2^31 is named (the sm_90 kernel's tensor maps would take it).
  Matrix far = Matrix::rowMajor(c->view(), 2, 128);
  far.ld = std::int64_t(1) << 31;
  far.capacityBytes = 0;
  rt::Error big = lib->gemm(Matrix::rowMajor(a->view(), 2, k),
                            Matrix::rowMajor(b->view(), k, 128), far);
  ASSERT_TRUE(big);
  EXPECT_EQ(big.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(kaio::test::messageOf(big).find(
                "gemm: c: is 2x128 with leading dimension 2147483648: past "
                "2^31 - 1 elements only the sm_90 kernel runs"),
            std::string::npos)
      << kaio::test::messageOf(big);
  EXPECT_EQ(counters->launches, launches);
  // A forced portable kernel on an 8.0 GPU is gemm()'s own: its two
  // variants (blocks an SM) timed under the plain key.
  GemmOptions portable;
  portable.portable = true;
  GemmTuneOptions quick;
  quick.warmup = 0;
  quick.reps = 1;
  quick.save = false;
  const Matrix pa = Matrix::rowMajor(a->view(), m, k),
               pb = Matrix::rowMajor(b->view(), k, 128),
               pc = Matrix::rowMajor(c->view(), m, 128);
  rt::Expected<GemmTuneResult> tuned =
      lib->tuneGemm(*device, pa, pb, pc, portable, quick);
  ASSERT_TRUE(tuned) << tuned.error().message();
  EXPECT_EQ(counters->launches, launches + 2);
  ASSERT_EQ(tuned->timings.size(), 2u);
  EXPECT_EQ(tuned->timings[0].first, "b2");
  EXPECT_EQ(tuned->timings[1].first, "b3");
  EXPECT_EQ(tuned->key, getGemmTuningKey(device->properties().name, pa, pb,
                                         pc, false, false));
  ASSERT_FALSE(lib->gemm(pa, pb, pc, portable));
  EXPECT_STREQ(counters->lastKernel, tuned->choice == "b3"
                                         ? "mma_gemm_f16_f32_aligned_b3"
                                         : "mma_gemm_f16_f32_aligned");
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
  // Four 48 KiB stages and the fused epilogue's 20 KiB of staging.
  EXPECT_EQ(counters->lastSharedBytes, 196608u + 20480u);
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
  EXPECT_EQ(counters->lastSharedBytes, 131072u + 20480u);
  // Rows that are not 16-byte multiples cannot be tensor-mapped: the
  // portable kernel.
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), 300, k),
                         Matrix::rowMajor(b->view(), k, 130),
                         Matrix::rowMajor(c->view(), 300, 130)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32");
  // C in A's 16-bit type: the kernel that rounds once in its epilogue.
  auto c16 = rt::DeviceBuffer<rt::Half>::allocate(*h100, m * n);
  ASSERT_TRUE(c16);
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, n),
                         Matrix::rowMajor(c16->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f16_128x256x64_s4");
  // GemmOptions::portable: the mma.sync kernel on this 9.0 GPU too.
  GemmOptions portable;
  portable.portable = true;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k),
                         Matrix::rowMajor(b->view(), k, n),
                         Matrix::rowMajor(c->view(), m, n), portable));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  EXPECT_EQ(counters->lastBlock[0], 128u);
  // bf16 runs on the sm_90 kernel; with unaligned rows on the portable one.
  Matrix a16 = Matrix::rowMajor(a->view(), m, k),
         b16 = Matrix::rowMajor(b->view(), k, n);
  a16.dtype = b16.dtype = DType::BF16;
  ASSERT_FALSE(lib->gemm(a16, b16, Matrix::rowMajor(c->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_bf16_f32_128x256x64_s4");
  b16.cols = b16.ld = 130;
  ASSERT_FALSE(lib->gemm(a16, b16, Matrix::rowMajor(c->view(), m, 130)));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_bf16_f32");
  // Column-major operands: the variants reading them transposed, with
  // boxes of 64 contiguous elements for an MN-major operand and BK for a
  // K-major one; a column-major C swaps the operands (C^T = B^T A^T).
  Matrix colA = Matrix::rowMajor(a->view(), k, m);
  std::swap(colA.rows, colA.cols);
  colA.layout = Layout::ColMajor;
  Matrix colB = Matrix::rowMajor(b->view(), n, k);
  std::swap(colB.rows, colB.cols);
  colB.layout = Layout::ColMajor;
  ASSERT_FALSE(lib->gemm(colA, Matrix::rowMajor(b->view(), k, n),
                         Matrix::rowMajor(c->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4_acol");
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, k), colB,
                         Matrix::rowMajor(c->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4_bcol");
  Matrix colC = Matrix::rowMajor(c->view(), 1024, 3000, 3008);
  std::swap(colC.rows, colC.cols);
  colC.layout = Layout::ColMajor;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), 3000, k),
                         Matrix::rowMajor(b->view(), k, 1024), colC));
  // C^T (1024 x 3000) = B^T (column-major) A^T (column-major).
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_f16_f32_128x256x64_s4_acol_bcol");
  EXPECT_EQ(counters->lastGrid[0], 96u); // 8 x 12 tiles of 128 x 256
  // FP8: A row-major, B column-major (N x K rows), 128-element K tiles,
  // 128 x 128 only (promoted sums); C f32 or 16-bit.
  Matrix a8 = Matrix::rowMajor(a->view(), m, k);
  a8.dtype = DType::E4M3;
  a8.cols = a8.ld = 2 * k;
  Matrix b8 = colB;
  b8.dtype = DType::E4M3;
  b8.rows = b8.ld = 2 * k;
  ASSERT_FALSE(lib->gemm(a8, b8, Matrix::rowMajor(c->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_e4m3_f32_128x128x128_s4_bcol");
  EXPECT_EQ(counters->lastSharedBytes, 131072u + 20480u);
  a8.dtype = b8.dtype = DType::E5M2;
  Matrix cb16 = Matrix::rowMajor(c16->view(), m, n);
  cb16.dtype = DType::BF16;
  ASSERT_FALSE(lib->gemm(a8, b8, cb16));
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_e5m2_bf16_128x128x128_s4_bcol");
  // One tile width to time, alone and in clusters of two (B's tensor map
  // in boxes of 64 rows then).
  GemmTuneOptions once;
  once.warmup = 0;
  once.reps = 1;
  once.save = false;
  rt::Expected<GemmTuneResult> tuned =
      lib->tuneGemm(*h100, a8, b8, cb16, {}, once);
  ASSERT_TRUE(tuned) << tuned.error().message();
  ASSERT_EQ(tuned->timings.size(), 2u);
  EXPECT_EQ(tuned->timings[0].first, "n128");
  EXPECT_EQ(tuned->timings[1].first, "n128c2");
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_e5m2_bf16_128x128x128_s4_bcol_c2");
  EXPECT_EQ(counters->lastCluster[0], 2u);
  // K lines that are not 16-byte multiples cannot be tensor-mapped, and
  // only the sm_90 kernel reads FP8.
  a8.cols = b8.rows = 72;
  a8.ld = b8.ld = 72;
  rt::Error unmapped = lib->gemm(a8, b8, cb16);
  ASSERT_TRUE(unmapped);
  EXPECT_NE(kaio::test::messageOf(unmapped).find(
                "gemm: a: e5m2 runs on the sm_90 kernel only"),
            std::string::npos)
      << kaio::test::messageOf(unmapped);
  // f32 inputs multiply as tf32: K-major like FP8, 32-element K tiles.
  auto a32 = rt::DeviceBuffer<float>::allocate(*h100, m * k);
  auto b32 = rt::DeviceBuffer<float>::allocate(*h100, n * k);
  ASSERT_TRUE(a32 && b32);
  Matrix bT = Matrix::rowMajor(b32->view(), n, k);
  std::swap(bT.rows, bT.cols);
  bT.layout = Layout::ColMajor;
  GemmOptions tf32;
  tf32.allowTf32 = true;
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a32->view(), m, k), bT,
                         Matrix::rowMajor(c->view(), m, n), tf32));
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_f32_f32_128x256x32_s4_bcol");
  // s8: K-major, 128-element K tiles; an s32 C on 128-column tiles only.
  auto a8b = rt::DeviceBuffer<std::int8_t>::allocate(*h100, m * 128);
  auto b8b = rt::DeviceBuffer<std::int8_t>::allocate(*h100, n * 128);
  auto c32 = rt::DeviceBuffer<std::int32_t>::allocate(*h100, m * n);
  ASSERT_TRUE(a8b && b8b && c32);
  Matrix as8 = Matrix::rowMajor(a8b->view(), m, 128);
  Matrix bs8 = Matrix::rowMajor(b8b->view(), n, 128);
  std::swap(bs8.rows, bs8.cols);
  bs8.layout = Layout::ColMajor;
  ASSERT_FALSE(lib->gemm(as8, bs8, Matrix::rowMajor(c32->view(), m, n)));
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_s8_s32_128x128x128_s4_bcol");
  GemmOptions dequant;
  dequant.alpha = 1.0f / 4096;
  ASSERT_FALSE(
      lib->gemm(as8, bs8, Matrix::rowMajor(c->view(), m, n), dequant));
  EXPECT_STREQ(counters->lastKernel,
               "hopper_gemm_s8_f32_128x256x128_s4_bcol");
  // 13 launches, and the tuner's two timed FP8 runs.
  EXPECT_EQ(counters->tensorMapsEncoded, maps + 2 * 15);
}

// Decode-like M (C with fewer 128 x 128 tiles than half the SMs) and a
// workspace: K split across the persistent kernel's work units (its f32
// variant leaves partial sums), then gemm_split_reduce in C's type; the
// size asked for is what gemm() needs, and less (or none) does not split.
TEST_P(GemmTest, SplitsKForFewTilesGivenAWorkspace) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  rt::Device *h100 = &fake->device;
  Library *lib = &fake->lib;
  const std::int64_t m = 128, n = 4096, k = 4096;
  auto a = rt::DeviceBuffer<rt::Half>::allocate(*h100, m * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(*h100, k * n);
  auto c = rt::DeviceBuffer<rt::Half>::allocate(*h100, m * n);
  auto ws = rt::DeviceBuffer<float>::allocate(*h100, 4 * m * n + 4);
  ASSERT_TRUE(a && b && c && ws);
  Matrix ma = Matrix::rowMajor(a->view(), m, k),
         mb = Matrix::rowMajor(b->view(), k, n),
         mc = Matrix::rowMajor(c->view(), m, n);
  // 32 tiles on 132 SMs, 64 k tiles: 4 splits of 16.
  EXPECT_EQ(lib->gemmWorkspaceElements(ma, mb, mc), 4 * m * n);
  FakeCudaCounters *counters = getFakeCounters();
  int launches = counters->launches;
  ASSERT_FALSE(lib->gemm(ma, mb, mc));
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f16_128x128x64_s4");
  EXPECT_EQ(counters->lastGrid[0], 32u);
  // Without a workspace every unit takes all 64 k tiles.
  EXPECT_EQ(counters->lastGemmK, 4096u);
  EXPECT_EQ(counters->lastGemmKPerSplit, 64u);
  GemmOptions split;
  split.workspace = Matrix::vector(ws->view(), 4 * m * n);
  launches = counters->launches;
  // The epilogue (bias, activation) runs in the reduction.
  auto bias = rt::DeviceBuffer<rt::Half>::allocate(*h100, n);
  ASSERT_TRUE(bias);
  split.bias = Matrix::vector(bias->view(), n);
  split.activation = Activation::Silu;
  ASSERT_FALSE(lib->gemm(ma, mb, mc, split));
  EXPECT_EQ(counters->launches, launches + 2);
  // The partial sums: the f32-C kernel on 128 work units (32 tiles x 4),
  // 16 k tiles each.
  EXPECT_STREQ(counters->prevKernel, "hopper_gemm_f16_f32_128x128x64_s4");
  EXPECT_EQ(counters->prevGrid[0], 128u);
  EXPECT_EQ(counters->lastGemmKPerSplit, 16u);
  EXPECT_STREQ(counters->lastKernel, "gemm_split_reduce_f16");
  EXPECT_EQ(counters->lastGrid[0], 8u);   // 4096 columns, 512 a block
  EXPECT_EQ(counters->lastGrid[1], 128u); // a row each
  EXPECT_EQ(counters->lastBlock[0], 128u);
  // Too small a workspace: no split.
  GemmOptions small = split;
  small.workspace = Matrix::vector(ws->view(), 4 * m * n - 1);
  launches = counters->launches;
  ASSERT_FALSE(lib->gemm(ma, mb, mc, small));
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f16_128x128x64_s4");
  // M = 16: the same 32 tiles; an f32 C.
  auto c32 = rt::DeviceBuffer<float>::allocate(*h100, m * n);
  ASSERT_TRUE(c32);
  Matrix a16 = Matrix::rowMajor(a->view(), 16, k),
         c16 = Matrix::rowMajor(c32->view(), 16, n);
  EXPECT_EQ(lib->gemmWorkspaceElements(a16, mb, c16), 4 * 16 * n);
  GemmOptions plain;
  plain.workspace = split.workspace;
  ASSERT_FALSE(lib->gemm(a16, mb, c16, plain));
  EXPECT_STREQ(counters->lastKernel, "gemm_split_reduce_f32");
  EXPECT_EQ(counters->lastGrid[1], 16u);
  // Short K (8 k tiles: 2 splits of 4), ragged N (rows of partial sums
  // padded to 4 elements).
  Matrix mShort = Matrix::rowMajor(a->view(), 16, 512),
         bShort = Matrix::rowMajor(b->view(), 512, 1000),
         cShort = Matrix::rowMajor(c32->view(), 16, 1000);
  EXPECT_EQ(lib->gemmWorkspaceElements(mShort, bShort, cShort), 2 * 16 * 1000);
  ASSERT_FALSE(lib->gemm(mShort, bShort, cShort, plain));
  EXPECT_EQ(counters->prevGrid[0], 16u); // 8 tiles x 2 splits
  // Not split: enough tiles, too short a K.
  EXPECT_EQ(lib->gemmWorkspaceElements(Matrix::rowMajor(a->view(), 2048, 64),
                                       Matrix::rowMajor(b->view(), 64, 2048),
                                       Matrix::rowMajor(c32->view(), 2048,
                                                        2048)),
            0);
  EXPECT_EQ(lib->gemmWorkspaceElements(Matrix::rowMajor(a->view(), 16, 448),
                                       Matrix::rowMajor(b->view(), 448, n),
                                       c16),
            0);
  // The portable kernel splits over grid z (32-deep k tiles: 128 of them,
  // still 4 splits), then the same reduction.
  GemmOptions portable = plain;
  portable.portable = true;
  EXPECT_EQ(lib->gemmWorkspaceElements(a16, mb, c16, portable), 4 * 16 * n);
  launches = counters->launches;
  ASSERT_FALSE(lib->gemm(a16, mb, c16, portable));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->prevKernel, "mma_gemm_f16_f32_aligned");
  EXPECT_EQ(counters->prevGrid[0], 32u);
  EXPECT_EQ(counters->prevGrid[1], 1u);
  EXPECT_EQ(counters->prevGrid[2], 4u);
  EXPECT_EQ(counters->lastGemmKPerSplit, 1024u); // 32 k tiles of 32
  EXPECT_STREQ(counters->lastKernel, "gemm_split_reduce_f32");
  // Without the workspace: one launch over the whole K.
  portable.workspace = Matrix();
  ASSERT_FALSE(lib->gemm(a16, mb, c16, portable));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  EXPECT_EQ(counters->lastGrid[2], 1u);
  EXPECT_GE(counters->lastGemmKPerSplit, 4096u);
  // A bad workspace is an error naming it (before anything launches).
  launches = counters->launches;
  GemmOptions bad = plain;
  bad.workspace.data += 4;
  EXPECT_EQ(kaio::test::messageOf(lib->gemm(a16, mb, c16, bad)),
            "gemm: workspace: must be 16-byte aligned");
  bad.workspace = Matrix::vector(c32->view(), 4 * 16 * n);
  EXPECT_EQ(kaio::test::messageOf(lib->gemm(a16, mb, c16, bad)),
            "gemm: workspace: overlaps c");
  bad.workspace = Matrix::vector(a->view(), 1024);
  EXPECT_NE(kaio::test::messageOf(lib->gemm(a16, mb, c16, bad))
                .find("gemm: workspace: must be a contiguous f32 vector"),
            std::string::npos);
  EXPECT_EQ(counters->launches, launches);
}

TEST_P(GemmTest, FusesBiasAndActivationIntoEveryKernel) {
  if (!isFake())
    GTEST_SKIP() << "checks the launches through the fake driver";
  const std::int64_t m = 4096, n = 4096, k = 64;
  FakeCudaCounters *counters = getFakeCounters();
  GemmOptions fused;
  fused.activation = Activation::GeluTanh;
  fused.beta = 0.5f;
  {
    rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
    ASSERT_TRUE(fake) << fake.error().message();
    auto a = rt::DeviceBuffer<rt::Half>::allocate(fake->device, m * k);
    auto b = rt::DeviceBuffer<rt::Half>::allocate(fake->device, k * n);
    auto c = rt::DeviceBuffer<float>::allocate(fake->device, m * n);
    auto bias = rt::DeviceBuffer<float>::allocate(fake->device, n);
    ASSERT_TRUE(a && b && c && bias);
    fused.bias = Matrix::rowMajor(bias->view(), 1, n);
    // One launch; the staged epilogue reads C on wide tiles too.
    int launches = counters->launches;
    rt::Error e = fake->lib.gemm(Matrix::rowMajor(a->view(), m, k),
                                 Matrix::rowMajor(b->view(), k, n),
                                 Matrix::rowMajor(c->view(), m, n), fused);
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(counters->launches, launches + 1);
    EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4");
    // A column-major C (C^T = B^T A^T): the bias runs along C^T's rows.
    Matrix colC = Matrix::rowMajor(c->view(), n, m);
    std::swap(colC.rows, colC.cols);
    colC.layout = Layout::ColMajor;
    e = fake->lib.gemm(Matrix::rowMajor(a->view(), m, k),
                       Matrix::rowMajor(b->view(), k, n), colC, fused);
    ASSERT_FALSE(e) << e.message();
    EXPECT_STREQ(counters->lastKernel,
                 "hopper_gemm_f16_f32_128x256x64_s4_acol_bcol");
    EXPECT_EQ(counters->launches, launches + 2);
  }
  // The 8.0 GPU: fused into the portable kernel's staged epilogue too (one
  // launch, the epilogue argument as the sm_90 kernel's).
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  const std::int64_t rows = 300, cols = 128;
  auto a = rt::DeviceBuffer<rt::Half>::allocate(*device, rows * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(*device, k * cols);
  auto c = rt::DeviceBuffer<float>::allocate(*device, rows * cols);
  auto bias = rt::DeviceBuffer<float>::allocate(*device, cols);
  ASSERT_TRUE(a && b && c && bias);
  fused.bias = Matrix::rowMajor(bias->view(), 1, cols);
  int launches = counters->launches;
  rt::Error e = lib->gemm(Matrix::rowMajor(a->view(), rows, k),
                          Matrix::rowMajor(b->view(), k, cols),
                          Matrix::rowMajor(c->view(), rows, cols), fused);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  // A bias along a column-major C's columns runs along the rows of the C^T
  // it computes: the same kernel, the bias-rows bit.
  Matrix colA = Matrix::rowMajor(a->view(), k, rows);
  std::swap(colA.rows, colA.cols);
  colA.layout = Layout::ColMajor;
  Matrix colB = Matrix::rowMajor(b->view(), cols, k);
  std::swap(colB.rows, colB.cols);
  colB.layout = Layout::ColMajor;
  Matrix colC = Matrix::rowMajor(c->view(), cols, rows);
  std::swap(colC.rows, colC.cols);
  colC.layout = Layout::ColMajor;
  ASSERT_FALSE(lib->gemm(colA, colB, colC, fused));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32");
  // The f32 kernel (CUDA cores) fuses them as it stores from its
  // registers: one launch, also with a column-major C (the bias along C^T's
  // rows).
  auto a32 = rt::DeviceBuffer<float>::allocate(*device, rows * k);
  auto b32 = rt::DeviceBuffer<float>::allocate(*device, k * cols);
  ASSERT_TRUE(a32 && b32);
  ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a32->view(), rows, k),
                         Matrix::rowMajor(b32->view(), k, cols),
                         Matrix::rowMajor(c->view(), rows, cols), fused));
  EXPECT_EQ(counters->launches, launches + 3);
  EXPECT_STREQ(counters->lastKernel, "sgemm_f32_aligned");
  Matrix a32T = Matrix::rowMajor(a32->view(), k, rows);
  std::swap(a32T.rows, a32T.cols);
  a32T.layout = Layout::ColMajor;
  Matrix b32T = Matrix::rowMajor(b32->view(), cols, k);
  std::swap(b32T.rows, b32T.cols);
  b32T.layout = Layout::ColMajor;
  // C^T = B^T A^T: B^T and A^T row-major, the f32 kernel's layout.
  ASSERT_FALSE(lib->gemm(a32T, b32T, colC, fused));
  EXPECT_EQ(counters->launches, launches + 4);
  EXPECT_STREQ(counters->lastKernel, "sgemm_f32_aligned");
}

TEST_P(GemmTest, TunesOnA90GpuAndLaunchesTheTunedChoice) {
  if (!isFake())
    GTEST_SKIP() << "checks the launches through the fake driver";
  // The fake's device 1 is a 9.0 GPU; this test's cache directory is empty.
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  const std::int64_t m = 4096, n = 4096, k = 64;
  auto a = rt::DeviceBuffer<rt::Half>::allocate(fake->device, m * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(fake->device, k * n);
  auto c = rt::DeviceBuffer<float>::allocate(fake->device, m * n);
  ASSERT_TRUE(a && b && c);
  const Matrix ma = Matrix::rowMajor(a->view(), m, k),
               mb = Matrix::rowMajor(b->view(), k, n),
               mc = Matrix::rowMajor(c->view(), m, n);
  FakeCudaCounters *counters = getFakeCounters();
  // The wrong device, bad repetitions: named, nothing launched.
  int launches = counters->launches;
  rt::Expected<GemmTuneResult> wrong = fake->lib.tuneGemm(*device, ma, mb, mc);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message(),
            "tune_gemm: device: is device 0, the library's is 1");
  GemmTuneOptions none;
  none.reps = 0;
  wrong = fake->lib.tuneGemm(fake->device, ma, mb, mc, {}, none);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("tune_gemm: tune: needs"),
            std::string::npos);
  EXPECT_EQ(counters->launches, launches);
  // Both tile widths, alone and in clusters of two, timed (2 warm-up + 3
  // timed runs each); the fastest is recorded, in the library and in the
  // file.
  GemmTuneOptions quick;
  quick.reps = 3;
  rt::Expected<GemmTuneResult> tuned =
      fake->lib.tuneGemm(fake->device, ma, mb, mc, {}, quick);
  ASSERT_TRUE(tuned) << tuned.error().message();
  EXPECT_EQ(counters->launches, launches + 4 * 5);
  ASSERT_EQ(tuned->timings.size(), 4u);
  EXPECT_EQ(tuned->timings[0].first, "n128");
  EXPECT_EQ(tuned->timings[1].first, "n256");
  EXPECT_EQ(tuned->timings[2].first, "n128c2");
  EXPECT_EQ(tuned->timings[3].first, "n256c2");
  // The last one timed: clusters of two, as many as run at once (the fake
  // 132-SM GPU holds 66), B's map boxes of BN / 2 rows would be for a
  // column-major B (here row-major: 64-column boxes).
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4_c2");
  EXPECT_EQ(counters->lastCluster[0], 2u);
  EXPECT_EQ(counters->lastGrid[0], 132u);
  EXPECT_EQ(tuned->key, getGemmTuningKey(fake->device.properties().name, ma,
                                         mb, mc, false, false));
  rt::Expected<std::string> file =
      rt::readWholeFile(cacheDir.path() + "/" + kGemmTuningFileName);
  ASSERT_TRUE(file) << file.error().message();
  rt::Expected<GemmTuningTable> table = parseGemmTuningTable(*file);
  ASSERT_TRUE(table) << table.error().message();
  EXPECT_EQ(table->at(tuned->key), tuned->choice);
  ASSERT_FALSE(fake->lib.gemm(ma, mb, mc));
  EXPECT_EQ(counters->lastKernel,
            std::string("hopper_gemm_f16_f32_") +
                (tuned->choice.substr(0, 4) == "n128" ? "128x128" : "128x256") +
                "x64_s4" + (tuned->choice.size() > 4 ? "_c2" : ""));
  // A library loaded later reads the file: a recorded n128 overrides the
  // heuristic's 128 x 256 tiles for this class (and only this class).
  ASSERT_TRUE(rt::writeFileAtomically(
      cacheDir.path() + "/" + kGemmTuningFileName,
      formatGemmTuningTable({{tuned->key, "n128"}})));
  {
    rt::Expected<kaio::test::FakeHopper> later = kaio::test::loadOnFakeHopper();
    ASSERT_TRUE(later) << later.error().message();
    ASSERT_FALSE(later->lib.gemm(ma, mb, mc));
    EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4");
    GemmOptions fusedRelu;
    fusedRelu.activation = Activation::Relu;
    ASSERT_FALSE(later->lib.gemm(ma, mb, mc, fusedRelu)); // another class
    EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4");
    EXPECT_EQ(counters->lastCluster[0], 1u);
    EXPECT_TRUE(later->lib.warnings().empty());
  }
  // A recorded cluster choice: pairs of 128 x 128 tiles, 32 x 32 of them
  // (16 x 32 units) on 66 clusters; a column-major B's tensor map gets
  // boxes of 64 rows (half the tile's columns).
  {
    ASSERT_TRUE(rt::writeFileAtomically(
        cacheDir.path() + "/" + kGemmTuningFileName,
        formatGemmTuningTable({{tuned->key, "n128c2"}})));
    rt::Expected<kaio::test::FakeHopper> later = kaio::test::loadOnFakeHopper();
    ASSERT_TRUE(later) << later.error().message();
    ASSERT_FALSE(later->lib.gemm(ma, mb, mc));
    EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4_c2");
    EXPECT_EQ(counters->lastCluster[0], 2u);
    EXPECT_EQ(counters->lastGrid[0], 132u);
    // Another problem class (200 x 100): the heuristic's tile, alone.
    const Matrix small = Matrix::rowMajor(c->view(), 200, 100);
    ASSERT_FALSE(later->lib.gemm(Matrix::rowMajor(a->view(), 200, k),
                                 Matrix::rowMajor(b->view(), k, 100), small));
    EXPECT_EQ(counters->lastCluster[0], 1u) << "another class: no cluster";
  }
  // The portable kernel forced on the 9.0 GPU: its variants, recorded under
  // a key of their own, which gemm() with the option reads (and without
  // it does not).
  {
    GemmOptions portable;
    portable.portable = true;
    rt::Expected<GemmTuneResult> forced =
        fake->lib.tuneGemm(fake->device, ma, mb, mc, portable, quick);
    ASSERT_TRUE(forced) << forced.error().message();
    ASSERT_EQ(forced->timings.size(), 2u);
    EXPECT_EQ(forced->timings[1].first, "b3");
    EXPECT_EQ(forced->key, tuned->key + "|portable");
    ASSERT_TRUE(rt::writeFileAtomically(
        cacheDir.path() + "/" + kGemmTuningFileName,
        formatGemmTuningTable({{forced->key, "b3"}})));
    rt::Expected<kaio::test::FakeHopper> later = kaio::test::loadOnFakeHopper();
    ASSERT_TRUE(later) << later.error().message();
    ASSERT_FALSE(later->lib.gemm(ma, mb, mc, portable));
    EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned_b3");
    ASSERT_FALSE(later->lib.gemm(ma, mb, mc));
    EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4");
  }
  // A corrupt file is ignored with a warning: the heuristic again.
  ASSERT_TRUE(rt::writeFileAtomically(
      cacheDir.path() + "/" + kGemmTuningFileName,
      "kaio-gemm-tuning 1\n" + tuned->key + "\tn9000\n"));
  rt::Expected<kaio::test::FakeHopper> corrupt = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(corrupt) << corrupt.error().message();
  ASSERT_FALSE(corrupt->lib.gemm(ma, mb, mc));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x256x64_s4");
  ASSERT_EQ(corrupt->lib.warnings().size(), 1u);
  EXPECT_NE(corrupt->lib.warnings()[0].find(
                "ignored the GEMM tuning file '" + cacheDir.path() + "/" +
                kGemmTuningFileName + "': line 2: unknown choice 'n9000'"),
            std::string::npos)
      << corrupt->lib.warnings()[0];
  // Tuning rewrites it whole.
  ASSERT_TRUE(corrupt->lib.tuneGemm(corrupt->device, ma, mb, mc, {}, quick));
  file = rt::readWholeFile(cacheDir.path() + "/" + kGemmTuningFileName);
  ASSERT_TRUE(file && parseGemmTuningTable(*file));
  // The portable kernel (an 8.0 GPU): its variants for 2 and 3 blocks an
  // SM with aligned lines, recorded and read back by a later library; one
  // configuration, nothing recorded, with unaligned ones.
  rt::Expected<Library> portable = Library::load(*device);
  ASSERT_TRUE(portable) << portable.error().message();
  auto a8 = rt::DeviceBuffer<rt::Half>::allocate(*device, 256 * 64);
  auto b8 = rt::DeviceBuffer<rt::Half>::allocate(*device, 64 * 256);
  auto c8 = rt::DeviceBuffer<float>::allocate(*device, 256 * 256);
  ASSERT_TRUE(a8 && b8 && c8);
  const Matrix pa = Matrix::rowMajor(a8->view(), 256, 64),
               pb = Matrix::rowMajor(b8->view(), 64, 256),
               pc = Matrix::rowMajor(c8->view(), 256, 256);
  rt::Expected<GemmTuneResult> two =
      portable->tuneGemm(*device, pa, pb, pc, {}, quick);
  ASSERT_TRUE(two) << two.error().message();
  ASSERT_EQ(two->timings.size(), 2u);
  EXPECT_EQ(two->timings[0].first, "b2");
  EXPECT_EQ(two->timings[1].first, "b3");
  ASSERT_TRUE(rt::writeFileAtomically(
      cacheDir.path() + "/" + kGemmTuningFileName,
      formatGemmTuningTable({{two->key, "b3"}})));
  {
    rt::Expected<Library> later = Library::load(*device);
    ASSERT_TRUE(later) << later.error().message();
    ASSERT_FALSE(later->gemm(pa, pb, pc));
    EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned_b3");
    EXPECT_EQ(counters->lastBlock[0], 128u);
    // Another class (beta reads C): the default variant.
    GemmOptions beta;
    beta.beta = 1.0f;
    ASSERT_FALSE(later->gemm(pa, pb, pc, beta));
    EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_aligned");
  }
  const Matrix odd = Matrix::rowMajor(a8->view(), 255, 63, 63);
  rt::Expected<GemmTuneResult> one = portable->tuneGemm(
      *device, odd, Matrix::rowMajor(b8->view(), 63, 256),
      Matrix::rowMajor(c8->view(), 255, 256), {}, quick);
  ASSERT_TRUE(one) << one.error().message();
  EXPECT_EQ(one->choice, "portable");
  ASSERT_EQ(one->timings.size(), 1u);
}

TEST_P(GemmTest, RunsF32InFullPrecisionOrAsTf32WhenAllowed) {
  if (!isFake())
    GTEST_SKIP() << "checks the launches through the fake driver";
  const std::int64_t m = 300, n = 260, k = 64;
  FakeCudaCounters *counters = getFakeCounters();
  GemmOptions tf32;
  tf32.allowTf32 = true;
  for (bool hopper : {false, true}) {
    SCOPED_TRACE(hopper ? "9.0 GPU" : "8.0 GPU");
    std::optional<kaio::test::FakeHopper> fake;
    std::optional<Library> portable;
    rt::Device *dev = device ? &*device : nullptr;
    Library *lib = nullptr;
    if (hopper) {
      rt::Expected<kaio::test::FakeHopper> h = kaio::test::loadOnFakeHopper();
      ASSERT_TRUE(h) << h.error().message();
      fake.emplace(std::move(*h));
      dev = &fake->device;
      lib = &fake->lib;
    } else {
      rt::Expected<Library> l = Library::load(*device);
      ASSERT_TRUE(l) << l.error().message();
      portable.emplace(std::move(*l));
      lib = &*portable;
    }
    auto a = rt::DeviceBuffer<float>::allocate(*dev, m * k);
    auto b = rt::DeviceBuffer<float>::allocate(*dev, k * n);
    auto c = rt::DeviceBuffer<float>::allocate(*dev, m * n);
    ASSERT_TRUE(a && b && c);
    Matrix ma = Matrix::rowMajor(a->view(), m, k),
           mb = Matrix::rowMajor(b->view(), k, n),
           mc = Matrix::rowMajor(c->view(), m, n);
    // Row-major: the full-precision kernel, a 128 x 128 tile per block,
    // whether or not tf32 is allowed (tf32 needs a K-major B).
    for (const GemmOptions &o : {GemmOptions(), tf32}) {
      ASSERT_FALSE(lib->gemm(ma, mb, mc, o));
      EXPECT_STREQ(counters->lastKernel, "sgemm_f32_aligned");
      EXPECT_EQ(counters->lastGrid[0], 3u);
      EXPECT_EQ(counters->lastGrid[1], 3u);
      EXPECT_EQ(counters->lastBlock[0], 256u);
    }
    // Rows not 16-byte aligned: the variant that tests alignment.
    ASSERT_FALSE(lib->gemm(Matrix::rowMajor(a->view(), m, 63),
                           Matrix::rowMajor(b->view(), 63, n), mc));
    EXPECT_STREQ(counters->lastKernel, "sgemm_f32");
    // x W^T (W row-major N x K): tf32 on the 9.0 GPU when allowed, else in
    // full precision on the CUDA cores (the column-major-B variant); A^T
    // and both transposed alike.
    Matrix wT = Matrix::rowMajor(b->view(), n, k);
    std::swap(wT.rows, wT.cols);
    wT.layout = Layout::ColMajor;
    Matrix aT = Matrix::rowMajor(a->view(), k, m);
    std::swap(aT.rows, aT.cols);
    aT.layout = Layout::ColMajor;
    int launches = counters->launches;
    ASSERT_FALSE(lib->gemm(ma, wT, mc));
    EXPECT_STREQ(counters->lastKernel, "sgemm_f32_bcol_aligned");
    EXPECT_EQ(counters->lastGrid[0], 3u);
    EXPECT_EQ(counters->lastGrid[1], 3u);
    ASSERT_FALSE(lib->gemm(aT, mb, mc));
    EXPECT_STREQ(counters->lastKernel, "sgemm_f32_acol_aligned");
    ASSERT_FALSE(lib->gemm(aT, wT, mc));
    EXPECT_STREQ(counters->lastKernel, "sgemm_f32_acol_bcol_aligned");
    EXPECT_EQ(counters->launches, launches + 3);
    // A column-major operand needs 16-byte aligned lines (nothing runs).
    Matrix oddT = Matrix::rowMajor(b->view(), n, 63);
    std::swap(oddT.rows, oddT.cols);
    oddT.layout = Layout::ColMajor;
    rt::Error e = lib->gemm(Matrix::rowMajor(a->view(), m, 63), oddT, mc);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_NE(kaio::test::messageOf(e).find(
                  "gemm: b: a column-major f32 matrix needs 16-byte aligned "
                  "lines of A and B"),
              std::string::npos)
        << kaio::test::messageOf(e);
    EXPECT_EQ(counters->launches, launches + 3);
    e = lib->gemm(ma, wT, mc, tf32);
    ASSERT_FALSE(e) << e.message();
    EXPECT_STREQ(counters->lastKernel,
                 hopper ? "hopper_gemm_f32_f32_128x128x32_s4_bcol"
                        : "mma_gemm_tf32_f32_bcol_aligned");
    // Unaligned lines never run as tf32: the full-precision kernel's
    // refusal of a column-major operand stands.
    launches = counters->launches;
    e = lib->gemm(Matrix::rowMajor(a->view(), m, 63), oddT, mc, tf32);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(counters->launches, launches);
  }
}

/// s8 (and tf32 when allowed) on the mma.sync kernel wherever the sm_90
/// kernel does not run: K-major operands with 16-byte aligned lines; an
/// s32 C takes the exact sums, others dequantized; decode-like problems
/// split K (not into an s32 C); unaligned s8 lines are refused, naming the
/// matrix, before anything launches.
TEST_P(GemmTest, RunsInt8OnMmaSyncOffTheSm90Kernel) {
  if (!isFake())
    GTEST_SKIP() << "checks the launches through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  const std::int64_t m = 300, n = 260, k = 128;
  auto a = rt::DeviceBuffer<std::int8_t>::allocate(*device, m * k);
  auto b = rt::DeviceBuffer<std::int8_t>::allocate(*device, n * k);
  auto c32 = rt::DeviceBuffer<std::int32_t>::allocate(*device, m * n);
  auto c16 = rt::DeviceBuffer<rt::Half>::allocate(*device, m * n);
  auto ws = rt::DeviceBuffer<float>::allocate(*device, 1 << 20);
  ASSERT_TRUE(a && b && c32 && c16 && ws);
  Matrix ma = Matrix::rowMajor(a->view(), m, k);
  Matrix bT = Matrix::rowMajor(b->view(), n, k);
  std::swap(bT.rows, bT.cols);
  bT.layout = Layout::ColMajor;
  const Matrix mc32 = Matrix::rowMajor(c32->view(), m, n),
               mc16 = Matrix::rowMajor(c16->view(), m, n);
  int launches = counters->launches;
  rt::Error first = lib->gemm(ma, bT, mc32);
  ASSERT_FALSE(first) << first.message();
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_s8_s32_bcol_aligned");
  EXPECT_EQ(counters->lastGrid[0], 3u);
  EXPECT_EQ(counters->lastGrid[1], 3u);
  EXPECT_EQ(counters->lastBlock[0], 128u);
  GemmOptions dequant;
  dequant.alpha = 1.0f / 4096;
  dequant.activation = Activation::Relu;
  ASSERT_FALSE(lib->gemm(ma, bT, mc16, dequant));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_s8_f16_bcol_aligned");
  EXPECT_EQ(counters->launches, launches + 2);
  // Decode-like M with a long K: split over grid z into f32 partial sums,
  // then reduced into C's type; an s32 C is never split.
  const std::int64_t longK = 8192;
  auto a1 = rt::DeviceBuffer<std::int8_t>::allocate(*device, 16 * longK);
  auto b1 = rt::DeviceBuffer<std::int8_t>::allocate(*device, 256 * longK);
  ASSERT_TRUE(a1 && b1);
  Matrix da = Matrix::rowMajor(a1->view(), 16, longK);
  Matrix dbT = Matrix::rowMajor(b1->view(), 256, longK);
  std::swap(dbT.rows, dbT.cols);
  dbT.layout = Layout::ColMajor;
  const Matrix dc16 = Matrix::rowMajor(c16->view(), 16, 256),
               dc32 = Matrix::rowMajor(c32->view(), 16, 256);
  GemmOptions split;
  split.workspace = Matrix::rowMajor(ws->view(), 1, 1 << 20);
  EXPECT_GT(lib->gemmWorkspaceElements(da, dbT, dc16), 0);
  EXPECT_EQ(lib->gemmWorkspaceElements(da, dbT, dc32), 0);
  launches = counters->launches;
  ASSERT_FALSE(lib->gemm(da, dbT, dc16, split));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "gemm_split_reduce_f16");
  ASSERT_FALSE(lib->gemm(da, dbT, dc32, split));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_s8_s32_bcol_aligned");
  EXPECT_EQ(counters->lastGrid[2], 1u);
  // Lines that are not 16-byte multiples: refused, naming the matrix.
  launches = counters->launches;
  Matrix oddA = Matrix::rowMajor(a->view(), m, 72);
  Matrix oddB = Matrix::rowMajor(b->view(), n, 72);
  std::swap(oddB.rows, oddB.cols);
  oddB.layout = Layout::ColMajor;
  rt::Error e = lib->gemm(oddA, oddB, mc32);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(kaio::test::messageOf(e).find(
                "gemm: a: an s8 matrix needs 16-byte aligned lines"),
            std::string::npos)
      << kaio::test::messageOf(e);
  Matrix oddOnlyB = oddB;
  oddOnlyB.ld = 80;
  oddOnlyB.data += 8;
  e = lib->gemm(Matrix::rowMajor(a->view(), m, 72, 80), oddOnlyB, mc32);
  ASSERT_TRUE(e);
  EXPECT_NE(kaio::test::messageOf(e).find("gemm: b: an s8 matrix"),
            std::string::npos)
      << kaio::test::messageOf(e);
  EXPECT_EQ(counters->launches, launches);
  // A 9.0 GPU asked for the portable kernels takes the same one.
  rt::Expected<kaio::test::FakeHopper> hopper = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(hopper) << hopper.error().message();
  auto ha = rt::DeviceBuffer<std::int8_t>::allocate(hopper->device, m * k);
  auto hb = rt::DeviceBuffer<std::int8_t>::allocate(hopper->device, n * k);
  auto hc = rt::DeviceBuffer<float>::allocate(hopper->device, m * n);
  ASSERT_TRUE(ha && hb && hc);
  Matrix hbT = Matrix::rowMajor(hb->view(), n, k);
  std::swap(hbT.rows, hbT.cols);
  hbT.layout = Layout::ColMajor;
  GemmOptions portable;
  portable.portable = true;
  ASSERT_FALSE(hopper->lib.gemm(Matrix::rowMajor(ha->view(), m, k), hbT,
                                Matrix::rowMajor(hc->view(), m, n),
                                portable));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_s8_f32_bcol_aligned");
}

TEST_P(GemmTest, BackwardReusesTheForwardKernelsOnTransposedViews) {
  if (!isFake())
    GTEST_SKIP() << "checks the launches through the fake driver";
  const std::int64_t m = 4096, n = 4096, k = 64;
  FakeCudaCounters *counters = getFakeCounters();
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  auto a = rt::DeviceBuffer<rt::Half>::allocate(fake->device, m * k);
  auto b = rt::DeviceBuffer<rt::Half>::allocate(fake->device, k * n);
  auto dc = rt::DeviceBuffer<rt::Half>::allocate(fake->device, m * n);
  auto da = rt::DeviceBuffer<float>::allocate(fake->device, m * k);
  auto db = rt::DeviceBuffer<float>::allocate(fake->device, k * n);
  ASSERT_TRUE(a && b && dc && da && db);
  const Matrix ma = Matrix::rowMajor(a->view(), m, k),
               mb = Matrix::rowMajor(b->view(), k, n),
               mdc = Matrix::rowMajor(dc->view(), m, n),
               mda = Matrix::rowMajor(da->view(), m, k),
               mdb = Matrix::rowMajor(db->view(), k, n);
  // dA = dC B^T reads B K-major in place (the column-major-B kernel), dB =
  // A^T dC reads A transposed (the column-major-A kernel).
  int launches = counters->launches;
  GemmBackwardOptions accumulate;
  accumulate.beta = 1.0f;
  rt::Error e = fake->lib.gemmBackward(ma, mb, mdc, mda, mdb, accumulate);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4_acol");
  ASSERT_FALSE(fake->lib.gemmBackward(ma, mb, mdc, mda, Matrix()));
  EXPECT_STREQ(counters->lastKernel, "hopper_gemm_f16_f32_128x128x64_s4_bcol");
  EXPECT_EQ(counters->launches, launches + 3);
  // Shapes are checked first, then each product as gemm() checks it.
  Matrix wrong = Matrix::rowMajor(da->view(), m, k - 8);
  EXPECT_EQ(fake->lib.gemmBackward(ma, mb, mdc, wrong, Matrix()).message(),
            "gemm_backward: da: is 4096x56 but a is 4096x64");
  Matrix wrongDb = Matrix::rowMajor(db->view(), k, n - 8);
  EXPECT_EQ(validateGemmBackward(ma, mb, mdc, Matrix(), wrongDb).message(),
            "gemm_backward: db: is 64x4088 but b is 64x4096");
  Matrix dc32 = mdc;
  dc32.dtype = DType::BF16;
  rt::Error mixed = fake->lib.gemmBackward(ma, mb, dc32, mda, mdb);
  ASSERT_TRUE(mixed);
  EXPECT_NE(mixed.message().find("gemm_backward: da = dc b^T"),
            std::string::npos)
      << mixed.message();
  EXPECT_EQ(counters->launches, launches + 3);
  // The 8.0 GPU's kernel reads a column-major operand only with 16-byte
  // aligned lines: A with 60-element rows makes A^T (for db) unaligned,
  // while dc B^T (for da) runs. Both products are checked before either
  // launches; da alone runs.
  rt::Expected<Library> portable = Library::load(*device);
  ASSERT_TRUE(portable) << portable.error().message();
  auto a8 = rt::DeviceBuffer<rt::Half>::allocate(*device, 256 * 60);
  auto b8 = rt::DeviceBuffer<rt::Half>::allocate(*device, 60 * 256);
  auto dc8 = rt::DeviceBuffer<rt::Half>::allocate(*device, 256 * 256);
  auto da8 = rt::DeviceBuffer<float>::allocate(*device, 256 * 60);
  auto db8 = rt::DeviceBuffer<float>::allocate(*device, 60 * 256);
  ASSERT_TRUE(a8 && b8 && dc8 && da8 && db8);
  Matrix a60 = Matrix::rowMajor(a8->view(), 256, 60),
         b60 = Matrix::rowMajor(b8->view(), 60, 256),
         dc256 = Matrix::rowMajor(dc8->view(), 256, 256),
         da60 = Matrix::rowMajor(da8->view(), 256, 60),
         db60 = Matrix::rowMajor(db8->view(), 60, 256);
  int before = counters->launches;
  rt::Error half = portable->gemmBackward(a60, b60, dc256, da60, db60);
  ASSERT_TRUE(half);
  EXPECT_EQ(half.code(), rt::ErrorCode::Unsupported);
  EXPECT_NE(half.message().find("gemm_backward: db = a^T dc"),
            std::string::npos)
      << half.message();
  EXPECT_EQ(counters->launches, before);
  ASSERT_FALSE(portable->gemmBackward(a60, b60, dc256, da60, Matrix()));
  EXPECT_STREQ(counters->lastKernel, "mma_gemm_f16_f32_bcol_aligned");
  EXPECT_EQ(counters->launches, before + 1);
  // f32 in full precision on the 8.0 GPU: da = dc B^T on the
  // column-major-B kernel, db = A^T dc on the column-major-A one.
  auto a32 = rt::DeviceBuffer<float>::allocate(*device, 256 * 64);
  auto b32 = rt::DeviceBuffer<float>::allocate(*device, 64 * 256);
  auto dc32f = rt::DeviceBuffer<float>::allocate(*device, 256 * 256);
  auto da32 = rt::DeviceBuffer<float>::allocate(*device, 256 * 64);
  auto db32 = rt::DeviceBuffer<float>::allocate(*device, 64 * 256);
  ASSERT_TRUE(a32 && b32 && dc32f && da32 && db32);
  Matrix fa = Matrix::rowMajor(a32->view(), 256, 64),
         fb = Matrix::rowMajor(b32->view(), 64, 256),
         fdc = Matrix::rowMajor(dc32f->view(), 256, 256);
  ASSERT_FALSE(portable->gemmBackward(
      fa, fb, fdc, Matrix::rowMajor(da32->view(), 256, 64), Matrix()));
  EXPECT_STREQ(counters->lastKernel, "sgemm_f32_bcol_aligned");
  ASSERT_FALSE(portable->gemmBackward(fa, fb, fdc, Matrix(),
                                      Matrix::rowMajor(db32->view(), 64, 256)));
  EXPECT_STREQ(counters->lastKernel, "sgemm_f32_acol_aligned");
  EXPECT_EQ(counters->launches, before + 3);
}

TEST(GemmValidation, ShapesFitTheKernels32BitArguments) {
  Matrix a = fakeMatrix(DType::F16, 64, 32), b = fakeMatrix(DType::F16, 32, 16),
         c = fakeMatrix(DType::F32, 64, 16);
  Matrix huge = c;
  huge.ld = std::int64_t(1) << 32;
  huge.capacityBytes = 0;
  EXPECT_EQ(errorOf(a, b, huge),
            "gemm: c: is 64x16 with leading dimension 4294967296: shapes and "
            "leading dimensions past 2^32 - 1 elements are not supported");
  // A column-major C's rows as computed are its columns: 9e6 of them need
  // more than 65535 block rows; 9e6 rows do not.
  Matrix tall = fakeMatrix(DType::F32, 9000000, 16);
  tall.layout = Layout::ColMajor;
  tall.ld = 9000000;
  Matrix wideB = fakeMatrix(DType::F16, 32, 16);
  Matrix tallA = fakeMatrix(DType::F16, 9000000, 32);
  EXPECT_EQ(errorOf(tallA, wideB, tall), "");
  Matrix wideC = fakeMatrix(DType::F32, 16, 9000000);
  wideC.layout = Layout::ColMajor;
  wideC.ld = 16;
  EXPECT_EQ(errorOf(fakeMatrix(DType::F16, 16, 32),
                    fakeMatrix(DType::F16, 32, 9000000), wideC),
            "gemm: c: 9000000 rows (of C as computed: C^T's for a "
            "column-major C) need more than 65535 rows of 128-row block "
            "tiles");
}

/// Layout bits of a GEMM case: column-major A, B, C; every matrix padded
/// (leading dimension 8 past its lines rounded up to 8 elements); the
/// portable mma.sync kernel even on a 9.0 GPU (GemmOptions::portable).
enum : unsigned { kACol = 1, kBCol = 2, kCCol = 4, kPadded = 8,
                  kPortable = 16, kSplitK = 32 };

struct GemmCase {
  int m, n, k;
  float alpha, beta;
  unsigned layout = 0;
  /// The fused epilogue: act(... + bias[col]).
  Activation activation = Activation::None;
  bool bias = false;
  /// A tuning choice gemm() must launch (e.g. "n128c2": the sm_90a kernel
  /// in clusters of two), written as the case's entry in the test's own
  /// tuning file and read by a library loaded for the case; null: the
  /// library's own choice.
  const char *choice = nullptr;
};

double valueOf(float x) { return x; }
template <class T> double valueOf(T x) { return rt::toFloat(x); }

/// Where a `rows` x `cols` matrix of `layout` with leading dimension `ld`
/// keeps element (r, c).
struct Placement {
  bool colMajor;
  std::int64_t rows, cols, ld;
  std::size_t at(std::int64_t r, std::int64_t c) const {
    return std::size_t(colMajor ? c * ld + r : r * ld + c);
  }
  std::size_t size() const { return std::size_t((colMajor ? cols : rows) * ld); }
  template <class T> Matrix matrix(rt::DeviceView<T> view) const {
    Matrix m = Matrix::rowMajor(view, rows, cols, ld);
    m.layout = colMajor ? Layout::ColMajor : Layout::RowMajor;
    return m;
  }
};
Placement place(std::int64_t rows, std::int64_t cols, bool colMajor,
                bool padded) {
  const std::int64_t line = colMajor ? rows : cols;
  return {colMajor, rows, cols, padded ? (line + 7) / 8 * 8 + 8 : line};
}

/// Runs each case through Library::gemm with T (Half or BFloat16) inputs
/// drawn from [-1, 1] and C of type CT (float, or T: one rounding of the
/// f32 result), each matrix in the case's layout, and compares C (and the
/// padding, which must be untouched) with an f64 reference.
template <class T, class CT = float>
void expectGemmMatchesReference(rt::Device &device, Library &lib,
                                std::initializer_list<GemmCase> cases) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const GemmCase &gc : cases) {
    const int m = gc.m, n = gc.n, k = gc.k;
    const float alpha = gc.alpha, beta = gc.beta;
    const bool padded = gc.layout & kPadded;
    const Placement pa = place(m, k, gc.layout & kACol, padded),
                    pb = place(k, n, gc.layout & kBCol, padded),
                    pc = place(m, n, gc.layout & kCCol, padded);
    // Logical values (row-major, dense) and their stored images; padding
    // holds a sentinel.
    std::vector<double> fa(std::size_t(m) * k), fb(std::size_t(k) * n);
    std::vector<T> ha(pa.size(), kaio::test::roundTo16<T>(7.0f)),
        hb(pb.size(), kaio::test::roundTo16<T>(7.0f));
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) {
        T x = kaio::test::roundTo16<T>(dist(rng));
        ha[pa.at(i, p)] = x;
        fa[std::size_t(i) * k + p] = valueOf(x);
      }
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) {
        T x = kaio::test::roundTo16<T>(dist(rng));
        hb[pb.at(p, j)] = x;
        fb[std::size_t(p) * n + j] = valueOf(x);
      }
    auto a = rt::DeviceBuffer<T>::fromHost(device, ha);
    auto b = rt::DeviceBuffer<T>::fromHost(device, hb);
    // C starts as NaN where beta is 0 (it must not be read) and random
    // otherwise; its padding as 3 (must stay).
    std::vector<float> c0(pc.size(), 3.0f);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        c0[pc.at(i, j)] = beta != 0 ? dist(rng) : std::nanf("");
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
    options.activation = gc.activation;
    options.portable = (gc.layout & kPortable) != 0;
    std::vector<CT> biasInit(static_cast<std::size_t>(n));
    std::vector<double> biasValues(std::size_t(n), 0.0);
    for (int j = 0; j < n && gc.bias; ++j) {
      if constexpr (std::is_same_v<CT, float>)
        biasInit[j] = dist(rng);
      else
        biasInit[j] = kaio::test::roundTo16<CT>(dist(rng));
      biasValues[j] = valueOf(biasInit[j]);
    }
    auto bias = rt::DeviceBuffer<CT>::fromHost(device, biasInit);
    ASSERT_TRUE(bias);
    if (gc.bias)
      options.bias = Matrix::rowMajor(bias->view(), 1, n);
    // kSplitK: the workspace gemm() asks for (it must split the case).
    const std::int64_t wsElements =
        gc.layout & kSplitK
            ? lib.gemmWorkspaceElements(pa.matrix(a->view()),
                                        pb.matrix(b->view()),
                                        pc.matrix(c->view()), options)
            : 0;
    if (gc.layout & kSplitK)
      ASSERT_GT(wsElements, 0) << m << "x" << n << "x" << k << ": no split";
    auto ws = rt::DeviceBuffer<float>::allocate(device, wsElements + 4);
    ASSERT_TRUE(ws);
    if (wsElements)
      options.workspace = Matrix::vector(ws->view(), wsElements);
    std::optional<Library> forced;
    if (gc.choice) {
      const std::string key = getGemmTuningKey(
          device.properties().name, pa.matrix(a->view()),
          pb.matrix(b->view()), pc.matrix(c->view()),
          gc.bias || gc.activation != Activation::None, beta != 0);
      ASSERT_TRUE(rt::writeFileAtomically(
          rt::getCacheDirectory() + "/" + kGemmTuningFileName,
          formatGemmTuningTable({{key, gc.choice}})));
      rt::Expected<Library> loaded = Library::load(device);
      ASSERT_TRUE(loaded) << loaded.error().message();
      forced.emplace(std::move(*loaded));
    }
    rt::Error e = (forced ? *forced : lib)
                      .gemm(pa.matrix(a->view()), pb.matrix(b->view()),
                            pc.matrix(c->view()), options);
    ASSERT_FALSE(e) << e.message();
    std::vector<CT> hc(c0.size());
    ASSERT_FALSE(c->copyToHost(hc.data(), hc.size()));
    // A 16-bit C adds one rounding: half an ulp of the value.
    const double rel = std::is_same_v<CT, float>         ? 1e-4
                       : std::is_same_v<CT, rt::BFloat16> ? 1.0 / 256
                                                         : 1.0 / 2048;
    std::vector<double> want(std::size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) {
        double x = fa[std::size_t(i) * k + p];
        for (int j = 0; j < n; ++j)
          want[std::size_t(i) * n + j] += x * fb[std::size_t(p) * n + j];
      }
    // Count every mismatch and show the first few and where they fall (64
    // x 64 blocks of C): the pattern (a row, a column, a tile edge, a
    // cluster's block) says more than the first bad element alone.
    std::size_t wrong = 0;
    std::string examples;
    std::map<std::pair<int, int>, int> blocks;
    std::vector<bool> inside(c0.size());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        inside[pc.at(i, j)] = true;
        double w = alpha * want[std::size_t(i) * n + j];
        if (beta != 0)
          w += double(beta) * c0[pc.at(i, j)];
        w = kaio::test::referenceActivation(gc.activation,
                                            w + biasValues[std::size_t(j)]);
        double got = valueOf(hc[pc.at(i, j)]);
        if (std::fabs(got - w) <= 1e-4 + rel * std::fabs(w))
          continue;
        ++blocks[{i / 64, j / 64}];
        if (wrong++ < 8)
          examples += " (" + std::to_string(i) + ", " + std::to_string(j) +
                      "): " + std::to_string(got) + " vs " +
                      std::to_string(w) + ";";
      }
    for (std::size_t i = 0; i < c0.size(); ++i)
      if (!inside[i] && valueOf(hc[i]) != c0[i] && wrong++ < 8)
        examples += " padding at " + std::to_string(i) + " written;";
    std::string where;
    for (const auto &[block, count] : blocks)
      where += " [" + std::to_string(block.first * 64) + ", " +
               std::to_string(block.second * 64) + "]: " +
               std::to_string(count) + ";";
    EXPECT_EQ(wrong, 0u) << m << "x" << n << "x" << k << " alpha " << alpha
                         << " beta " << beta << " layout " << gc.layout
                         << " activation "
                         << getActivationName(gc.activation) << " bias "
                         << gc.bias << " choice "
                         << (gc.choice ? gc.choice : "(the library's)")
                         << ": " << wrong << " elements differ, first"
                         << examples << "; by 64 x 64 block of C at"
                         << where;
  }
}

/// The value of FP8 code `bits` (E4M3: bias 7, no infinities; E5M2: bias
/// 15), finite codes only.
double fp8Value(std::uint8_t bits, bool e4m3) {
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int e = (bits & 0x7f) >> mbits, m = bits & ((1 << mbits) - 1);
  const double sign = bits & 0x80 ? -1.0 : 1.0;
  return sign * (e ? std::ldexp(1.0 + double(m) / (1 << mbits), e - bias)
                   : std::ldexp(double(m) / (1 << mbits), 1 - bias));
}

/// FP8 A (row-major, M x K) times FP8 B (column-major: N lines of K) into
/// C of CT (float or a 16-bit type) with alpha as the combined scale,
/// against an f64 reference; inputs of magnitude 1/8..2 or zero, of both
/// signs or (`positive`) not: sums that only grow, whose error would grow
/// with K without the kernel's promotion of each K tile's sums.
template <class CT = float>
void expectFp8GemmMatchesReference(rt::Device &device, Library &lib,
                                   DType type,
                                   std::initializer_list<GemmCase> cases,
                                   bool positive = false) {
  const bool e4m3 = type == DType::E4M3;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> mant(0, e4m3 ? 7 : 3),
      sign(0, positive ? 0 : 1), exp(e4m3 ? 4 : 12, e4m3 ? 7 : 15);
  auto sample = [&] {
    return std::uint8_t(sign(rng) << 7 | exp(rng) << (e4m3 ? 3 : 2) |
                        mant(rng));
  };
  for (const GemmCase &gc : cases) {
    const int m = gc.m, n = gc.n, k = gc.k;
    std::vector<std::int8_t> ha(std::size_t(m) * k), hb(std::size_t(n) * k);
    for (auto &x : ha)
      x = std::int8_t(sample());
    for (auto &x : hb)
      x = std::int8_t(sample());
    auto a = rt::DeviceBuffer<std::int8_t>::fromHost(device, ha);
    auto b = rt::DeviceBuffer<std::int8_t>::fromHost(device, hb);
    auto c = rt::DeviceBuffer<CT>::allocate(device, std::size_t(m) * n);
    ASSERT_TRUE(a && b && c);
    Matrix ma = Matrix::rowMajor(std::as_const(*a).view(), m, k);
    Matrix mb = Matrix::rowMajor(std::as_const(*b).view(), n, k);
    std::swap(mb.rows, mb.cols);
    mb.layout = Layout::ColMajor;
    ma.dtype = mb.dtype = type;
    GemmOptions options;
    options.alpha = gc.alpha;
    rt::Error e = lib.gemm(ma, mb, Matrix::rowMajor(c->view(), m, n), options);
    ASSERT_FALSE(e) << e.message();
    std::vector<CT> hc(std::size_t(m) * n);
    ASSERT_FALSE(c->copyToHost(hc.data(), hc.size()));
    const double rel = std::is_same_v<CT, float>         ? 1e-5
                       : std::is_same_v<CT, rt::BFloat16> ? 1.0 / 256
                                                         : 1.0 / 2048;
    std::size_t wrong = 0;
    std::string examples;
    double worst = 0; // the largest error over the sum of |products|
    // The inputs decoded once (the reference's inner loop is then a plain
    // dot product: the cases at K 8192 took most of a minute decoding).
    std::vector<double> fa(ha.size()), fb(hb.size());
    for (std::size_t i = 0; i < ha.size(); ++i)
      fa[i] = fp8Value(std::uint8_t(ha[i]), e4m3);
    for (std::size_t i = 0; i < hb.size(); ++i)
      fb[i] = fp8Value(std::uint8_t(hb[i]), e4m3);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double want = 0, magnitude = 0;
        const double *ra = fa.data() + std::size_t(i) * k,
                     *rb = fb.data() + std::size_t(j) * k;
        for (int p = 0; p < k; ++p) {
          double product = ra[p] * rb[p];
          want += product;
          magnitude += std::fabs(product);
        }
        want *= gc.alpha;
        magnitude *= std::fabs(gc.alpha);
        // The tensor cores keep FP8 sums to about 14 significant bits
        // within a K tile; the kernel promotes each tile's sums to f32.
        // Measured on an H200: errors of 2^-12.6 .. 2^-17 of the sum of
        // |products| with inputs of both signs (K 144 .. 8192), 2^-10.7
        // with positive ones at K 8192 (truncation errors of one sign;
        // without promotion they would add up over the 64 tiles). 2^-9 of
        // the sum of |products| on top of C's own rounding.
        double got = valueOf(hc[std::size_t(i) * n + j]);
        if (magnitude > 0)
          worst = std::max(worst, std::fabs(got - want) / magnitude);
        if (std::fabs(got - want) <=
            1e-3 + rel * std::fabs(want) + magnitude / 512)
          continue;
        if (wrong++ < 8)
          examples += " (" + std::to_string(i) + ", " + std::to_string(j) +
                      "): " + std::to_string(got) + " vs " +
                      std::to_string(want) + ";";
      }
    std::printf("fp8 %s %dx%dx%d: largest error %.3g of the sum of "
                "|products| (2^%.1f)\n",
                getDTypeName(type), m, n, k, worst,
                worst > 0 ? std::log2(worst) : -99.0);
    ASSERT_EQ(wrong, 0u) << getDTypeName(type) << " " << m << "x" << n << "x"
                         << k << ": " << wrong << " elements differ, first"
                         << examples;
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

/// s8 and tf32 through gemm() against references, on the kernel gemm()
/// picks (sm_90a on a 9.0 GPU) and on the portable mma.sync one: exact s32
/// sums accumulated into C, dequantized f16, and tf32 (inputs rounded to
/// tf32 on the host, so that products are exact whichever way a kernel
/// rounds) within f32 accumulation.
TEST_P(GemmTest, Int8AndTf32MatchAReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(-127, 127);
  std::uniform_real_distribution<float> unit(-1, 1);
  for (bool portable : {false, true})
    for (auto [m, n, k] : {std::array<int, 3>{130, 70, 96},
                           {257, 300, 512}, {17, 136, 48}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k) + (portable ? " portable" : ""));
      const std::size_t mk = std::size_t(m) * k, nk = std::size_t(n) * k,
                        mn = std::size_t(m) * n;
      std::vector<std::int8_t> a8(mk), b8(nk);
      std::vector<float> a32(mk), b32(nk);
      std::vector<std::int32_t> c0(mn);
      for (std::size_t i = 0; i < mk; ++i) {
        a8[i] = std::int8_t(byte(rng));
        a32[i] = kaio::test::roundToTf32(unit(rng));
      }
      for (std::size_t i = 0; i < nk; ++i) {
        b8[i] = std::int8_t(byte(rng));
        b32[i] = kaio::test::roundToTf32(unit(rng));
      }
      for (std::int32_t &x : c0)
        x = byte(rng) * 1000;
      auto da8 = rt::DeviceBuffer<std::int8_t>::fromHost(*device, a8);
      auto db8 = rt::DeviceBuffer<std::int8_t>::fromHost(*device, b8);
      auto da32 = rt::DeviceBuffer<float>::fromHost(*device, a32);
      auto db32 = rt::DeviceBuffer<float>::fromHost(*device, b32);
      auto dc32 = rt::DeviceBuffer<std::int32_t>::fromHost(*device, c0);
      auto dc16 = rt::DeviceBuffer<rt::Half>::allocate(*device, mn);
      auto dcf = rt::DeviceBuffer<float>::allocate(*device, mn);
      ASSERT_TRUE(da8 && db8 && da32 && db32 && dc32 && dc16 && dcf);
      // B given as the N x K weight it usually is: column-major K x N.
      auto kMajorB = [&](const Matrix &w) {
        Matrix t = w;
        std::swap(t.rows, t.cols);
        t.layout = Layout::ColMajor;
        return t;
      };
      const Matrix ma8 = Matrix::rowMajor(std::as_const(*da8).view(), m, k),
                   mb8 = kMajorB(
                       Matrix::rowMajor(std::as_const(*db8).view(), n, k)),
                   ma32 = Matrix::rowMajor(std::as_const(*da32).view(), m, k),
                   mb32 = kMajorB(
                       Matrix::rowMajor(std::as_const(*db32).view(), n, k));
      GemmOptions accumulate, dequant, asTf32;
      accumulate.beta = 1.0f;
      dequant.alpha = 1.0f / 256;
      asTf32.allowTf32 = true;
      for (GemmOptions *o : {&accumulate, &dequant, &asTf32})
        o->portable = portable;
      rt::Error e = lib->gemm(ma8, mb8, Matrix::rowMajor(dc32->view(), m, n),
                              accumulate);
      ASSERT_FALSE(e) << e.message();
      e = lib->gemm(ma8, mb8, Matrix::rowMajor(dc16->view(), m, n), dequant);
      ASSERT_FALSE(e) << e.message();
      e = lib->gemm(ma32, mb32, Matrix::rowMajor(dcf->view(), m, n), asTf32);
      ASSERT_FALSE(e) << e.message();
      std::vector<std::int32_t> c32(mn);
      std::vector<rt::Half> c16(mn);
      std::vector<float> cf(mn);
      ASSERT_FALSE(dc32->copyToHost(c32.data(), mn));
      ASSERT_FALSE(dc16->copyToHost(c16.data(), mn));
      ASSERT_FALSE(dcf->copyToHost(cf.data(), mn));
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          std::int64_t sum = 0;
          double f = 0, mag = 0;
          for (int p = 0; p < k; ++p) {
            sum += std::int64_t(a8[std::size_t(i) * k + p]) *
                   b8[std::size_t(j) * k + p];
            double x = double(a32[std::size_t(i) * k + p]) *
                       b32[std::size_t(j) * k + p];
            f += x;
            mag += std::fabs(x);
          }
          const std::size_t at = std::size_t(i) * n + j;
          ASSERT_EQ(c32[at], c0[at] + sum) << "s32 (" << i << ", " << j << ")";
          const double dq = double(sum) / 256;
          ASSERT_NEAR(rt::toFloat(c16[at]), dq, 1e-3 + std::fabs(dq) / 1024)
              << "f16 (" << i << ", " << j << ")";
          ASSERT_NEAR(cf[at], f, 1e-5 * (mag + 1))
              << "tf32 (" << i << ", " << j << ")";
        }
    }
}

/// The sm_90a kernel in clusters of two (B multicast to both blocks of a
/// pair of tile rows), forced through the tuning file: both tile widths,
/// row- and column-major B (64-column boxes, half-tile boxes), beta and a
/// fused epilogue, an odd count of tile rows (the last pair's second tile
/// past M), more units than clusters.
TEST_P(GemmTest, ClusterKernelsMatchAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  if (device->properties().computeCapability() != 90)
    GTEST_SKIP() << "clusters of the sm_90a kernel need a 9.0 GPU";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  const Activation none = Activation::None;
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{300, 264, 72, 1, 0, 0, none, false, "n128c2"},
       {300, 264, 72, 1, 0, kBCol, none, false, "n128c2"},
       {256, 128, 64, 1, 0, 0, none, false, "n128c2"},
       {256, 128, 64, 1, 0, kBCol, none, false, "n128c2"},
       {256, 128, 1024, 1, 0, 0, none, false, "n128c2"},
       {1100, 1040, 200, 0.5f, 1.0f, 0, none, false, "n128c2"},
       {2048, 2304, 64, 1, 0, kBCol, none, false, "n256c2"},
       {1100, 1040, 200, 1, 0, 0, Activation::GeluTanh, true, "n256c2"}});
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib, {{520, 392, 136, 1, 0, kBCol, none, false, "n128c2"}});
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
  // The portable mma.sync kernel (every GPU's path but a 9.0 one's; forced
  // on a 9.0 GPU): bf16, 16-bit C, column-major and padded operands.
  expectGemmMatchesReference<rt::BFloat16>(
      *device, *lib,
      {{300, 264, 72, 1, 0, kPortable},
       {1096, 1040, 200, 0.5f, 1.0f, kPortable | kACol | kBCol}});
  expectGemmMatchesReference<rt::Half, rt::Half>(
      *device, *lib,
      {{300, 264, 72, 1, 0, kPortable | kBCol | kPadded},
       {129, 136, 520, -0.5f, 2.0f, kPortable | kCCol}});
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib, {{1096, 1040, 200, 0.5f, 1.0f, kPortable | kACol}});
  expectGemmMatchesReference<rt::Half>(
      *device, *lib, {{2048, 2304, 64, 1, 0, kPortable | kACol | kPadded}});
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
  // Column-major A, B and C and padded leading dimensions (the sm_90a
  // kernel's transposed shared-memory reads and boxes; C^T = B^T A^T).
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{296, 264, 72, 1, 0, kACol}, {300, 264, 72, 1, 0, kBCol},
       {296, 264, 136, -0.5f, 2.0f, kACol | kBCol | kPadded},
       {1100, 1040, 200, 0.5f, 1.0f, kCCol}, {129, 136, 520, 1, 0, kPadded},
       {2048, 2304, 64, 1, 0, kACol | kCCol | kPadded}});
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib,
      {{300, 264, 72, 1, 0, kBCol | kPadded},
       {1096, 1040, 200, 0.5f, 1.0f, kACol | kBCol | kCCol}});
  // FP8 (K multiples of 16; alpha the combined per-tensor scale).
  expectFp8GemmMatchesReference(*device, *lib, DType::E4M3,
                                {{300, 264, 144, 1, 0},
                                 {2048, 2304, 512, 0.25f, 0},
                                 {136, 264, 8192, 0.125f, 0}});
  expectFp8GemmMatchesReference(*device, *lib, DType::E4M3,
                                {{136, 264, 8192, 0.125f, 0}},
                                /*positive=*/true);
  expectFp8GemmMatchesReference<rt::BFloat16>(*device, *lib, DType::E5M2,
                                              {{129, 520, 208, 2, 0}});
  expectFp8GemmMatchesReference<rt::Half>(*device, *lib, DType::E4M3,
                                          {{1100, 1040, 80, 1, 0}});
}

TEST_P(GemmTest, F32MatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  // Full precision on the CUDA cores (row-major, padded, ragged, beta,
  // fused epilogue applied after); tf32 on a 9.0 GPU where allowed (the
  // reference's tolerance covers tf32's 10-bit mantissas only there).
  expectGemmMatchesReference<float>(
      *device, *lib,
      {{1, 1, 1, 1, 0}, {300, 264, 72, 1, 0}, {129, 136, 521, -0.5f, 2.0f},
       {300, 264, 72, 1, 0, kPadded}, {1100, 1040, 200, 0.5f, 1.0f},
       {2048, 2304, 64, 1, 0, 0, Activation::GeluErf, true}});
}

TEST_P(GemmTest, FusedEpiloguesMatchAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  // Fused on a 9.0 GPU (both tile widths, beta, column-major C with its
  // bias along C^T's rows); the product then the element-wise kernel
  // elsewhere.
  const Activation kRelu = Activation::Relu, kSilu = Activation::Silu,
                   kTanh = Activation::GeluTanh, kErf = Activation::GeluErf;
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{300, 264, 72, 1, 0, 0, kRelu, true},
       {2048, 2304, 64, 0.5f, 0, 0, kErf, true},
       {1100, 1040, 200, 0.5f, 1.0f, 0, kSilu, false},
       {129, 136, 520, 1, 0, 0, kTanh, true}});
  if (device->properties().computeCapability() != 90)
    return;
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib,
      {{300, 264, 72, 1, 0, kPadded, kTanh, true},
       {2048, 2304, 64, -0.5f, 2.0f, 0, kSilu, true},
       {1100, 1040, 200, 1, 0, kCCol, kErf, true}});
  expectGemmMatchesReference<rt::Half, rt::Half>(
      *device, *lib, {{296, 264, 136, 1, 0, kACol | kBCol, kRelu, true}});
  // Split K (decode-like M, a workspace): the partial sums' reduction
  // applies alpha, beta, the bias and the activation; a column-major C.
  expectGemmMatchesReference<rt::Half>(
      *device, *lib,
      {{16, 4096, 4096, 1, 0, kSplitK, Activation::None, false},
       {128, 1000, 2056, 0.5f, -1.0f, kSplitK, kSilu, true},
       {40, 264, 1024, 1, 0, kSplitK | kCCol | kBCol, kRelu, true}});
  expectGemmMatchesReference<rt::BFloat16, rt::BFloat16>(
      *device, *lib, {{100, 512, 3000, 1, 0, kSplitK, kTanh, true}});
}

INSTANTIATE_TEST_SUITE_P(Backends, GemmTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

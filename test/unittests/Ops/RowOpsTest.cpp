//===- RowOpsTest.cpp - softmax and the norms: validation, dispatch, results -===//
//
// Validation needs no device; the fake CUDA driver shows which kernel is
// launched (dtype and vector variant) with which grid, and that bad input
// launches nothing; on a GPU the results are compared with f64 references
// (the kernels themselves are checked in the interpreter by
// RowKernelsTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include "Kaio/Ops/Library.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;

namespace {

Matrix fake(DType type, std::int64_t rows, std::int64_t cols,
            CUdeviceptr at = 0x100000, std::int64_t ld = 0) {
  return kaio::test::fakeMatrix(type, rows, cols, at, ld);
}

std::string softmaxError(const Matrix &x, const Matrix &out,
                         SoftmaxOptions o = {}) {
  rt::Error e = validateSoftmax(x, out, o);
  return e ? e.message() : std::string();
}
std::string rmsError(const Matrix &x, const Matrix &out,
                     const NormOptions &o = {}) {
  rt::Error e = validateRmsNorm(x, out, o);
  return e ? e.message() : std::string();
}
std::string layerError(const Matrix &x, const Matrix &out,
                       const NormOptions &o = {}) {
  rt::Error e = validateLayerNorm(x, out, o);
  return e ? e.message() : std::string();
}

TEST(RowOpsValidation, AcceptsEveryFloatTypeAndInPlace) {
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Matrix x = fake(t, 5, 33, 0x100000, 40);
    EXPECT_EQ(softmaxError(x, fake(t, 5, 33, 0x200000)), "");
    EXPECT_EQ(softmaxError(x, x), "") << "in place";
    NormOptions o;
    o.weight = fake(t, 1, 33, 0x300000);
    o.bias = fake(t, 33, 1, 0x310000);
    o.mean = fake(DType::F32, 1, 5, 0x320000);
    o.rstd = fake(DType::F32, 5, 1, 0x330000);
    o.residual = fake(t, 5, 33, 0x400000);
    o.residualOut = x; // hidden state updated in place
    EXPECT_EQ(layerError(x, fake(t, 5, 33, 0x200000), o), "");
  }
  // Softmax of empty rows is empty; nothing to do.
  EXPECT_EQ(softmaxError(fake(DType::F32, 3, 0), fake(DType::F32, 3, 0)), "");
}

TEST(RowOpsValidation, NamesTheOpAndTheArgument) {
  Matrix x = fake(DType::F16, 4, 64), out = fake(DType::F16, 4, 64, 0x200000);
  EXPECT_EQ(softmaxError(x, fake(DType::F16, 4, 65, 0x200000)),
            "softmax: out: is 4x65 but x is 4x64");
  EXPECT_EQ(softmaxError(x, fake(DType::F32, 4, 64, 0x200000)),
            "softmax: out: dtype f32 differs from x's f16");
  EXPECT_EQ(softmaxError(x, fake(DType::F16, 4, 64, 0x100010)),
            "softmax: out: overlaps x without being the same matrix "
            "(in-place use needs the same pointer and leading dimension)");
  SoftmaxOptions badMask;
  badMask.causalRows = -1;
  EXPECT_EQ(softmaxError(x, out, badMask),
            "softmax: causalRows: must be in [0, 2^31), got -1");
  SoftmaxOptions nanScale;
  nanScale.scale = NAN;
  EXPECT_EQ(softmaxError(x, out, nanScale),
            "softmax: scale: must be finite, got nan");
  rt::Error e = validateSoftmax(fake(DType::S8, 4, 64), out);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(),
            "softmax: x: dtype s8 is not supported (f32, f16 or bf16)");
  Matrix odd = x;
  odd.data = 0x100001;
  EXPECT_EQ(softmaxError(odd, out),
            "softmax: x: device pointer is not aligned to its 2-byte "
            "elements");

  EXPECT_EQ(rmsError(fake(DType::F16, 4, 0), fake(DType::F16, 4, 0)),
            "rms_norm: x: rows of length 0 have no norm (x is 4x0)");
  NormOptions o;
  o.eps = -1;
  EXPECT_EQ(rmsError(x, out, o),
            "rms_norm: eps: must be a finite number >= 0, got -1.000000");
  o = {};
  o.weight = fake(DType::F16, 1, 63, 0x300000);
  EXPECT_EQ(rmsError(x, out, o),
            "rms_norm: weight: is 1x63 but must be a contiguous vector of 64 "
            "elements (one per column of x)");
  o.weight = fake(DType::BF16, 1, 64, 0x300000);
  EXPECT_EQ(rmsError(x, out, o),
            "rms_norm: weight: dtype bf16 but must be f16");
  o = {};
  o.bias = fake(DType::F16, 1, 64, 0x300000);
  EXPECT_EQ(rmsError(x, out, o), "rms_norm: bias: RMSNorm takes no bias");
  o = {};
  o.mean = fake(DType::F32, 1, 4, 0x300000);
  EXPECT_EQ(rmsError(x, out, o),
            "rms_norm: mean: RMSNorm has no mean output (only rstd)");
  o = {};
  o.rstd = fake(DType::F16, 1, 4, 0x300000);
  EXPECT_EQ(layerError(x, out, o),
            "layer_norm: rstd: dtype f16 but must be f32");
  o.rstd = fake(DType::F32, 4, 1, 0x300000, 2);
  EXPECT_EQ(layerError(x, out, o),
            "layer_norm: rstd: is 4x1 but must be a contiguous vector of 4 "
            "elements (one per row of x)");
  o = {};
  o.residual = fake(DType::F16, 4, 64, 0x400000);
  EXPECT_EQ(layerError(x, out, o),
            "layer_norm: residualOut: is required with residual (it receives "
            "x + residual)");
  o.residualOut = fake(DType::F16, 4, 64, 0x200010);
  EXPECT_EQ(layerError(x, out, o),
            "layer_norm: residualOut: overlaps out without being the same "
            "matrix (in-place use needs the same pointer and leading "
            "dimension)");
  o = {};
  o.residualOut = fake(DType::F16, 4, 64, 0x400000);
  EXPECT_EQ(layerError(x, out, o),
            "layer_norm: residualOut: is given without residual");
  Matrix colMajor = x;
  colMajor.layout = Layout::ColMajor;
  colMajor.ld = 4;
  e = validateLayerNorm(colMajor, out);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
}

class RowOpsTest : public BackendTest {};

TEST_P(RowOpsTest, PicksTheKernelForTheTypeAndAlignment) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, 2 * 16392);
  auto fbuf = rt::DeviceBuffer<float>::allocate(*device, 16392);
  ASSERT_TRUE(buf && fbuf);
  // bf16, 16-byte aligned rows: the 8-wide vector kernel, a block per row,
  // the row held in registers: one 16-byte chunk a thread holds 2048.
  Matrix x = Matrix::rowMajor(buf->view(), 7, 1100, 1104);
  ASSERT_FALSE(lib->softmax(x, x));
  EXPECT_STREQ(counters->lastKernel, "softmax_regs1_bf16_v8");
  EXPECT_EQ(counters->lastGrid[0], 7u);
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // The fewest chunks that hold the row (2049 columns: two; 4096: two),
  // up to 16384 bf16 columns (eight); longer rows are walked (read twice).
  Matrix two = Matrix::rowMajor(buf->view(), 2, 2049, 2056);
  ASSERT_FALSE(lib->softmax(two, two));
  EXPECT_STREQ(counters->lastKernel, "softmax_regs2_bf16_v8");
  two.cols = two.ld = 4096;
  ASSERT_FALSE(lib->logSoftmax(two, two));
  EXPECT_STREQ(counters->lastKernel, "log_softmax_regs2_bf16_v8");
  Matrix most = Matrix::rowMajor(buf->view(), 2, 16384, 16392);
  ASSERT_FALSE(lib->softmax(most, most));
  EXPECT_STREQ(counters->lastKernel, "softmax_regs8_bf16_v8");
  // Eight chunks' worth spread over 512 threads of four.
  EXPECT_EQ(counters->lastBlock[0], 512u);
  ASSERT_FALSE(lib->logSoftmax(two, two));
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // A zero scale walks the row (the register-row kernels mask by the
  // scale's sign).
  SoftmaxOptions zero;
  zero.scale = 0.0f;
  ASSERT_FALSE(lib->softmax(most, most, zero));
  EXPECT_STREQ(counters->lastKernel, "softmax_bf16_v8");
  EXPECT_EQ(counters->lastBlock[0], 256u);
  Matrix longer = Matrix::rowMajor(buf->view(), 2, 16385, 16392);
  ASSERT_FALSE(lib->softmax(longer, longer));
  EXPECT_STREQ(counters->lastKernel, "softmax_bf16_v8");
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // Short rows: a warp per row, 8 rows a block.
  SoftmaxOptions causal;
  causal.causalRows = 7;
  ASSERT_FALSE(lib->softmax(Matrix::rowMajor(buf->view(), 20, 64),
                            Matrix::rowMajor(buf->view(), 20, 64), causal));
  EXPECT_STREQ(counters->lastKernel, "softmax_warp_bf16_v8");
  EXPECT_EQ(counters->lastGrid[0], 3u);
  // A leading dimension that is not a multiple of 8: scalar accesses.
  ASSERT_FALSE(lib->logSoftmax(Matrix::rowMajor(buf->view(), 3, 1100, 1101),
                               Matrix::rowMajor(buf->view(), 3, 1100, 1101)));
  EXPECT_STREQ(counters->lastKernel, "log_softmax_bf16");
  // f32 norms with stats: the 4-wide kernel.
  Matrix fx = Matrix::rowMajor(fbuf->view(), 3, 64);
  NormOptions o;
  o.rstd = Matrix::vector(fbuf->view().subview(3000, 3), 3);
  ASSERT_FALSE(lib->rmsNorm(fx, fx, o));
  EXPECT_STREQ(counters->lastKernel, "rms_norm_regs1_f32_v4");
  // Up to 8192 f32 columns in registers.
  Matrix wide = Matrix::rowMajor(fbuf->view(), 1, 8192);
  ASSERT_FALSE(lib->layerNorm(wide, wide));
  EXPECT_STREQ(counters->lastKernel, "layer_norm_regs8_f32_v4");
  EXPECT_EQ(counters->lastBlock[0], 512u);
  wide = Matrix::rowMajor(fbuf->view(), 1, 8193, 8196);
  ASSERT_FALSE(lib->rmsNorm(wide, wide));
  EXPECT_STREQ(counters->lastKernel, "rms_norm_f32_v4");
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // 8192 columns of a stride that is not 16-byte aligned: the scalar
  // walking kernel, 256 threads.
  wide = Matrix::rowMajor(fbuf->view(), 2, 8192, 8193);
  ASSERT_FALSE(lib->layerNorm(wide, wide));
  EXPECT_STREQ(counters->lastKernel, "layer_norm_f32");
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // A weight that is not 16-byte aligned: scalar.
  o.weight = Matrix::vector(fbuf->view().subview(1001, 64), 64);
  ASSERT_FALSE(lib->layerNorm(fx, fx, o));
  EXPECT_STREQ(counters->lastKernel, "layer_norm_f32");
  // Bad input and empty input launch nothing.
  int launches = counters->launches;
  o.weight = Matrix::vector(fbuf->view().subview(1000, 63), 63);
  rt::Error e = lib->layerNorm(fx, fx, o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::InvalidValue);
  ASSERT_FALSE(lib->softmax(Matrix::rowMajor(fbuf->view(), 0, 64),
                            Matrix::rowMajor(fbuf->view(), 0, 64)));
  EXPECT_EQ(counters->launches, launches);
}

TEST_P(RowOpsTest, APointerTheGpuCannotUseIsNamedAsTheOpsArgument) {
  // Both backends: the pointer check asks the driver (fake or real) about a
  // malloc'ed host array; through the fake, nothing is launched either.
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  if (device->properties().pageableMemoryAccess)
    GTEST_SKIP() << "the device reads pageable host memory (HMM/ATS): a "
                    "host pointer is usable";
  FakeCudaCounters *counters = isFake() ? getFakeCounters() : nullptr;
  auto launchCount = [&] { return counters ? counters->launches : 0; };
  auto fbuf = rt::DeviceBuffer<float>::allocate(*device, 4096);
  ASSERT_TRUE(fbuf);
  std::vector<float> host(64, 1.0f);
  rt::DeviceView<const float> hostView(
      CUdeviceptr(reinterpret_cast<std::uintptr_t>(host.data())), 64);
  Matrix x = Matrix::rowMajor(fbuf->view(), 3, 64);
  NormOptions o;
  o.weight = Matrix::vector(hostView, 64);
  int launches = launchCount();
  rt::Error e = lib->layerNorm(x, x, o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::InvalidValue);
  EXPECT_NE(e.message().find("layer_norm: launching kernel "),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("argument 3 (weight, ptr<const f32>): 0x"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(launchCount(), launches);
  // An input matrix (softmax's x).
  e = lib->softmax(Matrix::rowMajor(hostView, 1, 64),
                   Matrix::rowMajor(fbuf->view(), 1, 64));
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("argument 1 (x, ptr<const f32>)"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(launchCount(), launches);
}

// On a GPU: every dtype and variant against f64 references.
TEST_P(RowOpsTest, MatchesF64ReferencesOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3, 3);
  // Register rows of 1, 2, 4 and 8 chunks a thread (1000 f32 columns: a
  // softmax on the warp kernel), 8192 the longest; 100003: a walked row.
  for (std::int64_t n : {1, 37, 1000, 2048, 4096, 8192, 100003})
    for (std::int64_t ld : {n, n + 1}) {
      const std::int64_t rows = n > 5000 ? 2 : 9;
      std::vector<float> hx(rows * ld), hw(n);
      for (float &v : hx)
        v = dist(rng);
      for (float &v : hw)
        v = 1 + dist(rng) / 4;
      auto x = rt::DeviceBuffer<float>::fromHost(*device, hx);
      auto w = rt::DeviceBuffer<float>::fromHost(*device, hw);
      auto out = rt::DeviceBuffer<float>::allocate(*device, rows * ld);
      auto rstd = rt::DeviceBuffer<float>::allocate(*device, rows);
      ASSERT_TRUE(x && w && out && rstd);
      Matrix mx = Matrix::rowMajor(x->view(), rows, n, ld);
      Matrix mo = Matrix::rowMajor(out->view(), rows, n, ld);
      std::vector<float> got(rows * ld), gotRstd(rows);
      // softmax
      ASSERT_FALSE(lib->softmax(mx, mo));
      ASSERT_FALSE(out->copyToHost(got.data(), got.size()));
      for (std::int64_t r = 0; r < rows; ++r) {
        double m = -INFINITY, s = 0;
        for (std::int64_t c = 0; c < n; ++c)
          m = std::max(m, double(hx[r * ld + c]));
        for (std::int64_t c = 0; c < n; ++c)
          s += std::exp(hx[r * ld + c] - m);
        for (std::int64_t c = 0; c < n; ++c) {
          double want = std::exp(hx[r * ld + c] - m) / s;
          ASSERT_NEAR(got[r * ld + c], want, 1e-5 * want + 1e-9)
              << "softmax n=" << n << " ld=" << ld;
        }
      }
      // rms_norm with weight and rstd
      NormOptions o;
      o.weight = Matrix::vector(w->view(), n);
      o.rstd = Matrix::vector(rstd->view(), rows);
      ASSERT_FALSE(lib->rmsNorm(mx, mo, o));
      ASSERT_FALSE(out->copyToHost(got.data(), got.size()));
      ASSERT_FALSE(rstd->copyToHost(gotRstd.data(), gotRstd.size()));
      for (std::int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (std::int64_t c = 0; c < n; ++c)
          ss += double(hx[r * ld + c]) * hx[r * ld + c];
        double rs = 1 / std::sqrt(ss / n + 1e-5);
        ASSERT_NEAR(gotRstd[r], rs, 2e-5 * rs);
        for (std::int64_t c = 0; c < n; ++c) {
          double want = hx[r * ld + c] * rs * hw[c];
          ASSERT_NEAR(got[r * ld + c], want, 2e-5 * (std::fabs(want) + 0.05))
              << "rms_norm n=" << n << " ld=" << ld;
        }
      }
      // log_softmax of -0.5 x under a causal mask (row r keeps columns up
      // to r % 3 + n - 3): the register-row kernels mask with +inf.
      SoftmaxOptions so;
      so.scale = -0.5f;
      so.causalRows = 3;
      so.causalOffset = std::int32_t(n) - 3;
      ASSERT_FALSE(lib->logSoftmax(mx, mo, so));
      ASSERT_FALSE(out->copyToHost(got.data(), got.size()));
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t keep = std::min<std::int64_t>(n, r % 3 + n - 2);
        double m = -INFINITY, s = 0;
        for (std::int64_t c = 0; c < keep; ++c)
          m = std::max(m, -0.5 * hx[r * ld + c]);
        for (std::int64_t c = 0; c < keep; ++c)
          s += std::exp(-0.5 * hx[r * ld + c] - m);
        for (std::int64_t c = 0; c < n; ++c) {
          double v = got[r * ld + c];
          if (c >= keep) {
            ASSERT_EQ(v, -INFINITY) << "log_softmax n=" << n << " col " << c;
            continue;
          }
          double want = -0.5 * hx[r * ld + c] - m - std::log(s);
          ASSERT_NEAR(v, want, 1e-5 * (std::fabs(want) + std::fabs(m) + 1))
              << "log_softmax n=" << n << " ld=" << ld;
        }
      }
      // layer_norm with weight and bias (the weight as the bias too)
      o.bias = o.weight;
      o.rstd = Matrix();
      ASSERT_FALSE(lib->layerNorm(mx, mo, o));
      ASSERT_FALSE(out->copyToHost(got.data(), got.size()));
      for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (std::int64_t c = 0; c < n; ++c)
          mean += hx[r * ld + c];
        mean /= n;
        for (std::int64_t c = 0; c < n; ++c)
          var += (hx[r * ld + c] - mean) * (hx[r * ld + c] - mean);
        double rs = 1 / std::sqrt(var / n + 1e-5);
        for (std::int64_t c = 0; c < n; ++c) {
          double want = (hx[r * ld + c] - mean) * rs * hw[c] + hw[c];
          ASSERT_NEAR(got[r * ld + c], want, 2e-5 * (std::fabs(want) + 1))
              << "layer_norm n=" << n << " ld=" << ld;
        }
      }
      // softmax backward: dx = y (dy - sum(dy y)) with y = the softmax of
      // x above (recomputed) and dy = x
      ASSERT_FALSE(lib->softmax(mx, mo));
      std::vector<float> hy(rows * ld);
      ASSERT_FALSE(out->copyToHost(hy.data(), hy.size()));
      auto dx = rt::DeviceBuffer<float>::allocate(*device, rows * ld);
      ASSERT_TRUE(dx);
      ASSERT_FALSE(lib->softmaxBackward(
          mo, mx, Matrix::rowMajor(dx->view(), rows, n, ld)));
      ASSERT_FALSE(dx->copyToHost(got.data(), got.size()));
      for (std::int64_t r = 0; r < rows; ++r) {
        double dot = 0, mag = 0;
        for (std::int64_t c = 0; c < n; ++c) {
          dot += double(hy[r * ld + c]) * hx[r * ld + c];
          mag += std::fabs(double(hy[r * ld + c]) * hx[r * ld + c]);
        }
        for (std::int64_t c = 0; c < n; ++c) {
          double y = hy[r * ld + c];
          double want = y * (hx[r * ld + c] - dot);
          ASSERT_NEAR(got[r * ld + c], want,
                      1e-5 * y * (std::fabs(hx[r * ld + c]) + mag) + 1e-12)
              << "softmax_backward n=" << n << " ld=" << ld;
        }
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, RowOpsTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

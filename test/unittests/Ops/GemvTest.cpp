//===- GemvTest.cpp - kaio::ops::gemv: validation, dispatch, results ------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;
using kaio::test::fakeMatrix;
using kaio::test::messageOf;

namespace {

TEST(GemvValidation, NamesTheArgument) {
  Matrix a = fakeMatrix(DType::BF16, 64, 100, 0x100000);
  Matrix x = fakeMatrix(DType::BF16, 1, 100, 0x200000);
  Matrix y = fakeMatrix(DType::BF16, 64, 1, 0x300000);
  EXPECT_EQ(messageOf(validateGemv(a, x, y)), "");
  EXPECT_EQ(messageOf(validateGemv(a, fakeMatrix(DType::BF16, 1, 99, 0x200000),
                                   y)),
            "gemv: x: is 1x99 but must be a contiguous vector of 100 "
            "elements (one per column of a)");
  EXPECT_EQ(messageOf(validateGemv(a, x, fakeMatrix(DType::F32, 1, 64,
                                                    0x300000))),
            "gemv: y: dtype f32 but must be bf16");
  EXPECT_EQ(messageOf(validateGemv(a, x, fakeMatrix(DType::BF16, 1, 64,
                                                    0x200010))),
            "gemv: y: overlaps x");
  GemvOptions o;
  o.bias = fakeMatrix(DType::BF16, 1, 63, 0x400000);
  EXPECT_EQ(messageOf(validateGemv(a, x, y, o)),
            "gemv: bias: is 1x63 but must be a contiguous vector of 64 "
            "elements (one per row of a)");
  Matrix colMajor = a;
  colMajor.layout = Layout::ColMajor;
  colMajor.ld = 64;
  rt::Error e = validateGemv(colMajor, x, y);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
}

TEST(GemvValidation, TransposedNeedsItsWorkspace) {
  Matrix a = fakeMatrix(DType::F16, 4096, 64, 0x1000000);
  Matrix x = fakeMatrix(DType::F16, 1, 4096, 0x2000000);
  Matrix y = fakeMatrix(DType::F16, 1, 64, 0x3000000);
  // 64 columns: one block across, so 256 slices of 16 rows.
  EXPECT_EQ(gemvTransposedWorkspaceElements(4096, 64), 256 * 64);
  GemvOptions o;
  o.workspace = fakeMatrix(DType::F32, 1, 256 * 64 - 1, 0x4000000);
  EXPECT_EQ(messageOf(validateGemvTransposed(a, x, y, o)),
            "gemv_t: workspace: must be a contiguous f32 vector of at least "
            "16384 elements (gemvTransposedWorkspaceElements)");
  o.workspace.cols += 1;
  o.workspace.ld += 1;
  EXPECT_EQ(messageOf(validateGemvTransposed(a, x, y, o)), "");
  EXPECT_EQ(messageOf(validateGemvTransposed(a, y, y, o)),
            "gemv_t: x: is 1x64 but must be a contiguous vector of 4096 "
            "elements (one per row of a)");
}

class GemvTest : public BackendTest {};

TEST_P(GemvTest, LaunchesAWarpPerRow) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<float>::allocate(*device, 1 << 16);
  ASSERT_TRUE(buf);
  Matrix a = Matrix::rowMajor(buf->view().subview(0, 30000), 100, 256);
  Matrix x = Matrix::vector(buf->view().subview(40000, 256), 256);
  Matrix y = Matrix::vector(buf->view().subview(50000, 100), 100);
  ASSERT_FALSE(lib->gemv(a, x, y));
  EXPECT_STREQ(counters->lastKernel, "gemv_f32_v4");
  EXPECT_EQ(counters->lastGrid[0], 13u); // ceil(100 / 8 warps)
  EXPECT_EQ(counters->lastBlock[0], 256u);
  Matrix odd = Matrix::rowMajor(buf->view().subview(1, 30000), 100, 256);
  ASSERT_FALSE(lib->gemv(odd, x, y));
  EXPECT_STREQ(counters->lastKernel, "gemv_f32");
  int launches = counters->launches;
  EXPECT_TRUE(lib->gemv(a, x, Matrix::vector(buf->view().subview(40000, 100),
                                             100)));
  EXPECT_EQ(counters->launches, launches);
  // xᵀ A: the slices, then their sum.
  GemvOptions o;
  o.workspace = Matrix::vector(buf->view().subview(52000, 10000), 10000);
  ASSERT_FALSE(lib->gemvTransposed(
      a, Matrix::vector(buf->view().subview(40000, 100), 100),
      Matrix::vector(buf->view().subview(50000, 256), 256), o));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "gemv_t_reduce_f32");
}

TEST_P(GemvTest, MatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto [m, k] : {std::pair{1, 1}, std::pair{37, 1001},
                      std::pair{4096, 4096}}) {
    std::vector<float> ha(size_t(m) * k), hx(k), hb(m);
    for (float &v : ha)
      v = dist(rng);
    for (float &v : hx)
      v = dist(rng);
    for (float &v : hb)
      v = dist(rng);
    auto a = rt::DeviceBuffer<float>::fromHost(*device, ha);
    auto x = rt::DeviceBuffer<float>::fromHost(*device, hx);
    auto b = rt::DeviceBuffer<float>::fromHost(*device, hb);
    auto y = rt::DeviceBuffer<float>::allocate(*device, m);
    ASSERT_TRUE(a && x && b && y);
    GemvOptions o;
    o.bias = Matrix::vector(b->view(), m);
    ASSERT_FALSE(lib->gemv(Matrix::rowMajor(a->view(), m, k),
                           Matrix::vector(x->view(), k),
                           Matrix::vector(y->view(), m), o));
    std::vector<float> hy(m);
    ASSERT_FALSE(y->copyToHost(hy.data(), hy.size()));
    for (int i = 0; i < m; ++i) {
      double want = hb[i], mag = std::fabs(want);
      for (int j = 0; j < k; ++j) {
        want += double(ha[size_t(i) * k + j]) * hx[j];
        mag += std::fabs(double(ha[size_t(i) * k + j]) * hx[j]);
      }
      ASSERT_NEAR(hy[i], want, 1e-6 * mag + 1e-6) << m << "x" << k << " " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, GemvTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

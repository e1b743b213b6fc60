//===- ElementwiseOpsTest.cpp - activations, GLUs, adds: checks, dispatch --===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include "Kaio/Ops/Library.h"

#include <gtest/gtest.h>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;

namespace {

Matrix fake(DType type, std::int64_t rows, std::int64_t cols,
            CUdeviceptr at = 0x100000) {
  return kaio::test::fakeMatrix(type, rows, cols, at);
}
std::string message(const rt::Error &e) { return kaio::test::messageOf(e); }

TEST(ElementwiseValidation, NamesTheOpAndTheArgument) {
  Matrix x = fake(DType::BF16, 8, 96), out = fake(DType::BF16, 8, 96, 0x200000);
  EXPECT_EQ(message(validateBiasActivation(x, x, Activation::GeluTanh)), "");
  ElementwiseOptions o;
  o.bias = fake(DType::BF16, 1, 95, 0x300000);
  EXPECT_EQ(message(validateBiasActivation(x, out, Activation::Relu, o)),
            "bias_activation: bias: is 1x95 but must be a contiguous vector "
            "of 96 elements (one per column of x)");
  EXPECT_EQ(message(validateGatedActivation(x, fake(DType::BF16, 8, 97),
                                            out, Activation::Silu)),
            "gated_activation: up: is 8x97 but gate is 8x96");
  EXPECT_EQ(message(validateGatedActivation(x, fake(DType::F16, 8, 96,
                                                    0x400000),
                                            out, Activation::Silu)),
            "gated_activation: up: dtype f16 differs from gate's bf16");
  EXPECT_EQ(message(validateGatedActivation(x, x, out, Activation::Relu)),
            "gated_activation: act: gated activations are silu (SwiGLU), "
            "gelu_tanh or gelu_erf (GeGLU), not relu");
  EXPECT_EQ(message(validateAdd(x, fake(DType::BF16, 8, 96, 0x400000),
                                fake(DType::BF16, 8, 96, 0x100040))),
            "add: out: overlaps a without being the same matrix (in-place "
            "use needs the same pointer and leading dimension)");
  EXPECT_EQ(message(validateAdd(x, x, x)), "") << "in place";

  Matrix q = fake(DType::BF16, 8, 96, 0x100000);
  Matrix pos = fake(DType::S32, 1, 8, 0x500000);
  Matrix cosT = fake(DType::F32, 128, 16, 0x600000);
  Matrix sinT = fake(DType::F32, 128, 16, 0x700000);
  EXPECT_EQ(message(validateRope(q, q, pos, cosT, sinT, 3)), "");
  EXPECT_EQ(message(validateRope(q, q, pos, cosT, sinT, 5)),
            "rope: heads: 5 does not divide the 96 columns of x");
  EXPECT_EQ(message(validateRope(fake(DType::BF16, 8, 93), fake(DType::BF16,
                                                                  8, 93,
                                                                  0x200000),
                                 pos, cosT, sinT, 3)),
            "rope: heads: head_dim 31 is odd (rotary pairs need an even "
            "head_dim)");
  EXPECT_EQ(message(validateRope(q, q, pos, fake(DType::F32, 128, 15,
                                                 0x600000),
                                 sinT, 3)),
            "rope: cos: must be a row-major f32 table [max_pos, 16], is f32 "
            "128x15");
}

class ElementwiseOpsTest : public BackendTest {};

TEST_P(ElementwiseOpsTest, LaunchesTheVariantOverRowsAndChunks) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<rt::Half>::allocate(*device, 1 << 20);
  ASSERT_TRUE(buf);
  // 70000 rows of 3000 f16: 375 chunks of 8 -> 2 blocks across, rows capped
  // at 65535 blocks down (the kernel strides over the rest).
  Matrix gate = Matrix::rowMajor(buf->view().subview(0, 4000), 1, 3000);
  gate.rows = 70000;
  gate.capacityBytes = 0;
  // (Addresses the fake driver never dereferences, 1 GiB apart: past the
  // allocation, so the launch's pointer checks are off.)
  ScopedEnv unchecked("KAIO_CHECK_POINTERS", "0");
  Matrix up = gate, out = gate;
  up.data += 1ull << 30;
  out.data += 2ull << 30;
  rt::Error e = lib->gatedActivation(gate, up, out, Activation::Silu);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "glu_silu_f16_v8");
  EXPECT_EQ(counters->lastGrid[0], 2u);
  EXPECT_EQ(counters->lastGrid[1], 65535u);
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // An odd leading dimension: scalar.
  Matrix x = Matrix::rowMajor(buf->view(), 4, 30, 31);
  ASSERT_FALSE(lib->biasActivation(x, x, Activation::GeluErf));
  EXPECT_STREQ(counters->lastKernel, "bias_gelu_erf_f16");
  ASSERT_FALSE(lib->add(x, x, x));
  EXPECT_STREQ(counters->lastKernel, "add_f16");
  int launches = counters->launches;
  EXPECT_TRUE(lib->add(x, Matrix::rowMajor(buf->view(), 4, 29), x));
  EXPECT_EQ(counters->launches, launches);
  // RoPE: aligned rows and tables, 4 heads of 128 (256 pairs a row): 8
  // pairs a thread (half-split: 32 threads) or 4 (interleaved: 64).
  auto table = rt::DeviceBuffer<float>::allocate(*device, 2 * 64 * 64);
  auto pos = rt::DeviceBuffer<std::int32_t>::allocate(*device, 16);
  ASSERT_TRUE(table && pos);
  Matrix q = Matrix::rowMajor(buf->view().subview(0, 16 * 512), 16, 512);
  Matrix cosT = Matrix::rowMajor(table->view().subview(0, 64 * 64), 64, 64);
  Matrix sinT =
      Matrix::rowMajor(table->view().subview(64 * 64, 64 * 64), 64, 64);
  Matrix positions = Matrix::vector(pos->view(), 16);
  ASSERT_FALSE(lib->rope(q, q, positions, cosT, sinT, 4));
  EXPECT_STREQ(counters->lastKernel, "rope_half_f16_v8");
  EXPECT_EQ(counters->lastGrid[0], 1u);
  EXPECT_EQ(counters->lastGrid[1], 16u);
  RopeOptions inter;
  inter.layout = RopeLayout::Interleaved;
  ASSERT_FALSE(lib->rope(q, q, positions, cosT, sinT, 4, inter));
  EXPECT_STREQ(counters->lastKernel, "rope_interleaved_f16_v8");
  EXPECT_EQ(counters->lastGrid[0], 1u);
  // Heads of 12 (half 6, not whole chunks): a thread per pair.
  Matrix q12 = Matrix::rowMajor(buf->view().subview(0, 16 * 48), 16, 48);
  Matrix cos6 = Matrix::rowMajor(table->view().subview(0, 64 * 6), 64, 6);
  Matrix sin6 =
      Matrix::rowMajor(table->view().subview(64 * 64, 64 * 6), 64, 6);
  ASSERT_FALSE(lib->rope(q12, q12, positions, cos6, sin6, 4));
  EXPECT_STREQ(counters->lastKernel, "rope_half_f16");
}

INSTANTIATE_TEST_SUITE_P(Backends, ElementwiseOpsTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

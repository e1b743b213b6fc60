//===- EmbedTest.cpp - kernels embedded by kaio_add_kernels ---------------===//
//
// vector_add (from examples/vector_add.mlir) and fused_silu_gate and
// tiled_matmul (written with the builder, generated at build time) embedded
// for sm_75, sm_80 and sm_90a; the kaio-dialect Hopper examples for sm_90a.
// This binary links only KaioRuntime.
//
//===----------------------------------------------------------------------===//

#include "KaioEmbedTests_kernels.h"
#include "embed_hopper_kernels.h"

#include "Kaio/Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace kaio::rt;

namespace {

TEST(Embed, OnePtxPerChip) {
  ASSERT_EQ(std::size(embed_test::kEmbeddedPtx), 3u);
  const char *chips[] = {"sm_75", "sm_80", "sm_90a"};
  for (std::size_t i = 0; i < 3; ++i) {
    const kaio::embed::EmbeddedPtx &e = embed_test::kEmbeddedPtx[i];
    EXPECT_STREQ(e.chip, chips[i]);
    std::string ptx = e.ptx;
    EXPECT_NE(ptx.find(std::string(".target ") + chips[i]), std::string::npos);
    for (const char *sig :
         {"// kaio.kernel vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,"
          "u32)",
          "// kaio.kernel fused_silu_gate(ptr<const f32>,ptr<const f32>,"
          "ptr<f32>,u32)",
          "// kaio.kernel tiled_matmul(ptr<const f32>,ptr<const f32>,"
          "ptr<f32>,s32,s32,s32)"})
      EXPECT_NE(ptx.find(sig), std::string::npos) << chips[i] << ": " << sig;
  }
}

TEST(Embed, PicksThePtxForTheDevice) {
  auto pick = [](int cc) -> std::string {
    const kaio::embed::EmbeddedPtx *e = kaio::embed::selectPtx(
        embed_test::kEmbeddedPtx, std::size(embed_test::kEmbeddedPtx), cc);
    return e ? e->chip : "none";
  };
  EXPECT_EQ(pick(70), "none");
  EXPECT_EQ(pick(75), "sm_75");
  EXPECT_EQ(pick(80), "sm_80");
  EXPECT_EQ(pick(86), "sm_80");
  EXPECT_EQ(pick(89), "sm_80");
  EXPECT_EQ(pick(90), "sm_90a"); // arch-specific: only on its own chip
  EXPECT_EQ(pick(100), "sm_80");
  EXPECT_EQ(pick(120), "sm_80");
}

TEST(Embed, CubinsAssembledAtBuildTime) {
  // Where ptxas was found at build time, every chip's PTX comes with the
  // cubin it assembles to (an ELF image).
  if (!embed_test::kEmbeddedPtx[0].cubin)
    GTEST_SKIP() << "built without ptxas: PTX only";
  for (const kaio::embed::EmbeddedPtx &e : embed_test::kEmbeddedPtx) {
    ASSERT_TRUE(e.cubin) << e.chip;
    ASSERT_GT(e.cubinSize, 4u);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(e.cubin), 4),
              "\x7f" "ELF")
        << e.chip;
  }
  // A cubin runs on its major version at the same or a higher minor; an
  // arch-specific one only on its own chip; otherwise the PTX is loaded.
  const kaio::embed::EmbeddedPtx &sm80 = embed_test::kEmbeddedPtx[1];
  const kaio::embed::EmbeddedPtx &sm90a = embed_test::kEmbeddedPtx[2];
  EXPECT_TRUE(kaio::embed::cubinRunsOn(sm80, 80));
  EXPECT_TRUE(kaio::embed::cubinRunsOn(sm80, 86));
  EXPECT_TRUE(kaio::embed::cubinRunsOn(sm80, 89));
  EXPECT_FALSE(kaio::embed::cubinRunsOn(sm80, 75));
  EXPECT_FALSE(kaio::embed::cubinRunsOn(sm80, 90));
  EXPECT_TRUE(kaio::embed::cubinRunsOn(sm90a, 90));
  EXPECT_FALSE(kaio::embed::cubinRunsOn(sm90a, 100));
  kaio::embed::EmbeddedPtx ptxOnly = sm80;
  ptxOnly.cubin = nullptr;
  EXPECT_FALSE(kaio::embed::cubinRunsOn(ptxOnly, 80));
}

TEST(Embed, LaunchBlockSizes) {
  Dim3 va = embed_test::Kernels::vector_add_block();
  EXPECT_EQ(va.x, 256u);
  Dim3 mm = embed_test::Kernels::tiled_matmul_block();
  EXPECT_EQ(mm.x, 16u);
  EXPECT_EQ(mm.y, 16u);
}

/// The device, or a skip when there is none.
#define REQUIRE_GPU(device)                                                    \
  Expected<int> count = getDeviceCount();                                      \
  if (!count || *count == 0)                                                   \
    GTEST_SKIP() << "no GPU";                                                  \
  Expected<Device> device = Device::open(0);                                   \
  ASSERT_TRUE(device) << device.error().message()

TEST(Embed, RunsOnTheGpu) {
  REQUIRE_GPU(device);
  Expected<embed_test::Kernels> k = embed_test::Kernels::load(*device);
  ASSERT_TRUE(k) << k.error().message();

  const std::uint32_t n = 777;
  std::vector<float> a(n), b(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = -3.0f + 6.0f * i / n;
    b[i] = 1.0f + 0.125f * (i % 5);
  }
  auto da = DeviceBuffer<float>::fromHost(*device, a);
  auto db = DeviceBuffer<float>::fromHost(*device, b);
  auto dc = DeviceBuffer<float>::allocate(*device, n);
  ASSERT_TRUE(da && db && dc);
  LaunchConfig config;
  config.block = embed_test::Kernels::vector_add_block();
  config.grid = Dim3((n + 255) / 256);

  ASSERT_FALSE(k->vector_add(config, *da, *db, *dc, n));
  Expected<std::vector<float>> c = dc->toHost();
  ASSERT_TRUE(c);
  for (std::uint32_t i = 0; i < n; ++i)
    ASSERT_EQ((*c)[i], a[i] + b[i]) << i;

  ASSERT_FALSE(k->fused_silu_gate(config, *da, *db, *dc, n));
  c = dc->toHost();
  ASSERT_TRUE(c);
  for (std::uint32_t i = 0; i < n; ++i) {
    double x = a[i], want = x / (1 + std::exp(-x)) * b[i];
    ASSERT_NEAR((*c)[i], want, 1e-5 * std::max(1.0, std::fabs(want))) << i;
  }

  // C (M x N) = A (M x K) x B (K x N) at ragged sizes.
  // tiled_matmul's sizes are int32_t parameters: the launch takes int32_t.
  const std::int32_t M = 37, N = 29, K = 45;
  std::vector<float> A(M * K), B(K * N);
  for (std::size_t i = 0; i < A.size(); ++i)
    A[i] = float(int(i % 11) - 5) / 4;
  for (std::size_t i = 0; i < B.size(); ++i)
    B[i] = float(int(i % 7) - 3) / 2;
  auto dA = DeviceBuffer<float>::fromHost(*device, A);
  auto dB = DeviceBuffer<float>::fromHost(*device, B);
  auto dC = DeviceBuffer<float>::allocate(*device, M * N);
  ASSERT_TRUE(dA && dB && dC);
  LaunchConfig mm;
  mm.block = embed_test::Kernels::tiled_matmul_block();
  mm.grid = Dim3((N + 15) / 16, (M + 15) / 16);
  ASSERT_FALSE(k->tiled_matmul(mm, *dA, *dB, *dC, M, N, K));
  Expected<std::vector<float>> C = dC->toHost();
  ASSERT_TRUE(C);
  for (std::int32_t r = 0; r < M; ++r)
    for (std::int32_t col = 0; col < N; ++col) {
      double want = 0;
      for (std::int32_t i = 0; i < K; ++i)
        want += double(A[r * K + i]) * B[i * N + col];
      ASSERT_NEAR((*C)[r * N + col], want, 1e-4) << r << "," << col;
    }
}

/// A 128-byte-swizzled tensor map over a row-major rows x cols matrix of
/// `elem` at `at`, in boxes of 128 bytes of a row x `boxRows` rows.
Expected<TensorMap> swizzledMap(const Device &device, CUdeviceptr at,
                                ScalarType elem, std::uint64_t rows,
                                std::uint64_t cols, std::uint32_t boxRows) {
  const std::uint64_t size = getScalarTypeSize(elem);
  TensorMapDesc d;
  d.elem = elem;
  d.rank = 2;
  d.address = at;
  d.dims[0] = cols;
  d.dims[1] = rows;
  d.strides[0] = size;
  d.strides[1] = cols * size;
  d.box[0] = std::uint32_t(128 / size);
  d.box[1] = boxRows;
  d.swizzle = TensorMapSwizzle::B128;
  return makeTensorMap(device, d);
}
/// The same over a row-major f16 matrix (boxes of 64 columns).
Expected<TensorMap> halfMap(const Device &device, const DeviceBuffer<Half> &m,
                            std::uint64_t rows, std::uint64_t cols,
                            std::uint32_t boxRows) {
  return swizzledMap(device, m.ptr(), ScalarType::F16, rows, cols, boxRows);
}

/// Rounded f16 values of a pattern, and the f32 they stand for.
std::vector<Half> halves(std::size_t n, unsigned seed, std::vector<float> &f) {
  std::vector<Half> h(n);
  f.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = toHalf(float(int((i * 7 + seed * 13) % 17) - 8) / 8.0f);
    f[i] = toFloat(h[i]);
  }
  return h;
}

// examples/hopper_gemm.mlir, hopper_gemm_fp8.mlir and hopper_attention.mlir
// on a 9.0 GPU at ragged shapes against f64 references (the interpreter
// checks them in CI).
TEST(Embed, HopperExamplesOnTheGpu) {
  REQUIRE_GPU(device);
  if (device->properties().computeCapability() != 90)
    GTEST_SKIP() << "sm_90a kernels need a 9.0 GPU";
  Expected<embed_hopper::Kernels> k = embed_hopper::Kernels::load(*device);
  ASSERT_TRUE(k) << k.error().message();

  // GEMM: 3 x 2 tiles of 128 x 256, one block each,
  // ragged in M and N, K = 200 (a partial K tile).
  const std::uint32_t M = 300, N = 456, K = 200;
  std::vector<float> af, bf;
  std::vector<Half> a = halves(size_t(M) * K, 1, af), b = halves(size_t(K) * N, 2, bf);
  auto da = DeviceBuffer<Half>::fromHost(*device, a);
  auto db = DeviceBuffer<Half>::fromHost(*device, b);
  auto dc = DeviceBuffer<float>::allocate(*device, size_t(M) * N);
  ASSERT_TRUE(da && db && dc);
  Expected<TensorMap> ma = halfMap(*device, *da, M, K, 128);
  Expected<TensorMap> mb = halfMap(*device, *db, K, N, 64);
  ASSERT_TRUE(ma && mb);
  LaunchConfig config;
  config.block = embed_hopper::Kernels::hopper_gemm_block();
  config.grid = Dim3(6);
  ASSERT_FALSE(k->hopper_gemm(config, *ma, *mb, *dc, M, N, K));
  Expected<std::vector<float>> c = dc->toHost();
  ASSERT_TRUE(c);
  for (std::uint32_t i = 0; i < M; ++i)
    for (std::uint32_t j = 0; j < N; ++j) {
      double want = 0;
      for (std::uint32_t kk = 0; kk < K; ++kk)
        want += double(af[i * K + kk]) * bf[kk * N + j];
      ASSERT_NEAR((*c)[i * N + j], want, 1e-3 + 1e-5 * std::fabs(want))
          << i << ", " << j;
    }

  // The FP8 GEMM (E4M3 A, B^T given as N x K; scale 0.25): the same shape
  // with K = 208 (two K tiles of 128, the second partial). Codes of
  // magnitude 1/8..2 and their exact values.
  {
    const std::uint32_t K8 = 208;
    auto codes = [](std::size_t n, int seed, std::vector<float> &f) {
      std::vector<std::int8_t> h(n);
      f.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        int e = 4 + int((i * 5 + seed) % 4), m = int((i * 3 + seed) % 8),
            sg = int((i / 3 + seed) % 2);
        h[i] = std::int8_t(sg << 7 | e << 3 | m);
        f[i] = (sg ? -1.0f : 1.0f) * std::ldexp(1.0f + m / 8.0f, e - 7);
      }
      return h;
    };
    std::vector<float> a8f, b8f;
    std::vector<std::int8_t> a8 = codes(size_t(M) * K8, 1, a8f),
                             bt8 = codes(size_t(N) * K8, 2, b8f);
    auto da8 = DeviceBuffer<std::int8_t>::fromHost(*device, a8);
    auto db8 = DeviceBuffer<std::int8_t>::fromHost(*device, bt8);
    ASSERT_TRUE(da8 && db8);
    auto byteMap = [&](const DeviceBuffer<std::int8_t> &buf, std::uint32_t rows,
                       std::uint32_t boxRows) {
      return swizzledMap(*device, buf.ptr(), ScalarType::U8, rows, K8, boxRows);
    };
    Expected<TensorMap> ma8 = byteMap(*da8, M, 128), mb8 = byteMap(*db8, N, 128);
    ASSERT_TRUE(ma8 && mb8);
    config.block = embed_hopper::Kernels::hopper_gemm_fp8_block();
    config.grid = Dim3(6);
    ASSERT_FALSE(k->hopper_gemm_fp8(config, *ma8, *mb8, *dc, M, N, K8, 0.25f));
    Expected<std::vector<float>> c8 = dc->toHost();
    ASSERT_TRUE(c8);
    for (std::uint32_t i = 0; i < M; ++i)
      for (std::uint32_t j = 0; j < N; ++j) {
        double want = 0, magnitude = 0;
        for (std::uint32_t kk = 0; kk < K8; ++kk) {
          double product = double(a8f[i * K8 + kk]) * b8f[j * K8 + kk];
          want += product;
          magnitude += std::fabs(product);
        }
        want *= 0.25;
        // The tensor cores keep FP8 sums to about 14 significant bits; the
        // example promotes each K tile's sums into f32 as the library
        // does. Before it did (whole-K sums in the tensor cores), an H200
        // gave 2^-9.8 of the sum of |products| at K 208; the library's
        // promoted kernel 2^-12.6 at K 144 (docs/perf.md). Allowed: 2^-9,
        // the library's test's allowance (not yet run on a GPU since the
        // example promotes).
        ASSERT_NEAR((*c8)[i * N + j], want,
                    1e-3 + 1e-5 * std::fabs(want) + 0.25 * magnitude / 512)
            << "fp8 " << i << ", " << j;
      }
  }

  // Attention, d = 64: two blocks of 128 queries (the second partial),
  // three key blocks of 64 (the last masked).
  const std::uint32_t sq = 200, sk = 150, d = 64;
  std::vector<float> qf, kf, vf;
  std::vector<Half> q = halves(size_t(sq) * d, 3, qf),
                    kk = halves(size_t(sk) * d, 4, kf),
                    v = halves(size_t(sk) * d, 5, vf);
  auto dq = DeviceBuffer<Half>::fromHost(*device, q);
  auto dk = DeviceBuffer<Half>::fromHost(*device, kk);
  auto dv = DeviceBuffer<Half>::fromHost(*device, v);
  auto dout = DeviceBuffer<float>::allocate(*device, size_t(sq) * d);
  ASSERT_TRUE(dq && dk && dv && dout);
  Expected<TensorMap> mq = halfMap(*device, *dq, sq, d, 128);
  Expected<TensorMap> mk = halfMap(*device, *dk, sk, d, 64);
  Expected<TensorMap> mv = halfMap(*device, *dv, sk, d, 64);
  ASSERT_TRUE(mq && mk && mv);
  config.block = embed_hopper::Kernels::hopper_attention_block();
  config.grid = Dim3((sq + 127) / 128);
  const float scale = 0.125f;
  ASSERT_FALSE(
      k->hopper_attention(config, *mq, *mk, *mv, *dout, sq, sk, scale));
  Expected<std::vector<float>> o = dout->toHost();
  ASSERT_TRUE(o);
  for (std::uint32_t i = 0; i < sq; ++i) {
    std::vector<double> p(sk);
    double mx = -INFINITY, sum = 0;
    for (std::uint32_t j = 0; j < sk; ++j) {
      double s = 0;
      for (std::uint32_t e = 0; e < d; ++e)
        s += double(qf[i * d + e]) * kf[j * d + e];
      mx = std::max(mx, p[j] = s * scale);
    }
    for (double &x : p)
      sum += (x = std::exp(x - mx));
    for (std::uint32_t e = 0; e < d; ++e) {
      double want = 0;
      for (std::uint32_t j = 0; j < sk; ++j)
        want += p[j] * vf[j * d + e];
      want /= sum;
      // P is rounded to f16 before P V.
      ASSERT_NEAR((*o)[i * d + e], want, 2e-3 + 1e-2 * std::fabs(want))
          << i << ", " << e;
    }
  }
}

} // namespace

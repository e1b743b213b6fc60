//===- HopperGemmKernelsTest.cpp - the TMA + wgmma GEMM in the interpreter ===//
//
// The warp-specialised sm_90a GEMM against an f64 reference at ragged
// shapes (TMA zero-fills the edges; the epilogue masks them), for f16 and
// bf16, plus its profile: only TMA moves data into shared memory, the
// consumers issue exactly the wgmmas the tile needs.
//
//===----------------------------------------------------------------------===//

#include "HopperTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

/// (bf16, block N, M, N, K).
using HopperGemmTest =
    HopperKernelsTest<std::tuple<bool, unsigned, unsigned, unsigned, unsigned>>;

TEST_P(HopperGemmTest, MatchesF64AtRaggedShapes) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const auto [bf16, blockN, m, n, k] = GetParam();
  HopperGemmConfig config;
  config.bf16 = bf16;
  config.blockN = blockN;
  std::mt19937 rng(m * 131 + n * 7 + k);
  std::vector<double> a, b;
  std::vector<uint16_t> aBits = sample16(rng, size_t(m) * k, bf16, a);
  std::vector<uint16_t> bBits = sample16(rng, size_t(k) * n, bf16, b);

  // C in f32, then in A's 16-bit type; padded to an odd ldc (scalar
  // stores), then to an even one (pair stores where beta is 0): the
  // epilogue honours ldc either way.
  const interp::FloatFormat fmt16 = bf16 ? interp::kBF16 : interp::kF16;
  for (bool out16 : {false, true})
  for (unsigned pad : {3u, 4u}) {
  SCOPED_TRACE(std::string(out16 ? "16-bit" : "f32") + " C, ldc = n + " +
               std::to_string(pad));
  config.out16 = out16;
  interp::Interpreter in(**module);
  uint64_t ga = in.allocGlobal(aBits.size() * 2);
  uint64_t gb = in.allocGlobal(bBits.size() * 2);
  const unsigned ldc = n + pad;
  const unsigned cBytes = out16 ? 2 : 4;
  uint64_t gc = in.allocGlobal(size_t(m) * ldc * cBytes);
  in.write(ga, aBits);
  in.write(gb, bBits);
  // C starts as a known pattern (exact in 16 bits too): C = 1.5 A B -
  // 0.5 C (and beta = 0 below must not read it).
  std::vector<float> c0(size_t(m) * ldc);
  for (size_t i = 0; i < c0.size(); ++i)
    c0[i] = float(i % 13) - 6.0f;
  std::vector<uint16_t> c0Bits(c0.size());
  for (size_t i = 0; i < c0.size(); ++i)
    c0Bits[i] = uint16_t(interp::fromDouble(c0[i], fmt16,
                                            interp::RoundMode::NearestEven));
  if (out16)
    in.write(gc, c0Bits);
  else
    in.write(gc, c0);
  // 256-column tiles take beta 0 only (WideTilesTrapOnNonZeroBeta).
  const float alpha = 1.5f,
              beta = (m + n) % 2 || blockN == 256 || pad == 4 ? 0.0f : -0.5f;
  uint64_t mapA = tensorMap16(in, ga, bf16, {k, m}, {1, k},
                              {config.blockK, config.blockM});
  uint64_t mapB =
      tensorMap16(in, gb, bf16, {n, k}, {1, n}, {64, config.blockK});
  interp::LaunchOptions options;
  options.dynamicSharedBytes =
      config.stages * (config.blockM + config.blockN) * config.blockK * 2;
  interp::Profile profile;
  options.profile = &profile;
  // Persistent: fewer blocks than tiles (block 0 also takes tile 3, ...).
  const uint64_t tiles = uint64_t((n + config.blockN - 1) / config.blockN) *
                         ((m + config.blockM - 1) / config.blockM);
  interp::Dim3 grid(unsigned(std::min<uint64_t>(tiles, 3)));
  interp::LaunchResult r =
      in.launch(hopperGemmName(config), grid, {384},
                {mapA, mapB, gc, m, n, k, ldc, interp::Interpreter::argF32(alpha),
                 interp::Interpreter::argF32(beta)},
                options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<double> c(size_t(m) * ldc);
  if (out16) {
    std::vector<uint16_t> bits(c.size());
    in.read(gc, bits);
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = interp::toDouble(bits[i], fmt16);
  } else {
    std::vector<float> f(c.size());
    in.read(gc, f);
    c.assign(f.begin(), f.end());
  }
  // One rounding to the 16-bit type: half an ulp (2^-8 of the value for
  // bf16, 2^-11 for f16) on top of the f32 accumulation's error.
  const double rel = !out16 ? 0.0 : bf16 ? 1.0 / 256 : 1.0 / 2048;
  for (unsigned i = 0; i < m; ++i)
    for (unsigned j = 0; j < ldc; ++j) {
      if (j >= n) {
        ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j])
            << "padding written at " << i << ", " << j;
        continue;
      }
      double want = 0;
      for (unsigned p = 0; p < k; ++p)
        want += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      want = alpha * want + (beta != 0 ? beta * c0[i * ldc + j] : 0.0);
      ASSERT_NEAR(c[i * ldc + j], want,
                  1e-3 * std::sqrt(double(k)) + rel * std::fabs(want))
          << "C(" << i << ", " << j << ")";
    }
  // Data reaches shared memory only through TMA; every consumer warp issues
  // BK/16 wgmmas per k tile (2 consumer warpgroups x 4 warps).
  const interp::KernelProfile *kp = profile.find(hopperGemmName(config));
  ASSERT_NE(kp, nullptr);
  for (const auto &[kind, count] : kp->mix)
    EXPECT_TRUE(kind.rfind("st.shared", 0) != 0 &&
                kind.rfind("cp.async.16B", 0) != 0)
        << kind << ": " << count;
  const uint64_t kTiles = (k + config.blockK - 1) / config.blockK;
  // One thread issues A's box and B's BN/64 boxes per k tile.
  EXPECT_EQ(kp->mix.at("cp.async.bulk.tensor.load"),
            tiles * kTiles * (1 + config.blockN / 64));
  EXPECT_EQ(kp->mmaFlops.at(bf16 ? "bf16" : "f16"),
            tiles * kTiles * (config.blockK / 16) * 8 * 2ull * 16 *
                config.blockN * 16);
  // Pair stores (8 bytes of f32, or two 16-bit values packed in 4) where
  // C's rows are aligned to a pair.
  const bool pairs = pad == 4 && beta == 0;
  EXPECT_EQ(kp->mix.count(out16 ? "st.global.4B" : "st.global.8B") != 0,
            pairs);
  }
}

using HopperGemmTrapTest = HopperKernelsTest<int>;

/// The 128 x 256 variant never reads C: beta != 0 is a trap, not a wrong
/// result.
TEST_F(HopperGemmTrapTest, WideTilesTrapOnNonZeroBeta) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  HopperGemmConfig config;
  config.blockN = 256;
  interp::Interpreter in(**module);
  const unsigned m = 64, n = 256, k = 64;
  uint64_t ga = in.allocGlobal(size_t(m) * k * 2);
  uint64_t gb = in.allocGlobal(size_t(k) * n * 2);
  uint64_t gc = in.allocGlobal(size_t(m) * n * 4);
  uint64_t mapA = tensorMap16(in, ga, false, {k, m}, {1, k},
                              {config.blockK, config.blockM});
  uint64_t mapB = tensorMap16(in, gb, false, {n, k}, {1, n}, {64, config.blockK});
  interp::LaunchOptions options;
  options.dynamicSharedBytes =
      config.stages * (config.blockM + config.blockN) * config.blockK * 2;
  interp::LaunchResult r = in.launch(
      hopperGemmName(config), {1}, {384},
      {mapA, mapB, gc, m, n, k, n, interp::Interpreter::argF32(1.0f),
       interp::Interpreter::argF32(0.5f)},
      options);
  ASSERT_FALSE(r.success);
  EXPECT_NE(r.message().find("trap executed"), std::string::npos) << r.message();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HopperGemmTest,
    ::testing::Values(std::make_tuple(false, 128u, 1u, 8u, 8u),
                      std::make_tuple(false, 128u, 130u, 136u, 72u),
                      std::make_tuple(true, 128u, 17u, 40u, 200u),
                      std::make_tuple(false, 128u, 256u, 256u, 256u),
                      std::make_tuple(false, 128u, 520u, 264u, 136u),
                      std::make_tuple(true, 128u, 64u, 64u, 64u),
                      std::make_tuple(false, 256u, 130u, 264u, 72u),
                      // Two rasterization groups of 8 tile rows.
                      std::make_tuple(false, 128u, 1100u, 136u, 8u),
                      std::make_tuple(true, 256u, 300u, 520u, 64u)));

} // namespace

//===- HopperGemmKernelsTest.cpp - the TMA + wgmma GEMM in the interpreter ===//
//
// The warp-specialised sm_90a GEMM against an f64 reference at ragged
// shapes (TMA zero-fills the edges; the epilogue masks them), for f16,
// bf16, e4m3 and e5m2 inputs in every layout they take, plus its profile: only TMA moves data into shared memory, the
// consumers issue exactly the wgmmas the tile needs.
//
//===----------------------------------------------------------------------===//

#include "HopperTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>
#include <cstring>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

/// Layout bits of a test case: a column-major A, a column-major B, A and B
/// padded (a leading dimension 8 past their 16-byte-rounded lines).
enum : unsigned { kACol = 1, kBCol = 2, kPadded = 4 };

/// (input type, block N, M, N, K, layout bits).
using HopperGemmTest = HopperKernelsTest<
    std::tuple<GemmElem, unsigned, unsigned, unsigned, unsigned, unsigned>>;

/// `count` FP8 values (e4m3 or e5m2) with magnitudes in [1/8, 2) or zero:
/// their bits and their exact values, decoded here independently of the
/// interpreter (E4M3: bias 7, 3 mantissa bits; E5M2: bias 15, 2).
std::vector<uint8_t> sample8(std::mt19937 &rng, size_t count, bool e4m3,
                             std::vector<double> &values) {
  const unsigned mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  std::uniform_int_distribution<unsigned> mant(0, (1u << mbits) - 1),
      exp(bias - 3, bias), sign(0, 1), zero(0, 15);
  std::vector<uint8_t> bits(count);
  values.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (zero(rng) == 0) {
      bits[i] = 0;
      values[i] = 0;
      continue;
    }
    unsigned e = exp(rng), m = mant(rng), s = sign(rng);
    bits[i] = uint8_t(s << 7 | e << mbits | m);
    values[i] = (s ? -1.0 : 1.0) *
                std::ldexp(1.0 + double(m) / (1u << mbits), int(e) - int(bias));
  }
  return bits;
}

/// A `rows` x `cols` operand stored row- or column-major with leading
/// dimension `ld`: its bytes (the rest zero) and values (row-major, dense,
/// for the reference).
struct Operand {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
  unsigned ld;
};
Operand sampleOperand(std::mt19937 &rng, unsigned rows, unsigned cols,
                      bool colMajor, bool padded, GemmElem type) {
  Operand op;
  const unsigned esz = getGemmElemBytes(type), perLine = 16 / esz;
  const size_t count = size_t(rows) * cols;
  std::vector<uint8_t> dense(count * esz);
  if (esz == 1) {
    dense = sample8(rng, count, type == GemmElem::E4M3, op.values);
  } else {
    std::vector<uint16_t> bits =
        sample16(rng, count, type == GemmElem::BF16, op.values);
    std::memcpy(dense.data(), bits.data(), dense.size());
  }
  const unsigned lines = colMajor ? cols : rows, line = colMajor ? rows : cols;
  op.ld = padded ? (line + perLine - 1) / perLine * perLine + perLine : line;
  op.bytes.assign(size_t(lines) * op.ld * esz, 0);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned c = 0; c < cols; ++c)
      std::memcpy(&op.bytes[(colMajor ? size_t(c) * op.ld + r
                                      : size_t(r) * op.ld + c) *
                            esz],
                  &dense[(size_t(r) * cols + c) * esz], esz);
  return op;
}

TEST_P(HopperGemmTest, MatchesF64AtRaggedShapes) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const auto [inType, blockN, m, n, k, layout] = GetParam();
  HopperGemmConfig config;
  config.in = inType;
  config.blockN = blockN;
  const unsigned esz = getGemmElemBytes(inType);
  config.blockK = 128 / esz;
  config.aColMajor = layout & kACol;
  config.bColMajor = layout & kBCol;
  std::mt19937 rng(m * 131 + n * 7 + k);
  const bool padded = layout & kPadded;
  Operand opA = sampleOperand(rng, m, k, config.aColMajor, padded, inType);
  Operand opB = sampleOperand(rng, k, n, config.bColMajor, padded, inType);
  const std::vector<double> &a = opA.values, &b = opB.values;

  // C in f32, then in a 16-bit type (16-bit inputs: theirs; FP8: f16 and
  // bf16); padded to an odd ldc (scalar stores), then to an even one (pair
  // stores where beta is 0): the epilogue honours ldc either way.
  std::vector<GemmElem> outs = {GemmElem::F32};
  if (esz == 2)
    outs.push_back(inType);
  else
    outs.insert(outs.end(), {GemmElem::F16, GemmElem::BF16});
  for (GemmElem outType : outs)
  for (unsigned pad : {3u, 4u}) {
  SCOPED_TRACE(std::string(getGemmElemName(outType)) + " C, ldc = n + " +
               std::to_string(pad));
  config.out = outType;
  const bool out16 = outType != GemmElem::F32;
  const interp::FloatFormat fmt16 =
      outType == GemmElem::BF16 ? interp::kBF16 : interp::kF16;
  interp::Interpreter in(**module);
  uint64_t ga = in.allocGlobal(opA.bytes.size());
  uint64_t gb = in.allocGlobal(opB.bytes.size());
  const unsigned ldc = n + pad;
  const unsigned cBytes = out16 ? 2 : 4;
  uint64_t gc = in.allocGlobal(size_t(m) * ldc * cBytes);
  in.write(ga, opA.bytes);
  in.write(gb, opB.bytes);
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
  // The boxes of OpsKernels.h: K-major operands BK x (tile rows),
  // MN-major ones 64 x BK.
  const rt::ScalarType elem = esz == 1 ? rt::ScalarType::U8
                              : inType == GemmElem::BF16 ? rt::ScalarType::BF16
                                                         : rt::ScalarType::F16;
  uint64_t mapA =
      config.aColMajor
          ? tensorMap(in, ga, elem, {m, k}, {1, opA.ld}, {64, config.blockK})
          : tensorMap(in, ga, elem, {k, m}, {1, opA.ld},
                      {config.blockK, config.blockM});
  uint64_t mapB =
      config.bColMajor
          ? tensorMap(in, gb, elem, {k, n}, {1, opB.ld},
                      {config.blockK, config.blockN})
          : tensorMap(in, gb, elem, {n, k}, {1, opB.ld}, {64, config.blockK});
  interp::LaunchOptions options;
  options.dynamicSharedBytes =
      config.stages * (config.blockM + config.blockN) * config.blockK * esz;
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
  // bf16, 2^-11 for f16) on top of the f32 accumulation's error (FP8
  // products reach 4 where 16-bit ones reach 1).
  const double rel = !out16                      ? 0.0
                     : outType == GemmElem::BF16 ? 1.0 / 256
                                                 : 1.0 / 2048;
  const double abs = (esz == 1 ? 4e-3 : 1e-3) * std::sqrt(double(k));
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
                  abs + rel * std::fabs(want))
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
  // One thread issues A's and B's boxes per k tile: one for a K-major
  // operand, one per 64 rows of the tile for an MN-major one.
  const uint64_t boxes = (config.aColMajor ? config.blockM / 64 : 1) +
                         (config.bColMajor ? 1 : config.blockN / 64);
  EXPECT_EQ(kp->mix.at("cp.async.bulk.tensor.load"), tiles * kTiles * boxes);
  EXPECT_EQ(kp->mmaFlops.at(getGemmElemName(inType)),
            tiles * kTiles * 8 * 2ull * 16 * config.blockN * config.blockK);
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

constexpr GemmElem kF16 = GemmElem::F16, kBF16 = GemmElem::BF16,
                   kE4M3 = GemmElem::E4M3, kE5M2 = GemmElem::E5M2;

INSTANTIATE_TEST_SUITE_P(
    Shapes, HopperGemmTest,
    ::testing::Values(std::make_tuple(kF16, 128u, 1u, 8u, 8u, 0u),
                      std::make_tuple(kF16, 128u, 130u, 136u, 72u, 0u),
                      std::make_tuple(kBF16, 128u, 17u, 40u, 200u, 0u),
                      std::make_tuple(kF16, 128u, 256u, 256u, 256u, 0u),
                      std::make_tuple(kF16, 128u, 520u, 264u, 136u, 0u),
                      std::make_tuple(kBF16, 128u, 64u, 64u, 64u, 0u),
                      std::make_tuple(kF16, 256u, 130u, 264u, 72u, 0u),
                      // Two rasterization groups of 8 tile rows.
                      std::make_tuple(kF16, 128u, 1100u, 136u, 8u, 0u),
                      std::make_tuple(kBF16, 256u, 300u, 520u, 64u, 0u)));

// Column-major A and B (transposed reads from shared memory, other boxes)
// and padded leading dimensions, in every combination and both tile
// widths; M ragged (a column-major A's rows are its contiguous lines, so
// they need only be a multiple of 8 with padding).
INSTANTIATE_TEST_SUITE_P(
    Layouts, HopperGemmTest,
    ::testing::Values(std::make_tuple(kF16, 128u, 130u, 136u, 72u, kPadded),
                      std::make_tuple(kF16, 128u, 130u, 136u, 72u,
                                      kACol | kPadded),
                      std::make_tuple(kBF16, 128u, 17u, 136u, 200u, kBCol),
                      std::make_tuple(kF16, 128u, 72u, 40u, 136u,
                                      kACol | kBCol),
                      std::make_tuple(kBF16, 256u, 136u, 264u, 72u,
                                      kACol | kPadded),
                      std::make_tuple(kF16, 256u, 130u, 264u, 136u,
                                      kBCol | kPadded),
                      std::make_tuple(kBF16, 256u, 64u, 520u, 64u,
                                      kACol | kBCol | kPadded)));

// FP8 (A row-major, B column-major: both K-major, 128-element K tiles of
// four k32 wgmmas): K ragged by 16 (16-byte lines), a K tail past one
// tile, padded lines, both tile widths, C f32, f16 and bf16.
INSTANTIATE_TEST_SUITE_P(
    FP8, HopperGemmTest,
    ::testing::Values(std::make_tuple(kE4M3, 128u, 1u, 8u, 16u, kBCol),
                      std::make_tuple(kE4M3, 128u, 130u, 136u, 208u, kBCol),
                      std::make_tuple(kE5M2, 128u, 17u, 40u, 144u,
                                      kBCol | kPadded),
                      std::make_tuple(kE4M3, 256u, 130u, 264u, 80u,
                                      kBCol | kPadded),
                      std::make_tuple(kE5M2, 256u, 64u, 300u, 256u, kBCol)));

} // namespace

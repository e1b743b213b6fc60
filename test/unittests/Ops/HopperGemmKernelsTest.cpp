//===- HopperGemmKernelsTest.cpp - the TMA + wgmma GEMM in the interpreter ===//
//
// The warp-specialised sm_90a GEMM against an f64 reference at ragged
// shapes (TMA zero-fills the edges; the epilogue masks them), for f16,
// bf16, e4m3 and e5m2 inputs in every layout they take, plus its profile: only TMA moves data into shared memory, the
// consumers issue exactly the wgmmas the tile needs.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "HopperTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>
#include <cstring>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

/// Layout bits of a test case: a column-major A, a column-major B, A and B
/// padded (a leading dimension 8 past their 16-byte-rounded lines), the
/// `_c2` kernel in clusters of 2 blocks.
enum : unsigned { kACol = 1, kBCol = 2, kPadded = 4, kCluster = 8 };

/// Tiles the kernel computes (a cluster's last unit may hold a tile past
/// M: computed on zeros, never stored) and the boxes its TMA loads.
struct GemmWork {
  uint64_t tiles, boxes;
};
GemmWork gemmWork(const HopperGemmConfig &c, unsigned m, unsigned n,
                  unsigned k) {
  const uint64_t tilesM = (m + c.blockM - 1) / c.blockM,
                 units = (tilesM + c.clusterM - 1) / c.clusterM,
                 tilesN = (n + c.blockN - 1) / c.blockN,
                 kTiles = (k + c.blockK - 1) / c.blockK;
  // Per k tile of a unit: A's boxes for each of its tiles (one K-major,
  // one per 64 rows MN-major); B's once for the unit (K-major: one box,
  // split in clusterM parts; MN-major: one per 64 columns).
  const uint64_t aBoxes = c.aColMajor ? c.blockM / 64 : 1;
  const uint64_t bBoxes = c.bColMajor ? c.clusterM : c.blockN / 64;
  return {units * c.clusterM * tilesN,
          units * tilesN * kTiles * (c.clusterM * aBoxes + bBoxes)};
}

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
  if (type == GemmElem::S8) {
    // Any s8 (products up to 2^14: sums exact in s32, and in the f64
    // reference).
    std::uniform_int_distribution<int> dist(-128, 127);
    op.values.resize(count);
    for (size_t i = 0; i < count; ++i) {
      int8_t x = int8_t(dist(rng));
      dense[i] = uint8_t(x);
      op.values[i] = x;
    }
  } else if (esz == 1) {
    dense = sample8(rng, count, type == GemmElem::E4M3, op.values);
  } else if (esz == 4) {
    // f32 in [-1, 1); the tensor core multiplies tf32, the top 19 bits (the
    // reference takes those: the low 13 mantissa bits must not count).
    std::uniform_real_distribution<float> dist(-1, 1);
    op.values.resize(count);
    for (size_t i = 0; i < count; ++i) {
      float x = dist(rng);
      std::memcpy(&dense[i * 4], &x, 4);
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      bits &= ~uint32_t(0x1fff);
      std::memcpy(&x, &bits, 4);
      op.values[i] = x;
    }
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

/// The interpreter's element type of a GEMM input's tensor map.
rt::ScalarType mapElem(GemmElem type) {
  return getGemmElemBytes(type) == 1 ? rt::ScalarType::U8
         : type == GemmElem::F32     ? rt::ScalarType::F32
         : type == GemmElem::BF16    ? rt::ScalarType::BF16
                                     : rt::ScalarType::F16;
}

/// Launches `config`'s kernel on A and B (uploaded here) and C at `gc`
/// (m x n, ldc) on a persistent grid of at most 3 blocks (block 0 also
/// takes work unit 3, ...), with the fused epilogue's `bias` and
/// `epilogue` arguments and K split in `kps` k tiles (0: not split), each
/// split's C `cSplit` bytes after the last; returns the launch and fills
/// `profile`.
interp::LaunchResult launchGemm(interp::Interpreter &in,
                                const HopperGemmConfig &config,
                                const Operand &opA, const Operand &opB,
                                uint64_t gc, unsigned m, unsigned n,
                                unsigned k, unsigned ldc, float alpha,
                                float beta, uint64_t bias, uint32_t epilogue,
                                interp::Profile &profile, unsigned kps = 0,
                                uint64_t cSplit = 0) {
  uint64_t ga = in.allocGlobal(opA.bytes.size());
  uint64_t gb = in.allocGlobal(opB.bytes.size());
  in.write(ga, opA.bytes);
  in.write(gb, opB.bytes);
  // The boxes of OpsKernels.h (hopperGemmBoxA/B).
  const rt::ScalarType elem = mapElem(config.in);
  const HopperGemmBox boxA = hopperGemmBoxA(config),
                      boxB = hopperGemmBoxB(config);
  uint64_t mapA =
      config.aColMajor
          ? tensorMap(in, ga, elem, {m, k}, {1, opA.ld}, {boxA.inner, boxA.outer})
          : tensorMap(in, ga, elem, {k, m}, {1, opA.ld},
                      {boxA.inner, boxA.outer});
  uint64_t mapB =
      config.bColMajor
          ? tensorMap(in, gb, elem, {k, n}, {1, opB.ld}, {boxB.inner, boxB.outer})
          : tensorMap(in, gb, elem, {n, k}, {1, opB.ld},
                      {boxB.inner, boxB.outer});
  interp::LaunchOptions options;
  options.dynamicSharedBytes = hopperGemmSharedBytes(config);
  options.profile = &profile;
  options.cluster = {config.clusterM};
  // Units: tiles (pairs of tiles in a cluster) times splits.
  const uint64_t units =
      uint64_t((n + config.blockN - 1) / config.blockN) *
      ((m + config.blockM * config.clusterM - 1) /
       (config.blockM * config.clusterM));
  const unsigned kTiles = (k + config.blockK - 1) / config.blockK;
  if (!kps)
    kps = kTiles;
  const uint64_t splits = (kTiles + kps - 1) / kps;
  // At most 3 blocks, or 2 clusters, so some walk several units.
  interp::Dim3 grid(config.clusterM *
                    unsigned(std::min<uint64_t>(
                        units * splits, config.clusterM > 1 ? 2 : 3)));
  return in.launch(hopperGemmName(config), grid, {384},
                   {mapA, mapB, gc, m, n, k, ldc,
                    interp::Interpreter::argF32(alpha),
                    interp::Interpreter::argF32(beta), bias, epilogue, kps,
                    cSplit},
                   options);
}

/// `values` stored as C's type (f32, or 16-bit rounded to nearest even).
void writeOut(interp::Interpreter &in, uint64_t address, GemmElem type,
              const std::vector<float> &values) {
  if (type == GemmElem::F32) {
    in.write(address, values);
    return;
  }
  if (type == GemmElem::S32) {
    in.write(address, std::vector<int32_t>(values.begin(), values.end()));
    return;
  }
  const interp::FloatFormat fmt =
      type == GemmElem::BF16 ? interp::kBF16 : interp::kF16;
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = uint16_t(
        interp::fromDouble(values[i], fmt, interp::RoundMode::NearestEven));
  in.write(address, bits);
}
/// `count` elements of C's type at `address`, as doubles.
std::vector<double> readOut(interp::Interpreter &in, uint64_t address,
                            GemmElem type, size_t count) {
  std::vector<double> c(count);
  if (type == GemmElem::F32) {
    std::vector<float> f(count);
    in.read(address, f);
    c.assign(f.begin(), f.end());
    return c;
  }
  if (type == GemmElem::S32) {
    std::vector<int32_t> v(count);
    in.read(address, v);
    c.assign(v.begin(), v.end());
    return c;
  }
  const interp::FloatFormat fmt =
      type == GemmElem::BF16 ? interp::kBF16 : interp::kF16;
  std::vector<uint16_t> bits(count);
  in.read(address, bits);
  for (size_t i = 0; i < count; ++i)
    c[i] = interp::toDouble(bits[i], fmt);
  return c;
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
  config.clusterM = layout & kCluster ? 2 : 1;
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
  else if (esz == 1)
    outs.insert(outs.end(), {GemmElem::F16, GemmElem::BF16});
  // s8: exact s32 sums (128-column tiles only) besides the dequantized Cs.
  if (inType == GemmElem::S8 && blockN == 128)
    outs.push_back(GemmElem::S32);
  for (GemmElem outType : outs)
  for (unsigned pad : {3u, 4u}) {
  SCOPED_TRACE(std::string(getGemmElemName(outType)) + " C, ldc = n + " +
               std::to_string(pad));
  config.out = outType;
  const bool out16 = getGemmElemBytes(outType) == 2;
  interp::Interpreter in(**module);
  const unsigned ldc = n + pad;
  uint64_t gc = in.allocGlobal(size_t(m) * ldc * getGemmElemBytes(outType));
  // C starts as a known pattern (exact in 16 bits too): C = 1.5 A B -
  // 0.5 C (and beta = 0 below must not read it).
  std::vector<float> c0(size_t(m) * ldc);
  for (size_t i = 0; i < c0.size(); ++i)
    c0[i] = float(i % 13) - 6.0f;
  writeOut(in, gc, outType, c0);
  // 256-column tiles read C through the staged epilogue.
  // An s32 C: C = A B or C += A B.
  const bool intOut = outType == GemmElem::S32;
  // s8 sums reach 2^14 k: dequantized by a small alpha (f16's range).
  const float alpha = intOut                    ? 1.0f
                      : inType == GemmElem::S8 ? 1.0f / 1024
                                               : 1.5f,
              beta = (m + n) % 2 || pad == 4 ? 0.0f : intOut ? 1.0f : -0.5f;
  interp::Profile profile;
  interp::LaunchResult r = launchGemm(in, config, opA, opB, gc, m, n, k, ldc,
                                      alpha, beta, gc, 0, profile);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<double> c = readOut(in, gc, outType, size_t(m) * ldc);
  // One rounding to the 16-bit type: half an ulp (2^-8 of the value for
  // bf16, 2^-11 for f16) on top of the f32 accumulation's error (FP8
  // products reach 4 where 16-bit ones reach 1).
  const double rel = !out16                      ? 0.0
                     : outType == GemmElem::BF16 ? 1.0 / 256
                                                 : 1.0 / 2048;
  // tf32: tight enough that reading all 32 bits of the inputs would fail.
  // s8 sums are exact; converted to f32 they round once (relative 2^-24).
  const double abs =
      inType == GemmElem::S8
          ? (intOut ? 0.0 : 1e-6)
          : (esz == 1 ? 4e-3 : esz == 4 ? 2e-5 : 1e-3) * std::sqrt(double(k));
  const double relS8 = inType == GemmElem::S8 && !intOut && !out16 ? 1e-7 : 0;
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
                  abs + (rel + relS8) * std::fabs(want))
          << "C(" << i << ", " << j << ")";
    }
  // Data reaches shared memory only through TMA (and, for beta on wide
  // tiles, the staged epilogue's writes); every consumer warp issues BK/16
  // wgmmas per k tile (2 consumer warpgroups x 4 warps).
  const bool staged = blockN == 256 && beta != 0;
  const interp::KernelProfile *kp = profile.find(hopperGemmName(config));
  ASSERT_NE(kp, nullptr);
  for (const auto &[kind, count] : kp->mix)
    EXPECT_TRUE(kind.rfind("cp.async.16B", 0) != 0 &&
                (staged || kind.rfind("st.shared", 0) != 0))
        << kind << ": " << count;
  const uint64_t kTiles = (k + config.blockK - 1) / config.blockK;
  // One thread per block issues the boxes; in a cluster B's are shared.
  const GemmWork work = gemmWork(config, m, n, k);
  EXPECT_EQ(kp->mix.at("cp.async.bulk.tensor.load"), work.boxes);
  EXPECT_EQ(kp->mmaFlops.at(getGemmMmaTypeName(inType)),
            work.tiles * kTiles * 8 * 2ull * 16 * config.blockN *
                config.blockK);
  // Pair stores (8 bytes of f32, or two 16-bit values packed in 4) where
  // C's rows are aligned to a pair.
  const bool pairs = pad == 4 && beta == 0;
  EXPECT_EQ(kp->mix.count(out16 ? "st.global.4B" : "st.global.8B") != 0,
            pairs);
  }
}

/// Fused epilogue cases: (input type, C's type, block N, M, N, K,
/// activation, bias bits kGemmBiasColumns / kGemmBiasRows or 0).
using HopperGemmEpilogueTest =
    HopperKernelsTest<std::tuple<GemmElem, GemmElem, unsigned, unsigned,
                                 unsigned, unsigned, ops::Activation, unsigned>>;

/// C = act(alpha A B + beta C + bias) through the staged epilogue, with C's
/// rows aligned (vector stores) and not (element stores, beta reading C),
/// against f64; the staging is free of bank conflicts and an aligned C
/// leaves in whole 16-byte (f32) or 8-byte (16-bit) stores.
TEST_P(HopperGemmEpilogueTest, MatchesF64) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const auto [inType, outType, blockN, m, n, k, act, biasBits] = GetParam();
  HopperGemmConfig config;
  config.in = inType;
  config.out = outType;
  config.blockN = blockN;
  const unsigned esz = getGemmElemBytes(inType);
  config.blockK = 128 / esz;
  config.bColMajor = esz == 1; // FP8 reads K-major B only
  std::mt19937 rng(m * 31 + n * 17 + k + unsigned(act));
  Operand opA = sampleOperand(rng, m, k, false, false, inType);
  Operand opB = sampleOperand(rng, k, n, config.bColMajor, false, inType);
  // The bias: exact in every C type.
  const unsigned biasCount = biasBits == kGemmBiasRows ? m : n;
  std::vector<float> bias(biasCount);
  for (unsigned i = 0; i < biasCount; ++i)
    bias[i] = float(int(i % 9) - 4) * 0.25f;
  const uint32_t epilogue = uint32_t(act) | biasBits;
  const bool out16 = getGemmElemBytes(outType) == 2;
  const unsigned cBytes = getGemmElemBytes(outType);
  for (unsigned pad : {0u, 3u}) {
    SCOPED_TRACE("ldc = n + " + std::to_string(pad));
    interp::Interpreter in(**module);
    const unsigned ldc = n + pad;
    uint64_t gc = in.allocGlobal(size_t(m) * ldc * cBytes);
    std::vector<float> c0(size_t(m) * ldc);
    for (size_t i = 0; i < c0.size(); ++i)
      c0[i] = float(i % 11) - 5.0f;
    writeOut(in, gc, outType, c0);
    uint64_t gbias = in.allocGlobal(size_t(biasCount) * cBytes);
    writeOut(in, gbias, outType, bias);
    const float alpha = 0.75f, beta = pad ? -0.5f : 0.0f;
    interp::Profile profile;
    interp::LaunchResult r =
        launchGemm(in, config, opA, opB, gc, m, n, k, ldc, alpha, beta,
                   biasBits ? gbias : gc, epilogue, profile);
    ASSERT_TRUE(r.success) << r.message();
    std::vector<double> c = readOut(in, gc, outType, size_t(m) * ldc);
    // The f32 accumulation's error (the products are exact), scaled by at
    // most the activations' steepest slope (about 1.13), their f32
    // evaluation (a few ulp; erf 3e-7), and one rounding to a 16-bit C.
    // Tight enough for an f32 C to tell GELU's tanh form from erf's (they
    // differ by up to 5e-4).
    const double rel = !out16                      ? 1e-6
                       : outType == GemmElem::BF16 ? 1.0 / 256
                                                   : 1.0 / 2048;
    const double abs = (esz == 1 ? 2e-5 : 1e-5) * std::sqrt(double(k));
    for (unsigned i = 0; i < m; ++i)
      for (unsigned j = 0; j < ldc; ++j) {
        const size_t at = size_t(i) * ldc + j;
        if (j >= n) {
          ASSERT_EQ(c[at], c0[at]) << "padding written at " << i << ", " << j;
          continue;
        }
        double sum = 0;
        for (unsigned p = 0; p < k; ++p)
          sum += opA.values[size_t(i) * k + p] * opB.values[size_t(p) * n + j];
        double v = alpha * sum + beta * c0[at];
        if (biasBits)
          v += bias[biasBits == kGemmBiasRows ? i : j];
        const double want = referenceActivation(act, v);
        ASSERT_NEAR(c[at], want, abs + rel * std::fabs(want))
            << "C(" << i << ", " << j << ") before the activation " << v;
      }
    const interp::KernelProfile *kp = profile.find(hopperGemmName(config));
    ASSERT_NE(kp, nullptr);
    for (const char *kind : {"st.shared", "ld.shared"}) {
      ASSERT_TRUE(kp->shared.count(kind)) << kind;
      EXPECT_EQ(kp->shared.at(kind).bankConflicts(), 0u) << kind;
    }
    // ldc = n (a multiple of 4) keeps C's rows aligned.
    const char *vectorStore = out16 ? "st.global.8B" : "st.global.16B";
    EXPECT_EQ(kp->mix.count(vectorStore) != 0, pad == 0 && n % 4 == 0)
        << vectorStore;
  }
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

// Clusters of 2 blocks along M (B multicast): one unit (M 130), an odd
// tile-row count (the last unit's second tile past M), several units per
// cluster with two rasterization groups, both tile widths, every layout
// (a K-major B in halves of BN / 2 rows, an MN-major one box by box).
INSTANTIATE_TEST_SUITE_P(
    Clusters, HopperGemmTest,
    ::testing::Values(std::make_tuple(kF16, 128u, 130u, 136u, 72u, kCluster),
                      std::make_tuple(kBF16, 128u, 300u, 136u, 200u,
                                      kCluster | kBCol),
                      std::make_tuple(kF16, 128u, 1100u, 136u, 8u, kCluster),
                      std::make_tuple(kBF16, 256u, 300u, 520u, 64u,
                                      kCluster | kACol | kPadded),
                      std::make_tuple(kF16, 256u, 130u, 264u, 136u,
                                      kCluster | kBCol | kPadded),
                      std::make_tuple(kF16, 128u, 72u, 40u, 136u,
                                      kCluster | kACol | kBCol)));

// FP8 (A row-major, B column-major: both K-major, 128-element K tiles of
// four k32 wgmmas): K ragged by 16 (16-byte lines), a K tail past one
// tile, padded lines, both tile widths, C f32, f16 and bf16.
INSTANTIATE_TEST_SUITE_P(
    FP8, HopperGemmTest,
    ::testing::Values(std::make_tuple(kE4M3, 128u, 1u, 8u, 16u, kBCol),
                      std::make_tuple(kE4M3, 128u, 130u, 136u, 208u, kBCol),
                      std::make_tuple(kE5M2, 128u, 17u, 40u, 144u,
                                      kBCol | kPadded),
                      std::make_tuple(kE4M3, 128u, 130u, 264u, 80u,
                                      kBCol | kPadded),
                      std::make_tuple(kE5M2, 128u, 64u, 300u, 400u, kBCol),
                      // Clusters of 2: promoted sums, B in halves.
                      std::make_tuple(kE4M3, 128u, 300u, 264u, 208u,
                                      kBCol | kCluster)));

// s8 (K-major, 128-element K tiles of four k32 wgmmas into s32): C s32
// (128-column tiles; beta 1 accumulates), f32, f16, bf16 (dequantized by
// alpha); K ragged by 16, padded lines, both widths.
INSTANTIATE_TEST_SUITE_P(
    S8, HopperGemmTest,
    ::testing::Values(std::make_tuple(GemmElem::S8, 128u, 130u, 136u, 208u,
                                      kBCol),
                      std::make_tuple(GemmElem::S8, 128u, 17u, 40u, 144u,
                                      kBCol | kPadded),
                      std::make_tuple(GemmElem::S8, 256u, 130u, 264u, 80u,
                                      kBCol)));

// f32 as tf32 (K-major like FP8, 32-element K tiles of four k8 wgmmas):
// the low 13 mantissa bits of the inputs do not count; K ragged by 4, a
// tail past one tile, padded lines, both widths.
INSTANTIATE_TEST_SUITE_P(
    TF32, HopperGemmTest,
    ::testing::Values(std::make_tuple(GemmElem::F32, 128u, 130u, 136u, 72u,
                                      kBCol),
                      std::make_tuple(GemmElem::F32, 256u, 17u, 264u, 44u,
                                      kBCol | kPadded),
                      std::make_tuple(GemmElem::F32, 128u, 1u, 8u, 4u,
                                      kBCol)));

} // namespace

namespace {
using ops::Activation;
constexpr unsigned kCols = kGemmBiasColumns, kRows = kGemmBiasRows;
constexpr GemmElem kF32 = GemmElem::F32;
// Every activation, bias along columns, rows or none, C f32 and 16-bit,
// both tile widths (the wide one: 8 staging chunks), FP8 inputs, ragged
// M and N (partial tiles and chunks, a C row not a multiple of 4).
INSTANTIATE_TEST_SUITE_P(
    Epilogues, HopperGemmEpilogueTest,
    ::testing::Values(
        std::make_tuple(GemmElem::F16, kF32, 128u, 130u, 136u, 72u,
                        Activation::None, kCols),
        std::make_tuple(GemmElem::F16, GemmElem::F16, 128u, 70u, 40u, 64u,
                        Activation::Relu, kCols),
        std::make_tuple(GemmElem::BF16, GemmElem::BF16, 256u, 17u, 264u, 72u,
                        Activation::GeluTanh, kCols),
        std::make_tuple(GemmElem::F16, kF32, 256u, 136u, 264u, 64u,
                        Activation::GeluErf, kRows),
        std::make_tuple(GemmElem::BF16, kF32, 128u, 64u, 72u, 136u,
                        Activation::GeluTanh, 0u),
        std::make_tuple(GemmElem::E4M3, kF32, 128u, 33u, 70u, 144u,
                        Activation::GeluErf, kCols),
        std::make_tuple(GemmElem::E4M3, GemmElem::BF16, 128u, 130u, 264u, 64u,
                        Activation::Relu, kRows),
        std::make_tuple(GemmElem::E5M2, kF32, 128u, 40u, 130u, 128u,
                        Activation::Silu, kRows),
        // s8: the s32 sums converted, then the same epilogue.
        std::make_tuple(GemmElem::S8, kF32, 128u, 70u, 136u, 144u,
                        Activation::GeluErf, kCols),
        std::make_tuple(GemmElem::S8, GemmElem::BF16, 256u, 33u, 264u, 64u,
                        Activation::Relu, kRows)));
} // namespace

/// K split into work units (k tiles [s kps, s kps + kps) of each tile;
/// the last split shorter): split s leaves exactly its k tiles' sum in its
/// f32 partial C, for 16-bit inputs in both layouts, promoted FP8 sums, s8
/// converted sums and tf32; each k tile of each tile is loaded once (the
/// same TMA and mma counts as without the split).
using HopperGemmSplitTest =
    HopperKernelsTest<std::tuple<GemmElem, bool, bool, unsigned, unsigned>>;

TEST_P(HopperGemmSplitTest, EachSplitSumsItsKTiles) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const auto [inType, aCol, bCol, blockN, clusterM] = GetParam();
  HopperGemmConfig config;
  config.in = inType;
  config.out = GemmElem::F32;
  config.blockN = blockN;
  config.clusterM = clusterM;
  const unsigned esz = getGemmElemBytes(inType);
  config.blockK = 128 / esz;
  config.aColMajor = aCol;
  config.bColMajor = bCol;
  // 130 x 136 (4 tiles, or 2 of 128 x 256), 5 k tiles (the last
  // partial), 2 a split: splits of 2, 2 and 1 k tiles; 12 (6) work units
  // on 3 blocks.
  const unsigned m = 130, n = 136, k = 4 * config.blockK + 24, kps = 2;
  const unsigned kTiles = 5, splits = 3, ldw = 136;
  std::mt19937 rng(7);
  Operand opA = sampleOperand(rng, m, k, aCol, false, inType);
  Operand opB = sampleOperand(rng, k, n, bCol, false, inType);
  interp::Interpreter in(**module);
  const uint64_t stride = uint64_t(m) * ldw * 4;
  uint64_t ws = in.allocGlobal(splits * stride);
  interp::Profile profile;
  interp::LaunchResult r = launchGemm(in, config, opA, opB, ws, m, n, k, ldw,
                                      1.0f, 0.0f, ws, 0, profile, kps, stride);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<double> got = readOut(in, ws, GemmElem::F32, splits * m * ldw);
  const double abs = inType == GemmElem::S8 ? 0.0
                     : esz == 1             ? 4e-3 * std::sqrt(double(k))
                     : esz == 4             ? 2e-5 * std::sqrt(double(k))
                                            : 1e-3 * std::sqrt(double(k));
  for (unsigned s = 0; s < splits; ++s)
    for (unsigned i = 0; i < m; ++i)
      for (unsigned j = 0; j < n; ++j) {
        double want = 0;
        for (unsigned p = s * kps * config.blockK;
             p < std::min(k, (s + 1) * kps * config.blockK); ++p)
          want += opA.values[size_t(i) * k + p] * opB.values[size_t(p) * n + j];
        ASSERT_NEAR(got[(size_t(s) * m + i) * ldw + j], want, abs)
            << "split " << s << " C(" << i << ", " << j << ")";
      }
  const interp::KernelProfile *kp = profile.find(hopperGemmName(config));
  ASSERT_NE(kp, nullptr);
  const GemmWork work = gemmWork(config, m, n, k);
  EXPECT_EQ(kp->mix.at("cp.async.bulk.tensor.load"), work.boxes);
  EXPECT_EQ(kp->mmaFlops.at(getGemmMmaTypeName(inType)),
            work.tiles * kTiles * 8 * 2ull * 16 * config.blockN *
                config.blockK);
}

INSTANTIATE_TEST_SUITE_P(
    Hopper, HopperGemmSplitTest,
    ::testing::Values(std::make_tuple(GemmElem::F16, false, false, 128u, 1u),
                      std::make_tuple(GemmElem::F16, false, true, 256u, 1u),
                      std::make_tuple(GemmElem::BF16, true, true, 128u, 1u),
                      std::make_tuple(GemmElem::E4M3, false, true, 128u, 1u),
                      std::make_tuple(GemmElem::S8, false, true, 128u, 1u),
                      std::make_tuple(GemmElem::F32, false, true, 128u, 1u),
                      // Clusters: units of 2 tiles x 3 splits on 2
                      // clusters, B multicast in halves or boxes.
                      std::make_tuple(GemmElem::F16, false, false, 128u, 2u),
                      std::make_tuple(GemmElem::BF16, false, true, 256u, 2u)),
    [](const ::testing::TestParamInfo<
        std::tuple<GemmElem, bool, bool, unsigned, unsigned>> &i) {
      return std::string(getGemmElemName(std::get<0>(i.param))) +
             (std::get<1>(i.param) ? "_acol" : "") +
             (std::get<2>(i.param) ? "_bcol" : "") + "_n" +
             std::to_string(std::get<3>(i.param)) +
             (std::get<4>(i.param) > 1 ? "_c2" : "");
    });

/// FP8 sums are promoted (hopperGemmPromotesSums): each K tile's first
/// wgmma starts from zero (scale-d 0) and the tile's sums are added into
/// f32 registers after wgmma.wait_group 0; FP8 has no 128 x 256 tile (two
/// sets of 128 accumulators would not fit). 16-bit inputs chain their
/// wgmmas across K with one group in flight.
TEST(HopperGemmSource, PromotesFp8SumsOncePerKTile) {
  for (const HopperGemmConfig &c : getHopperGemmConfigs()) {
    const std::string text = hopperGemmSource(c);
    const bool fp8 = c.in == GemmElem::E4M3 || c.in == GemmElem::E5M2;
    // The consumers free each stage once: FP8 right after its wait, the
    // others the previous stage in the loop and the last one after it.
    size_t releases = 0;
    for (size_t at = text.find("ptx.mbarrier_arrive if ");
         at != std::string::npos;
         at = text.find("ptx.mbarrier_arrive if ", at + 1))
      ++releases;
    // In a cluster, in both blocks.
    EXPECT_EQ(releases, (fp8 ? 1u : 2u) * c.clusterM) << hopperGemmName(c);
    EXPECT_EQ(text.find("scale_d_imm 0") != std::string::npos, fp8)
        << hopperGemmName(c);
    EXPECT_EQ(text.find("ptx.wgmma_wait_group 1") != std::string::npos, !fp8)
        << hopperGemmName(c);
    if (fp8)
      EXPECT_EQ(c.blockN, 128u) << hopperGemmName(c);
  }
}

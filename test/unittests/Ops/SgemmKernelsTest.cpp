//===- SgemmKernelsTest.cpp - the full-precision f32 GEMM in the interpreter ===//
//
// Every sgemm_f32 variant (A and B row- or column-major, checked or aligned
// copies) against an f64 reference at ragged shapes (partial tiles in M, N
// and K, padded lines, beta reading C, the fused epilogue, C's rows
// 16-byte aligned or not), and their profile: no shared-memory bank
// conflicts, only 16-byte shared reads in the main loop (4 per k step a
// warp: broadcasts, consecutive chunks, or a column-major B's rows 4 apart
// under the layout table's swizzle), only 16-byte cp.async copies where
// aligned, 16-byte stores of C where its rows allow them, and 128-byte
// warp stores through shared memory where they do not.
//
//===----------------------------------------------------------------------===//

#include "ActivationReference.h"
#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::test;

namespace {

/// A test-only bit of the parameter's epilogue (never passed on): C's rows
/// not 16-byte aligned though the variant's copies are (the host sets
/// kGemmVectorC from C alone).
constexpr uint32_t kUnalignedC = 1u << 31;
/// The other way round: C's rows 16-byte aligned though A's and B's lines
/// are not (the checked variant writing C 4 columns at a time).
constexpr uint32_t kAlignedC = 1u << 30;

/// (M, N, K, variant, beta, epilogue: HopperGemmEpilogue bits, kUnalignedC).
class SgemmKernelsTest
    : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, uint32_t,
                                                 SgemmConfig, float, uint32_t>> {
public:
  static void SetUpTestSuite() {
    kernels = buildLoweredKernels(
        [](builder::ModuleBuilder &mb) { buildSgemmKernels(mb); });
    ASSERT_EQ(kernels->error, "");
  }
  static void TearDownTestSuite() { kernels.reset(); }
  inline static std::unique_ptr<LoweredKernels> kernels;
};

TEST_P(SgemmKernelsTest, MatchesF64WithoutBankConflicts) {
  const auto [m, n, k, variant, beta, flags] = GetParam();
  const uint32_t epilogue = flags & ~(kUnalignedC | kAlignedC);
  const SgemmConfig config = variant;
  const bool aligned = config.aligned;
  const auto act = ops::Activation(epilogue & kGemmActivationMask);
  const bool biasCols = epilogue & kGemmBiasColumns,
             biasRows = epilogue & kGemmBiasRows;
  // A and B as stored: lines of aLine (bLine) elements, aRows (bRows) of
  // them; aligned: leading dimensions multiples of 4 (16-byte lines) with
  // padding, else odd.
  const uint32_t aRows = config.aColMajor ? k : m,
                 aLine = config.aColMajor ? m : k,
                 bRows = config.bColMajor ? n : k,
                 bLine = config.bColMajor ? k : n;
  const uint32_t lda = aligned ? (aLine + 3) / 4 * 4 + 4 : aLine + 3,
                 ldb = aligned ? (bLine + 3) / 4 * 4 + 4 : bLine + 1;
  // C's rows 32-byte aligned (16 bytes for the host's kGemmVectorC: 4-column
  // vector accesses, element-wise at a ragged right edge; 32 so that whole
  // sectors can be asserted) for the aligned variants, else 2 floats of
  // padding (staged through shared memory).
  const bool vectorC =
      (aligned && !(flags & kUnalignedC)) || (flags & kAlignedC);
  const uint32_t ldc = vectorC ? (n + 7) / 8 * 8 + 8 : n + 2;
  auto aAt = [config, lda](uint32_t i, uint32_t p) {
    return config.aColMajor ? size_t(p) * lda + i : size_t(i) * lda + p;
  };
  auto bAt = [config, ldb](uint32_t p, uint32_t j) {
    return config.bColMajor ? size_t(j) * ldb + p : size_t(p) * ldb + j;
  };
  std::mt19937 rng(m * 7 + n * 3 + k);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(size_t(aRows) * lda), b(size_t(bRows) * ldb),
      c0(size_t(m) * ldc);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  for (float &x : c0)
    x = dist(rng);
  Interpreter in(*kernels->module);
  auto upload = [&](const std::vector<float> &v) {
    uint64_t at = in.allocGlobal(std::max<size_t>(v.size() * 4, 16));
    EXPECT_TRUE(in.write(at, v));
    return at;
  };
  std::vector<float> bias(biasRows ? m : n);
  for (float &x : bias)
    x = dist(rng);
  uint64_t da = upload(a), db = upload(b), dc = upload(c0),
           dbias = upload(bias);
  const float alpha = -1.25f;
  const std::string kernel = sgemmName(config);
  const char *name = kernel.c_str();
  interp::Profile profile;
  interp::LaunchOptions options;
  options.profile = &profile;
  const uint32_t tile = kSgemmBlockTile;
  auto r = in.launch(name, {(n + tile - 1) / tile, (m + tile - 1) / tile},
                     {kSgemmThreads},
                     {da, db, dc, m, n, k, lda, ldb, ldc,
                      Interpreter::argF32(alpha), Interpreter::argF32(beta),
                      dbias, epilogue | (vectorC ? kGemmVectorC : 0u)},
                     options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> c(c0.size());
  ASSERT_TRUE(in.read(dc, c));
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < ldc; ++j) {
      const size_t at = size_t(i) * ldc + j;
      if (j >= n) {
        ASSERT_EQ(c[at], c0[at]) << "padding written at " << i << ", " << j;
        continue;
      }
      double sum = 0, mag = 0;
      for (uint32_t p = 0; p < k; ++p) {
        double x = double(a[aAt(i, p)]) * b[bAt(p, j)];
        sum += x;
        mag += std::fabs(x);
      }
      double want = referenceActivation(
          act, alpha * sum + (beta != 0 ? beta * c0[at] : 0.0) +
                   (biasCols ? bias[j] : biasRows ? bias[i] : 0.0));
      // f32 accumulation: a few ulps of the sum of magnitudes. Full
      // precision (tf32 would be off by ~1e-3 of the magnitudes).
      ASSERT_NEAR(c[at], want, 1e-6 * (mag + 1) * std::fabs(alpha) + 1e-6)
          << "C(" << i << ", " << j << ")";
    }
  const interp::KernelProfile *kp = profile.find(name);
  ASSERT_NE(kp, nullptr);
  // The main loop's reads never conflict; with aligned rows the tiles
  // arrive by 16-byte cp.async only (unaligned rows take the copies'
  // element-wise path, whose scalar stores may).
  ASSERT_TRUE(kp->shared.count("ld.shared"));
  EXPECT_EQ(kp->shared.at("ld.shared").bankConflicts(), 0u);
  // Every shared read of the main loop is 16 bytes, 4 of them per k step
  // (64 FMA) a warp: 64 per 16-deep tile, two tiles a trip of 32 of K. The
  // staged epilogue reads 4 bytes a lane, 4 times per row of C and tile.
  const uint64_t blockCols = (n + tile - 1) / tile;
  const uint64_t blocks = blockCols * ((m + tile - 1) / tile);
  const uint64_t trips = (k + 31) / 32;
  // The checked variant stages C's rows that are not 16-byte aligned;
  // the aligned ones write them element by element.
  const bool stagedC = !vectorC && !aligned;
  EXPECT_EQ(kp->mix.count("ld.shared.4B") ? kp->mix.at("ld.shared.4B") : 0u,
            stagedC ? 4 * uint64_t(m) * blockCols : 0u);
  EXPECT_EQ(kp->mix.count("ld.shared.8B"), 0u);
  ASSERT_TRUE(kp->mix.count("ld.shared.16B"));
  EXPECT_EQ(kp->mix.at("ld.shared.16B"),
            blocks * (kSgemmThreads / 32) * trips * 2 * 64);
  // C: 16-byte accesses where its rows allow them and a run of 4 columns
  // is whole (all of them when N is a multiple of 4); element-wise else.
  auto issued = [&](const char *kind) {
    return kp->mix.count(kind) ? kp->mix.at(kind) : 0u;
  };
  // (Element-wise stores past N are issued with no lane on: they make no
  // request.) A half-warp's vector stores are 256 contiguous bytes of a
  // row: whole sectors where N is a multiple of 64 (at a ragged edge the
  // warp's two rows each end in a partial sector). C's rows that are not
  // 16-byte aligned are staged in shared memory by the checked variant, and
  // a warp's store is 32 consecutive elements of one row: 128 bytes on
  // 8-byte boundaries, at most 5 sectors. The aligned variants write them
  // element by element: a thread's own 4-byte stores, 16 bytes apart.
  ASSERT_TRUE(kp->global.count("st.global"));
  const interp::GlobalStats &stores = kp->global.at("st.global");
  if (vectorC && n % 64 == 0)
    EXPECT_EQ(stores.sectors, stores.idealSectors);
  if (vectorC && n >= 4) {
    EXPECT_GT(issued("st.global.16B"), 0u);
    if (n % 4 == 0)
      EXPECT_LE(stores.requests, issued("st.global.16B"));
    if (beta != 0)
      EXPECT_GT(issued("ld.global.16B"), 0u);
  } else if (!vectorC) {
    EXPECT_EQ(issued("st.global.16B"), 0u);
    EXPECT_EQ(issued("st.global.8B"), 0u);
  }
  if (stagedC) {
    EXPECT_LE(stores.sectors, 5 * stores.requests);
    // One request per row of C and 32 columns with one below N.
    EXPECT_EQ(stores.requests, uint64_t(m) * ((n + 31) / 32));
    // A warp stages two runs of 4 of each of its 16 rows a tile: 16-byte
    // stores, conflict-free (the copies' element-wise stores, at other
    // source lines, may conflict), read back 4 bytes a lane (no conflict:
    // every ld.shared above).
    EXPECT_EQ(issued("st.shared.16B"), blocks * (kSgemmThreads / 32) * 16);
    unsigned stagingLines = 0;
    for (const interp::LocationProfile &at : kp->locations) {
      if (!at.mix.count("st.shared.16B"))
        continue;
      ++stagingLines;
      ASSERT_TRUE(at.shared.count("st.shared")) << at.location;
      EXPECT_EQ(at.shared.at("st.shared").bankConflicts(), 0u) << at.location;
    }
    EXPECT_GT(stagingLines, 0u);
  } else {
    EXPECT_EQ(issued("st.shared.16B"), 0u);
  }
  if (aligned) {
    for (const auto &[kind, stats] : kp->shared)
      EXPECT_EQ(stats.bankConflicts(), 0u) << kind;
    for (const auto &[kind, count] : kp->mix)
      EXPECT_TRUE(kind.rfind("cp.async", 0) != 0 || kind == "cp.async.16B" ||
                  kind == "cp.async.commit" || kind == "cp.async.wait")
          << kind << ": " << count;
    EXPECT_GT(kp->mix.at("cp.async.16B"), 0u);
  }
}

constexpr SgemmConfig kChecked{false, false, false}, kAligned{false, false, true},
    kACol{true, false, true}, kBCol{false, true, true}, kBoth{true, true, true};

INSTANTIATE_TEST_SUITE_P(
    Shapes, SgemmKernelsTest,
    ::testing::Values(
        std::make_tuple(1u, 1u, 1u, kChecked, 0.0f, 0u),
        std::make_tuple(17u, 33u, 40u, kChecked, 0.5f, 0u),
        std::make_tuple(17u, 33u, 40u, kAligned, 0.0f, 0u),
        std::make_tuple(130u, 70u, 96u, kAligned, -2.0f, 0u),
        std::make_tuple(64u, 64u, 64u, kAligned, 0.0f, 0u),
        std::make_tuple(130u, 136u, 33u, kChecked, 1.0f, 0u),
        // The checked variant's staged C with a column bias (a lane's own
        // 4 columns), and its 4-column path where C's rows allow it.
        std::make_tuple(130u, 70u, 40u, kChecked, 0.5f,
                        uint32_t(kGemmBiasColumns) |
                            uint32_t(ops::Activation::GeluTanh)),
        std::make_tuple(70u, 132u, 24u, kChecked, -1.0f,
                        kAlignedC | uint32_t(kGemmBiasRows)),
        std::make_tuple(256u, 256u, 256u, kAligned, 0.0f, 0u),
        // C's rows not 16-byte aligned, the tiles' are: the aligned
        // variants' element-wise epilogue, ragged in M and N, beta, both
        // biases (the checked variant's staged epilogue: every kChecked
        // case).
        std::make_tuple(130u, 70u, 40u, kAligned, 0.5f,
                        kUnalignedC | uint32_t(kGemmBiasColumns) |
                            uint32_t(ops::Activation::GeluTanh)),
        std::make_tuple(64u, 256u, 32u, kAligned, 0.0f, kUnalignedC),
        std::make_tuple(33u, 200u, 17u, kBCol, -1.0f,
                        kUnalignedC | uint32_t(kGemmBiasRows)),
        // The fused epilogue: bias along columns or rows, activations.
        std::make_tuple(70u, 130u, 24u, kAligned, 0.5f,
                        uint32_t(kGemmBiasColumns) |
                            uint32_t(ops::Activation::GeluTanh)),
        std::make_tuple(33u, 17u, 40u, kChecked, 0.0f,
                        uint32_t(kGemmBiasRows) |
                            uint32_t(ops::Activation::Silu)),
        std::make_tuple(20u, 140u, 16u, kAligned, 0.0f,
                        uint32_t(ops::Activation::Relu)),
        // Column-major A, B or both (A^T and B^T tiles): partial tiles in
        // every dimension, K not a multiple of 4 or of 16, beta, epilogues.
        std::make_tuple(1u, 1u, 1u, kACol, 0.0f, 0u),
        std::make_tuple(17u, 33u, 40u, kACol, 0.5f, 0u),
        std::make_tuple(130u, 70u, 97u, kACol, 0.0f,
                        uint32_t(kGemmBiasRows) |
                            uint32_t(ops::Activation::Relu)),
        std::make_tuple(1u, 1u, 1u, kBCol, 0.0f, 0u),
        std::make_tuple(17u, 33u, 40u, kBCol, -2.0f, 0u),
        std::make_tuple(130u, 136u, 33u, kBCol, 1.0f,
                        uint32_t(kGemmBiasColumns) |
                            uint32_t(ops::Activation::GeluTanh)),
        std::make_tuple(256u, 256u, 64u, kBCol, 0.0f, 0u),
        std::make_tuple(17u, 33u, 40u, kBoth, 0.5f, 0u),
        std::make_tuple(130u, 70u, 96u, kBoth, 0.0f,
                        uint32_t(ops::Activation::Silu))),
    [](const auto &info) {
      return sgemmName(std::get<3>(info.param)) + "_" +
             std::to_string(std::get<0>(info.param)) + "x" +
             std::to_string(std::get<1>(info.param)) + "x" +
             std::to_string(std::get<2>(info.param)) + "_" +
             std::to_string(info.index);
    });

} // namespace

//===- AttentionKernelsTest.cpp - FlashAttention forward in the interpreter -===//
//
// The library's flash_fwd kernels (f16, bf16; head dims 64 and 128) against
// an f64 reference that materialises softmax(scale Q K^T) V, at ragged
// sequence lengths (1, 17, 130: a partial query block, a partial key block,
// several key blocks), both memory layouts ([batch, seq, heads, dim] and
// [batch, heads, seq, dim]), causal masks aligned top-left and
// bottom-right, a sliding window, GQA 8:2 and packed variable-length
// batches; O and the row logsumexp both checked, and nothing written past
// the rows a batch owns.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>
#include <limits>

using namespace kaio;
using namespace kaio::test;

namespace {

/// One attention problem: shapes, layout, mask, and (varlen) the packed
/// sequence lengths.
struct Problem {
  uint32_t batch = 1, heads = 2, kvHeads = 2, seqQ = 17, seqK = 17;
  bool headsMajor = false; ///< [b, h, s, d] instead of [b, s, h, d]
  int32_t windowLeft = -1, windowRight = -1;
  bool bottomRight = false;
  /// Packed batches: per-batch lengths (batch = their count).
  std::vector<uint32_t> lensQ, lensK;
  double scale = 0.0; ///< 0: 1 / sqrt(dim)
  interp::Profile *profile = nullptr;
};

struct Layout {
  uint64_t batchStride, headStride;
  uint32_t rowStride;
  uint64_t index(uint32_t b, uint32_t h, uint32_t row, uint32_t d) const {
    return b * batchStride + h * headStride + uint64_t(row) * rowStride + d;
  }
};

class AttentionKernelsTest
    : public ::testing::TestWithParam<std::tuple<Elem, unsigned>> {
public:
  static void SetUpTestSuite() {
    context = new mlir::MLIRContext();
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context->appendDialectRegistry(registry);
    context->loadAllAvailableDialects();
    builder::ModuleBuilder mb(*context);
    buildAttentionKernels(mb);
    module = new mlir::OwningOpRef<mlir::ModuleOp>(mb.finish());
    ASSERT_TRUE(*module) << mb.diagnostics();
    ASSERT_TRUE(succeeded(lowerToPTXDialect(**module, CompileOptions())));
  }
  static void TearDownTestSuite() {
    delete module;
    delete context;
  }

  Elem elem() const { return std::get<0>(GetParam()); }
  unsigned dim() const { return std::get<1>(GetParam()); }

  std::vector<double> random(size_t n) {
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> v(n);
    for (double &x : v)
      x = roundTo(elem(), dist(rng));
    return v;
  }

  static interp::LaunchOptions options(const Problem &p) {
    interp::LaunchOptions o;
    o.profile = p.profile;
    return o;
  }

  /// Runs the kernel on `p` and checks O and lse against the reference.
  void check(const Problem &p) {
    const unsigned D = dim();
    bool varlen = !p.lensQ.empty();
    uint32_t batch = varlen ? uint32_t(p.lensQ.size()) : p.batch;
    std::vector<uint32_t> offQ{0}, offK{0}, lenQ, lenK;
    for (uint32_t b = 0; b < batch; ++b) {
      lenQ.push_back(varlen ? p.lensQ[b] : p.seqQ);
      lenK.push_back(varlen ? p.lensK[b] : p.seqK);
      offQ.push_back(offQ.back() + lenQ.back());
      offK.push_back(offK.back() + lenK.back());
    }
    // Dense: [batch, seq, heads, dim] or [batch, heads, seq, dim]; packed:
    // [total, heads, dim] (batch stride 0, rows offset by cu_seqlens).
    auto layoutOf = [&](uint32_t heads, uint32_t seq) {
      if (varlen)
        return Layout{0, D, heads * D};
      if (p.headsMajor)
        return Layout{uint64_t(heads) * seq * D, uint64_t(seq) * D, D};
      return Layout{uint64_t(seq) * heads * D, D, heads * D};
    };
    uint32_t rowsQ = varlen ? offQ.back() : p.seqQ;
    uint32_t rowsK = varlen ? offK.back() : p.seqK;
    Layout lq = layoutOf(p.heads, rowsQ), lk = layoutOf(p.kvHeads, rowsK);
    size_t nq = size_t(varlen ? 1 : batch) * rowsQ * p.heads * D;
    size_t nk = size_t(varlen ? 1 : batch) * rowsK * p.kvHeads * D;
    std::vector<double> q = random(nq), k = random(nk), v = random(nk);
    double scale = p.scale ? p.scale : 1.0 / std::sqrt(double(D));

    Interpreter interp(**module);
    auto upload = [&](const std::vector<double> &x) {
      std::vector<unsigned char> bytes = encode(elem(), x);
      uint64_t a = interp.allocGlobal(bytes.size() + 64);
      EXPECT_TRUE(interp.write(a, bytes.data(), bytes.size()));
      return a;
    };
    const double sentinel = 5.0;
    // O with 64 extra elements past the end: none may change.
    uint64_t dq = upload(q), dk = upload(k), dv = upload(v),
             dout = upload(std::vector<double>(nq + 64, sentinel));
    // lse: [batch, heads, seq] (dense) or [heads, total] (packed).
    uint64_t lseBatch = varlen ? 0 : uint64_t(p.heads) * rowsQ;
    uint64_t lseHead = rowsQ;
    size_t nl = size_t(varlen ? 1 : batch) * p.heads * rowsQ;
    std::vector<float> lseInit(nl + 16, 99.0f);
    uint64_t dl = interp.allocGlobal(lseInit.size() * 4);
    ASSERT_TRUE(interp.write(dl, lseInit));
    std::vector<int32_t> cuQ(offQ.begin(), offQ.end()),
        cuK(offK.begin(), offK.end());
    uint64_t dcq = interp.allocGlobal(cuQ.size() * 4),
             dck = interp.allocGlobal(cuK.size() * 4);
    ASSERT_TRUE(interp.write(dcq, cuQ));
    ASSERT_TRUE(interp.write(dck, cuK));

    uint32_t maxQ = *std::max_element(lenQ.begin(), lenQ.end());
    uint32_t flags = uint32_t(kAttnLse) |
                     (varlen ? uint32_t(kAttnVarlen) : 0u) |
                     (p.bottomRight ? uint32_t(kAttnBottomRight) : 0u);
    std::string name = std::string("flash_fwd_") + elemName(elem()) + "_d" +
                       std::to_string(D);
    auto r = interp.launch(
        name, {(maxQ + kAttnBlockQ - 1) / kAttnBlockQ, p.heads, batch},
        {32 * kAttnWarps},
        {dq, dk, dv, dout, dl, dcq, dck, p.seqQ, p.seqK,
         p.heads / p.kvHeads, lq.batchStride, lq.headStride, lq.rowStride,
         lk.batchStride, lk.headStride, lk.rowStride, lk.batchStride,
         lk.headStride, lk.rowStride, lq.batchStride, lq.headStride,
         lq.rowStride, lseBatch, lseHead,
         Interpreter::argF32(float(scale * M_LOG2E)),
         uint64_t(uint32_t(p.windowLeft)), uint64_t(uint32_t(p.windowRight)),
         flags},
        options(p));
    ASSERT_TRUE(r.success) << name << ": " << r.message();

    std::vector<unsigned char> bytes((nq + 64) * elemBytes(elem()));
    ASSERT_TRUE(interp.read(dout, bytes.data(), bytes.size()));
    std::vector<double> out = decode(elem(), bytes);
    std::vector<float> lse(nl + 16);
    ASSERT_TRUE(interp.read(dl, lse));

    // P is rounded to the element type before P V; O is stored in it.
    double tol = elem() == Elem::F16 ? 4e-3 : 3e-2;
    std::vector<bool> written(nq, false);
    for (uint32_t b = 0; b < batch; ++b)
      for (uint32_t h = 0; h < p.heads; ++h)
        for (uint32_t i = 0; i < lenQ[b]; ++i) {
          uint32_t kvh = h / (p.heads / p.kvHeads);
          uint32_t bq = varlen ? 0 : b, rq = offQ[varlen ? b : 0] + i;
          int64_t d0 = p.bottomRight ? int64_t(lenK[b]) - lenQ[b] : 0;
          std::vector<double> s(lenK[b], -INFINITY);
          double mx = -INFINITY;
          for (uint32_t j = 0; j < lenK[b]; ++j) {
            int64_t lo = int64_t(i) + d0 - p.windowLeft,
                    hi = int64_t(i) + d0 + p.windowRight;
            if ((p.windowLeft >= 0 && int64_t(j) < lo) ||
                (p.windowRight >= 0 && int64_t(j) > hi))
              continue;
            uint32_t rk = offK[varlen ? b : 0] + j;
            double dot = 0;
            for (unsigned d = 0; d < D; ++d)
              dot += q[lq.index(bq, h, rq, d)] * k[lk.index(bq, kvh, rk, d)];
            s[j] = dot * scale;
            mx = std::max(mx, s[j]);
          }
          double sum = 0;
          for (double x : s)
            sum += x == -INFINITY ? 0 : std::exp(x - mx);
          std::string where = name + " b" + std::to_string(b) + " h" +
                              std::to_string(h) + " row " + std::to_string(i);
          size_t li = (varlen ? 0 : b) * lseBatch + h * lseHead + rq;
          if (sum == 0)
            ASSERT_EQ(lse[li], -INFINITY) << where;
          else
            ASSERT_NEAR(lse[li], mx + std::log(sum), 2e-3) << where;
          for (unsigned d = 0; d < D; ++d) {
            double want = 0;
            for (uint32_t j = 0; j < lenK[b]; ++j)
              if (s[j] != -INFINITY)
                want += std::exp(s[j] - mx) / sum *
                        v[lk.index(bq, kvh, offK[varlen ? b : 0] + j, d)];
            uint64_t oi = lq.index(bq, h, rq, d);
            written[oi] = true;
            ASSERT_NEAR(out[oi], want, tol) << where << " d " << d;
          }
        }
    for (size_t i = 0; i < nq + 64; ++i)
      if (i >= nq || !written[i])
        ASSERT_EQ(out[i], sentinel) << name << ": wrote element " << i;
    for (size_t i = nl; i < nl + 16; ++i)
      ASSERT_EQ(lse[i], 99.0f) << name << ": wrote lse past the end";
  }

  inline static mlir::MLIRContext *context = nullptr;
  inline static mlir::OwningOpRef<mlir::ModuleOp> *module = nullptr;
  std::mt19937 rng{2026};
};

TEST_P(AttentionKernelsTest, RaggedLengthsBothLayouts) {
  for (uint32_t seq : {1u, 17u, 130u})
    for (bool headsMajor : {false, true}) {
      Problem p;
      p.batch = 2;
      p.seqQ = p.seqK = seq;
      p.headsMajor = headsMajor;
      p.heads = p.kvHeads = seq == 130 ? 1 : 2;
      check(p);
      if (HasFatalFailure())
        return;
    }
}

TEST_P(AttentionKernelsTest, CausalTopLeftAndBottomRight) {
  // seq_q != seq_k: the two alignments differ; with seq_q > seq_k
  // bottom-right leaves the first rows with no key (O 0, lse -inf).
  for (auto [sq, sk] : {std::pair{130u, 130u}, std::pair{17u, 130u},
                        std::pair{80u, 20u}})
    for (bool bottomRight : {false, true}) {
      Problem p;
      p.seqQ = sq;
      p.seqK = sk;
      p.heads = p.kvHeads = 1;
      p.windowRight = 0;
      p.bottomRight = bottomRight;
      check(p);
      if (HasFatalFailure())
        return;
    }
}

TEST_P(AttentionKernelsTest, SlidingWindow) {
  Problem p;
  p.seqQ = p.seqK = 200;
  p.heads = p.kvHeads = 1;
  p.windowLeft = 70;
  p.windowRight = 0;
  check(p);
  p.windowLeft = 3;
  p.windowRight = 5;
  p.seqQ = 66;
  check(p);
}

TEST_P(AttentionKernelsTest, GroupedQueryHeads) {
  Problem p;
  p.heads = 8;
  p.kvHeads = 2;
  p.seqQ = p.seqK = 33;
  p.windowRight = 0;
  check(p);
}

TEST_P(AttentionKernelsTest, PackedVariableLengths) {
  Problem p;
  p.heads = 2;
  p.kvHeads = 1;
  p.lensQ = {5, 70, 17};
  p.lensK = {9, 64, 130};
  check(p);
  p.windowRight = 0;
  p.bottomRight = true;
  check(p);
}

// The performance properties the kernel is built for, counted by the
// interpreter's profile: swizzled tiles (no bank conflicts for the
// cp.async writes, the transposed K reads and the V reads), whole 16-byte
// chunks of whole 32-byte sectors from global memory, the mma count of the
// two products, and no divergence.
TEST_P(AttentionKernelsTest, ConflictFreeTilesAndWholeSectors) {
  interp::Profile profile;
  Problem p;
  p.heads = p.kvHeads = 1;
  p.seqQ = p.seqK = 128;
  p.profile = &profile;
  check(p);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(profile.kernels().size(), 1u);
  const interp::KernelProfile &k = profile.kernels().front();
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  EXPECT_EQ(k.shared.at("ldmatrix").bankConflicts(), 0u);
  EXPECT_EQ(k.shared.at("cp.async").bankConflicts(), 0u);
  const interp::GlobalStats &src = k.global.at("cp.async");
  EXPECT_EQ(src.sectors, src.idealSectors);
  EXPECT_DOUBLE_EQ(src.sectorsPerRequest(), 16.0);
  // 2 query blocks x 2 key blocks x 4 warps x (S: D/16 x 8, P V: 4 x D/8)
  // mma; the prologue's Q and K copies and one V and one K copy per key
  // block.
  const unsigned D = dim();
  std::string mma = std::string("mma.m16n8k16.f32.") + elemName(elem()) +
                    "." + elemName(elem()) + ".f32";
  EXPECT_EQ(k.mix.count(mma) ? k.mix.at(mma) : 0u,
            2u * 2 * 4 * (D / 16 * 8 + 4 * D / 8));
  EXPECT_EQ(k.divergentBranches, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Flash, AttentionKernelsTest,
    ::testing::Combine(::testing::Values(Elem::F16, Elem::BF16),
                       ::testing::Values(64u, 128u)),
    [](const ::testing::TestParamInfo<std::tuple<Elem, unsigned>> &info) {
      return std::string(elemName(std::get<0>(info.param))) + "_d" +
             std::to_string(std::get<1>(info.param));
    });

} // namespace

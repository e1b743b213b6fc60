//===- HopperAttentionKernelsTest.cpp - sm_90a FlashAttention forward -----===//
//
// The warp-specialised TMA + wgmma attention forward in the interpreter
// against an f64 softmax reference: ragged sequence lengths (TMA zero-fills,
// the mask hides the padding), causal top-left and bottom-right (rows that
// see no key give O = 0 and lse = -inf), sliding windows, GQA, packed
// variable-length batches, bshd and bhsd layouts through the tensor maps'
// strides, f16 and bf16, head dims 64, 128 and 256; the ping-pong kernels
// (the library's default at 64 and 128: the consumers take turns issuing)
// and those whose consumers issue independently; the 192-row kernels of
// head dim 64 (three consumers, turns round robin).
//
//===----------------------------------------------------------------------===//

#include "HopperTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

struct Case : AttentionShape {
  /// The ping-pong kernel (the library's default at head dims 64 and 128)
  /// or the one whose consumers issue independently.
  bool pingPong = false;
  /// Consumer warpgroups: 2 (128 query rows a block) or 3 (192).
  unsigned consumers = 2;
};

void PrintTo(const Case &c, std::ostream *os) {
  printShape(c, os);
  *os << (c.pingPong ? " ping-pong" : "")
      << (c.consumers == 3 ? " 192 rows" : "");
}

using HopperAttentionTest = HopperKernelsTest<Case>;

/// Runs case `c` in the interpreter (adding its counts to `profile` when
/// given) and checks O and lse against an f64 softmax.
void runAndCheck(mlir::ModuleOp module, const Case &c,
                 interp::Profile *profile = nullptr) {
  HopperAttentionConfig config{c.bf16, c.dim, 2, c.pingPong, c.consumers};
  const unsigned rowsQ = hopperAttentionRows(config);
  const interp::FloatFormat fmt = c.bf16 ? interp::kBF16 : interp::kF16;
  const AttentionLayout lay(c.dim, c.heads, c.kvHeads, c.seqQ, c.seqK,
                            c.packed, c.bhsd);
  const unsigned batch = lay.batch, seqQ = lay.rowsQ, seqK = lay.rowsK,
                 storeB = lay.storeBatch;
  const std::vector<unsigned> &startQ = lay.startQ, &startK = lay.startK;
  const auto &strideQ = lay.strideQ, &strideKV = lay.strideKV;
  std::mt19937 rng(seqQ * 31 + seqK + c.dim + c.windowRight);
  const size_t qElems = size_t(storeB) * seqQ * c.heads * c.dim;
  const size_t kvElems = size_t(storeB) * seqK * c.kvHeads * c.dim;
  std::vector<double> q, k, v;
  std::vector<uint16_t> qBits = sample16(rng, qElems, c.bf16, q),
                        kBits = sample16(rng, kvElems, c.bf16, k),
                        vBits = sample16(rng, kvElems, c.bf16, v);
  interp::Interpreter in(module);
  auto upload = [&](const auto &data) {
    uint64_t a = in.allocGlobal(data.size() * sizeof(data[0]));
    in.write(a, data);
    return a;
  };
  uint64_t gq = upload(qBits), gk = upload(kBits), gv = upload(vBits);
  uint64_t go = in.allocGlobal(qElems * 2);
  const size_t lseRows = size_t(storeB) * c.heads * seqQ;
  uint64_t glse = in.allocGlobal(lseRows * 4);
  uint64_t cuQ = 0, cuK = 0;
  if (c.packed) {
    std::vector<int32_t> offQ(startQ.begin(), startQ.end()),
        offK(startK.begin(), startK.end());
    offQ.push_back(int32_t(seqQ));
    offK.push_back(int32_t(seqK));
    cuQ = upload(offQ);
    cuK = upload(offK);
  }
  auto map = [&](uint64_t address, unsigned heads, unsigned seq,
                 const std::array<uint64_t, 4> &stride, uint32_t rows) {
    return tensorMap16(in, address, c.bf16, {c.dim, heads, seq, storeB},
                       stride, {64, 1, rows, 1});
  };
  uint64_t mq = map(gq, c.heads, seqQ, strideQ, rowsQ);
  const uint32_t keys = hopperAttentionKeys(c.dim);
  uint64_t mk = map(gk, c.kvHeads, seqK, strideKV, keys);
  uint64_t mv = map(gv, c.kvHeads, seqK, strideKV, keys);
  const double scale = 1.0 / std::sqrt(double(c.dim));
  const unsigned group = c.heads / c.kvHeads;
  const unsigned maxQ = *std::max_element(c.seqQ.begin(), c.seqQ.end());
  interp::LaunchOptions options;
  options.profile = profile;
  options.dynamicSharedBytes =
      rowsQ * c.dim * 2 + 2 * 2 * keys * c.dim * 2;
  ASSERT_LE(options.dynamicSharedBytes, 227u * 1024);
  interp::LaunchResult r = in.launch(
      hopperAttentionName(config),
      {(maxQ + rowsQ - 1) / rowsQ, c.heads, batch},
      {hopperAttentionThreads(config)},
      {mq, mk, mv, go, strideQ[3], strideQ[2], strideQ[1], c.seqQ[0],
       c.seqK[0], group, interp::Interpreter::argF32(float(scale * M_LOG2E)),
       uint64_t(uint32_t(c.windowLeft)), uint64_t(uint32_t(c.windowRight)),
       uint64_t(c.bottomRight), glse, seqQ, cuQ, cuK},
      options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint16_t> oBits(qElems);
  in.read(go, oBits);
  std::vector<float> lse(lseRows);
  in.read(glse, lse);
  auto at = &AttentionLayout::at;
  for (unsigned b = 0; b < batch; ++b) {
    const unsigned sq = c.packed ? c.seqQ[b] : seqQ;
    const unsigned sk = c.packed ? c.seqK[b] : seqK;
    const unsigned sb = c.packed ? 0 : b, q0 = startQ[b], k0 = startK[b];
    const int offset = c.bottomRight ? int(sk) - int(sq) : 0;
    for (unsigned h = 0; h < c.heads; ++h)
      for (unsigned i = 0; i < sq; ++i) {
        auto visible = [&](unsigned j) {
          int diagonal = int(i) + offset;
          return (c.windowLeft < 0 || int(j) >= diagonal - c.windowLeft) &&
                 (c.windowRight < 0 || int(j) <= diagonal + c.windowRight);
        };
        std::vector<double> w(sk, 0);
        double mx = -INFINITY, sum = 0;
        for (unsigned j = 0; j < sk; ++j) {
          if (!visible(j))
            continue;
          double dot = 0;
          for (unsigned x = 0; x < c.dim; ++x)
            dot += q[at(strideQ, sb, q0 + i, h, x)] *
                   k[at(strideKV, sb, k0 + j, h / group, x)];
          w[j] = dot * scale;
          mx = std::max(mx, w[j]);
        }
        for (unsigned j = 0; j < sk; ++j) {
          w[j] = visible(j) ? std::exp(w[j] - mx) : 0;
          sum += w[j];
        }
        const double wantLse = sum > 0 ? mx + std::log(sum) : -INFINITY;
        const float gotLse = lse[(size_t(sb) * c.heads + h) * seqQ + q0 + i];
        if (std::isinf(wantLse))
          ASSERT_TRUE(std::isinf(gotLse) && gotLse < 0) << "lse row " << i;
        else
          ASSERT_NEAR(gotLse, wantLse, 1e-3) << "lse row " << i;
        for (unsigned x = 0; x < c.dim; ++x) {
          double want = 0;
          for (unsigned j = 0; j < sk; ++j)
            want += w[j] * v[at(strideKV, sb, k0 + j, h / group, x)];
          want = sum > 0 ? want / sum : 0;
          double got =
              interp::toDouble(oBits[at(strideQ, sb, q0 + i, h, x)], fmt);
          ASSERT_NEAR(got, want, c.bf16 ? 2e-2 : 5e-3)
              << "O[b=" << b << "][t=" << i << "][h=" << h << "][" << x << "]";
        }
      }
  }
}

TEST_P(HopperAttentionTest, MatchesF64Softmax) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  runAndCheck(**module, GetParam());
}

Case dense(bool bf16, unsigned dim, unsigned batch, unsigned heads,
           unsigned kvHeads, unsigned sq, unsigned sk) {
  Case c = denseShape<Case>(bf16, dim, batch, heads, kvHeads, sq, sk);
  c.pingPong = hopperAttentionPingPong(dim);
  return c;
}
Case independent(Case c) {
  c.pingPong = false;
  return c;
}
Case rows192(Case c) {
  c.consumers = 3;
  return c;
}
Case packed(bool bf16, unsigned dim, std::vector<unsigned> sq,
            std::vector<unsigned> sk) {
  Case c = packedShape<Case>(bf16, dim, std::move(sq), std::move(sk));
  c.pingPong = hopperAttentionPingPong(dim);
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HopperAttentionTest,
    ::testing::Values(dense(false, 64, 1, 1, 1, 1, 1),
                      dense(false, 64, 2, 2, 2, 130, 77),
                      independent(dense(false, 64, 2, 2, 2, 130, 77)),
                      causal(dense(true, 64, 1, 4, 2, 70, 150), false),
                      bhsd(causal(dense(false, 64, 1, 2, 1, 150, 70), true)),
                      causal(dense(false, 128, 1, 2, 2, 65, 129), true),
                      bhsd(dense(true, 128, 2, 1, 1, 33, 64)),
                      window(dense(false, 64, 1, 2, 2, 200, 260), 70, 5),
                      window(dense(true, 128, 1, 1, 1, 140, 140), -1, 100),
                      // Four 128-key blocks through the two-stage ring; the
                      // last query block's window starts in block 1.
                      window(dense(false, 128, 1, 2, 1, 400, 420), 150, 20),
                      independent(
                          window(dense(false, 128, 1, 2, 1, 400, 420), 150, 20)),
                      independent(causal(dense(true, 128, 1, 2, 1, 300, 300),
                                         false)),
                      causal(packed(false, 64, {5, 130, 64}, {70, 1, 129}),
                             true),
                      packed(true, 128, {129, 3}, {64, 200}),
                      causal(dense(false, 256, 1, 1, 1, 70, 130), true),
                      dense(true, 256, 1, 2, 1, 129, 65),
                      // 192-row blocks: a ragged second block, the third
                      // consumer's rows past seq_q in the first; GQA;
                      // three keys blocks through the ring.
                      rows192(dense(false, 64, 1, 2, 1, 250, 300)),
                      rows192(dense(true, 64, 1, 1, 1, 100, 77)),
                      rows192(independent(
                          causal(dense(true, 64, 1, 4, 2, 200, 260), true))),
                      rows192(window(dense(false, 64, 1, 1, 1, 400, 420),
                                     150, 20)),
                      rows192(causal(
                          packed(false, 64, {5, 200, 64}, {70, 1, 300}),
                          false))));

} // namespace

namespace {

using HopperAttentionProfileTest = HopperKernelsTest<int>;

/// A key block every row of a warpgroup sees whole skips the mask: going
/// from 512 to 1024 keys (four more unmasked 128-key blocks; the first and
/// the ones past seq_k are masked) costs each consumer warp what the
/// products and the softmax need per block, not the mask's compares and
/// selects (4-5 instructions per score, 64 scores a thread at d128).
TEST_F(HopperAttentionProfileTest, FullBlocksSkipTheMask) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  auto instructions = [&](unsigned seqK, bool pingPong) {
    Case c = dense(false, 128, 1, 1, 1, 128, seqK);
    c.pingPong = pingPong;
    interp::Profile profile;
    runAndCheck(**module, c, &profile);
    const interp::KernelProfile *k =
        profile.find(
        hopperAttentionName(HopperAttentionConfig{false, 128, 2, pingPong}));
    return k ? k->warpInstructions : 0;
  };
  for (bool pingPong : {false, true}) {
    uint64_t at512 = instructions(512, pingPong);
    uint64_t at1024 = instructions(1024, pingPong);
    ASSERT_GT(at512, 0u);
    ASSERT_GT(at1024, at512);
    // Per consumer warp (8) per added block (4): wgmma issue, the softmax
    // (a max, an fma, an ex2 and an add per score, the packing, O's
    // rescale), the barriers: about 480. The masked step costs about 800.
    double perBlock = double(at1024 - at512) / (8 * 4);
    EXPECT_LT(perBlock, 600) << (pingPong ? "ping-pong" : "independent");
    EXPECT_GT(perBlock, 300) << (pingPong ? "ping-pong" : "independent");
  }
}

} // namespace

//===- HopperAttentionBackwardKernelsTest.cpp - sm_90a dQ, dK, dV ---------===//
//
// The warp-specialised TMA + wgmma kernels of the attention backward (dK/dV
// and dQ) in the interpreter against f64 reference gradients (P from an
// f64 softmax; lse and delta = rowsum(dO O) given to the kernels as the
// forward and flash_bwd_prep would): ragged lengths (key blocks past
// seq_k, query blocks past seq_q), causal top-left and bottom-right,
// sliding windows (key blocks no query sees get zeros), GQA (dK and dV
// summed over the group), packed variable-length batches, bshd and bhsd,
// f16 and bf16, head dims 64 and 128.
//
//===----------------------------------------------------------------------===//

#include "HopperTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

using Case = AttentionShape;

using HopperBackwardTest = HopperKernelsTest<Case>;

/// Runs case `c` in the interpreter (adding its counts to `profile` when
/// given) and checks dK and dV against the f64 reference gradients.
void runAndCheck(mlir::ModuleOp module, const Case &c,
                 interp::Profile *profile = nullptr) {
  const HopperAttentionBackwardConfig config{c.bf16, c.dim, 2};
  const interp::FloatFormat fmt = c.bf16 ? interp::kBF16 : interp::kF16;
  const AttentionLayout lay(c.dim, c.heads, c.kvHeads, c.seqQ, c.seqK,
                            c.packed, c.bhsd);
  auto at = &AttentionLayout::at;
  std::mt19937 rng(lay.rowsQ * 29 + lay.rowsK + c.dim + c.windowLeft);
  const size_t qElems = size_t(lay.storeBatch) * lay.rowsQ * c.heads * c.dim;
  const size_t kvElems =
      size_t(lay.storeBatch) * lay.rowsK * c.kvHeads * c.dim;
  std::vector<double> q, k, v, dO;
  std::vector<uint16_t> qBits = sample16(rng, qElems, c.bf16, q),
                        kBits = sample16(rng, kvElems, c.bf16, k),
                        vBits = sample16(rng, kvElems, c.bf16, v),
                        doBits = sample16(rng, qElems, c.bf16, dO);
  const double scale = 1.0 / std::sqrt(double(c.dim));
  const unsigned group = c.heads / c.kvHeads;

  // The reference: per row P, lse and delta; dK and dV summed over the
  // rows (and query heads) that see each key.
  const size_t rowsPerHead = lay.rowsQ;
  std::vector<float> lse(size_t(lay.storeBatch) * c.heads * rowsPerHead,
                         0.0f),
      delta(lse.size(), 0.0f);
  std::vector<double> wantQ(qElems, 0.0), gk(kvElems, 0.0), gv(kvElems, 0.0);
  std::vector<bool> ownedQ(qElems, false), owned(kvElems, false);
  for (unsigned b = 0; b < lay.batch; ++b) {
    const unsigned sq = c.packed ? c.seqQ[b] : lay.rowsQ;
    const unsigned sk = c.packed ? c.seqK[b] : lay.rowsK;
    const unsigned sb = c.packed ? 0 : b, q0 = lay.startQ[b],
                   k0 = lay.startK[b];
    for (unsigned kh = 0; kh < c.kvHeads; ++kh)
      for (unsigned j = 0; j < sk; ++j)
        for (unsigned x = 0; x < c.dim; ++x)
          owned[at(lay.strideKV, sb, k0 + j, kh, x)] = true;
    const int offset = c.bottomRight ? int(sk) - int(sq) : 0;
    for (unsigned h = 0; h < c.heads; ++h)
      for (unsigned i = 0; i < sq; ++i) {
        const unsigned kh = h / group;
        for (unsigned x = 0; x < c.dim; ++x)
          ownedQ[at(lay.strideQ, sb, q0 + i, h, x)] = true;
        auto qv = [&](const std::vector<double> &t, unsigned x) {
          return t[at(lay.strideQ, sb, q0 + i, h, x)];
        };
        auto kv = [&](const std::vector<double> &t, unsigned j, unsigned x) {
          return t[at(lay.strideKV, sb, k0 + j, kh, x)];
        };
        auto visible = [&](unsigned j) {
          int diagonal = int(i) + offset;
          return (c.windowLeft < 0 || int(j) >= diagonal - c.windowLeft) &&
                 (c.windowRight < 0 || int(j) <= diagonal + c.windowRight);
        };
        std::vector<double> score(sk, 0), p(sk, 0);
        double mx = -INFINITY, sum = 0;
        for (unsigned j = 0; j < sk; ++j) {
          if (!visible(j))
            continue;
          double dot = 0;
          for (unsigned x = 0; x < c.dim; ++x)
            dot += qv(q, x) * kv(k, j, x);
          score[j] = dot * scale;
          mx = std::max(mx, score[j]);
        }
        for (unsigned j = 0; j < sk; ++j) {
          p[j] = visible(j) ? std::exp(score[j] - mx) : 0;
          sum += p[j];
        }
        const size_t row = (size_t(sb) * c.heads + h) * rowsPerHead + q0 + i;
        lse[row] = sum > 0 ? float(mx + std::log(sum)) : -INFINITY;
        double dl = 0;
        for (unsigned x = 0; x < c.dim; ++x) {
          double o = 0;
          for (unsigned j = 0; j < sk; ++j)
            o += p[j] / (sum > 0 ? sum : 1) * kv(v, j, x);
          dl += o * qv(dO, x);
        }
        delta[row] = float(dl);
        for (unsigned j = 0; j < sk; ++j) {
          // P as the kernel computes it: from the f32 lse.
          double pj =
              visible(j) ? std::exp(score[j] - double(lse[row])) : 0;
          if (pj == 0)
            continue;
          double dp = 0;
          for (unsigned x = 0; x < c.dim; ++x)
            dp += qv(dO, x) * kv(v, j, x);
          double ds = pj * (dp - double(delta[row]));
          for (unsigned x = 0; x < c.dim; ++x) {
            gk[at(lay.strideKV, sb, k0 + j, kh, x)] += scale * ds * qv(q, x);
            wantQ[at(lay.strideQ, sb, q0 + i, h, x)] += scale * ds * kv(k, j, x);
            gv[at(lay.strideKV, sb, k0 + j, kh, x)] += pj * qv(dO, x);
          }
        }
      }
  }

  interp::Interpreter in(module);
  auto upload = [&](const auto &data) {
    uint64_t a = in.allocGlobal(data.size() * sizeof(data[0]));
    in.write(a, data);
    return a;
  };
  uint64_t gq = upload(qBits), gkk = upload(kBits), gvv = upload(vBits),
           gdo = upload(doBits), glse = upload(lse), gdelta = upload(delta);
  // dQ, dK and dV start as a sentinel: every owned element must be
  // written, no other.
  const uint16_t sentinel = 0x7bff;
  std::vector<uint16_t> fill(kvElems, sentinel), fillQ(qElems, sentinel);
  uint64_t gdk = upload(fill), gdv = upload(fill), gdq = upload(fillQ);
  uint64_t cuQ = 0, cuK = 0;
  if (c.packed) {
    std::vector<int32_t> offQ(lay.startQ.begin(), lay.startQ.end()),
        offK(lay.startK.begin(), lay.startK.end());
    offQ.push_back(int32_t(lay.rowsQ));
    offK.push_back(int32_t(lay.rowsK));
    cuQ = upload(offQ);
    cuK = upload(offK);
  }
  auto map = [&](uint64_t address, unsigned heads, unsigned seq,
                 const std::array<uint64_t, 4> &stride, uint32_t rows) {
    return tensorMap16(in, address, c.bf16,
                       {c.dim, heads, seq, lay.storeBatch}, stride,
                       {64, 1, rows, 1});
  };
  const unsigned maxQ = *std::max_element(c.seqQ.begin(), c.seqQ.end());
  const unsigned maxK = *std::max_element(c.seqK.begin(), c.seqK.end());
  // The arguments after the outputs' pointers and strides.
  const std::vector<uint64_t> rest = {
      glse,
      gdelta,
      uint64_t(c.heads) * rowsPerHead,
      rowsPerHead,
      c.seqQ[0],
      c.seqK[0],
      group,
      interp::Interpreter::argF32(float(scale * M_LOG2E)),
      interp::Interpreter::argF32(float(scale)),
      uint64_t(uint32_t(c.windowLeft)),
      uint64_t(uint32_t(c.windowRight)),
      uint64_t(c.bottomRight),
      cuQ,
      cuK};
  auto launch = [&](const std::string &kernel, unsigned queryRows,
                    unsigned keyRows, interp::Dim3 grid, unsigned smem,
                    std::vector<uint64_t> outputs) {
    std::vector<uint64_t> args = {
        map(gq, c.heads, lay.rowsQ, lay.strideQ, queryRows),
        map(gkk, c.kvHeads, lay.rowsK, lay.strideKV, keyRows),
        map(gvv, c.kvHeads, lay.rowsK, lay.strideKV, keyRows),
        map(gdo, c.heads, lay.rowsQ, lay.strideQ, queryRows)};
    args.insert(args.end(), outputs.begin(), outputs.end());
    args.insert(args.end(), rest.begin(), rest.end());
    interp::LaunchOptions options;
    options.profile = profile;
    options.dynamicSharedBytes = smem;
    ASSERT_LE(smem, 227u * 1024);
    interp::LaunchResult r = in.launch(kernel, grid, {384}, args, options);
    ASSERT_TRUE(r.success) << kernel << ": " << r.message();
  };
  const auto &s = lay.strideKV, &sq = lay.strideQ;
  launch(hopperDkdvName(config), kHopperDkdvQueries, kHopperDkdvKeys,
         {(maxK + kHopperDkdvKeys - 1) / kHopperDkdvKeys, c.kvHeads,
          lay.batch},
         hopperDkdvSharedBytes(config),
         {gdk, s[3], s[2], s[1], gdv, s[3], s[2], s[1]});
  launch(hopperDqName(config), kHopperDqQueries, kHopperDqKeys,
         {(maxQ + kHopperDqQueries - 1) / kHopperDqQueries, c.heads,
          lay.batch},
         hopperDqSharedBytes(config), {gdq, sq[3], sq[2], sq[1]});
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  // P and dS are rounded to the element type before their products:
  // errors relative to each gradient's largest magnitude.
  const double rel = c.bf16 ? 3e-2 : 4e-3;
  auto compare = [&](const char *what, const std::vector<double> &want,
                     const std::vector<bool> &owned, uint64_t address) {
    std::vector<uint16_t> bits(want.size());
    in.read(address, bits);
    double mag = 1e-3;
    for (double x : want)
      mag = std::max(mag, std::fabs(x));
    for (size_t i = 0; i < want.size(); ++i) {
      if (!owned[i]) {
        ASSERT_EQ(bits[i], sentinel) << what << ": wrote element " << i;
        continue;
      }
      ASSERT_NE(bits[i], sentinel) << what << ": element " << i << " unwritten";
      ASSERT_NEAR(interp::toDouble(bits[i], fmt), want[i], rel * mag + 1e-3)
          << what << " element " << i << " (largest " << mag << ")";
    }
  };
  compare("dQ", wantQ, ownedQ, gdq);
  compare("dK", gk, owned, gdk);
  compare("dV", gv, owned, gdv);
}

TEST_P(HopperBackwardTest, MatchesF64Gradients) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  runAndCheck(**module, GetParam());
}

Case dense(bool bf16, unsigned dim, unsigned batch, unsigned heads,
           unsigned kvHeads, unsigned sq, unsigned sk) {
  return denseShape<Case>(bf16, dim, batch, heads, kvHeads, sq, sk);
}
Case packed(bool bf16, unsigned dim, std::vector<unsigned> sq,
            std::vector<unsigned> sk) {
  return packedShape<Case>(bf16, dim, std::move(sq), std::move(sk));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HopperBackwardTest,
    ::testing::Values(
        dense(false, 64, 1, 1, 1, 1, 1), dense(false, 64, 2, 2, 2, 130, 77),
        causal(dense(true, 64, 1, 4, 2, 70, 150), false),
        bhsd(causal(dense(false, 64, 1, 2, 1, 150, 70), true)),
        causal(dense(false, 128, 1, 2, 2, 65, 129), true),
        bhsd(dense(true, 128, 2, 1, 1, 33, 64)),
        // Keys 210 ... 259 are seen by no query: zeros (key block 2 has no
        // step at all).
        window(dense(false, 64, 1, 2, 2, 200, 260), 70, 5),
        window(dense(true, 128, 1, 1, 1, 140, 140), -1, 100),
        // Two query heads a kv head, five query blocks each: the ring
        // wraps, the group sums in order.
        window(dense(false, 128, 1, 2, 1, 300, 260), 150, 20),
        causal(packed(false, 64, {5, 130, 64}, {70, 1, 129}), true),
        packed(true, 128, {129, 3}, {64, 200})));

} // namespace

namespace {

using HopperBackwardProfileTest = HopperKernelsTest<int>;

/// What a step costs: four wgmma products in the dK/dV kernel (S^T, dP^T,
/// dV, dK: nothing recomputed), three in the dQ kernel, lse and delta read from shared memory without bank
/// conflicts (the producer's stores too), and per consumer warp and step
/// the issue, P, dS and their packing, not the mask's compares (steps
/// every element of which is visible skip them).
TEST_F(HopperBackwardProfileTest, AStepIsFourProductsAndNoConflicts) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const HopperAttentionBackwardConfig config{false, 128, 2};
  auto profileOf = [&](unsigned seqQ, bool dq) {
    interp::Profile profile;
    runAndCheck(**module, dense(false, 128, 1, 1, 1, seqQ, 128), &profile);
    const interp::KernelProfile *k =
        profile.find(dq ? hopperDqName(config) : hopperDkdvName(config));
    EXPECT_NE(k, nullptr);
    return k ? *k : interp::KernelProfile();
  };
  interp::KernelProfile at256 = profileOf(256, false),
                        at512 = profileOf(512, false);
  // 128 keys, 512 queries: 8 steps of four 64 x 64 x 128 products per
  // consumer warpgroup.
  EXPECT_EQ(at512.mmaFlops["f16"], 2ull * 8 * 4 * 2 * 64 * 64 * 128);
  // dQ: 4 query blocks of 2 warpgroups, 2 key blocks of 64, three
  // products (S, dP, dS K) a step.
  EXPECT_EQ(profileOf(512, true).mmaFlops["f16"],
            4ull * 2 * 2 * 3 * 2 * 64 * 64 * 128);
  for (const char *kind : {"ld.shared", "st.shared"}) {
    ASSERT_TRUE(at512.shared.count(kind)) << kind;
    EXPECT_EQ(at512.shared[kind].bankConflicts(), 0u) << kind;
  }
  // Four more steps, none masked: per consumer warp (8) and step, about
  // 310 (P: an fma and an ex2, dS: a sub and a mul, a score; packing; 24
  // wgmma; descriptors; 16 shared loads). The mask would add 4-5 a score
  // (32 scores a thread).
  double perStep =
      double(at512.warpInstructions - at256.warpInstructions) / (8 * 4);
  EXPECT_LT(perStep, 380);
  EXPECT_GT(perStep, 250);
  // dQ: 128 queries, four more 64-key steps, none masked, per consumer
  // warp and step.
  auto dqProfile = [&](unsigned seqK) {
    interp::Profile profile;
    runAndCheck(**module, dense(false, 128, 1, 1, 1, 128, seqK), &profile);
    const interp::KernelProfile *k = profile.find(hopperDqName(config));
    return k ? *k : interp::KernelProfile();
  };
  double dqPerStep = double(dqProfile(512).warpInstructions -
                            dqProfile(256).warpInstructions) /
                     (8 * 4);
  // About 250: the dK/dV step's P and dS work without the second packing
  // and product.
  EXPECT_LT(dqPerStep, 300);
  EXPECT_GT(dqPerStep, 200);
}

} // namespace

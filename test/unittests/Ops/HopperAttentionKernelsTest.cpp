//===- HopperAttentionKernelsTest.cpp - sm_90a FlashAttention forward -----===//
//
// The warp-specialised TMA + wgmma attention forward in the interpreter
// against an f64 softmax reference: ragged sequence lengths (TMA zero-fills,
// the mask hides the padding), causal top-left and bottom-right (rows that
// see no key give 0), GQA, bshd and bhsd layouts through the tensor maps'
// strides, f16 and bf16, head dims 64 and 128.
//
//===----------------------------------------------------------------------===//

#include "HopperTestSupport.h"

#include <cmath>

using namespace kaio;
using namespace kaio::ops::kernels;
using namespace kaio::test;

namespace {

struct Case {
  bool bf16;
  unsigned dim, batch, heads, kvHeads, seqQ, seqK;
  int causal; // 0 none, 1 top-left, 2 bottom-right
  bool bhsd;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << (c.bf16 ? "bf16" : "f16") << " d" << c.dim << " b" << c.batch
      << " h" << c.heads << "/" << c.kvHeads << " sq" << c.seqQ << " sk"
      << c.seqK << (c.causal == 1   ? " causal-tl"
                    : c.causal == 2 ? " causal-br"
                                    : "")
      << (c.bhsd ? " bhsd" : " bshd");
}

using HopperAttentionTest = HopperKernelsTest<Case>;

/// Element strides of a [batch][seq][heads][dim] tensor stored bshd or
/// bhsd: {dim, head, seq, batch}.
std::array<uint64_t, 4> stridesOf(const Case &c, unsigned heads,
                                  unsigned seq) {
  if (c.bhsd)
    return {1, uint64_t(seq) * c.dim, c.dim, uint64_t(heads) * seq * c.dim};
  return {1, c.dim, uint64_t(heads) * c.dim, uint64_t(seq) * heads * c.dim};
}

TEST_P(HopperAttentionTest, MatchesF64Softmax) {
  ASSERT_TRUE(*module) << "the generated module does not parse";
  const Case c = GetParam();
  HopperAttentionConfig config{c.bf16, c.dim, 2};
  const interp::FloatFormat fmt = c.bf16 ? interp::kBF16 : interp::kF16;
  std::mt19937 rng(c.seqQ * 31 + c.seqK + c.dim + c.causal);

  const size_t qElems = size_t(c.batch) * c.seqQ * c.heads * c.dim;
  const size_t kvElems = size_t(c.batch) * c.seqK * c.kvHeads * c.dim;
  std::vector<double> q, k, v;
  std::vector<uint16_t> qBits = sample16(rng, qElems, c.bf16, q),
                        kBits = sample16(rng, kvElems, c.bf16, k),
                        vBits = sample16(rng, kvElems, c.bf16, v);
  interp::Interpreter in(**module);
  auto upload = [&](const std::vector<uint16_t> &bits) {
    uint64_t a = in.allocGlobal(bits.size() * 2);
    in.write(a, bits);
    return a;
  };
  uint64_t gq = upload(qBits), gk = upload(kBits), gv = upload(vBits);
  uint64_t go = in.allocGlobal(qElems * 2);
  const size_t rowsTotal = size_t(c.batch) * c.heads * c.seqQ;
  uint64_t glse = in.allocGlobal(rowsTotal * 4);
  auto strideQ = stridesOf(c, c.heads, c.seqQ);
  auto strideKV = stridesOf(c, c.kvHeads, c.seqK);
  auto map = [&](uint64_t address, unsigned heads, unsigned seq,
                 const std::array<uint64_t, 4> &stride, uint32_t rows) {
    return tensorMap16(in, address, c.bf16, {c.dim, heads, seq, c.batch},
                       stride, {64, 1, rows, 1});
  };
  uint64_t mq = map(gq, c.heads, c.seqQ, strideQ, 128);
  uint64_t mk = map(gk, c.kvHeads, c.seqK, strideKV, 64);
  uint64_t mv = map(gv, c.kvHeads, c.seqK, strideKV, 64);
  const double scale = 1.0 / std::sqrt(double(c.dim));
  const int offset = c.causal == 2 ? int(c.seqK) - int(c.seqQ) : 0;
  const unsigned group = c.heads / c.kvHeads;
  interp::LaunchOptions options;
  options.dynamicSharedBytes = 128 * c.dim * 2 + 2 * 2 * 64 * c.dim * 2;
  interp::LaunchResult r = in.launch(
      hopperAttentionName(config), {(c.seqQ + 127) / 128, c.heads, c.batch},
      {384},
      {mq, mk, mv, go, strideQ[3], strideQ[2], strideQ[1], c.seqQ, c.seqK,
       group, interp::Interpreter::argF32(float(scale * M_LOG2E)),
       uint64_t(c.causal != 0), uint64_t(uint32_t(offset)), glse},
      options);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint16_t> oBits(qElems);
  in.read(go, oBits);
  std::vector<float> lse(rowsTotal);
  in.read(glse, lse);
  auto at = [&](const std::array<uint64_t, 4> &s, unsigned b, unsigned t,
                unsigned h, unsigned x) {
    return b * s[3] + t * s[2] + h * s[1] + x * s[0];
  };
  for (unsigned b = 0; b < c.batch; ++b)
    for (unsigned h = 0; h < c.heads; ++h)
      for (unsigned i = 0; i < c.seqQ; ++i) {
        std::vector<double> w(c.seqK, 0);
        double mx = -INFINITY, sum = 0;
        for (unsigned j = 0; j < c.seqK; ++j) {
          if (c.causal && int(j) > int(i) + offset)
            continue;
          double dot = 0;
          for (unsigned x = 0; x < c.dim; ++x)
            dot += q[at(strideQ, b, i, h, x)] *
                   k[at(strideKV, b, j, h / group, x)];
          w[j] = dot * scale;
          mx = std::max(mx, w[j]);
        }
        for (unsigned j = 0; j < c.seqK; ++j) {
          bool seen = !c.causal || int(j) <= int(i) + offset;
          w[j] = seen ? std::exp(w[j] - mx) : 0;
          sum += w[j];
        }
        const double wantLse = sum > 0 ? mx + std::log(sum) : -INFINITY;
        const float gotLse = lse[(size_t(b) * c.heads + h) * c.seqQ + i];
        if (std::isinf(wantLse))
          ASSERT_TRUE(std::isinf(gotLse) && gotLse < 0) << "lse row " << i;
        else
          ASSERT_NEAR(gotLse, wantLse, 1e-3) << "lse row " << i;
        for (unsigned x = 0; x < c.dim; ++x) {
          double want = 0;
          for (unsigned j = 0; j < c.seqK; ++j)
            want += w[j] * v[at(strideKV, b, j, h / group, x)];
          want = sum > 0 ? want / sum : 0;
          double got = interp::toDouble(oBits[at(strideQ, b, i, h, x)], fmt);
          ASSERT_NEAR(got, want, c.bf16 ? 2e-2 : 5e-3)
              << "O[b=" << b << "][t=" << i << "][h=" << h << "][" << x << "]";
        }
      }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HopperAttentionTest,
    ::testing::Values(Case{false, 64, 1, 1, 1, 1, 1, 0, false},
                      Case{false, 64, 2, 2, 2, 130, 77, 0, false},
                      Case{true, 64, 1, 4, 2, 70, 150, 1, false},
                      Case{false, 64, 1, 2, 1, 150, 70, 2, true},
                      Case{false, 128, 1, 2, 2, 65, 129, 2, false},
                      Case{true, 128, 2, 1, 1, 33, 64, 0, true}));

} // namespace

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
  /// dK/dV by flash_bwd_dkdv_single (head dim 128: one Q/dO tile set).
  bool singleSetDkdv = false;
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
    kernels = buildLoweredKernels(
        [](builder::ModuleBuilder &mb) { buildAttentionKernels(mb); });
    ASSERT_EQ(kernels->error, "");
    module = &kernels->module;
  }
  static void TearDownTestSuite() {
    module = nullptr;
    kernels.reset();
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

  /// One problem's shapes, layouts, inputs and f64 reference (softmax
  /// materialised).
  struct Case {
    Problem p;
    unsigned D;
    bool varlen;
    uint32_t batch, rowsQ, rowsK, maxQ, maxK;
    std::vector<uint32_t> offQ{0}, offK{0}, lenQ, lenK;
    Layout lq, lk;
    size_t nq, nk, nl;
    uint64_t lseBatch, lseHead;
    double scale;
    std::vector<double> q, k, v;

    /// Dense: [batch, seq, heads, dim] or [batch, heads, seq, dim]; packed:
    /// [total, heads, dim] (batch stride 0, rows offset by cu_seqlens).
    Layout layoutOf(uint32_t heads, uint32_t seq) const {
      if (varlen)
        return Layout{0, D, heads * D};
      if (p.headsMajor)
        return Layout{uint64_t(heads) * seq * D, uint64_t(seq) * D, D};
      return Layout{uint64_t(seq) * heads * D, D, heads * D};
    }
    uint32_t kvHead(uint32_t h) const { return h / (p.heads / p.kvHeads); }
    /// Element d of query row i of (b, h) in a Q-shaped tensor.
    uint64_t qIndex(uint32_t b, uint32_t h, uint32_t i, unsigned d) const {
      return lq.index(varlen ? 0 : b, h, offQ[varlen ? b : 0] + i, d);
    }
    uint64_t kIndex(uint32_t b, uint32_t kh, uint32_t j, unsigned d) const {
      return lk.index(varlen ? 0 : b, kh, offK[varlen ? b : 0] + j, d);
    }
    size_t lseIndex(uint32_t b, uint32_t h, uint32_t i) const {
      return (varlen ? 0 : b) * lseBatch + h * lseHead + offQ[varlen ? b : 0] +
             i;
    }
    /// scale * q_i . k_j for the keys row i sees, -inf for the others.
    std::vector<double> scores(uint32_t b, uint32_t h, uint32_t i) const {
      int64_t d0 = p.bottomRight ? int64_t(lenK[b]) - lenQ[b] : 0;
      std::vector<double> s(lenK[b], -INFINITY);
      for (uint32_t j = 0; j < lenK[b]; ++j) {
        int64_t lo = int64_t(i) + d0 - p.windowLeft,
                hi = int64_t(i) + d0 + p.windowRight;
        if ((p.windowLeft >= 0 && int64_t(j) < lo) ||
            (p.windowRight >= 0 && int64_t(j) > hi))
          continue;
        double dot = 0;
        for (unsigned d = 0; d < D; ++d)
          dot += q[qIndex(b, h, i, d)] * k[kIndex(b, kvHead(h), j, d)];
        s[j] = dot * scale;
      }
      return s;
    }
    /// softmax(s) (all 0 for a row that sees nothing) and its logsumexp.
    static std::vector<double> softmax(const std::vector<double> &s,
                                       double &lse) {
      double mx = -INFINITY, sum = 0;
      for (double x : s)
        mx = std::max(mx, x);
      for (double x : s)
        sum += x == -INFINITY ? 0 : std::exp(x - mx);
      std::vector<double> pr(s.size(), 0.0);
      lse = sum == 0 ? -INFINITY : mx + std::log(sum);
      for (size_t j = 0; j < s.size() && sum; ++j)
        pr[j] = s[j] == -INFINITY ? 0 : std::exp(s[j] - mx) / sum;
      return pr;
    }
    /// The trailing parameters every attention kernel takes.
    std::vector<uint64_t> common(uint64_t cuQ, uint64_t cuK,
                                 uint32_t flags) const {
      return {cuQ,
              cuK,
              p.seqQ,
              p.seqK,
              p.heads / p.kvHeads,
              Interpreter::argF32(float(scale * M_LOG2E)),
              Interpreter::argF32(float(scale)),
              uint64_t(uint32_t(p.windowLeft)),
              uint64_t(uint32_t(p.windowRight)),
              flags};
    }
    uint32_t flags() const {
      return (varlen ? uint32_t(kAttnVarlen) : 0u) |
             (p.bottomRight ? uint32_t(kAttnBottomRight) : 0u);
    }
  };

  Case makeCase(const Problem &p) {
    Case c;
    c.p = p;
    c.D = dim();
    c.varlen = !p.lensQ.empty();
    c.batch = c.varlen ? uint32_t(p.lensQ.size()) : p.batch;
    for (uint32_t b = 0; b < c.batch; ++b) {
      c.lenQ.push_back(c.varlen ? p.lensQ[b] : p.seqQ);
      c.lenK.push_back(c.varlen ? p.lensK[b] : p.seqK);
      c.offQ.push_back(c.offQ.back() + c.lenQ.back());
      c.offK.push_back(c.offK.back() + c.lenK.back());
    }
    c.maxQ = *std::max_element(c.lenQ.begin(), c.lenQ.end());
    c.maxK = *std::max_element(c.lenK.begin(), c.lenK.end());
    c.rowsQ = c.varlen ? c.offQ.back() : p.seqQ;
    c.rowsK = c.varlen ? c.offK.back() : p.seqK;
    c.lq = c.layoutOf(p.heads, c.rowsQ);
    c.lk = c.layoutOf(p.kvHeads, c.rowsK);
    uint32_t outer = c.varlen ? 1 : c.batch;
    c.nq = size_t(outer) * c.rowsQ * p.heads * c.D;
    c.nk = size_t(outer) * c.rowsK * p.kvHeads * c.D;
    // lse: [batch, heads, seq] (dense) or [heads, total] (packed).
    c.lseBatch = c.varlen ? 0 : uint64_t(p.heads) * c.rowsQ;
    c.lseHead = c.rowsQ;
    c.nl = size_t(outer) * p.heads * c.rowsQ;
    c.scale = p.scale ? p.scale : 1.0 / std::sqrt(double(c.D));
    c.q = random(c.nq);
    c.k = random(c.nk);
    c.v = random(c.nk);
    return c;
  }

  /// Device memory of a run in the interpreter.
  struct Device {
    Interpreter interp;
    uint64_t cuQ = 0, cuK = 0;
    explicit Device(mlir::ModuleOp m) : interp(m) {}
    uint64_t upload(Elem e, const std::vector<double> &x) {
      std::vector<unsigned char> bytes = encode(e, x);
      uint64_t a = interp.allocGlobal(bytes.size() + 64);
      EXPECT_TRUE(interp.write(a, bytes.data(), bytes.size()));
      return a;
    }
    uint64_t uploadF32(const std::vector<float> &x) {
      uint64_t a = interp.allocGlobal(x.size() * 4 + 64);
      EXPECT_TRUE(interp.write(a, x));
      return a;
    }
    std::vector<double> download(Elem e, uint64_t a, size_t n) {
      std::vector<unsigned char> bytes(n * elemBytes(e));
      EXPECT_TRUE(interp.read(a, bytes.data(), bytes.size()));
      return decode(e, bytes);
    }
    void uploadOffsets(const Case &c) {
      std::vector<int32_t> q(c.offQ.begin(), c.offQ.end()),
          k(c.offK.begin(), c.offK.end());
      cuQ = interp.allocGlobal(q.size() * 4);
      cuK = interp.allocGlobal(k.size() * 4);
      EXPECT_TRUE(interp.write(cuQ, q));
      EXPECT_TRUE(interp.write(cuK, k));
    }
  };

  /// Arguments of a Q- or K-shaped tensor at `addr`.
  static std::vector<uint64_t> tensorArgs(uint64_t addr, const Layout &l) {
    return {addr, l.batchStride, l.headStride, l.rowStride};
  }
  static std::vector<uint64_t>
  concat(std::initializer_list<std::vector<uint64_t>> parts) {
    std::vector<uint64_t> out;
    for (const auto &part : parts)
      out.insert(out.end(), part.begin(), part.end());
    return out;
  }
  std::string name(const char *base) const {
    return std::string(base) + "_" + elemName(elem()) + "_d" +
           std::to_string(dim());
  }

  /// Runs the forward kernel on `p` and checks O and lse against the
  /// reference.
  void check(const Problem &p) {
    Case c = makeCase(p);
    Device dev(**module);
    dev.uploadOffsets(c);
    const double sentinel = 5.0;
    // O with 64 extra elements past the end: none may change.
    uint64_t dq = dev.upload(elem(), c.q), dk = dev.upload(elem(), c.k),
             dv = dev.upload(elem(), c.v),
             dout = dev.upload(elem(), std::vector<double>(c.nq + 64, sentinel));
    uint64_t dl = dev.uploadF32(std::vector<float>(c.nl + 16, 99.0f));
    std::string fwd = name("flash_fwd");
    auto r = dev.interp.launch(
        fwd, {(c.maxQ + kAttnBlockQ - 1) / kAttnBlockQ, p.heads, c.batch},
        {32 * kAttnWarps},
        concat({tensorArgs(dq, c.lq), tensorArgs(dk, c.lk),
                tensorArgs(dv, c.lk), tensorArgs(dout, c.lq),
                {dl, c.lseBatch, c.lseHead},
                c.common(dev.cuQ, dev.cuK, c.flags() | kAttnLse)}),
        options(p));
    ASSERT_TRUE(r.success) << fwd << ": " << r.message();
    std::vector<double> out = dev.download(elem(), dout, c.nq + 64);
    std::vector<float> lse(c.nl + 16);
    ASSERT_TRUE(dev.interp.read(dl, lse));

    // P is rounded to the element type before P V; O is stored in it.
    double tol = elem() == Elem::F16 ? 4e-3 : 3e-2;
    std::vector<bool> written(c.nq, false);
    for (uint32_t b = 0; b < c.batch; ++b)
      for (uint32_t h = 0; h < p.heads; ++h)
        for (uint32_t i = 0; i < c.lenQ[b]; ++i) {
          double want_lse;
          std::vector<double> pr = Case::softmax(c.scores(b, h, i), want_lse);
          std::string where = fwd + " b" + std::to_string(b) + " h" +
                              std::to_string(h) + " row " + std::to_string(i);
          float got = lse[c.lseIndex(b, h, i)];
          if (want_lse == -INFINITY)
            ASSERT_EQ(got, -INFINITY) << where;
          else
            ASSERT_NEAR(got, want_lse, 2e-3) << where;
          for (unsigned d = 0; d < c.D; ++d) {
            double want = 0;
            for (uint32_t j = 0; j < c.lenK[b]; ++j)
              want += pr[j] * c.v[c.kIndex(b, c.kvHead(h), j, d)];
            uint64_t oi = c.qIndex(b, h, i, d);
            written[oi] = true;
            ASSERT_NEAR(out[oi], want, tol) << where << " d " << d;
          }
        }
    for (size_t i = 0; i < c.nq + 64; ++i)
      if (i >= c.nq || !written[i])
        ASSERT_EQ(out[i], sentinel) << fwd << ": wrote element " << i;
    for (size_t i = c.nl; i < c.nl + 16; ++i)
      ASSERT_EQ(lse[i], 99.0f) << fwd << ": wrote lse past the end";
  }

  /// Runs the three backward kernels on `p` (O and lse from the f64
  /// forward, dO random) and checks dQ, dK and dV against the reference
  /// gradients: dS = P (dP - rowsum(dO O)), dQ = scale dS K, dK = scale
  /// dS^T Q (summed over the kv group), dV = P^T dO.
  void checkBackward(const Problem &p) {
    Case c = makeCase(p);
    const unsigned D = c.D;
    std::vector<double> o(c.nq, 0.0), dO = random(c.nq);
    std::vector<float> lse(c.nl, 0.0f);
    // The reference's P for every row, and O rounded as the forward stores.
    std::vector<std::vector<double>> P(c.batch * p.heads * c.maxQ);
    auto pOf = [&](uint32_t b, uint32_t h, uint32_t i) -> std::vector<double> & {
      return P[(size_t(b) * p.heads + h) * c.maxQ + i];
    };
    for (uint32_t b = 0; b < c.batch; ++b)
      for (uint32_t h = 0; h < p.heads; ++h)
        for (uint32_t i = 0; i < c.lenQ[b]; ++i) {
          double l;
          pOf(b, h, i) = Case::softmax(c.scores(b, h, i), l);
          lse[c.lseIndex(b, h, i)] = float(l);
          for (unsigned d = 0; d < D; ++d) {
            double x = 0;
            for (uint32_t j = 0; j < c.lenK[b]; ++j)
              x += pOf(b, h, i)[j] * c.v[c.kIndex(b, c.kvHead(h), j, d)];
            o[c.qIndex(b, h, i, d)] = roundTo(elem(), x);
          }
        }
    std::vector<double> gq(c.nq, 0.0), gk(c.nk, 0.0), gv(c.nk, 0.0);
    for (uint32_t b = 0; b < c.batch; ++b)
      for (uint32_t h = 0; h < p.heads; ++h)
        for (uint32_t i = 0; i < c.lenQ[b]; ++i) {
          uint32_t kh = c.kvHead(h);
          double delta = 0;
          for (unsigned d = 0; d < D; ++d)
            delta += dO[c.qIndex(b, h, i, d)] * o[c.qIndex(b, h, i, d)];
          for (uint32_t j = 0; j < c.lenK[b]; ++j) {
            double pij = pOf(b, h, i)[j];
            if (pij == 0)
              continue;
            double dp = 0;
            for (unsigned d = 0; d < D; ++d)
              dp += dO[c.qIndex(b, h, i, d)] * c.v[c.kIndex(b, kh, j, d)];
            double ds = pij * (dp - delta);
            for (unsigned d = 0; d < D; ++d) {
              gq[c.qIndex(b, h, i, d)] +=
                  c.scale * ds * c.k[c.kIndex(b, kh, j, d)];
              gk[c.kIndex(b, kh, j, d)] +=
                  c.scale * ds * c.q[c.qIndex(b, h, i, d)];
              gv[c.kIndex(b, kh, j, d)] += pij * dO[c.qIndex(b, h, i, d)];
            }
          }
        }

    Device dev(**module);
    dev.uploadOffsets(c);
    const double sentinel = 5.0;
    uint64_t aq = dev.upload(elem(), c.q), ak = dev.upload(elem(), c.k),
             av = dev.upload(elem(), c.v), ao = dev.upload(elem(), o),
             ado = dev.upload(elem(), dO);
    std::vector<double> fillQ(c.nq + 64, sentinel), fillK(c.nk + 64, sentinel);
    uint64_t adq = dev.upload(elem(), fillQ), adk = dev.upload(elem(), fillK),
             adv = dev.upload(elem(), fillK);
    uint64_t al = dev.uploadF32(lse),
             adelta = dev.uploadF32(std::vector<float>(c.nl + 16, 99.0f));
    std::vector<uint64_t> rowVec = {c.lseBatch, c.lseHead};
    std::vector<uint64_t> common = c.common(dev.cuQ, dev.cuK, c.flags());
    uint32_t qBlocks = (c.maxQ + kAttnBlockQ - 1) / kAttnBlockQ;

    auto launch = [&](const std::string &kernel, interp::Dim3 grid,
                      std::vector<uint64_t> args) {
      auto r = dev.interp.launch(kernel, grid, {32 * kAttnWarps}, args,
                                 options(p));
      EXPECT_TRUE(r.success) << kernel << ": " << r.message();
    };
    std::string prep = name("flash_bwd_prep");
    auto r = dev.interp.launch(
        prep, {(c.maxQ + 7) / 8, p.heads, c.batch}, {256},
        concat({tensorArgs(ao, c.lq), tensorArgs(ado, c.lq),
                {adelta, c.lseBatch, c.lseHead}, common}));
    ASSERT_TRUE(r.success) << prep << ": " << r.message();
    launch(name("flash_bwd_dq"), {qBlocks, p.heads, c.batch},
           concat({tensorArgs(aq, c.lq), tensorArgs(ak, c.lk),
                   tensorArgs(av, c.lk), tensorArgs(ado, c.lq),
                   tensorArgs(adq, c.lq), {al, c.lseBatch, c.lseHead},
                   {adelta, c.lseBatch, c.lseHead}, common}));
    launch(name(p.singleSetDkdv ? "flash_bwd_dkdv_single" : "flash_bwd_dkdv"),
           {(c.maxK + attnDkdvBlockK(D) - 1) / attnDkdvBlockK(D), p.kvHeads,
            c.batch},
           concat({tensorArgs(aq, c.lq), tensorArgs(ak, c.lk),
                   tensorArgs(av, c.lk), tensorArgs(ado, c.lq),
                   tensorArgs(adk, c.lk), tensorArgs(adv, c.lk),
                   {al, c.lseBatch, c.lseHead},
                   {adelta, c.lseBatch, c.lseHead}, common}));
    ASSERT_FALSE(HasFailure());

    // dS and P are rounded to the element type before their products:
    // errors relative to each gradient's largest magnitude.
    double rel = elem() == Elem::F16 ? 4e-3 : 3e-2;
    auto compare = [&](const char *what, const std::vector<double> &want,
                       uint64_t addr, size_t n) {
      std::vector<double> got = dev.download(elem(), addr, n + 64);
      double mag = 1e-3;
      for (double w : want)
        mag = std::max(mag, std::fabs(w));
      // Elements no row owns keep the sentinel (none with dense layouts).
      std::vector<bool> owned(n, false);
      bool isQ = n == c.nq;
      for (uint32_t b = 0; b < c.batch; ++b)
        for (uint32_t h = 0; h < (isQ ? p.heads : p.kvHeads); ++h)
          for (uint32_t i = 0; i < (isQ ? c.lenQ[b] : c.lenK[b]); ++i)
            for (unsigned d = 0; d < D; ++d)
              owned[isQ ? c.qIndex(b, h, i, d) : c.kIndex(b, h, i, d)] = true;
      for (size_t i = 0; i < n + 64; ++i) {
        if (i >= n || !owned[i]) {
          ASSERT_EQ(got[i], sentinel) << what << ": wrote element " << i;
          continue;
        }
        ASSERT_NEAR(got[i], want[i], rel * mag + 1e-3)
            << what << " element " << i << " (largest " << mag << ")";
      }
    };
    compare("dq", gq, adq, c.nq);
    compare("dk", gk, adk, c.nk);
    compare("dv", gv, adv, c.nk);
  }

  /// Flash decoding over a KV cache, paged (pages of `page` keys, the pages
  /// of every sequence scattered in the pool by a shuffled block table) or
  /// contiguous, against the f64 reference.
  struct DecodeProblem {
    std::vector<uint32_t> seqlens;
    uint32_t page = 64;
    uint32_t kvHeads = 2, group = 4, qLen = 1;
    bool paged = true, causal = false;
    uint32_t keysPerSplit = 128;
    /// The 16-row kernel even where the host would take the 32-row one.
    bool rows16 = false;
    interp::Profile *profile = nullptr;
  };
  void checkDecode(const DecodeProblem &p) {
    const unsigned D = dim();
    const uint32_t B = uint32_t(p.seqlens.size()), H = p.kvHeads * p.group;
    const uint32_t page = p.page;
    uint32_t maxSeq = *std::max_element(p.seqlens.begin(), p.seqlens.end());
    uint32_t pagesPerSeq = (maxSeq + page - 1) / page;
    // Paged: a pool of B * pagesPerSeq pages [page, page, kvHeads, D];
    // contiguous: [B, maxSeq, kvHeads, D].
    uint32_t slots = p.paged ? B * pagesPerSeq : B;
    uint32_t rowsPer = p.paged ? page : maxSeq;
    Layout lk{uint64_t(rowsPer) * p.kvHeads * D, D, p.kvHeads * D};
    Layout lq{uint64_t(p.qLen) * H * D, D, H * D};
    size_t nk = size_t(slots) * rowsPer * p.kvHeads * D;
    size_t nq = size_t(B) * p.qLen * H * D;
    std::vector<double> k = random(nk), v = random(nk), q = random(nq);
    std::vector<int32_t> table(B * pagesPerSeq);
    for (uint32_t i = 0; i < table.size(); ++i)
      table[i] = int32_t(i);
    std::shuffle(table.begin(), table.end(), rng);
    auto kvIndex = [&](uint32_t b, uint32_t kh, uint32_t j, unsigned d) {
      if (!p.paged)
        return lk.index(b, kh, j, d);
      return lk.index(uint32_t(table[b * pagesPerSeq + j / page]), kh,
                      j % page, d);
    };
    double scale = 1.0 / std::sqrt(double(D));
    uint32_t splitsPerBlock = (maxSeq + p.keysPerSplit - 1) / p.keysPerSplit;
    uint32_t splits = splitsPerBlock * kAttnWarps;
    uint32_t rows = p.group * p.qLen;
    // Pages that are not whole 64-key tiles: the 16-key-part variant.
    const bool pageParts = p.paged && page % 64;
    // 16- or 32-row blocks of a kv head's rows (block y = head * rowBlocks
    // + the row block), as the host picks them.
    const uint32_t blockRows =
        p.rows16 ? 16 : decodeBlockRows(rows, D, pageParts);
    uint32_t rowBlocks = (rows + blockRows - 1) / blockRows;

    Device dev(**module);
    uint64_t aq = dev.upload(elem(), q), ak = dev.upload(elem(), k),
             av = dev.upload(elem(), v),
             ao = dev.upload(elem(), std::vector<double>(nq + 64, 5.0));
    std::vector<int32_t> lens(p.seqlens.begin(), p.seqlens.end());
    uint64_t at = dev.interp.allocGlobal(table.size() * 4 + 16),
             al = dev.interp.allocGlobal(lens.size() * 4);
    ASSERT_TRUE(dev.interp.write(at, table));
    ASSERT_TRUE(dev.interp.write(al, lens));
    size_t partials = size_t(B) * p.kvHeads * splits * rows;
    uint64_t po = dev.uploadF32(std::vector<float>(partials * D, 0.0f)),
             pl = dev.uploadF32(std::vector<float>(partials, 0.0f));
    uint32_t flags = (p.paged ? uint32_t(kDecodePaged) : 0u) |
                     (p.causal ? uint32_t(kDecodeCausal) : 0u);
    std::string decode = name("flash_decode") +
                         (blockRows == 32 ? "_r32" : "") +
                         (pageParts ? "_p16" : "");
    interp::LaunchOptions launchOptions;
    launchOptions.profile = p.profile;
    auto r = dev.interp.launch(
        decode, {splitsPerBlock, p.kvHeads * rowBlocks, B}, {32 * kAttnWarps},
        concat({tensorArgs(aq, lq), tensorArgs(ak, lk), tensorArgs(av, lk),
                {at, pagesPerSeq, page, al, p.qLen, p.group, rowBlocks,
                 p.keysPerSplit,
                 Interpreter::argF32(float(scale * M_LOG2E)), flags, po,
                 pl}}),
        launchOptions);
    ASSERT_TRUE(r.success) << decode << ": " << r.message();
    std::string combine = name("flash_decode_combine");
    r = dev.interp.launch(combine, {rows, p.kvHeads, B},
                          {kDecodeCombineThreads},
                          concat({tensorArgs(ao, lq),
                                  {po, pl, splits, p.qLen, p.group}}),
                          launchOptions);
    ASSERT_TRUE(r.success) << combine << ": " << r.message();
    std::vector<double> out = dev.download(elem(), ao, nq + 64);
    double tol = elem() == Elem::F16 ? 4e-3 : 3e-2;
    for (uint32_t b = 0; b < B; ++b)
      for (uint32_t h = 0; h < H; ++h)
        for (uint32_t t = 0; t < p.qLen; ++t) {
          uint32_t kh = h / p.group, sk = p.seqlens[b];
          std::vector<double> s(sk, -INFINITY);
          for (uint32_t j = 0; j < sk; ++j) {
            if (p.causal && int64_t(j) > int64_t(sk) - p.qLen + t)
              continue;
            double dot = 0;
            for (unsigned d = 0; d < D; ++d)
              dot += q[lq.index(b, h, t, d)] * k[kvIndex(b, kh, j, d)];
            s[j] = dot * scale;
          }
          double lse;
          std::vector<double> pr = Case::softmax(s, lse);
          for (unsigned d = 0; d < D; ++d) {
            double want = 0;
            for (uint32_t j = 0; j < sk; ++j)
              want += pr[j] * v[kvIndex(b, kh, j, d)];
            ASSERT_NEAR(out[lq.index(b, h, t, d)], want, tol)
                << decode << " b" << b << " h" << h << " token " << t
                << " d " << d;
          }
        }
    for (size_t i = nq; i < nq + 64; ++i)
      ASSERT_EQ(out[i], 5.0) << decode << ": wrote past o";
  }

  inline static std::unique_ptr<LoweredKernels> kernels;
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

TEST_P(AttentionKernelsTest, BackwardRaggedLengths) {
  for (uint32_t seq : {1u, 17u, 130u}) {
    Problem p;
    p.batch = 2;
    p.seqQ = p.seqK = seq;
    p.heads = p.kvHeads = 1;
    p.headsMajor = seq == 17;
    checkBackward(p);
    if (HasFatalFailure())
      return;
  }
}

TEST_P(AttentionKernelsTest, BackwardCausalWindowedAndGrouped) {
  Problem p;
  p.seqQ = 80;
  p.seqK = 130;
  p.heads = 4;
  p.kvHeads = 2;
  p.windowRight = 0;
  p.bottomRight = true;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  p.seqQ = p.seqK = 100;
  p.heads = p.kvHeads = 1;
  p.bottomRight = false;
  p.windowLeft = 40;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  // seq_q > seq_k bottom-right: the first rows see nothing.
  p.seqQ = 70;
  p.seqK = 20;
  p.windowLeft = -1;
  p.bottomRight = true;
  checkBackward(p);
}

TEST_P(AttentionKernelsTest, BackwardKeyBlocksNoQuerySees) {
  // Top-left causal with far more keys than queries: key blocks from 64 on
  // see no query (an empty query range: the step loads issued before the
  // loop land unread), their dK and dV are 0; GQA 2:1.
  Problem p;
  p.seqQ = 20;
  p.seqK = 200;
  p.heads = 2;
  p.kvHeads = 1;
  p.windowRight = 0;
  checkBackward(p);
}

TEST_P(AttentionKernelsTest, BackwardSingleSetDkdv) {
  if (dim() != 128)
    GTEST_SKIP() << "the single-set dK/dV kernel is head dim 128's";
  // The variant for GPUs that hold two double-buffered blocks of head dim
  // 128 in no SM: causal GQA, ragged, and a range no query sees.
  Problem p;
  p.singleSetDkdv = true;
  p.seqQ = 80;
  p.seqK = 130;
  p.heads = 4;
  p.kvHeads = 2;
  p.windowRight = 0;
  p.bottomRight = true;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  p.seqQ = 20;
  p.seqK = 200;
  p.bottomRight = false;
  checkBackward(p);
}

TEST_P(AttentionKernelsTest, BackwardPackedVariableLengths) {
  Problem p;
  p.heads = 2;
  p.kvHeads = 1;
  p.lensQ = {5, 70, 17};
  p.lensK = {9, 64, 130};
  p.windowRight = 0;
  p.bottomRight = true;
  checkBackward(p);
}

TEST_P(AttentionKernelsTest, BackwardKeyBlocksPrefetchEachQueryStepOnce) {
  // GQA 2:1, 128 queries and keys: each of the dK/dV kernel's two key
  // blocks walks 2 heads x 4 steps of 32 queries. Step i + 1's Q and dO are
  // copied while step i computes (across the head boundary too), so a step
  // takes one barrier; every Q and dO row is read once per key block (the
  // copies past the last step read nothing), in whole 16-byte sectors.
  interp::Profile profile;
  Problem p;
  p.heads = 2;
  p.kvHeads = 1;
  p.seqQ = p.seqK = 128;
  p.profile = &profile;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  const interp::KernelProfile *k = nullptr;
  for (const interp::KernelProfile &kp : profile.kernels())
    if (kp.name.find("flash_bwd_dkdv") == 0)
      k = &kp;
  ASSERT_NE(k, nullptr);
  const uint64_t D = dim(), keyBlocks = 2, warps = 4, steps = 2 * 128 / 32;
  const uint64_t tileBytes = 128 * D * 2; // one head's Q (or dO, K, V)
  const interp::GlobalStats &copies = k->global.at("cp.async");
  // A block's K and V (64 keys each), and Q and dO of both heads.
  EXPECT_EQ(copies.bytes, keyBlocks * (tileBytes + 2 * 2 * tileBytes));
  EXPECT_EQ(copies.sectors, copies.idealSectors);
  EXPECT_EQ(k->mix.at("bar"), keyBlocks * warps * steps);
  EXPECT_EQ(k->sharedTotal().bankConflicts(), 0u) << profile.str(10);
}

TEST_P(AttentionKernelsTest, DecodePagedScrambledBlockTable) {
  DecodeProblem p;
  p.seqlens = {1, 100, 300};
  checkDecode(p);
}

// vLLM's 16-key pages (four to a 64-key tile) and 48-key pages (which
// straddle tiles), sequences ending mid-page, on the `_p16` kernels: each
// 16-key part of a tile comes from its own page.
TEST_P(AttentionKernelsTest, DecodePagesOf16And48Keys) {
  DecodeProblem p;
  p.page = 16;
  p.seqlens = {1, 37, 300};
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  p.page = 48;
  p.seqlens = {100, 47, 161};
  p.qLen = 2;
  p.causal = true;
  checkDecode(p);
}

TEST_P(AttentionKernelsTest, DecodeContiguousGroupedCausalTokens) {
  DecodeProblem p;
  p.seqlens = {70, 257};
  p.paged = false;
  p.kvHeads = 1;
  p.group = 8;
  p.qLen = 2;
  p.causal = true;
  p.keysPerSplit = 64;
  checkDecode(p);
}

// More than 16 rows a kv head: MQA (32 query heads over one kv head: one
// 32-row block, or forced two 16-row ones), 40 rows (a full and a partial
// 32-row block), a GQA group of 6 x 3 causal tokens (18 rows: one 32-row
// block, or forced a second 16-row block of 2 rows), and MQA over 16-key
// pages (the `_p16` kernel's 16-row blocks); paged and contiguous: each
// block gathers its rows' queries, masks by its rows' tokens and writes
// its rows' partials.
TEST_P(AttentionKernelsTest, DecodeRowBlocksMqaAndLongGroups) {
  DecodeProblem p;
  p.seqlens = {5, 200};
  p.kvHeads = 1;
  p.group = 32;
  // MQA 32:1: one 32-row block (head dims 64 and 128; its shared
  // accesses conflict-free like the 16-row kernel's), or two 16-row ones.
  interp::Profile profile;
  p.profile = &profile;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  p.profile = nullptr;
  for (const interp::KernelProfile &k : profile.kernels())
    EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u) << k.name;
  EXPECT_TRUE(profile.find(name("flash_decode") + "_r32")) << "no _r32 run";
  p.rows16 = true;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  p.rows16 = false;
  // 40 rows: a full 32-row block and one of 8 rows.
  p.group = 40;
  p.causal = true;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  p.causal = false;
  p.seqlens = {70, 129};
  p.paged = false;
  p.kvHeads = 2;
  p.group = 6;
  p.qLen = 3;
  p.causal = true;
  p.keysPerSplit = 64;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  // The same through 16-row blocks (row 16 and 17 in a second block).
  p.rows16 = true;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  // MQA over 16-key pages: the 16-key-part kernel, two 16-row blocks.
  p = DecodeProblem();
  p.seqlens = {40, 75};
  p.page = 16;
  p.kvHeads = 1;
  p.group = 32;
  checkDecode(p);
}

// Batch-1 decoding's shape: many splits of one long sequence (124
// partials a row, more than the combine's groups and not a multiple of
// them) beside a one-key sequence whose splits past its key are empty.
TEST_P(AttentionKernelsTest, DecodeManySplits) {
  DecodeProblem p;
  p.seqlens = {1, 1950};
  p.kvHeads = 1;
  p.keysPerSplit = 64;
  checkDecode(p);
}

// Splits of several tiles (the last one partial) through the two-stage
// cp.async pipeline: the right keys in the right buffers, every shared
// access conflict-free, whole sectors from the cache; the merge reads each
// partial's row with coalesced loads (only the logsumexps, a thread per
// split a row apart, take partial sectors: 4 % of the merge's).
TEST_P(AttentionKernelsTest, DecodePipelinedSplitsConflictFree) {
  interp::Profile profile;
  DecodeProblem p;
  p.seqlens = {130, 700};
  p.keysPerSplit = 384;
  p.profile = &profile;
  checkDecode(p);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(profile.kernels().size(), 2u);
  for (const interp::KernelProfile &k : profile.kernels()) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
    bool merge = k.name.find("combine") != std::string::npos;
    for (const auto &[kind, g] : k.global)
      if (kind != "st.global") // the partials' f32 rows
        EXPECT_LE(double(g.sectors), (merge ? 1.04 : 1.0) * g.idealSectors)
            << kind;
  }
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
  // The instruction budget (this small problem's prologue and epilogue
  // included): 8.3 warp instructions per mma at head dim 128 and 11.5 at 64
  // since the row maxima became max.NaN (10.4 at 128 with the
  // nine-instruction IEEE sequence).
  uint64_t mmas = k.mix.count(mma) ? k.mix.at(mma) : 1;
  EXPECT_LE(double(k.warpInstructions) / double(mmas), D == 64 ? 11.6 : 8.4)
      << profile.str(10);
}

/// Head dim 256: the forward, the backward and decoding (Q's fragments
/// reloaded from its tile each step; dynamic shared memory; the dK/dV
/// kernel's warp pairs trading P^T and dS^T).
class AttentionWideHeadTest : public AttentionKernelsTest {
protected:
  /// Sequences of 1, 17 (heads-major) and 130 (causal) of two query heads
  /// over one kv head.
  static std::vector<Problem> raggedGrouped() {
    std::vector<Problem> out;
    for (uint32_t seq : {1u, 17u, 130u}) {
      Problem p;
      p.seqQ = p.seqK = seq;
      p.heads = 2;
      p.kvHeads = 1;
      p.headsMajor = seq == 17;
      p.windowRight = seq == 130 ? 0 : -1;
      out.push_back(p);
    }
    return out;
  }
};

TEST_P(AttentionWideHeadTest, ForwardRaggedCausalGrouped) {
  for (const Problem &p : raggedGrouped()) {
    check(p);
    if (HasFatalFailure())
      return;
  }
}

TEST_P(AttentionWideHeadTest, BackwardRaggedCausalGroupedPacked) {
  for (const Problem &p : raggedGrouped()) {
    checkBackward(p);
    if (HasFatalFailure())
      return;
  }
  // Bottom-right causal with more keys than queries, a left window; then
  // packed sequences.
  Problem p;
  p.seqQ = 40;
  p.seqK = 100;
  p.heads = p.kvHeads = 1;
  p.windowRight = 0;
  p.windowLeft = 50;
  p.bottomRight = true;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  Problem v;
  v.heads = 2;
  v.kvHeads = 1;
  v.lensQ = {5, 37};
  v.lensK = {9, 70};
  v.windowRight = 0;
  v.bottomRight = true;
  checkBackward(v);
}

// The backward at head dim 256, counted by the interpreter's profile:
// every shared access conflict-free (the K/V/Q/dO tiles, and the P^T and
// dS^T tiles the dK/dV kernel's warp pairs trade), whole sectors for every
// copy, and each of the five products computed once: as many mma as their
// FLOPs need (seq 128: dQ's three products, dK/dV's four, each 128 x 128 x
// 256).
TEST_P(AttentionWideHeadTest, BackwardConflictFreeEachProductOnce) {
  interp::Profile profile;
  Problem p;
  p.heads = p.kvHeads = 1;
  p.seqQ = p.seqK = 128;
  p.profile = &profile;
  checkBackward(p);
  ASSERT_FALSE(HasFatalFailure());
  std::string mma = std::string("mma.m16n8k16.f32.") + elemName(elem()) +
                    "." + elemName(elem()) + ".f32";
  const uint64_t perProduct = 128u * 128 * 256 / (16 * 8 * 16);
  unsigned seen = 0;
  for (const interp::KernelProfile &k : profile.kernels()) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u) << profile.str(10);
    EXPECT_EQ(k.divergentBranches, 0u);
    if (auto it = k.global.find("cp.async"); it != k.global.end())
      EXPECT_EQ(it->second.sectors, it->second.idealSectors);
    uint64_t mmas = k.mix.count(mma) ? k.mix.at(mma) : 0;
    if (k.name.find("flash_bwd_dq") == 0) {
      EXPECT_EQ(mmas, 3 * perProduct);
      ++seen;
    } else if (k.name.find("flash_bwd_dkdv") == 0) {
      EXPECT_EQ(mmas, 4 * perProduct);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2u);
}

TEST_P(AttentionWideHeadTest, DecodePaged) {
  DecodeProblem p;
  p.seqlens = {1, 200};
  p.group = 8;
  p.kvHeads = 1;
  checkDecode(p);
}

INSTANTIATE_TEST_SUITE_P(
    Flash, AttentionWideHeadTest,
    ::testing::Combine(::testing::Values(Elem::F16, Elem::BF16),
                       ::testing::Values(256u)),
    [](const ::testing::TestParamInfo<std::tuple<Elem, unsigned>> &info) {
      return std::string(elemName(std::get<0>(info.param))) + "_d256";
    });

INSTANTIATE_TEST_SUITE_P(
    Flash, AttentionKernelsTest,
    ::testing::Combine(::testing::Values(Elem::F16, Elem::BF16),
                       ::testing::Values(64u, 128u)),
    [](const ::testing::TestParamInfo<std::tuple<Elem, unsigned>> &info) {
      return std::string(elemName(std::get<0>(info.param))) + "_d" +
             std::to_string(std::get<1>(info.param));
    });

} // namespace


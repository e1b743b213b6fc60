//===- AttentionKernels.cpp - FlashAttention forward, with the builder ----===//
//
// FlashAttention-2's forward pass on mma.sync tensor cores. A block of
// kAttnWarps warps owns kAttnBlockQ query rows of one (batch, head), 16 per
// warp; it walks the keys in blocks of kAttnBlockK. Per key block a warp
//   S = Q K^T        (Q fragments held in registers, K^T read with ldmatrix
//                     from the row-major K tile: kaio.load_fragment transpose)
//   m' = max(m, rowmax(S) * scale * log2 e)          (frag_reduce_rows)
//   P = exp2(S * scale * log2 e - m'), l' = l * exp2(m - m') + rowsum(P)
//   O = O * exp2(m - m') + P V   (P re-used as the A operand in registers:
//                                 kaio.frag_to_operand)
// and finally O / l and the row's logsumexp (m + log2 l) * ln 2. Nothing of
// size seq^2 is stored; there is no cap on the sequence lengths.
//
// Shared memory holds three tiles of kAttnBlockK x D (48 KiB at D = 128):
// Q's tile first, then they rotate through the loop as the K tile being
// read, the V tile being filled and the tile the next K is copied into, so
// the copy of key block j + 1 overlaps the softmax and P V of block j, and
// two barriers per key block suffice.
//
// Masks (causal, sliding window, the ragged end of the keys) are an indexed
// frag_map; the key loop is split into the blocks that need them (the
// window's left edge, the diagonal, the end) and the ones that do not.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <cmath>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

constexpr ptx::MMAShape kShape = ptx::MMAShape::m16n8k16;
constexpr unsigned kBlockQ = kAttnBlockQ, kBlockK = kAttnBlockK;
static_assert(kBlockQ == kBlockK, "Q's tile is re-used as a K/V tile");
static_assert(kBlockQ == 16 * kAttnWarps, "16 query rows per warp");

template <class T, unsigned D> void buildFlashForward(ModuleBuilder &mb) {
  std::string name = std::string("flash_fwd_") + typeName<T>() + "_d" +
                     std::to_string(D);
  mb.kernel(name, {int32_t(32 * kAttnWarps)}, [](KernelBuilder &k) {
    auto q = k.param<Ptr<const T>>("q");
    auto kp = k.param<Ptr<const T>>("k");
    auto v = k.param<Ptr<const T>>("v");
    auto o = k.param<Ptr<T>>("o");
    auto lse = k.param<Ptr<float>>("lse");
    auto cuQ = k.param<Ptr<const int32_t>>("cu_seqlens_q");
    auto cuK = k.param<Ptr<const int32_t>>("cu_seqlens_k");
    auto seqQ = k.param<uint32_t>("seq_q");
    auto seqK = k.param<uint32_t>("seq_k");
    auto group = k.param<uint32_t>("kv_group");
    auto qsb = k.param<uint64_t>("q_batch_stride");
    auto qsh = k.param<uint64_t>("q_head_stride");
    auto qss = k.param<uint32_t>("q_row_stride");
    auto ksb = k.param<uint64_t>("k_batch_stride");
    auto ksh = k.param<uint64_t>("k_head_stride");
    auto kss = k.param<uint32_t>("k_row_stride");
    auto vsb = k.param<uint64_t>("v_batch_stride");
    auto vsh = k.param<uint64_t>("v_head_stride");
    auto vss = k.param<uint32_t>("v_row_stride");
    auto osb = k.param<uint64_t>("o_batch_stride");
    auto osh = k.param<uint64_t>("o_head_stride");
    auto oss = k.param<uint32_t>("o_row_stride");
    auto lsb = k.param<uint64_t>("lse_batch_stride");
    auto lsh = k.param<uint64_t>("lse_head_stride");
    auto scaleLog2 = k.param<float>("scale_log2");
    auto windowLeft = k.param<int32_t>("window_left");
    auto windowRight = k.param<int32_t>("window_right");
    auto flags = k.param<uint32_t>("flags");

    U32 b = k.blockId(Dim::z), h = k.blockId(Dim::y);
    U32 q0 = k.blockId(Dim::x) * kBlockQ;
    // The batch's rows: packed sequences (cumulative offsets) or dense.
    Pred varlen = (flags & uint32_t(kAttnVarlen)) != 0u;
    U32 qStart = cuQ.load(b, varlen, 0).template as<uint32_t>();
    U32 kStart = cuK.load(b, varlen, 0).template as<uint32_t>();
    U32 sq = select(varlen, cuQ.load(b + 1u, varlen, 0).template as<uint32_t>() -
                                qStart,
                    seqQ);
    U32 sk = select(varlen, cuK.load(b + 1u, varlen, 0).template as<uint32_t>() -
                                kStart,
                    seqK);
    k.if_(q0 < sq, [&] {
      U32 kvh = h / group;
      auto u64 = [](const U32 &x) { return cast<uint64_t>(x); };
      auto qb = q + u64(b) * qsb + u64(h) * qsh + u64(qStart) * u64(qss);
      auto kb = kp + u64(b) * ksb + u64(kvh) * ksh + u64(kStart) * u64(kss);
      auto vb = v + u64(b) * vsb + u64(kvh) * vsh + u64(kStart) * u64(vss);
      auto ob = o + u64(b) * osb + u64(h) * osh + u64(qStart) * u64(oss);
      auto lb = lse + u64(b) * lsb + u64(h) * lsh + u64(qStart);

      // Key j is visible from query row i when i + off - wl <= j <= i + off
      // + wr (no bound for a negative window side) and j < sk; off aligns
      // the diagonal bottom-right (seq_k - seq_q) or top-left (0).
      I32 sqi = sq.template as<int32_t>(), ski = sk.template as<int32_t>();
      I32 q0i = q0.template as<int32_t>();
      Pred bottomRight = (flags & uint32_t(kAttnBottomRight)) != 0u;
      I32 off = select(bottomRight, ski - sqi, k.constant(0));
      Pred hasLeft = windowLeft >= 0, hasRight = windowRight >= 0;
      // The block's key range, and inside it the blocks no row masks.
      I32 jLo = select(hasLeft, max(q0i + off - windowLeft, 0), k.constant(0));
      I32 jHi = select(hasRight,
                       min(q0i + int32_t(kBlockQ) + off + windowRight, ski),
                       ski);
      I32 jFirst = (jLo / int32_t(kBlockK)) * int32_t(kBlockK);
      I32 blocks = max(jHi - jFirst + int32_t(kBlockK - 1), 0) /
                   int32_t(kBlockK);
      I32 leftNeed = q0i + int32_t(kBlockQ - 1) + off - windowLeft;
      I32 cleanFrom = select(
          hasLeft,
          min(max(leftNeed - jFirst + int32_t(kBlockK - 1), 0) /
                  int32_t(kBlockK),
              blocks),
          k.constant(0));
      I32 rightNeed = select(hasRight, min(q0i + off + windowRight + 1, ski),
                             ski);
      I32 cleanTo = max(min(max(rightNeed - jFirst, 0) / int32_t(kBlockK),
                            blocks),
                        cleanFrom);
      I32 jA = jFirst + cleanFrom * int32_t(kBlockK);
      I32 jB = jFirst + cleanTo * int32_t(kBlockK);
      I32 jEnd = jFirst + blocks * int32_t(kBlockK);

      std::array<Shared<T>, 3> bufs = {k.shared<T>({kBlockK, D}),
                                       k.shared<T>({kBlockK, D}),
                                       k.shared<T>({kBlockK, D})};
      auto aligned = CopyAlignment::Promised;
      Token tq = k.asyncCopy(qb, q0, 0u, sq, D, qss, bufs[0], aligned);
      Token tk = k.asyncCopy(kb, jFirst.template as<uint32_t>(), 0u, sk, D,
                             kss, bufs[1], aligned);
      k.asyncWait({tq});
      k.barrier();
      U32 warpRow = k.warpId() * 16u;
      Frag qf = bufs[0].loadFragment(FragRole::a, kShape, warpRow, 0u,
                                     FragTile{1, D / 16});
      // Every warp has its Q fragments: the tile takes V next.
      k.barrier();

      const float ninf = -INFINITY;
      Frag oAcc = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                    FragTile{1, D / 16});
      Frag m = k.fragFill<float>(FragRole::acc, kShape, ninf, FragTile{1, 1});
      Frag l = k.fragFill<float>(FragRole::acc, kShape, 0.0f, FragTile{1, 1});
      I32 rowBase = q0i + warpRow.template as<int32_t>();

      // O's two column halves, m, l, the K tile, the two free tiles, and
      // the token of the K copy in flight.
      using State = std::tuple<Frag, Frag, Frag, Frag, Shared<T>, Shared<T>,
                               Shared<T>, Token>;
      auto step = [&](bool masked, const I32 &j0, const Frag &o0In,
                      const Frag &o1In, const Frag &mIn, const Frag &lIn, const Shared<T> &kTile,
                      const Shared<T> &free0, const Shared<T> &free1,
                      const Token &tkIn) -> State {
        U32 j0u = j0.template as<uint32_t>();
        Token tv = k.asyncCopy(vb, j0u, 0u, sk, D, vss, free0, aligned);
        k.asyncWait({tkIn});
        k.barrier();
        // S = Q K^T, 16 of the head dimension at a time (fewer live B
        // registers).
        Frag s = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                   FragTile{1, kBlockK / 8});
        for (unsigned kk = 0; kk < D / 16; ++kk) {
          Frag kf = kTile.loadFragmentTransposed(kShape, 0u, kk * 16,
                                                 FragTile{1, kBlockK / 8});
          s = k.mma(qf.slice(0, kk, FragTile{1, 1}), kf, s);
        }
        // The next key block's copy overlaps the softmax and P V.
        Token tkNext = k.asyncCopy(kb, j0u + kBlockK, 0u, sk, D, kss, free1,
                                   aligned);
        if (masked)
          s = s.mapIndexed<float, float>([&](F32 x, I32 r, I32 c) {
            I32 i = rowBase + r, j = j0 + c;
            Pred visible = (j < ski) &&
                           (!hasRight || j <= i + off + windowRight) &&
                           (!hasLeft || j >= i + off - windowLeft);
            return select(visible, x, k.constant(ninf));
          });
        Frag rowMax = s.reduceRows(ReduceKind::max);
        Frag mNew = mIn.mapWith<float, float>(
            [&](F32 mo, F32 rm) { return max(mo, rm * scaleLog2); }, rowMax);
        // A row with nothing visible yet keeps m = -inf: subtract 0 then.
        Frag mUse = mNew.mapWith<float, float>([&](F32 mv) {
          return select(mv == ninf, k.constant(0.0f), mv);
        });
        Frag p = s.mapWith<float, float>(
            [&](F32 x, F32 mu) { return exp2(fma(x, scaleLog2, -mu)); }, mUse);
        Frag alpha = mIn.mapWith<float, float>(
            [&](F32 mo, F32 mu) { return exp2(mo - mu); }, mUse);
        Frag rowSum = p.reduceRows(ReduceKind::sum);
        Frag lNew = lIn.mapWith<float, float>(
            [&](F32 lo, F32 a, F32 rs) { return fma(lo, a, rs); }, alpha,
            rowSum);
        auto rescale = [&](const Frag &x) {
          return x.mapWith<float, float>([&](F32 e, F32 a) { return e * a; },
                                         alpha);
        };
        Frag oScaled0 = rescale(o0In), oScaled1 = rescale(o1In);
        Frag pa = p.toOperand<T>();
        k.asyncWait({tv});
        k.barrier();
        // O += P V, each half of O on its own (fewer live B registers).
        std::array<Frag, 2> oNew = {oScaled0, oScaled1};
        for (unsigned kk = 0; kk < kBlockK / 16; ++kk)
          for (unsigned half = 0; half < 2; ++half) {
            Frag vf = free0.loadFragment(FragRole::b, kShape, kk * 16,
                                         half * (D / 2),
                                         FragTile{1, D / 16});
            oNew[half] = k.mma(pa.slice(0, kk, FragTile{1, 1}), vf,
                               oNew[half]);
          }
        // K's tile takes the next V; V's the K after next.
        return State(oNew[0], oNew[1], mNew, lNew, free1, kTile, free0,
                     tkNext);
      };
      State state(oAcc, oAcc, m, l, bufs[1], bufs[0], bufs[2], tk);
      auto loop = [&](bool masked, const I32 &from, const I32 &to) {
        state = k.forCarrying(
            from, to, int32_t(kBlockK), state,
            [&](I32 j0, Frag o0, Frag o1, Frag mI, Frag lI, Shared<T> kt,
                Shared<T> f0, Shared<T> f1, Token t) {
              return step(masked, j0, o0, o1, mI, lI, kt, f0, f1, t);
            });
      };
      loop(true, jFirst, jA);
      loop(false, jA, jB);
      loop(true, jB, jEnd);
      // The last prefetch (past the keys) lands before the kernel ends.
      k.asyncWait({});
      Frag mF = std::get<2>(state), lF = std::get<3>(state);
      for (unsigned half = 0; half < 2; ++half) {
        Frag oF = half ? std::get<1>(state) : std::get<0>(state);
        Frag out = oF.mapWith<float, float>(
            [&](F32 x, F32 lv) {
              return select(lv > 0.0f, x / lv, k.constant(0.0f));
            },
            lF);
        out.store(ob, q0 + warpRow, half * (D / 2), sq, D, oss);
      }
      // logsumexp of the scaled scores, natural log; -inf for a row that
      // sees no key.
      Frag rowLse = mF.mapWith<float, float>(
          [&](F32 mv, F32 lv) {
            return select(lv > 0.0f, (mv + log2(lv)) * float(M_LN2),
                          k.constant(ninf));
          },
          lF);
      k.if_((flags & uint32_t(kAttnLse)) != 0u,
            [&] { rowLse.store(lb, q0 + warpRow, 0u, sq, 1u, 1u); });
    });
  });
}

} // namespace

void kaio::ops::kernels::buildAttentionKernels(ModuleBuilder &mb) {
  buildFlashForward<f16, 64>(mb);
  buildFlashForward<f16, 128>(mb);
  buildFlashForward<bf16, 64>(mb);
  buildFlashForward<bf16, 128>(mb);
}

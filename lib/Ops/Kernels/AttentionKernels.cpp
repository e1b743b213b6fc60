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

#include "AttentionSupport.h"

#include <cmath>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::attention;
using kaio::ops::kernels::support::typeName;

namespace {

constexpr unsigned kBlockQ = kAttnBlockQ;
static_assert(kBlockQ == kAttnBlockK, "Q's tile is re-used as a K/V tile");
static_assert(kBlockQ == 16 * kAttnWarps, "16 query rows per warp");

template <class T, unsigned D> void buildFlashForward(ModuleBuilder &mb) {
  mb.kernel(kernelName("flash_fwd", typeName<T>(), D),
            {int32_t(32 * kAttnWarps)}, [](KernelBuilder &k) {
    k.setMinBlocksPerSM(kAttnMinBlocksPerSM);
    auto q = tensorParam<Ptr<const T>>(k, "q");
    auto kp = tensorParam<Ptr<const T>>(k, "k");
    auto v = tensorParam<Ptr<const T>>(k, "v");
    auto o = tensorParam<Ptr<T>>(k, "o");
    auto lse = rowVectorParam<Ptr<float>>(k, "lse");
    Common c = commonParams(k);
    F32 scaleLog2 = c.scaleLog2;
    U32 flags = c.flags;

    U32 b = k.blockId(Dim::z), h = k.blockId(Dim::y);
    U32 q0 = k.blockId(Dim::x) * kBlockQ;
    Sequences seq = sequences(c, b);
    U32 sq = seq.sq, sk = seq.sk;
    k.if_(q0 < sq, [&] {
      U32 kvh = h / c.group;
      auto qb = q.at(b, h, seq.qStart);
      auto kb = kp.at(b, kvh, seq.kStart);
      auto vb = v.at(b, kvh, seq.kStart);
      auto ob = o.at(b, h, seq.qStart);
      auto lb = lse.at(b, h, seq.qStart);
      U32 qss = q.rowStride, kss = kp.rowStride, vss = v.rowStride,
          oss = o.rowStride;
      Mask mk = mask(k, c, seq);
      I32 q0i = q0.template as<int32_t>();
      // Keys per step: 64, or 32 at head dim 256 (O alone takes 128
      // registers there).
      constexpr unsigned kBlockK = D > 128 ? 32 : kAttnBlockK;
      BlockRange keys = keyBlocks(k, mk, q0i, kBlockK);
      I32 jFirst = keys.first, jA = keys.clean, jB = keys.cleanEnd,
          jEnd = keys.end;

      // Q's fragments live in registers up to head dim 128 (Q's tile then
      // serves as a K/V tile); at 256 they would take 64 registers, so Q
      // keeps a tile of its own and each step reloads them (ldmatrix).
      constexpr bool kQInShared = D > 128;
      std::array<Shared<T>, 3> bufs = {k.shared<T>({kBlockK, D}),
                                       k.shared<T>({kBlockK, D}),
                                       k.shared<T>({kBlockK, D})};
      Shared<T> qTile = kQInShared ? k.shared<T>({kBlockQ, D}) : bufs[0];
      auto aligned = CopyAlignment::Promised;
      Token tq = k.asyncCopy(qb, q0, 0u, sq, D, qss, qTile, aligned);
      Token tk = k.asyncCopy(kb, jFirst.template as<uint32_t>(), 0u, sk, D,
                             kss, bufs[1], aligned);
      k.asyncWait({tq});
      k.barrier();
      U32 warpRow = k.warpId() * 16u;
      Frag qf;
      if constexpr (!kQInShared) {
        qf = qTile.loadFragment(FragRole::a, kShape, warpRow, 0u,
                                FragTile{1, D / 16});
        // Every warp has its Q fragments: the tile takes V next.
        k.barrier();
      }
      auto qFragment = [&](unsigned kk) {
        if constexpr (kQInShared)
          return qTile.loadFragment(FragRole::a, kShape, warpRow, kk * 16);
        else
          return qf.slice(0, kk, FragTile{1, 1});
      };

      const float ninf = -INFINITY;
      // O in four column parts (each P V product loads a quarter of V's
      // fragments at a time: fewer live B registers).
      constexpr unsigned kParts = 4;
      FragTile partTile{1, D / 8 / kParts};
      Frag oAcc = k.fragFill<float>(FragRole::acc, kShape, 0.0f, partTile);
      Frag m = k.fragFill<float>(FragRole::acc, kShape, ninf, FragTile{1, 1});
      Frag l = k.fragFill<float>(FragRole::acc, kShape, 0.0f, FragTile{1, 1});
      I32 rowBase = q0i + warpRow.template as<int32_t>();

      // O's parts, m, l, the K tile, the two free tiles, and the token of
      // the K copy in flight.
      using State = std::tuple<Frag, Frag, Frag, Frag, Frag, Frag, Shared<T>,
                               Shared<T>, Shared<T>, Token>;
      using Parts = std::array<Frag, kParts>;
      auto step = [&](bool masked, const I32 &j0, Parts o, const Frag &mIn,
                      const Frag &lIn, const Shared<T> &kTile,
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
          s = k.mma(qFragment(kk), kf, s);
        }
        // The next key block's copy overlaps the softmax and P V.
        Token tkNext = k.asyncCopy(kb, j0u + kBlockK, 0u, sk, D, kss, free1,
                                   aligned);
        if (masked)
          s = s.mapIndexed<float, float>([&](F32 x, I32 r, I32 col) {
            return select(mk.visible(rowBase + r, j0 + col), x,
                          k.constant(ninf));
          });
        Frag rowMax = s.reduceRows(ReduceKind::max);
        Frag mNew = mIn.mapWith<float, float>(
            [&](F32 mo, F32 rm) { return max(mo, rm * scaleLog2); }, rowMax);
        // A row with nothing visible yet keeps m = -inf: subtract 0 then.
        Frag mUse = mNew.mapWith<float, float>([&](F32 mv) {
          return select(mv == ninf, k.constant(0.0f), mv);
        });
        Frag p = s.mapWith<float, float>(
            [&](F32 x, F32 mu) { return fastExp2(fma(x, scaleLog2, -mu)); },
            mUse);
        Frag alpha = mIn.mapWith<float, float>(
            [&](F32 mo, F32 mu) { return fastExp2(mo - mu); }, mUse);
        Frag rowSum = p.reduceRows(ReduceKind::sum);
        Frag lNew = lIn.mapWith<float, float>(
            [&](F32 lo, F32 a, F32 rs) { return fma(lo, a, rs); }, alpha,
            rowSum);
        for (Frag &part : o)
          part = part.mapWith<float, float>(
              [&](F32 e, F32 a) { return e * a; }, alpha);
        Frag pa = p.toOperand<T>();
        k.asyncWait({tv});
        k.barrier();
        for (unsigned kk = 0; kk < kBlockK / 16; ++kk)
          for (unsigned part = 0; part < kParts; ++part) {
            Frag vf = free0.loadFragment(FragRole::b, kShape, kk * 16,
                                         part * (D / kParts), partTile);
            o[part] = k.mma(pa.slice(0, kk, FragTile{1, 1}), vf, o[part]);
          }
        // K's tile takes the next V; V's the K after next.
        return State(o[0], o[1], o[2], o[3], mNew, lNew, free1, kTile, free0,
                     tkNext);
      };
      State state(oAcc, oAcc, oAcc, oAcc, m, l, bufs[1],
                  kQInShared ? bufs[2] : bufs[0], kQInShared ? bufs[0] : bufs[2],
                  tk);
      auto loop = [&](bool masked, const I32 &from, const I32 &to) {
        state = k.forCarrying(
            from, to, int32_t(kBlockK), state,
            [&](I32 j0, Frag o0, Frag o1, Frag o2, Frag o3, Frag mI, Frag lI,
                Shared<T> kt, Shared<T> f0, Shared<T> f1, Token t) {
              return step(masked, j0, Parts{o0, o1, o2, o3}, mI, lI, kt, f0,
                          f1, t);
            });
      };
      loop(true, jFirst, jA);
      loop(false, jA, jB);
      loop(true, jB, jEnd);
      // The last prefetch (past the keys) lands before the kernel ends.
      k.asyncWait({});
      Frag mF = std::get<4>(state), lF = std::get<5>(state);
      Parts oF = {std::get<0>(state), std::get<1>(state), std::get<2>(state),
                  std::get<3>(state)};
      for (unsigned part = 0; part < kParts; ++part)
        oF[part]
            .mapWith<float, float>(
                [&](F32 x, F32 lv) {
                  return select(lv > 0.0f, x / lv, k.constant(0.0f));
                },
                lF)
            .store(ob, q0 + warpRow, part * (D / kParts), sq, D, oss);
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
  buildAttentionBackwardKernels(mb);
  buildAttentionDecodeKernels(mb);
  buildFlashForward<f16, 64>(mb);
  buildFlashForward<f16, 128>(mb);
  buildFlashForward<bf16, 64>(mb);
  buildFlashForward<bf16, 128>(mb);
  buildFlashForward<f16, 256>(mb);
  buildFlashForward<bf16, 256>(mb);
}

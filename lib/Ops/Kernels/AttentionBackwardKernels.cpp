//===- AttentionBackwardKernels.cpp - FlashAttention-2's backward pass ----===//
//
// With P = exp(scale Q K^T - lse) (the forward's logsumexp, so nothing of
// size seq^2 is kept), dP = dO V^T and delta = rowsum(dO * O):
//   dS = P * (dP - delta),  dQ = scale dS K,  dK = scale dS^T Q,  dV = P^T dO.
// Three kernels, no atomics (bitwise deterministic):
//   flash_bwd_prep: delta, a warp per row;
//   flash_bwd_dq:   a block per 64 query rows walks the key blocks as the
//                   forward does (Q and dO fragments in registers, S = Q K^T
//                   and dP = dO V^T from transposed K and V tiles, dS re-used
//                   as the A operand of dS K);
//   flash_bwd_dkdv: a block per 64 keys (16 a warp) walks the query blocks
//                   of every query head of its key/value head (GQA sums
//                   there, in order): S^T = K Q^T and dP^T = V dO^T, so that
//                   P^T and dS^T are A operands in registers for P^T dO and
//                   dS^T Q; lse and delta are per column there. Q, dO, lse
//                   and delta come twice: the next step's load (across
//                   query heads too) while a step computes, one barrier a
//                   step.
// Head dim 256 (the accumulators alone would take 128 and 256 registers):
// flash_bwd_dq keeps Q and dO in shared tiles and walks 32-key blocks;
// flash_bwd_dkdv takes 32 keys a block, a warp pair per 16, each warp
// computing S^T and dP^T for half of a step's queries and accumulating
// half of dK's and dV's columns, the pair trading P^T and dS^T through
// shared memory (see buildDq and buildDkdv).
// Masks as in the forward: loops split into blocks that need them and
// blocks that do not.
//
//===----------------------------------------------------------------------===//

#include "AttentionSupport.h"

#include <cmath>
#include <tuple>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::attention;
using kaio::ops::kernels::support::Chunk;
using kaio::ops::kernels::support::loadChunk;
using kaio::ops::kernels::support::typeName;

namespace {

constexpr unsigned kBlockQ = kAttnBlockQ, kBlockK = kAttnBlockK;
/// Query rows per step of the dK/dV kernel (K, V, and two each of the Q
/// and dO tiles and lse and delta rows: 65 KiB at head dim 128; one set at
/// 256 and in the single-set variant: 69 and 49 KiB; dynamic shared
/// memory).
constexpr unsigned kDkdvBlockQ = 32;
constexpr unsigned kPrepRows = 8;
constexpr float kLog2e = float(M_LOG2E);

/// lse in log2 units; a row that sees no key (lse -inf) gets +inf, so that
/// its P = exp2(s - inf) is 0.
F32 lseLog2(KernelBuilder &k, const F32 &lse) {
  return select(lse == -INFINITY, k.constant(float(INFINITY)), lse * kLog2e);
}

template <class T, unsigned D> void buildPrep(ModuleBuilder &mb) {
  mb.kernel(kernelName("flash_bwd_prep", typeName<T>(), D),
            {int32_t(32 * kPrepRows)}, [](KernelBuilder &k) {
              auto o = tensorParam<Ptr<const T>>(k, "o");
              auto dO = tensorParam<Ptr<const T>>(k, "do");
              auto delta = rowVectorParam<Ptr<float>>(k, "delta");
              Common c = commonParams(k);
              U32 b = k.blockId(Dim::z), h = k.blockId(Dim::y);
              U32 row = k.blockId(Dim::x) * kPrepRows + k.warpId();
              Sequences seq = sequences(c, b);
              k.if_(row < seq.sq, [&] {
                // D / 32 elements a lane: one 4- or 8-byte access each.
                constexpr unsigned W = D / 32;
                U32 lane = k.laneId();
                U32 r = seq.qStart + row;
                Chunk<W> x = loadChunk<W>(o.at(b, h, r), lane * W);
                Chunk<W> y = loadChunk<W>(dO.at(b, h, r), lane * W);
                F32 acc = x[0] * y[0];
                for (unsigned j = 1; j < W; ++j)
                  acc = fma(x[j], y[j], acc);
                F32 sum = k.warpReduce(ReduceKind::sum, acc);
                k.if_(lane == 0u,
                      [&] { delta.at(b, h, seq.qStart).store(row, sum); });
              });
            });
}

/// acc = sum over kk of a(kk) B_kk^T, B_kk the 16 columns 16 kk of `rows`
/// from row row0 on (its rows are the product's columns, `tile` of them).
template <class T, class AFragment>
Frag productWithRows(KernelBuilder &k, AFragment a, const Shared<T> &rows,
                     const U32 &row0, unsigned cols, FragTile tile) {
  Frag acc = k.fragFill<float>(FragRole::acc, kShape, 0.0f, tile);
  for (unsigned kk = 0; kk < cols / 16; ++kk)
    acc = k.mma(a(kk), rows.loadFragmentTransposed(kShape, row0, kk * 16, tile),
                acc);
  return acc;
}

/// acc[p] += a B_p, a the A operand of `depth` (16s) columns, B_p the
/// first `depth` rows of `b` and its columns col0 + p w .. + w, w the parts'
/// width.
template <class T, size_t N>
void accumulateParts(KernelBuilder &k, std::array<Frag, N> &acc,
                     const Frag &a, const Shared<T> &b, unsigned depth,
                     const U32 &col0, unsigned width) {
  for (unsigned kk = 0; kk < depth / 16; ++kk)
    for (unsigned part = 0; part < N; ++part)
      acc[part] = k.mma(a.slice(0, kk, FragTile{1, 1}),
                        b.loadFragment(FragRole::b, kShape, kk * 16,
                                       col0 + part * width,
                                       FragTile{1, width / 8}),
                        acc[part]);
}

/// dQ for 64 query rows (16 a warp). Up to head dim 128 the warp's Q and dO
/// fragments stay in registers and three tiles rotate through K_j, V_j and
/// K_{j+1}, 64 keys a step. At 256 dQ alone takes 128 registers: Q and dO
/// keep tiles of their own (fragments reloaded by ldmatrix each step), and
/// one K and one V tile of 32 keys take turns: V_{j+1}'s copy overlaps S,
/// the softmax and dS K_j, K_{j+1}'s the next step's dP (96 KiB).
template <class T, unsigned D> void buildDq(ModuleBuilder &mb) {
  mb.kernel(
      kernelName("flash_bwd_dq", typeName<T>(), D),
      {int32_t(32 * kAttnWarps)}, [](KernelBuilder &k) {
        k.setMinBlocksPerSM(kAttnMinBlocksPerSM);
        constexpr bool kWide = D > 128;
        constexpr unsigned kKeys = kWide ? 32 : kBlockK;
        constexpr unsigned kParts = kWide ? 4 : 2, kWidth = D / kParts;
        auto q = tensorParam<Ptr<const T>>(k, "q");
        auto kp = tensorParam<Ptr<const T>>(k, "k");
        auto v = tensorParam<Ptr<const T>>(k, "v");
        auto dO = tensorParam<Ptr<const T>>(k, "do");
        auto dq = tensorParam<Ptr<T>>(k, "dq");
        auto lse = rowVectorParam<Ptr<const float>>(k, "lse");
        auto delta = rowVectorParam<Ptr<const float>>(k, "delta");
        Common c = commonParams(k);
        U32 b = k.blockId(Dim::z), h = k.blockId(Dim::y);
        U32 q0 = k.blockId(Dim::x) * kBlockQ;
        Sequences seq = sequences(c, b);
        k.if_(q0 < seq.sq, [&] {
          U32 kvh = h / c.group;
          auto kb = kp.at(b, kvh, seq.kStart);
          auto vb = v.at(b, kvh, seq.kStart);
          auto lb = lse.at(b, h, seq.qStart);
          auto db = delta.at(b, h, seq.qStart);
          Mask mk = mask(k, c, seq);
          I32 q0i = q0.as<int32_t>();
          BlockRange keys = keyBlocks(k, mk, q0i, kKeys);
          auto aligned = CopyAlignment::Promised;
          U32 warpRow = k.warpId() * 16u;
          FragTile keyTile{1, kKeys / 8};
          U32 origin = k.constant(0u);
          // Each row's lse (log2) and delta, as row broadcasts.
          I32 rowBase = q0i + warpRow.as<int32_t>();
          Frag one = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                       FragTile{1, 1});
          auto perRow = [&](auto fn) {
            return one.mapIndexed<float, float>([&](F32, I32 r, I32) {
              I32 i = rowBase + r;
              return fn(i.as<uint32_t>(), i < mk.sq);
            });
          };
          Frag lse2 = perRow([&](const U32 &i, const Pred &in) {
            return lseLog2(k, lb.load(i, in, 0.0f));
          });
          Frag dlt = perRow([&](const U32 &i, const Pred &in) {
            return db.load(i, in, 0.0f);
          });
          Frag zero = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                        FragTile{1, kWidth / 8});
          using Parts = std::array<Frag, kParts>;
          // P = exp2(scale log2e S - lse log2e) and dS = P (dP - delta),
          // the A operand of dS K.
          auto probabilities = [&](bool masked, const I32 &j0, const Frag &s) {
            return s.mapIndexed<float, float>(
                [&](F32 x, I32 r, I32 col, F32 l2) {
                  F32 e = fastExp2(fma(x, c.scaleLog2, -l2));
                  if (!masked)
                    return e;
                  return select(mk.visible(rowBase + r, j0 + col), e,
                                k.constant(0.0f));
                },
                lse2);
          };
          auto dsOperand = [&](const Frag &p, const Frag &dp) {
            return p
                .mapWith<float, float>(
                    [&](F32 pv, F32 dpv, F32 dl) { return pv * (dpv - dl); },
                    dp, dlt)
                .template toOperand<T>();
          };
          Parts result;
          if constexpr (kWide) {
            Shared<T> qT = k.shared<T>({kBlockQ, D}),
                      doT = k.shared<T>({kBlockQ, D}),
                      kT = k.shared<T>({kKeys, D}), vT = k.shared<T>({kKeys, D});
            U32 j = keys.first.as<uint32_t>();
            k.asyncCopy(q.at(b, h, seq.qStart), q0, 0u, seq.sq, D,
                        q.rowStride, qT, aligned);
            k.asyncCopy(dO.at(b, h, seq.qStart), q0, 0u, seq.sq, D,
                        dO.rowStride, doT, aligned);
            // V first: every step waits for V before K.
            Token tv = k.asyncCopy(vb, j, 0u, seq.sk, D, v.rowStride, vT,
                                   aligned);
            Token tk = k.asyncCopy(kb, j, 0u, seq.sk, D, kp.rowStride, kT,
                                   aligned);
            auto qFragment = [&](unsigned kk) {
              return qT.loadFragment(FragRole::a, kShape, warpRow, kk * 16);
            };
            auto doFragment = [&](unsigned kk) {
              return doT.loadFragment(FragRole::a, kShape, warpRow, kk * 16);
            };
            using State = std::tuple<Frag, Frag, Frag, Frag, Token, Token>;
            auto step = [&](bool masked, const I32 &j0, Parts acc,
                            const Token &tvIn, const Token &tkIn) -> State {
              U32 next = j0.as<uint32_t>() + kKeys;
              // V_j (and, on the first step, Q and dO) has landed.
              k.asyncWait({tvIn});
              k.barrier();
              Frag dp = productWithRows<T>(k, doFragment, vT, origin, D,
                                           keyTile);
              // K_j has landed; every warp is done with V_j.
              k.asyncWait({tkIn});
              k.barrier();
              Token tvNext = k.asyncCopy(vb, next, 0u, seq.sk, D, v.rowStride,
                                         vT, aligned);
              Frag p = probabilities(
                  masked, j0,
                  productWithRows<T>(k, qFragment, kT, origin, D, keyTile));
              accumulateParts(k, acc, dsOperand(p, dp), kT, kKeys, origin,
                              kWidth);
              // Every warp is done with K_j.
              k.barrier();
              Token tkNext = k.asyncCopy(kb, next, 0u, seq.sk, D,
                                         kp.rowStride, kT, aligned);
              return State(acc[0], acc[1], acc[2], acc[3], tvNext, tkNext);
            };
            State state(zero, zero, zero, zero, tv, tk);
            auto loop = [&](bool masked, const I32 &from, const I32 &to) {
              state = k.forCarrying(
                  from, to, int32_t(kKeys), state,
                  [&](I32 j0, Frag a0, Frag a1, Frag a2, Frag a3, Token tvI,
                      Token tkI) {
                    return step(masked, j0, Parts{a0, a1, a2, a3}, tvI, tkI);
                  });
            };
            loop(true, keys.first, keys.clean);
            loop(false, keys.clean, keys.cleanEnd);
            loop(true, keys.cleanEnd, keys.end);
            result = {std::get<0>(state), std::get<1>(state),
                      std::get<2>(state), std::get<3>(state)};
          } else {
            std::array<Shared<T>, 3> bufs = {k.shared<T>({kKeys, D}),
                                             k.shared<T>({kKeys, D}),
                                             k.shared<T>({kKeys, D})};
            Token tq = k.asyncCopy(q.at(b, h, seq.qStart), q0, 0u, seq.sq, D,
                                   q.rowStride, bufs[0], aligned);
            Token tdo = k.asyncCopy(dO.at(b, h, seq.qStart), q0, 0u, seq.sq,
                                    D, dO.rowStride, bufs[1], aligned);
            Token tk = k.asyncCopy(kb, keys.first.as<uint32_t>(), 0u, seq.sk,
                                   D, kp.rowStride, bufs[2], aligned);
            k.asyncWait({tq, tdo});
            k.barrier();
            FragTile rowTile{1, D / 16};
            Frag qf = bufs[0].loadFragment(FragRole::a, kShape, warpRow, 0u,
                                           rowTile);
            Frag dof = bufs[1].loadFragment(FragRole::a, kShape, warpRow, 0u,
                                            rowTile);
            k.barrier();
            auto qFragment = [&](unsigned kk) {
              return qf.slice(0, kk, FragTile{1, 1});
            };
            auto doFragment = [&](unsigned kk) {
              return dof.slice(0, kk, FragTile{1, 1});
            };
            using State = std::tuple<Frag, Frag, Shared<T>, Shared<T>,
                                     Shared<T>, Token>;
            auto step = [&](bool masked, const I32 &j0, Parts acc,
                            const Shared<T> &kTile, const Shared<T> &free0,
                            const Shared<T> &free1,
                            const Token &tkIn) -> State {
              U32 j0u = j0.as<uint32_t>();
              // K_j has landed, and every warp is past the last step: the
              // free tiles take V_j and K_{j+1}.
              k.asyncWait({tkIn});
              k.barrier();
              Token tv = k.asyncCopy(vb, j0u, 0u, seq.sk, D, v.rowStride,
                                     free0, aligned);
              Token tkNext = k.asyncCopy(kb, j0u + kKeys, 0u, seq.sk, D,
                                         kp.rowStride, free1, aligned);
              Frag p = probabilities(
                  masked, j0,
                  productWithRows<T>(k, qFragment, kTile, origin, D, keyTile));
              k.asyncWait({tv});
              k.barrier();
              Frag dp = productWithRows<T>(k, doFragment, free0, origin, D,
                                           keyTile);
              accumulateParts(k, acc, dsOperand(p, dp), kTile, kKeys, origin,
                              kWidth);
              return State(acc[0], acc[1], free1, kTile, free0, tkNext);
            };
            State state(zero, zero, bufs[2], bufs[0], bufs[1], tk);
            auto loop = [&](bool masked, const I32 &from, const I32 &to) {
              state = k.forCarrying(
                  from, to, int32_t(kKeys), state,
                  [&](I32 j0, Frag a0, Frag a1, Shared<T> kt, Shared<T> f0,
                      Shared<T> f1, Token t) {
                    return step(masked, j0, Parts{a0, a1}, kt, f0, f1, t);
                  });
            };
            loop(true, keys.first, keys.clean);
            loop(false, keys.clean, keys.cleanEnd);
            loop(true, keys.cleanEnd, keys.end);
            result = {std::get<0>(state), std::get<1>(state)};
          }
          // The last prefetch (past the keys) lands before the kernel ends.
          k.asyncWait({});
          auto dqb = dq.at(b, h, seq.qStart);
          for (unsigned part = 0; part < kParts; ++part)
            result[part]
                .template mapWith<float, float>([&](F32 x) { return x * c.scale; })
                .store(dqb, q0 + warpRow, part * kWidth, seq.sq, D,
                       dq.rowStride);
        });
      });
}

/// The query blocks (of kDkdvBlockQ rows) that see keys [j0, j0 + bk), and
/// among them those that see them whole.
BlockRange queryBlocks(KernelBuilder &k, const Mask &m, const I32 &j0,
                       int32_t bk) {
  const int32_t bq = kDkdvBlockQ;
  I32 iLo = select(m.hasRight, max(j0 - m.off - m.right, 0), k.constant(0));
  I32 iHi = select(m.hasLeft, min(j0 + bk - m.off + m.left, m.sq), m.sq);
  I32 first = (iLo / bq) * bq;
  I32 blocks = max(iHi - first + (bq - 1), 0) / bq;
  // Every row of a clean block sees the block's last key (right side) and
  // its first (left side); the block is inside the queries and the keys.
  I32 rightNeed = j0 + (bk - 1) - m.off - m.right;
  I32 cleanFrom = select(
      m.hasRight, min(max(rightNeed - first + (bq - 1), 0) / bq, blocks),
      k.constant(0));
  I32 lastStart = select(m.hasLeft,
                         min(m.sq - bq, j0 - m.off + m.left - (bq - 1)),
                         m.sq - bq);
  I32 cleanTo = select(lastStart >= first, (lastStart - first) / bq + 1,
                       k.constant(0));
  cleanTo = select(j0 + bk <= m.sk, max(min(cleanTo, blocks), cleanFrom),
                   cleanFrom);
  return {first, first + cleanFrom * bq, first + cleanTo * bq,
          first + blocks * bq};
}

/// dK and dV for a block of keys, 16 a warp up to head dim 128. At 256 dK
/// and dV would take 256 registers a warp: a pair of warps shares 16 keys
/// and splits each step's queries, computing S^T and dP^T for its 16 (no
/// product twice), and the columns of dK and dV (64 + 64 registers each);
/// the pair trades P^T and dS^T through shared memory (FlashAttention-2's
/// way), where each reads the whole step's as A operands. With `Prefetch`
/// (head dims up to 128) Q, dO, lse and delta come twice and a step loads
/// the next one's; without (`flash_bwd_dkdv_single_*` at 128, for GPUs
/// where two such blocks do not fit an SM, and every 256 one) a step loads
/// its own between two barriers.
template <class T, unsigned D, bool Prefetch>
void buildDkdv(ModuleBuilder &mb) {
  static_assert(!Prefetch || D <= 128, "a second set at 256 takes 101 KiB");
  mb.kernel(
      kernelName(Prefetch || D > 128 ? "flash_bwd_dkdv"
                                     : "flash_bwd_dkdv_single",
                 typeName<T>(), D),
      {int32_t(32 * kAttnWarps)}, [](KernelBuilder &k) {
        k.setMinBlocksPerSM(kAttnMinBlocksPerSM);
        constexpr unsigned kKeys = attnDkdvBlockK(D), kPairs = kKeys / 16;
        constexpr unsigned kSplit = kAttnWarps / kPairs, kCols = D / kSplit;
        constexpr unsigned kWidth = kCols / 2;
        static_assert(kSplit == 1 || kSplit == 2, "a warp or a pair a key row");
        auto q = tensorParam<Ptr<const T>>(k, "q");
        auto kp = tensorParam<Ptr<const T>>(k, "k");
        auto v = tensorParam<Ptr<const T>>(k, "v");
        auto dO = tensorParam<Ptr<const T>>(k, "do");
        auto dk = tensorParam<Ptr<T>>(k, "dk");
        auto dv = tensorParam<Ptr<T>>(k, "dv");
        auto lse = rowVectorParam<Ptr<const float>>(k, "lse");
        auto delta = rowVectorParam<Ptr<const float>>(k, "delta");
        Common c = commonParams(k);
        U32 b = k.blockId(Dim::z), kvh = k.blockId(Dim::y);
        U32 j0 = k.blockId(Dim::x) * kKeys;
        Sequences seq = sequences(c, b);
        k.if_(j0 < seq.sk, [&] {
          Mask mk = mask(k, c, seq);
          I32 j0i = j0.as<int32_t>();
          BlockRange queries = queryBlocks(k, mk, j0i, kKeys);
          auto aligned = CopyAlignment::Promised;
          // K and V stay for the whole kernel. Q, dO and the step's lse
          // (log2, row 0) and delta (row 1), one per query (column), come
          // twice: a step computes on one set while the next step's fills
          // the other.
          Shared<T> kT = k.shared<T>({kKeys, D}), vT = k.shared<T>({kKeys, D});
          auto queryTile = [&] { return k.shared<T>({kDkdvBlockQ, D}); };
          auto rowTile = [&] { return k.shared<float>({2, kDkdvBlockQ}); };
          // One set without Prefetch: a step loads its own after a barrier.
          constexpr bool kPrefetch = Prefetch;
          Shared<T> qA = queryTile(), doA = queryTile();
          Shared<float> rowsA = rowTile();
          Shared<T> qB = kPrefetch ? queryTile() : qA,
                    doB = kPrefetch ? queryTile() : doA;
          Shared<float> rowsB = kPrefetch ? rowTile() : rowsA;
          U32 tid = k.threadId(), warp = k.warpId();
          Token tk = k.asyncCopy(kp.at(b, kvh, seq.kStart), j0, 0u, seq.sk, D,
                                 kp.rowStride, kT, aligned);
          Token tv = k.asyncCopy(v.at(b, kvh, seq.kStart), j0, 0u, seq.sk, D,
                                 v.rowStride, vT, aligned);
          // Step (g, i0)'s loads: Q and dO copied (the token is dO's, the
          // later), lse and delta into the first kDkdvBlockQ threads'
          // registers, stored to the step's row tile later (storeRows), so
          // that their latency hides behind the step before. Past the last
          // query head (g = group) nothing is read: the rows are zero and
          // P = 0.
          struct StepLoads {
            Token copies;
            F32 lse, delta;
          };
          auto loadStep = [&](const U32 &g, const U32 &i0,
                              const Shared<T> &qT, const Shared<T> &doT) {
            U32 h = kvh * c.group + min(g, c.group - 1u);
            U32 bound = select(g < c.group, seq.sq, k.constant(0u));
            k.asyncCopy(q.at(b, h, seq.qStart), i0, 0u, bound, D, q.rowStride,
                        qT, aligned);
            Token t = k.asyncCopy(dO.at(b, h, seq.qStart), i0, 0u, bound, D,
                                  dO.rowStride, doT, aligned);
            U32 i = i0 + tid;
            Pred in = i < bound && tid < kDkdvBlockQ;
            return StepLoads{
                t, lse.at(b, h, seq.qStart).load(i, in, float(INFINITY)),
                delta.at(b, h, seq.qStart).load(i, in, 0.0f)};
          };
          auto storeRows = [&](const Shared<float> &rows,
                               const StepLoads &loads) {
            k.if_(tid < kDkdvBlockQ, [&] {
              rows(0u, tid) = lseLog2(k, loads.lse);
              rows(1u, tid) = loads.delta;
            });
          };
          Token first = tv;
          if constexpr (kPrefetch) {
            StepLoads firstLoads = loadStep(
                k.constant(0u), queries.first.as<uint32_t>(), qA, doA);
            storeRows(rowsA, firstLoads);
            first = firstLoads.copies;
          } else {
            k.asyncWait({tk, tv});
          }
          // The warp's 16 keys, its queries [qOff, qOff + kQueries) of each
          // step and its columns [col0, col0 + kCols) of dK and dV.
          constexpr unsigned kQueries = kDkdvBlockQ / kSplit;
          U32 warpKey = (kSplit > 1 ? warp % kPairs : warp) * 16u;
          U32 half = kSplit > 1 ? warp / kPairs : k.constant(0u);
          U32 qOff = half * kQueries, col0 = half * kCols;
          I32 keyBase = j0i + warpKey.as<int32_t>();
          FragTile queryFrags{1, kQueries / 8};
          // Split pairs trade P^T and dS^T here (keys x the step's queries).
          Shared<T> pS, dsS;
          if constexpr (kSplit > 1) {
            pS = k.shared<T>({kKeys, kDkdvBlockQ});
            dsS = k.shared<T>({kKeys, kDkdvBlockQ});
          }
          Frag zero = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                        FragTile{1, kWidth / 8});
          // dK's and dV's halves, then this step's tiles, the next step's,
          // and the token of this step's copies.
          using State =
              std::tuple<Frag, Frag, Frag, Frag, Shared<T>, Shared<T>,
                         Shared<float>, Shared<T>, Shared<T>, Shared<float>,
                         Token>;
          State state(zero, zero, zero, zero, qA, doA, rowsA, qB, doB, rowsB,
                      first);
          // The query heads of this key/value head, in order; each walks
          // the same query blocks.
          auto queryHead = [&](U32 g, Frag a0, Frag a1, Frag a2, Frag a3,
                               Shared<T> s0, Shared<T> s1, Shared<float> s2,
                               Shared<T> s3, Shared<T> s4, Shared<float> s5,
                               Token copies) {
            auto step = [&](bool masked, const I32 &i0, State st) {
              // (Named with std::tie: lambdas below capture them.)
              Frag dk0, dk1, dv0, dv1;
              Shared<T> qT, doT, qN, doN;
              Shared<float> rows, rowsN;
              Token t;
              std::tie(dk0, dk1, dv0, dv1, qT, doT, rows, qN, doN, rowsN, t) =
                  st;
              StepLoads nextLoads;
              if constexpr (kPrefetch) {
                // This step's tiles have landed, and every warp is done
                // with the last step's, which take the next step's.
                k.asyncWait({t});
                k.barrier();
                I32 next = i0 + int32_t(kDkdvBlockQ);
                Pred wrap = next >= queries.end;
                nextLoads = loadStep(
                    select(wrap, g + 1u, g),
                    select(wrap, queries.first, next).template as<uint32_t>(),
                    qN, doN);
              } else {
                // Every warp is done with the last step's tiles.
                k.barrier();
                StepLoads loads = loadStep(g, i0.as<uint32_t>(), qT, doT);
                storeRows(rows, loads);
                k.asyncWait({loads.copies});
                k.barrier();
              }
              // S^T = K Q^T and dP^T = V dO^T: the warp's 16 keys by its
              // queries.
              auto keyRows = [&](const Shared<T> &tile) {
                return [&tile, &warpKey](unsigned kk) {
                  return tile.loadFragment(FragRole::a, kShape, warpKey,
                                           kk * 16);
                };
              };
              Frag sT = productWithRows<T>(k, keyRows(kT), qT, qOff, D,
                                           queryFrags);
              Frag dpT = productWithRows<T>(k, keyRows(vT), doT, qOff, D,
                                            queryFrags);
              // lse and delta are per query: per column here.
              I32 colBase = qOff.as<int32_t>();
              Frag pT = sT.mapIndexed<float, float>(
                  [&](F32 x, I32 r, I32 col) {
                    F32 e = fastExp2(
                        fma(x, c.scaleLog2, -rows(0u, colBase + col).load()));
                    if (!masked)
                      return e;
                    I32 i = i0 + colBase + col;
                    return select(mk.visible(i, keyBase + r), e,
                                  k.constant(0.0f));
                  });
              Frag dsT = pT.mapIndexed<float, float>(
                  [&](F32 p, I32, I32 col, F32 dp) {
                    return p * (dp - rows(1u, colBase + col).load());
                  },
                  dpT);
              Frag pa, dsa;
              if constexpr (kSplit > 1) {
                pT.store(pS, warpKey, qOff);
                dsT.store(dsS, warpKey, qOff);
                k.barrier();
                FragTile stepTile{1, kDkdvBlockQ / 16};
                pa = pS.loadFragment(FragRole::a, kShape, warpKey, 0u,
                                     stepTile);
                dsa = dsS.loadFragment(FragRole::a, kShape, warpKey, 0u,
                                       stepTile);
              } else {
                pa = pT.toOperand<T>();
                dsa = dsT.toOperand<T>();
              }
              std::array<Frag, 2> dkA = {dk0, dk1}, dvA = {dv0, dv1};
              accumulateParts(k, dvA, pa, doT, kDkdvBlockQ, col0, kWidth);
              accumulateParts(k, dkA, dsa, qT, kDkdvBlockQ, col0, kWidth);
              if constexpr (!kPrefetch) // the tiles stay (loop invariants)
                return State(dkA[0], dkA[1], dvA[0], dvA[1], qT, doT, rows,
                             qN, doN, rowsN, t);
              storeRows(rowsN, nextLoads);
              return State(dkA[0], dkA[1], dvA[0], dvA[1], qN, doN, rowsN, qT,
                           doT, rows, nextLoads.copies);
            };
            State st(a0, a1, a2, a3, s0, s1, s2, s3, s4, s5, copies);
            auto loop = [&](bool masked, const I32 &from, const I32 &to) {
              st = k.forCarrying(from, to, int32_t(kDkdvBlockQ), st,
                                 [&](I32 i0, Frag b0, Frag b1, Frag b2,
                                     Frag b3, Shared<T> r0, Shared<T> r1,
                                     Shared<float> r2, Shared<T> r3,
                                     Shared<T> r4, Shared<float> r5,
                                     Token tt) {
                                   return step(masked, i0,
                                               State(b0, b1, b2, b3, r0, r1,
                                                     r2, r3, r4, r5, tt));
                                 });
            };
            loop(true, queries.first, queries.clean);
            loop(false, queries.clean, queries.cleanEnd);
            loop(true, queries.cleanEnd, queries.end);
            return st;
          };
          state = k.forCarrying(0u, c.group, 1u, state, queryHead);
          // The last step's loads (past the queries) land before the end.
          k.asyncWait({});
          auto dkb = dk.at(b, kvh, seq.kStart);
          auto dvb = dv.at(b, kvh, seq.kStart);
          for (unsigned half = 0; half < 2; ++half) {
            Frag dkF = half ? std::get<1>(state) : std::get<0>(state);
            Frag dvF = half ? std::get<3>(state) : std::get<2>(state);
            U32 col = col0 + half * kWidth;
            dkF.mapWith<float, float>([&](F32 x) { return x * c.scale; })
                .store(dkb, j0 + warpKey, col, seq.sk, D, dk.rowStride);
            dvF.store(dvb, j0 + warpKey, col, seq.sk, D, dv.rowStride);
          }
        });
      });
}

template <class T, unsigned D> void buildBackward(ModuleBuilder &mb) {
  buildPrep<T, D>(mb);
  buildDq<T, D>(mb);
  buildDkdv<T, D, (D <= 128)>(mb);
  // 66 KiB a block at 128: two do not fit the 100 KiB of an 8.6 or 8.9 SM.
  if constexpr (D == 128)
    buildDkdv<T, D, false>(mb);
}

} // namespace

void kaio::ops::kernels::buildAttentionBackwardKernels(ModuleBuilder &mb) {
  buildBackward<f16, 64>(mb);
  buildBackward<f16, 128>(mb);
  buildBackward<bf16, 64>(mb);
  buildBackward<bf16, 128>(mb);
  buildBackward<f16, 256>(mb);
  buildBackward<bf16, 256>(mb);
}

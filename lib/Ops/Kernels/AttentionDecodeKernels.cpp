//===- AttentionDecodeKernels.cpp - flash decoding over a KV cache --------===//
//
// Decoding attends one (or a few) new query tokens to a long KV cache: too
// little work per (batch, head) for one block, so the keys are split
// (flash decoding). A block of kAttnWarps warps owns one key/value head and
// a chunk of keys; the rows of its 16-row mma tile are the group's query
// heads times the query tokens (GQA packs them: row = token * group +
// head in group); more than 16 such rows (MQA, long GQA groups, several
// tokens) take the `_r32` variants at head dims 64 and 128, whose warps
// hold 32 rows (two 16-row atoms against the same keys: the head's keys
// are read once for 32 rows), and `row_blocks` blocks a head (block y =
// kv head * row_blocks + the 16- or 32-row block) past that. Per 64-key
// tile the block copies K and V (from the
// page the block table names, in a paged cache; the `_p16` variants, for
// pages of a multiple of 16 keys but not of 64 — vLLM's 16 —, copy each
// 16-key part of the tile from its own page) and warp w takes keys 16w ..
// 16w + 15 of it: S = Q K^T, an online softmax, O += P V, as in the
// forward. Each warp leaves its own partial (O / l and the row's log2-sum)
// in a workspace; flash_decode_combine merges every split's partials.
//
//===----------------------------------------------------------------------===//

#include "AttentionSupport.h"

#include <array>
#include <cmath>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::attention;
using kaio::ops::kernels::support::typeName;

namespace {

constexpr unsigned kTileKeys = kAttnBlockK;
/// A tile's keys are copied in parts of 16 (a page of 16 keys is the
/// smallest a paged cache may have).
constexpr unsigned kKeyParts = kTileKeys / 16;

/// `pageParts`: the `_p16` variant, for pages that are not a multiple of
/// 64 keys (each 16-key part of a tile copied from its own page: four
/// copies of K and of V a tile, and their page arithmetic, where the plain
/// kernel has one). `Rows`: a block's (and each warp's) query rows, 16 or
/// 32 (`_r32`: Q's fragments then stay in shared memory at head dim 128,
/// where 32 rows of them and of O would not fit the registers).
template <class T, unsigned D, unsigned Rows = 16>
void buildDecode(ModuleBuilder &mb, bool pageParts) {
  static_assert(Rows == 16 || Rows == 32, "one or two 16-row atoms");
  constexpr unsigned kAtomRows = Rows / 16;
  mb.kernel(
      kernelName("flash_decode", typeName<T>(), D) +
          (Rows == 32 ? "_r32" : "") + (pageParts ? "_p16" : ""),
      {int32_t(32 * kAttnWarps)}, [pageParts](KernelBuilder &k) {
        auto q = tensorParam<Ptr<const T>>(k, "q");
        auto kc = tensorParam<Ptr<const T>>(k, "k_cache");
        auto vc = tensorParam<Ptr<const T>>(k, "v_cache");
        auto blockTable = k.param<Ptr<const int32_t>>("block_table");
        U32 tableStride = k.param<uint32_t>("block_table_stride");
        U32 pageSize = k.param<uint32_t>("page_size");
        auto seqlens = k.param<Ptr<const int32_t>>("seqlens_k");
        U32 qLen = k.param<uint32_t>("q_len");
        U32 group = k.param<uint32_t>("kv_group");
        U32 rowBlocks = k.param<uint32_t>("row_blocks");
        U32 keysPerSplit = k.param<uint32_t>("keys_per_split");
        F32 scaleLog2 = k.param<float>("scale_log2");
        U32 flags = k.param<uint32_t>("flags");
        auto partialO = k.param<Ptr<float>>("partial_o");
        auto partialLse = k.param<Ptr<float>>("partial_lse");

        U32 split = k.blockId(Dim::x), b = k.blockId(Dim::z);
        U32 kvh = k.blockId(Dim::y) / rowBlocks,
            kvHeads = k.gridDim(Dim::y) / rowBlocks;
        // The block's first row of the group's rows.
        U32 row0 = (k.blockId(Dim::y) % rowBlocks) * Rows;
        U32 splits = k.gridDim(Dim::x) * kAttnWarps;
        U32 rows = group * qLen;
        I32 sk = seqlens.load(b).as<int32_t>();
        U32 tid = k.threadId(), warp = k.warpId();
        Pred paged = (flags & uint32_t(kDecodePaged)) != 0u;
        Pred causal = (flags & uint32_t(kDecodeCausal)) != 0u;

        // Q's rows (token, head in group) gathered into a Rows-row tile.
        Shared<T> qT = k.shared<T>({Rows, D});
        k.for_(tid, Rows * D, 32u * kAttnWarps, [&](U32 idx) {
          U32 tileRow = idx / D, d = idx % D;
          U32 r = row0 + tileRow;
          U32 token = r / group, h = kvh * group + r % group;
          Pred in = r < rows;
          qT(tileRow, d) = q.at(b, h, token).load(d, in, 0.0f);
        });
        k.barrier();
        // Q's fragments in registers up to head dim 128 (64 with 32
        // rows); past that (64 registers) they are reloaded from the tile
        // each step.
        constexpr bool kQInShared = D * kAtomRows > 128;
        Frag qf;
        if constexpr (!kQInShared)
          qf = qT.loadFragment(FragRole::a, kShape, 0u, 0u,
                               FragTile{kAtomRows, D / 16});
        auto qFragment = [&](unsigned kk) {
          if constexpr (kQInShared)
            return qT.loadFragment(FragRole::a, kShape, 0u, kk * 16,
                                   FragTile{kAtomRows, 1});
          else
            return qf.slice(0, kk, FragTile{kAtomRows, 1});
        };
        I32 j0 = (split * keysPerSplit).as<int32_t>();
        I32 jEnd = min(j0 + keysPerSplit.as<int32_t>(), sk);

        Shared<T> kT = k.shared<T>({kTileKeys, D}),
                  vT = k.shared<T>({kTileKeys, D});
        auto aligned = CopyAlignment::Promised;
        const float ninf = -INFINITY;
        Frag zero = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                      FragTile{kAtomRows, D / 16});
        Frag m = k.fragFill<float>(FragRole::acc, kShape, ninf,
                                   FragTile{kAtomRows, 1});
        Frag l = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                   FragTile{kAtomRows, 1});
        U32 warpKey = warp * 16u;
        using State = std::tuple<Frag, Frag, Frag, Frag>;
        // Up to head dim 128 the next tile's copies fly while this one is
        // computed (kaio-pipeline-copies; 2 x 32 KiB of tiles at 128); at
        // 256 two 64 KiB stages would not fit beside a second block.
        if constexpr (D <= 128)
          k.pipeline(kDecodeStages);
        State state = k.forCarrying(
            j0, jEnd, int32_t(kTileKeys), State(zero, zero, m, l),
            [&](I32 t0, Frag o0, Frag o1, Frag mIn, Frag lIn) {
              // Keys t0 + first .. + count - 1 into rows first .. of the
              // tiles, from their page (the block table's entry, in a
              // paged cache; the table read only for keys the sequence
              // has: run ahead past the split's end by the pipeline, it is
              // masked off there too) or the batch's own cache; zero
              // filled past the sequence.
              auto copyKeys = [&](unsigned first, unsigned count) {
                I32 tp = t0 + int32_t(first);
                U32 tpu = tp.as<uint32_t>();
                U32 page = select(paged,
                                  blockTable
                                      .load(b * tableStride + tpu / pageSize,
                                            paged & (tp < sk), 0)
                                      .as<uint32_t>(),
                                  b);
                U32 row = select(paged, tpu % pageSize, tpu);
                U32 rowEnd =
                    row + max(sk - tp, k.constant(int32_t(0))).as<uint32_t>();
                const TileRows into{first, count};
                // Two statements: the arguments of one call would leave the
                // copies' order to the host compiler.
                Token keys =
                    k.asyncCopy(kc.at(page, kvh, k.constant(0u)), row, 0u,
                                rowEnd, D, kc.rowStride, kT, into, aligned);
                Token values =
                    k.asyncCopy(vc.at(page, kvh, k.constant(0u)), row, 0u,
                                rowEnd, D, vc.rowStride, vT, into, aligned);
                return std::pair(keys, values);
              };
              if (pageParts) {
                // Pages of any multiple of 16 keys: each 16-key part of
                // the tile from its own page.
                static_assert(kKeyParts == 4, "the wait lists 8 tokens");
                std::array<std::pair<Token, Token>, kKeyParts> p;
                for (unsigned part = 0; part < kKeyParts; ++part)
                  p[part] = copyKeys(16 * part, 16);
                k.asyncWait({p[0].first, p[0].second, p[1].first,
                             p[1].second, p[2].first, p[2].second,
                             p[3].first, p[3].second});
              } else {
                // Pages of a multiple of 64 keys (or none): one page a
                // tile.
                auto [tk, tv] = copyKeys(0, kTileKeys);
                k.asyncWait({tk, tv});
              }
              k.barrier();
              // The warp's 16 keys of the tile.
              Frag s = k.fragFill<float>(FragRole::acc, kShape, 0.0f,
                                         FragTile{kAtomRows, 2});
              for (unsigned kk = 0; kk < D / 16; ++kk)
                s = k.mma(qFragment(kk),
                          kT.loadFragmentTransposed(kShape, warpKey, kk * 16,
                                                    FragTile{1, 2}),
                          s);
              // Keys past the cache's length; with several query tokens
              // and causal, token i sees keys up to sk - qLen + i.
              s = s.mapIndexed<float, float>([&](F32 x, I32 r, I32 c) {
                I32 j = t0 + warpKey.as<int32_t>() + c;
                I32 token =
                    ((row0 + r.as<uint32_t>()) / group).as<int32_t>();
                Pred visible =
                    (j < sk) &&
                    (!causal || j <= sk - qLen.as<int32_t>() + token);
                return select(visible, x, k.constant(ninf));
              });
              Frag mNew = mIn.mapWith<float, float>(
                  [&](F32 mo, F32 rm) { return max(mo, rm * scaleLog2); },
                  s.reduceRows(ReduceKind::max));
              Frag mUse = mNew.mapWith<float, float>([&](F32 mv) {
                return select(mv == ninf, k.constant(0.0f), mv);
              });
              Frag p = s.mapWith<float, float>(
                  [&](F32 x, F32 mu) {
                    return fastExp2(fma(x, scaleLog2, -mu));
                  },
                  mUse);
              Frag alpha = mIn.mapWith<float, float>(
                  [&](F32 mo, F32 mu) { return fastExp2(mo - mu); }, mUse);
              Frag lNew = lIn.mapWith<float, float>(
                  [&](F32 lo, F32 a, F32 rs) { return fma(lo, a, rs); },
                  alpha, p.reduceRows(ReduceKind::sum));
              Frag pa = p.toOperand<T>();
              std::array<Frag, 2> acc = {o0, o1};
              for (unsigned half = 0; half < 2; ++half) {
                acc[half] = acc[half].mapWith<float, float>(
                    [&](F32 e, F32 a) { return e * a; }, alpha);
                acc[half] = k.mma(
                    pa, vT.loadFragment(FragRole::b, kShape, warpKey,
                                        half * (D / 2), FragTile{1, D / 16}),
                    acc[half]);
              }
              // Unpipelined (head dim 256), the next tile's copies
              // overwrite the buffers read here. Pipelined, the barrier
              // after the wait fences them too: they are issued after it,
              // when every warp is done with the tile before, whose
              // buffers they refill.
              if constexpr (D > 128)
                k.barrier();
              return State(acc[0], acc[1], mNew, lNew);
            });
        // The pipeline's last copies (predicated off past the split) have
        // landed.
        k.asyncWait({});
        // The warp's partial: O / l and log2(l) + m (-inf without keys).
        U32 slot = split * kAttnWarps + warp;
        U64 base = (cast<uint64_t>(b) * cast<uint64_t>(kvHeads) +
                    cast<uint64_t>(kvh)) *
                       cast<uint64_t>(splits) +
                   cast<uint64_t>(slot);
        auto oPart = partialO + base * cast<uint64_t>(rows) * uint64_t(D);
        auto lsePart = partialLse + base * cast<uint64_t>(rows);
        Frag lF = std::get<3>(state);
        // 1 / l once a row (a division per element spilled at head dim 256).
        Frag inv = lF.mapWith<float, float>([&](F32 lv) {
          return select(lv > 0.0f, 1.0f / lv, k.constant(0.0f));
        });
        for (unsigned half = 0; half < 2; ++half) {
          Frag o = half ? std::get<1>(state) : std::get<0>(state);
          o.mapWith<float, float>([&](F32 x, F32 r) { return x * r; }, inv)
              .store(oPart, row0, half * (D / 2), rows, D, D);
        }
        std::get<2>(state)
            .mapWith<float, float>(
                [&](F32 mv, F32 lv) {
                  return select(lv > 0.0f, mv + log2(lv), k.constant(ninf));
                },
                lF)
            .store(lsePart, row0, 0u, rows, 1u, 1u);
      });
}

/// Output row (token, head) of a batch: the splits' partials merged,
/// O = sum exp2(lse_s - lse) O_s with lse = log2 sum exp2(lse_s).
/// kDecodeCombineThreads threads, kParts groups
/// of D (a thread per element of the row): group g weighs partials g, g +
/// kParts, ... (four loads in flight a thread: the loop is unrolled), then
/// the groups' sums meet in shared memory. At batch 1 there are up to a
/// thousand partials a row: one thread walking them a load at a time (the
/// first version) waited on each load in turn.
template <class T, unsigned D> void buildCombine(ModuleBuilder &mb) {
  static_assert(kDecodeCombineThreads % D == 0, "whole groups of D threads");
  constexpr unsigned kParts = kDecodeCombineThreads / D;
  mb.kernel(kernelName("flash_decode_combine", typeName<T>(), D),
            {int32_t(kDecodeCombineThreads)}, [](KernelBuilder &k) {
              auto o = tensorParam<Ptr<T>>(k, "o");
              auto partialO = k.param<Ptr<const float>>("partial_o");
              auto partialLse = k.param<Ptr<const float>>("partial_lse");
              U32 splits = k.param<uint32_t>("splits");
              U32 qLen = k.param<uint32_t>("q_len");
              U32 group = k.param<uint32_t>("kv_group");
              U32 r = k.blockId(Dim::x), kvh = k.blockId(Dim::y),
                  b = k.blockId(Dim::z);
              U32 rows = group * qLen;
              U64 base = (cast<uint64_t>(b) *
                              cast<uint64_t>(k.gridDim(Dim::y)) +
                          cast<uint64_t>(kvh)) *
                         cast<uint64_t>(splits);
              auto lse = partialLse + base * cast<uint64_t>(rows) +
                         cast<uint64_t>(r);
              U32 tid = k.threadId();
              F32 mine = k.for_(tid, splits, kDecodeCombineThreads,
                                k.constant(-INFINITY), [&](U32 s, F32 acc) {
                                  return max(acc, lse.load(s * rows));
                                });
              F32 mx = k.blockReduce(ReduceKind::max, mine);
              F32 off = select(mx == -INFINITY, k.constant(0.0f), mx);
              U32 d = tid % D, part = tid / D;
              auto oPart = partialO + (base * cast<uint64_t>(rows) +
                                       cast<uint64_t>(r)) *
                                          uint64_t(D) +
                           cast<uint64_t>(d);
              auto [sum, acc] = k.unroll(4).for_(
                  part, splits, kParts,
                  carry(k.constant(0.0f), k.constant(0.0f)),
                  [&](U32 s, F32 sw, F32 a) {
                    F32 w = fastExp2(lse.load(s * rows) - off);
                    return carry(sw + w,
                                 fma(w, oPart.load(s * rows * uint32_t(D)), a));
                  });
              Shared<float> accs = k.shared<float>({kParts, D}),
                            sums = k.shared<float>({kParts});
              accs(part, d) = acc;
              k.if_(d == 0u, [&] { sums(part) = sum; });
              k.barrier();
              k.if_(part == 0u, [&] {
                F32 total = acc, weight = sum;
                for (unsigned g = 1; g < kParts; ++g) {
                  total = total + accs(g, d);
                  weight = weight + sums(g);
                }
                F32 out =
                    select(weight > 0.0f, total / weight, k.constant(0.0f));
                U32 token = r / group, h = kvh * group + r % group;
                o.at(b, h, token).store(d, support::fromF32<T>(out));
              });
            });
}

template <class T, unsigned D> void buildDecodePair(ModuleBuilder &mb) {
  buildDecode<T, D>(mb, /*pageParts=*/false);
  buildDecode<T, D>(mb, /*pageParts=*/true);
  if constexpr (D <= kDecodeMaxR32Dim)
    buildDecode<T, D, 32>(mb, /*pageParts=*/false);
  buildCombine<T, D>(mb);
}

} // namespace

void kaio::ops::kernels::buildAttentionDecodeKernels(ModuleBuilder &mb) {
  buildDecodePair<f16, 64>(mb);
  buildDecodePair<f16, 128>(mb);
  buildDecodePair<bf16, 64>(mb);
  buildDecodePair<bf16, 128>(mb);
  buildDecodePair<f16, 256>(mb);
  buildDecodePair<bf16, 256>(mb);
}

//===- NormBackwardKernels.cpp - RMSNorm and LayerNorm backward -----------===//
//
// dx, a block per row (as the forward): with g = dy * weight and the saved
// rstd r (and mean),
//   RMSNorm:   dx = r (g - h r^2 mean(g h))
//   LayerNorm: dx = r (g - mean(g) - xhat mean(g xhat)), xhat = (h - mean) r.
// dweight = sum over rows of dy * xhat (xhat = h r for RMSNorm) and dbias =
// sum of dy, deterministically: a column per thread sums a fixed slice of
// rows into f32 partials, then a second kernel sums the slices in order.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <iterator>
#include <string>
#include <type_traits>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

/// The tensor parameters the dx kernels share, declared in their order.
template <class T> struct NormBwdTensors {
  Ptr<const T> x, dy, weight;
  Ptr<const float> mean, rstd;
  Ptr<T> dx;
};
template <class T> NormBwdTensors<T> declareNormBwdTensors(KernelBuilder &k) {
  auto x = k.param<Ptr<const T>>("x");
  auto dy = k.param<Ptr<const T>>("dy");
  auto weight = k.param<Ptr<const T>>("weight");
  auto mean = k.param<Ptr<const float>>("mean");
  auto rstd = k.param<Ptr<const float>>("rstd");
  auto dx = k.param<Ptr<T>>("dx");
  return {x, dy, weight, mean, rstd, dx};
}

template <class T, unsigned V, bool Layer>
void buildNormDx(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(Layer ? "layer_norm_bwd" : "rms_norm_bwd"),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        NormBwdTensors<T> t = declareNormBwdTensors<T>(k);
        auto n = k.param<uint32_t>("n");
        auto ldx = k.param<uint32_t>("ld_x");
        auto lddy = k.param<uint32_t>("ld_dy");
        auto lddx = k.param<uint32_t>("ld_dx");
        auto flags = k.param<uint32_t>("flags");
        Pred hasWeight = (flags & uint32_t(kNormBwdWeight)) != 0u;
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(t.x, row, ldx);
        auto dyr = rowOf(t.dy, row, lddy);
        auto dxr = rowOf(t.dx, row, lddx);
        F32 r = t.rstd.load(row);
        F32 mu = k.constant(0.0f);
        if constexpr (Layer)
          mu = t.mean.load(row);
        F32 zero = k.constant(0.0f);
        // sum(g) (LayerNorm) and sum(g * xhat), xhat = (h - mu) r.
        auto [sg, sgx] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(zero, zero),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, b] = state;
              Chunk<W> h = loadChunk<W>(xr, i);
              Chunk<W> d = loadChunk<W>(dyr, i);
              Chunk<W> w = loadChunkOr<W>(t.weight, i, hasWeight, 1.0f);
              for (unsigned j = 0; j < W; ++j) {
                F32 g = d[j] * w[j];
                a = a + g;
                b = fma(g, (h[j] - mu) * r, b);
              }
              return std::make_tuple(a, b);
            });
        F32 count = cast<float>(n);
        F32 meanG = zero;
        if constexpr (Layer)
          meanG = k.blockReduce(ReduceKind::sum, sg) / count;
        F32 meanGx = k.blockReduce(ReduceKind::sum, sgx) / count;
        rowFor<V>(k, tid, bdim, n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> h = loadChunk<W>(xr, i);
          Chunk<W> d = loadChunk<W>(dyr, i);
          Chunk<W> w = loadChunkOr<W>(t.weight, i, hasWeight, 1.0f);
          for (unsigned j = 0; j < W; ++j) {
            F32 xhat = (h[j] - mu) * r;
            h[j] = r * (d[j] * w[j] - meanG - xhat * meanGx);
          }
          storeChunk<W>(dxr, i, h);
        });
      });
}

/// dx, and the slice's dweight and dbias partials, in one pass over x and
/// dy: block s walks rows [s * rows_per_split, ...) one at a time. The
/// rows are staged in shared memory by a two-stage cp.async pipeline
/// (kaio-pipeline-copies): while the block works on row r, x and dy of row
/// r + 1 are on their way, so the memory system never waits for the
/// block's arithmetic and barriers (one row in flight per SM, as before,
/// left the bandwidth idle between rows); the row's rstd (and mean) are
/// read a row ahead as well. Each thread reads its own 16-byte chunks of
/// the staged row (kaio.shared_load_vector: no bank conflicts) twice: for
/// the row's two sums (one barrier: BlockPairSum), then for dx, stored
/// from them, and its slots' dw and db, kept in registers across the rows
/// and written to partial[s][0][c] and partial[s][1][c] at the end
/// (norm_bwd_reduce sums the slices in order). The weight is staged once.
/// Two barriers a row: the copies landed (which also frees the buffers of
/// the row before for the next row's copies, issued right after it), and
/// BlockPairSum's.
/// Rows up to B * R chunks of V (plus the tail).
template <class T, unsigned V, bool Layer, unsigned B, unsigned R>
void buildNormFused(ModuleBuilder &mb) {
  static_assert(V > 1, "the fused kernel moves 16-byte chunks");
  using Row = RegisterRow<T, V, R, B>;
  constexpr unsigned Slots = Row::kSlots;
  // A staged row: every chunk a thread may hold, and the tail's.
  constexpr int64_t kWidth = int64_t(B * R + 1) * V;
  std::string base = std::string(Layer ? "layer" : "rms") +
                     "_norm_bwd_fused_b" + std::to_string(B) +
                     (R == kNormFusedChunks ? "" : "r" + std::to_string(R));
  mb.kernel(
      kernelName<T, V>(base.c_str()), {int32_t(B)}, [](KernelBuilder &k) {
        NormBwdTensors<T> t = declareNormBwdTensors<T>(k);
        auto partial = k.param<Ptr<float>>("partial");
        auto n = k.param<uint32_t>("n");
        auto rows = k.param<uint32_t>("rows");
        auto ldx = k.param<uint32_t>("ld_x");
        auto lddy = k.param<uint32_t>("ld_dy");
        auto lddx = k.param<uint32_t>("ld_dx");
        auto perSplit = k.param<uint32_t>("rows_per_split");
        auto flags = k.param<uint32_t>("flags");
        Pred hasWeight = (flags & uint32_t(kNormBwdWeight)) != 0u;
        // f32 rows: 24 warps an SM where the shared memory allows it.
        if constexpr (std::is_same_v<T, float> && 768 / B > 1)
          k.setMinBlocksPerSM(int32_t(768 / B));
        U32 tid = k.threadId();
        U32 split = k.blockId();
        U32 first = split * perSplit;
        U32 last = min(first + perSplit, rows);
        // The thread's chunks and tail slot (the row's geometry only).
        Row w(k, tid, n);
        BlockPairSum<B> sums(k);
        F32 zero = k.constant(0.0f);
        F32 count = cast<float>(n);
        // Plain row-major tiles: a thread reads the chunks it would read
        // from global memory, 16 bytes a lane, conflict-free unswizzled.
        TileLayout plain{MatrixOrder::row_major, 0};
        Shared<T> xs = k.shared<T>({1, kWidth}, plain);
        Shared<T> ds = k.shared<T>({1, kWidth}, plain);
        // The weight, staged once (registers would not hold it beside the
        // accumulators of 16-bit rows); 1 without one (outside the row dy
        // is 0, so it does not matter there).
        Shared<T> ws = k.shared<T>({1, kWidth}, plain);
        U32 weightRows = select(hasWeight, k.constant(1u), 0u);
        Token tw = k.asyncCopy(t.weight, 0u, 0u, weightRows, n, n, ws,
                               CopyAlignment::Promised);
        k.asyncWait({tw});
        // Chunk r's V staged elements (zero past n: the copies' zero fill).
        auto staged = [&](const Shared<T> &tile, unsigned r) {
          Chunk<V> c;
          auto v = tile.template loadVector<V>({0u, w.col(r * V)});
          for (unsigned j = 0; j < V; ++j)
            c[j] = toF32(v[j]);
          return c;
        };
        // dy's, 0 where the chunk is not the thread's: a chunk the row ends
        // inside holds elements that are the tail slots' (nothing counts
        // twice: dy 0 adds nothing to the sums, dw or db).
        auto stagedDy = [&](unsigned r) {
          Chunk<V> c = staged(ds, r);
          for (F32 &v : c)
            v = select(w.valid(r * V), v, 0.0f);
          return c;
        };
        // The tail slot's column (whole chunks * V + tid) passes the tile
        // for threads whose slot is outside the row: they read 0.
        U32 tailAt = min(w.col(Row::kTail), uint32_t(kWidth - 1));
        Pred tailValid = w.valid(Row::kTail);
        auto stagedTail = [&](const Shared<T> &tile) {
          return select(tailValid, toF32(tile.load({0u, tailAt})), 0.0f);
        };
        auto weightOf = [&](const F32 &staged) {
          return select(hasWeight, staged, 1.0f);
        };
        auto weightChunk = [&](unsigned r) {
          Chunk<V> c = staged(ws, r);
          for (F32 &v : c)
            v = weightOf(v);
          return c;
        };
        auto tailChunk = [&](const Shared<T> &tile) {
          Chunk<V> c;
          c[0] = stagedTail(tile);
          return c;
        };
        // Loop-carried: dw and db of each slot, then the row's rstd and
        // mean (read one row ahead; the first row's here).
        constexpr unsigned kRs = 2 * Slots, kMu = kRs + 1;
        auto statsOf = [&](const U32 &r) {
          U32 at = min(r, rows - 1u);
          F32 rs = t.rstd.load(at);
          F32 mu = zero;
          if constexpr (Layer)
            mu = t.mean.load(at);
          return std::make_pair(rs, mu);
        };
        std::array<F32, 2 * Slots + 2> init;
        init.fill(zero);
        std::tie(init[kRs], init[kMu]) = statsOf(first);
        std::array<F32, 2 * Slots + 2> acc = k.pipeline(2).for_(
            first, last, 1u, init, [&](U32 r, std::array<F32, 2 * Slots + 2> a) {
              // Row r into the stage buffers (their second copy and the
              // prefetch are the pipelining pass's).
              Token tx = k.asyncCopy(t.x, r, 0u, rows, n, ldx, xs,
                                     CopyAlignment::Promised);
              Token td = k.asyncCopy(t.dy, r, 0u, rows, n, lddy, ds,
                                     CopyAlignment::Promised);
              F32 rs = a[kRs], mu = a[kMu];
              std::tie(a[kRs], a[kMu]) = statsOf(min(r + 1u, last - 1u));
              k.asyncWait({tx, td});
              k.barrier();
              // sum(g) (LayerNorm) and sum(g * xhat), g = dy * weight,
              // xhat = (x - mean) rstd.
              auto fold = [&](Pair st, const Chunk<V> &h, const Chunk<V> &d,
                              const Chunk<V> &wc, unsigned width) {
                auto [s0, s1] = st;
                for (unsigned j = 0; j < width; ++j) {
                  F32 g = d[j] * wc[j];
                  s0 = s0 + g;
                  s1 = fma(g, (h[j] - mu) * rs, s1);
                }
                return std::make_tuple(s0, s1);
              };
              Pair st = std::make_tuple(zero, zero);
              for (unsigned c = 0; c < R; ++c)
                st = k.if_(
                    w.live(c),
                    [&] {
                      return fold(st, staged(xs, c), stagedDy(c),
                                  weightChunk(c), V);
                    },
                    [&] { return st; });
              Chunk<V> wTail;
              wTail[0] = weightOf(stagedTail(ws));
              st = fold(st, tailChunk(xs), tailChunk(ds), wTail, 1);
              auto [sg, sgx] = st;
              auto [tg, tgx] = sums(tid, r & 1u, sg, sgx);
              F32 meanG = Layer ? tg / count : zero;
              F32 meanGx = tgx / count;
              // dx of V (or 1) elements, and the slots' dw += dy * xhat,
              // db += dy (0 outside the row).
              auto dxRow = rowOf(t.dx, cast<uint64_t>(r), lddx);
              auto finish = [&](const Chunk<V> &h, const Chunk<V> &d,
                                const Chunk<V> &wc, unsigned slot,
                                unsigned width,
                                std::array<F32, 2 * Slots + 2> &acc) {
                Chunk<V> out;
                for (unsigned j = 0; j < width; ++j) {
                  unsigned s = slot + j;
                  F32 xhat = (h[j] - mu) * rs;
                  out[j] = rs * (d[j] * wc[j] - meanG - xhat * meanGx);
                  acc[s] = fma(d[j], xhat, acc[s]);
                  acc[Slots + s] = acc[Slots + s] + d[j];
                }
                return out;
              };
              for (unsigned c = 0; c < R; ++c) {
                auto slotsOf = [&](const std::array<F32, 2 * Slots + 2> &x) {
                  std::array<F32, 2 * V> o;
                  for (unsigned j = 0; j < V; ++j) {
                    o[j] = x[c * V + j];
                    o[V + j] = x[Slots + c * V + j];
                  }
                  return std::apply(
                      [](const auto &...v) { return std::make_tuple(v...); },
                      o);
                };
                auto next = k.if_(
                    w.live(c),
                    [&] {
                      std::array<F32, 2 * Slots + 2> b = a;
                      Chunk<V> out = finish(staged(xs, c), stagedDy(c),
                                            weightChunk(c), c * V, V, b);
                      k.if_(w.valid(c * V),
                            [&] { storeChunk<V>(dxRow, w.col(c * V), out); });
                      return slotsOf(b);
                    },
                    [&] { return slotsOf(a); });
                std::array<F32, 2 * V> got = std::apply(
                    [](const auto &...v) {
                      return std::array<F32, 2 * V>{v...};
                    },
                    next);
                for (unsigned j = 0; j < V; ++j) {
                  a[c * V + j] = got[j];
                  a[Slots + c * V + j] = got[V + j];
                }
              }
              {
                Chunk<V> out = finish(tailChunk(xs), tailChunk(ds), wTail,
                                      Row::kTail, 1, a);
                storeChunk<1>(dxRow, w.col(Row::kTail), Chunk<1>{out[0]},
                              &tailValid);
              }
              // No barrier here: the one after the wait also fences the
              // refill (the pipeline issues row r + 1's copies after it,
              // when every warp is done with row r - 1, whose buffers
              // they overwrite).
              return a;
            });
        // The slice's partials: dw at [split][0][c], db at [split][1][c].
        auto dwRow = partial + cast<uint64_t>(split) * cast<uint64_t>(n) * 2u;
        auto dbRow = dwRow + cast<uint64_t>(n);
        for (unsigned s = 0; s < Slots; ++s) {
          dwRow.store(w.col(s), acc[s], w.valid(s));
          dbRow.store(w.col(s), acc[Slots + s], w.valid(s));
        }
      });
}

template <class T, unsigned V, unsigned... B>
void buildNormFusedBlocks(ModuleBuilder &mb) {
  (buildNormFused<T, V, false, B, kNormFusedChunks>(mb), ...);
  (buildNormFused<T, V, true, B, kNormFusedChunks>(mb), ...);
}

template <class T> void buildParams(ModuleBuilder &mb) {
  mb.kernel(
      std::string("norm_bwd_params_") + typeName<T>(),
      {int32_t(kNormParamsBlock)}, [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto dy = k.param<Ptr<const T>>("dy");
        auto meanIn = k.param<Ptr<const float>>("mean");
        auto rstdIn = k.param<Ptr<const float>>("rstd");
        auto partial = k.param<Ptr<float>>("partial");
        auto n = k.param<uint32_t>("n");
        auto rows = k.param<uint32_t>("rows");
        auto ldx = k.param<uint32_t>("ld_x");
        auto lddy = k.param<uint32_t>("ld_dy");
        auto perSplit = k.param<uint32_t>("rows_per_split");
        auto flags = k.param<uint32_t>("flags");
        Pred layer = (flags & uint32_t(kNormBwdLayer)) != 0u;
        U32 col = k.blockId() * kNormParamsBlock + k.threadId();
        U32 split = k.blockId(Dim::y);
        k.if_(col < n, [&] {
          U32 first = split * perSplit;
          U32 last = min(first + perSplit, rows);
          F32 zero = k.constant(0.0f);
          auto [dw, db] = k.unroll(kColumnUnroll).for_(
              first, last, 1u, std::make_tuple(zero, zero),
              [&](U32 r, F32 a, F32 b) {
                U64 r64 = cast<uint64_t>(r);
                F32 h = toF32(x.load(r64 * cast<uint64_t>(ldx) +
                                     cast<uint64_t>(col)));
                F32 d = toF32(dy.load(r64 * cast<uint64_t>(lddy) +
                                      cast<uint64_t>(col)));
                F32 mu = meanIn.load(r, layer, 0.0f);
                F32 xhat = (h - mu) * rstdIn.load(r);
                return std::make_tuple(fma(d, xhat, a), b + d);
              });
          U64 base = cast<uint64_t>(split) * cast<uint64_t>(n) * 2u +
                     cast<uint64_t>(col);
          partial.store(base, dw);
          partial.store(base + cast<uint64_t>(n), db);
        });
      });
}

template <class T> void buildReduce(ModuleBuilder &mb) {
  mb.kernel(std::string("norm_bwd_reduce_") + typeName<T>(),
            {int32_t(kNormParamsBlock)}, [](KernelBuilder &k) {
              auto partial = k.param<Ptr<const float>>("partial");
              auto dweight = k.param<Ptr<T>>("dweight");
              auto dbias = k.param<Ptr<T>>("dbias");
              auto n = k.param<uint32_t>("n");
              auto splits = k.param<uint32_t>("splits");
              auto flags = k.param<uint32_t>("flags");
              U32 col = k.blockId() * kNormParamsBlock + k.threadId();
              k.if_(col < n, [&] {
                F32 zero = k.constant(0.0f);
                auto [dw, db] = k.unroll(kColumnUnroll).for_(
                    0u, splits, 1u, std::make_tuple(zero, zero),
                    [&](U32 p, F32 a, F32 b) {
                      U64 base = cast<uint64_t>(p) * cast<uint64_t>(n) * 2u +
                                 cast<uint64_t>(col);
                      return std::make_tuple(
                          a + partial.load(base),
                          b + partial.load(base + cast<uint64_t>(n)));
                    });
                dweight.store(col, fromF32<T>(dw));
                k.if_((flags & uint32_t(kNormBwdBias)) != 0u,
                      [&] { dbias.store(col, fromF32<T>(db)); });
              });
            });
}

template <class T> void buildForType(ModuleBuilder &mb) {
  constexpr unsigned V = vectorWidth<T>();
  buildNormDx<T, V, false>(mb);
  buildNormDx<T, 1, false>(mb);
  buildNormDx<T, V, true>(mb);
  buildNormDx<T, 1, true>(mb);
  static_assert(std::size(kNormFusedBlocks) == 3, "one build per block");
  buildNormFusedBlocks<T, V, kNormFusedBlocks[0], kNormFusedBlocks[1],
                       kNormFusedBlocks[2]>(mb);
  buildNormFused<T, V, false, kNormFusedWideBlock, kNormFusedWideChunks>(mb);
  buildNormFused<T, V, true, kNormFusedWideBlock, kNormFusedWideChunks>(mb);
  buildParams<T>(mb);
  buildReduce<T>(mb);
}

} // namespace

void kaio::ops::kernels::buildNormBackwardKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

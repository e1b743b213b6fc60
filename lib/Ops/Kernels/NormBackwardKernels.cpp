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
/// dy: block s walks rows [s * rows_per_split, ...) one at a time, each
/// held in registers (RegisterRow: x and dy read once, in 16-byte chunks),
/// with the weight read once for all of them; the row's two sums take one
/// barrier (BlockPairSum), then dx is stored from the registers. Each
/// thread keeps dw and db of its slots' columns across the rows and writes
/// them to partial[s][0][c] and partial[s][1][c] at the end
/// (norm_bwd_reduce sums the slices in order): in registers, or with more
/// than kNormFusedChunks chunks a thread (the wide variant, whose
/// registers would not hold them) those of its chunks in shared memory,
/// element j of its chunk r at [j][r * B + tid] for dw and [V + j][...] for
/// db (a thread's own words, so no barrier; a warp's consecutive words, so
/// no bank conflict). Rows up to B * R chunks of V (plus the tail).
template <class T, unsigned V, bool Layer, unsigned B, unsigned R>
void buildNormFused(ModuleBuilder &mb) {
  static_assert(V > 1, "the fused kernel moves 16-byte chunks");
  using Row = RegisterRow<T, V, R, B>;
  constexpr unsigned Slots = Row::kSlots;
  constexpr bool InShared = R > kNormFusedChunks;
  // Accumulators carried in registers: every slot's, or the tail's.
  constexpr unsigned Held = InShared ? 1 : Slots;
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
        // f32 rows: 24 warps an SM (ptxas: 80 registers at 128 and 256
        // threads, no spills; left to itself it spills at 256). 16-bit
        // rows hold twice the elements a thread: ptxas's own choice.
        if constexpr (std::is_same_v<T, float> && 768 / B > 1)
          k.setMinBlocksPerSM(int32_t(768 / B));
        U32 tid = k.threadId();
        U32 split = k.blockId();
        U32 first = split * perSplit;
        U32 last = min(first + perSplit, rows);
        // The weight (1 without one; 0 outside the row, where dy is 0).
        Row w(k, tid, n, 1.0f);
        w.update(t.weight, &hasWeight,
                 [](const F32 &, const F32 &in) { return in; });
        Row h(k, tid, n), d(k, tid, n);
        BlockPairSum<B> sums(k);
        F32 zero = k.constant(0.0f);
        F32 count = cast<float>(n);
        Shared<float> sharedAcc;
        auto sharedAt = [&](unsigned s, unsigned which) {
          return std::make_pair(U32(k.constant(which * V + s % V)),
                                tid + (s / V) * B);
        };
        if constexpr (InShared) {
          sharedAcc = k.shared<float>({int64_t(2 * V), int64_t(R * B)});
          for (unsigned s = 0; s < Row::kTail; ++s)
            for (unsigned which : {0u, 1u}) {
              auto [i, j] = sharedAt(s, which);
              sharedAcc.store({i, j}, zero);
            }
        }
        // dw (which 0) and db (1) of slot s.
        auto get = [&](const std::array<F32, 2 * Held> &a, unsigned s,
                       unsigned which) -> F32 {
          if (InShared && s < Row::kTail) {
            auto [i, j] = sharedAt(s, which);
            return sharedAcc.load({i, j});
          }
          return a[which * Held + (InShared ? 0 : s)];
        };
        auto set = [&](std::array<F32, 2 * Held> &a, unsigned s,
                       unsigned which, const F32 &v) {
          if (InShared && s < Row::kTail) {
            auto [i, j] = sharedAt(s, which);
            sharedAcc.store({i, j}, v);
          } else {
            a[which * Held + (InShared ? 0 : s)] = v;
          }
        };
        std::array<F32, 2 * Held> init;
        init.fill(zero);
        std::array<F32, 2 * Held> acc = k.for_(
            first, last, 1u, init, [&](U32 r, std::array<F32, 2 * Held> a) {
              U64 row = cast<uint64_t>(r);
              // Read before the barrier, written after it: dx may be dy.
              h.load(rowOf(t.x, row, ldx));
              d.load(rowOf(t.dy, row, lddy));
              F32 rs = t.rstd.load(r);
              F32 mu = zero;
              if constexpr (Layer)
                mu = t.mean.load(r);
              // sum(g) (LayerNorm) and sum(g * xhat), g = dy * weight,
              // xhat = (x - mean) rstd (slots outside the row add 0).
              auto xhat = [&](unsigned s) { return (h.at(s) - mu) * rs; };
              auto [sg, sgx] = d.fold(
                  std::make_tuple(zero, zero), [&](Pair st, unsigned s) {
                    auto [a0, a1] = st;
                    F32 g = d.at(s) * w.at(s);
                    return std::make_tuple(a0 + g, fma(g, xhat(s), a1));
                  });
              auto [tg, tgx] = sums(tid, r & 1u, sg, sgx);
              F32 meanG = Layer ? tg / count : zero;
              F32 meanGx = tgx / count;
              h.store(rowOf(t.dx, row, lddx),
                      [&](auto width, const U32 &, const Pred &,
                          unsigned slot) {
                        constexpr unsigned W = decltype(width)::value;
                        Chunk<W> out;
                        for (unsigned e = 0; e < W; ++e) {
                          unsigned s = slot + e;
                          out[e] = rs * (d.at(s) * w.at(s) - meanG -
                                         xhat(s) * meanGx);
                        }
                        return out;
                      });
              // dw += dy * xhat, db += dy (0 outside the row).
              for (unsigned s = 0; s < Slots; ++s) {
                set(a, s, 0, fma(d.at(s), xhat(s), get(a, s, 0)));
                set(a, s, 1, get(a, s, 1) + d.at(s));
              }
              return a;
            });
        // The slice's partials: dw at [split][0][c], db at [split][1][c].
        auto dwRow = partial + cast<uint64_t>(split) * cast<uint64_t>(n) * 2u;
        auto dbRow = dwRow + cast<uint64_t>(n);
        for (unsigned s = 0; s < Slots; ++s) {
          dwRow.store(h.col(s), get(acc, s, 0), h.valid(s));
          dbRow.store(h.col(s), get(acc, s, 1), h.valid(s));
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

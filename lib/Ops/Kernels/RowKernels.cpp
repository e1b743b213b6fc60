//===- RowKernels.cpp - softmax and norms over rows, with the builder -----===//
//
// One block of kRowBlock threads per row. A row is walked in chunks: with
// vector width V, thread t handles elements [c*V, c*V + V) for chunks
// c = t, t + blockDim, ... (one 16-byte access per operand), then the tail
// past the last whole chunk element by element. Every kernel reads the row
// twice (the second read is the block's own recent data, from L1/L2) and
// writes it once; statistics are accumulated in f32 whatever the element
// type, and reduced across the block with kaio.block_reduce.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

/// out = softmax(scale * x) or log_softmax(scale * x) along each row, with
/// an online max/sum (one read for the statistics, one for the output).
/// A row whose every element is -inf gives 0 (softmax) and -inf
/// (log-softmax) instead of NaN; NaN and +inf give NaN, as in PyTorch.
/// With mask_period p != 0, row r keeps columns up to (r % p) + mask_offset
/// and the rest count as -inf (a causal mask over rows of p queries).
/// Warp: a warp per row (kRowsPerWarpBlock rows a block, for short rows);
/// otherwise a block per row.
template <class T, unsigned V, bool Log, bool Warp>
void buildSoftmax(ModuleBuilder &mb) {
  std::string base = std::string(Log ? "log_softmax" : "softmax") +
                     (Warp ? "_warp" : "");
  mb.kernel(
      kernelName<T, V>(base.c_str()), {int32_t(kRowBlock)},
      [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto out = k.param<Ptr<T>>("out");
        auto rows = k.param<uint32_t>("rows");
        auto n = k.param<uint32_t>("n");
        auto ldx = k.param<uint32_t>("ld_x");
        auto ldout = k.param<uint32_t>("ld_out");
        auto scale = k.param<float>("scale");
        auto period = k.param<uint32_t>("mask_period");
        auto maskOffset = k.param<int32_t>("mask_offset");
        U32 tid = k.threadId(), stride = k.blockDim();
        U32 row32 = k.blockId();
        if constexpr (Warp) {
          row32 = k.blockId() * kRowsPerWarpBlock + tid / 32u;
          tid = tid % 32u;
          stride = k.constant(32u);
        }
        // Warp-uniform (a whole warp's row is in or out); always true for
        // the block kernels, whose grid is the rows.
        k.if_(row32 < rows, [&] {
          U64 row = cast<uint64_t>(row32);
          auto xr = rowOf(x, row, ldx);
          auto outr = rowOf(out, row, ldout);
          I32 limit = select(
              period == 0u, k.constant(int32_t(0x7fffffff)),
              (row32 % max(period, 1u)).template as<int32_t>() + maskOffset);
          RowLse lse =
              rowLogSumExp<V, Warp>(k, tid, stride, n, xr, scale, &limit);
          F32 off = lse.offset, sum = lse.sum;
          Pred some = sum > 0.0f;
          F32 inv = select(some, 1.0f / sum, 0.0f);
          F32 logSum = select(some, log(select(some, sum, 1.0f)), 0.0f);
          rowFor<V>(k, tid, stride, n, [&](auto width, const U32 &i) {
            constexpr unsigned W = decltype(width)::value;
            Chunk<W> v = loadChunk<W>(xr, i);
            for (unsigned j = 0; j < W; ++j) {
              F32 shifted = scaledOrMasked(v[j], scale, i + j, &limit) - off;
              v[j] = Log ? shifted - logSum : exp(shifted) * inv;
            }
            storeChunk<W>(outr, i, v);
          });
        });
      });
}

/// RMSNorm (Layer = false): out = h * rstd * weight, rstd = 1 / sqrt(mean(h²)
/// + eps); LayerNorm: out = (h - mean) * rstd * weight + bias, rstd = 1 /
/// sqrt(var(h) + eps). h is x, or with kNormResidual x + residual rounded to
/// T (also stored to sum_out, and read back from there by the second pass,
/// whose source `src` the host points at x or sum_out). The variance comes
/// from sums of h - h[0] (no cancellation for rows far from 0).
template <class T, unsigned V, bool Layer> void buildNorm(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(Layer ? "layer_norm" : "rms_norm"),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto residual = k.param<Ptr<const T>>("residual");
        auto weight = k.param<Ptr<const T>>("weight");
        auto bias = k.param<Ptr<const T>>("bias");
        auto out = k.param<Ptr<T>>("out");
        auto sumOut = k.param<Ptr<T>>("sum_out");
        auto src = k.param<Ptr<T>>("src");
        auto meanOut = k.param<Ptr<float>>("mean");
        auto rstdOut = k.param<Ptr<float>>("rstd");
        auto n = k.param<uint32_t>("n");
        auto ldx = k.param<uint32_t>("ld_x");
        auto ldres = k.param<uint32_t>("ld_residual");
        auto ldout = k.param<uint32_t>("ld_out");
        auto ldsum = k.param<uint32_t>("ld_sum");
        auto ldsrc = k.param<uint32_t>("ld_src");
        auto eps = k.param<float>("eps");
        auto flags = k.param<uint32_t>("flags");
        auto has = [&](NormFlags f) {
          return (flags & uint32_t(f)) != 0u;
        };
        Pred hasWeight = has(kNormWeight), hasBias = has(kNormBias),
             hasResidual = has(kNormResidual), hasMean = has(kNormMean),
             hasRstd = has(kNormRstd);
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(x, row, ldx);
        auto resr = rowOf(residual, row, ldres);
        auto sumr = rowOf(sumOut, row, ldsum);
        auto srcr = rowOf(src, row, ldsrc);
        auto outr = rowOf(out, row, ldout);
        F32 zero = k.constant(0.0f);
        // LayerNorm sums h - shift with shift = h[0].
        F32 shift = zero;
        if constexpr (Layer) {
          U32 first = k.constant(0u);
          shift = roundTo<T>(toF32(xr.load(first)) +
                             toF32(resr.load(first, hasResidual, 0.0f)));
        }
        auto [s1, s2] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(zero, zero),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, b] = state;
              Chunk<W> h = loadChunk<W>(xr, i);
              Chunk<W> r = loadChunkOr<W>(resr, i, hasResidual, 0.0f);
              for (unsigned j = 0; j < W; ++j)
                h[j] = roundTo<T>(h[j] + r[j]);
              storeChunk<W>(sumr, i, h, &hasResidual);
              for (unsigned j = 0; j < W; ++j) {
                if constexpr (Layer) {
                  F32 d = h[j] - shift;
                  a = a + d;
                  b = fma(d, d, b);
                } else {
                  b = fma(h[j], h[j], b);
                }
              }
              return std::make_tuple(a, b);
            });
        F32 count = cast<float>(n);
        F32 mean = zero, rstd;
        if constexpr (Layer) {
          F32 d = k.blockReduce(ReduceKind::sum, s1) / count;
          F32 var = max(k.blockReduce(ReduceKind::sum, s2) / count - d * d,
                        0.0f);
          mean = shift + d;
          rstd = rsqrt(var + eps);
        } else {
          rstd = rsqrt(k.blockReduce(ReduceKind::sum, s2) / count + eps);
        }
        Pred first = tid == 0u;
        k.if_(first && hasRstd, [&] { rstdOut.store(row, rstd); });
        if constexpr (Layer)
          k.if_(first && hasMean, [&] { meanOut.store(row, mean); });
        else
          (void)hasMean;
        rowFor<V>(k, tid, bdim, n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> h = loadChunk<W>(srcr, i);
          Chunk<W> w = loadChunkOr<W>(weight, i, hasWeight, 1.0f);
          Chunk<W> y;
          if constexpr (Layer) {
            Chunk<W> b = loadChunkOr<W>(bias, i, hasBias, 0.0f);
            for (unsigned j = 0; j < W; ++j)
              y[j] = fma((h[j] - mean) * rstd, w[j], b[j]);
          } else {
            (void)hasBias;
            (void)meanOut;
            for (unsigned j = 0; j < W; ++j)
              y[j] = h[j] * rstd * w[j];
          }
          storeChunk<W>(outr, i, y);
        });
      });
}

template <class T> void buildForType(ModuleBuilder &mb) {
  constexpr unsigned V = vectorWidth<T>();
  buildSoftmax<T, V, false, false>(mb);
  buildSoftmax<T, 1, false, false>(mb);
  buildSoftmax<T, V, true, false>(mb);
  buildSoftmax<T, 1, true, false>(mb);
  buildSoftmax<T, V, false, true>(mb);
  buildSoftmax<T, 1, false, true>(mb);
  buildSoftmax<T, V, true, true>(mb);
  buildSoftmax<T, 1, true, true>(mb);
  buildNorm<T, V, false>(mb);
  buildNorm<T, 1, false>(mb);
  buildNorm<T, V, true>(mb);
  buildNorm<T, 1, true>(mb);
}

} // namespace

void kaio::ops::kernels::buildRowKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

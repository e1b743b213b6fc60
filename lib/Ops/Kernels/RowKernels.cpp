//===- RowKernels.cpp - softmax and norms over rows, with the builder -----===//
//
// One block per row (kRowBlock threads; registerRowThreads(R) for the
// register-row kernels). A row is walked in chunks: with vector width V,
// thread t handles elements [c*V, c*V + V) for chunks c = t, t + blockDim,
// ... (one 16-byte access per operand), then the tail past the last whole
// chunk element by element. The walking kernels read the row twice (the
// second read is the block's own recent data, from L1/L2) and write it
// once; the register-row ones (`*_regs<R>_*`, rows of up to kRowBlock x R
// chunks) read it once. Statistics are accumulated in f32 whatever the
// element type, and reduced across the block with kaio.block_reduce
// (LayerNorm's two sums behind one barrier: BlockPairSum).
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

/// The softmax kernels' parameters (x, out, rows, n, ld_x, ld_out, scale,
/// mask_period, mask_offset).
template <class T> struct SoftmaxParams {
  Ptr<const T> x;
  Ptr<T> out;
  U32 rows, n, ldx, ldout;
  F32 scale;
  U32 period;
  I32 maskOffset;

  explicit SoftmaxParams(KernelBuilder &k)
      : x(k.param<Ptr<const T>>("x")), out(k.param<Ptr<T>>("out")),
        rows(k.param<uint32_t>("rows")), n(k.param<uint32_t>("n")),
        ldx(k.param<uint32_t>("ld_x")), ldout(k.param<uint32_t>("ld_out")),
        scale(k.param<float>("scale")),
        period(k.param<uint32_t>("mask_period")),
        maskOffset(k.param<int32_t>("mask_offset")) {}

  /// The last column row `row32` keeps (all of them without a mask).
  I32 limit(KernelBuilder &k, const U32 &row32) const {
    return select(period == 0u, k.constant(int32_t(0x7fffffff)),
                  (row32 % max(period, 1u)).template as<int32_t>() +
                      maskOffset);
  }
};

/// softmax(shifted) = exp(shifted) / sum or log_softmax = shifted - log(sum)
/// of one element, shifted = scale * x - offset; a row whose every element
/// is masked (sum 0) gives 0 and -inf.
template <bool Log> struct SoftmaxOut {
  F32 inv, logSum;
  explicit SoftmaxOut(const F32 &sum) {
    Pred some = sum > 0.0f;
    inv = select(some, 1.0f / sum, 0.0f);
    logSum = select(some, log(select(some, sum, 1.0f)), 0.0f);
  }
  F32 operator()(const F32 &shifted) const {
    return Log ? shifted - logSum : exp(shifted) * inv;
  }
};

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
        SoftmaxParams<T> p(k);
        U32 tid = k.threadId(), stride = k.blockDim();
        U32 row32 = k.blockId();
        if constexpr (Warp) {
          row32 = k.blockId() * kRowsPerWarpBlock + tid / 32u;
          tid = tid % 32u;
          stride = k.constant(32u);
        }
        // Warp-uniform (a whole warp's row is in or out); always true for
        // the block kernels, whose grid is the rows.
        k.if_(row32 < p.rows, [&] {
          U64 row = cast<uint64_t>(row32);
          auto xr = rowOf(p.x, row, p.ldx);
          auto outr = rowOf(p.out, row, p.ldout);
          I32 limit = p.limit(k, row32);
          RowLse lse =
              rowLogSumExp<V, Warp>(k, tid, stride, p.n, xr, p.scale, &limit);
          F32 off = lse.offset;
          SoftmaxOut<Log> result(lse.sum);
          rowFor<V>(k, tid, stride, p.n, [&](auto width, const U32 &i) {
            constexpr unsigned W = decltype(width)::value;
            Chunk<W> v = loadChunk<W>(xr, i);
            for (unsigned j = 0; j < W; ++j)
              v[j] = result(scaledOrMasked(v[j], p.scale, i + j, &limit) - off);
            storeChunk<W>(outr, i, v);
          });
        });
      });
}

/// Rows of up to kRowBlock x R x V elements held in registers
/// (softmax_regs<R>_*, log_softmax_regs<R>_*; 16-byte accesses), R 16-byte
/// chunks a thread (registerRowChunks picks the fewest that hold the row:
/// fewer registers, more blocks an SM): one read of the row, the maximum
/// and then the sum from the registers, the results written from them.
/// Slots outside the row or past the causal mask are set once, as they
/// are read, to a value whose scale * x is -inf (-inf for a positive
/// scale, +inf for a negative one; the host runs a zero scale on the
/// walking kernel), so the passes select nothing. The exponentials are
/// ex2.approx.ftz of (scale x - max) log2(e) (fastExp2; the difference
/// first, so that no product overflows where scale x does not): an element
/// costs a multiply and a max, an fma, a multiply, ex2 and an add, then the
/// same and a multiply (log-softmax: (scale x - max) - log(sum), an fma and
/// a subtraction).
/// Same parameters and results as buildSoftmax's.
template <class T, unsigned V, bool Log, unsigned R>
void buildSoftmaxRegs(ModuleBuilder &mb) {
  constexpr unsigned Threads = registerRowThreads(R);
  std::string base = std::string(Log ? "log_softmax" : "softmax") + "_regs" +
                     std::to_string(R);
  mb.kernel(
      kernelName<T, V>(base.c_str()), {int32_t(Threads)},
      [](KernelBuilder &k) {
        SoftmaxParams<T> p(k);
        U32 tid = k.threadId(), row32 = k.blockId();
        U64 row = cast<uint64_t>(row32);
        const float inf = INFINITY;
        Val<T> masked = fromF32<T>(
            select(p.scale < 0.0f, k.constant(inf), k.constant(-inf)));
        RegisterRow<T, V, R * kRowBlock / Threads, Threads> x(k, tid, p.n);
        x.loadOr(rowOf(p.x, row, p.ldx), masked);
        x.maskPast(p.limit(k, row32), masked);
        F32 rowMax = k.blockReduce(
            ReduceKind::max,
            x.fold(k.constant(-inf), [&](F32 m, unsigned i) {
              return max(m, x.at(i) * p.scale);
            }));
        F32 off = select(rowMax == -inf, k.constant(0.0f), rowMax);
        auto e = [&](const F32 &v) {
          return fastExp2(fma(v, p.scale, -off) * float(M_LOG2E));
        };
        F32 sum = k.blockReduce(
            ReduceKind::sum,
            x.fold(k.constant(0.0f),
                   [&](F32 s, unsigned i) { return s + e(x.at(i)); }));
        SoftmaxOut<Log> result(sum);
        x.store(rowOf(p.out, row, p.ldout),
                [&](auto width, const U32 &, const Pred &, unsigned slot) {
                  constexpr unsigned W = decltype(width)::value;
                  Chunk<W> y;
                  for (unsigned j = 0; j < W; ++j) {
                    const F32 v = x.at(slot + j);
                    y[j] = Log ? fma(v, p.scale, -off) - result.logSum
                               : e(v) * result.inv;
                  }
                  return y;
                });
      });
}

/// The norm kernels' parameters (x, residual, weight, bias, out, sum_out,
/// src, mean, rstd, n, ld_x, ld_residual, ld_out, ld_sum, ld_src, eps,
/// flags).
template <class T> struct NormParams {
  Ptr<const T> x, residual, weight, bias;
  Ptr<T> out, sumOut, src;
  Ptr<float> meanOut, rstdOut;
  U32 n, ldx, ldres, ldout, ldsum, ldsrc;
  F32 eps;
  Pred hasWeight, hasBias, hasResidual, hasMean, hasRstd;

  explicit NormParams(KernelBuilder &k)
      : x(k.param<Ptr<const T>>("x")),
        residual(k.param<Ptr<const T>>("residual")),
        weight(k.param<Ptr<const T>>("weight")),
        bias(k.param<Ptr<const T>>("bias")), out(k.param<Ptr<T>>("out")),
        sumOut(k.param<Ptr<T>>("sum_out")), src(k.param<Ptr<T>>("src")),
        meanOut(k.param<Ptr<float>>("mean")),
        rstdOut(k.param<Ptr<float>>("rstd")), n(k.param<uint32_t>("n")),
        ldx(k.param<uint32_t>("ld_x")),
        ldres(k.param<uint32_t>("ld_residual")),
        ldout(k.param<uint32_t>("ld_out")), ldsum(k.param<uint32_t>("ld_sum")),
        ldsrc(k.param<uint32_t>("ld_src")), eps(k.param<float>("eps")) {
    U32 flags = k.param<uint32_t>("flags");
    auto has = [&](NormFlags f) { return (flags & uint32_t(f)) != 0u; };
    hasWeight = has(kNormWeight);
    hasBias = has(kNormBias);
    hasResidual = has(kNormResidual);
    hasMean = has(kNormMean);
    hasRstd = has(kNormRstd);
  }
};

/// The row's statistics from the block's partial sums: s1 = sum of h -
/// shift and s2 = sum of (h - shift)^2 (LayerNorm), or s2 = sum of h^2
/// (RMSNorm). Thread 0 stores mean and rstd where asked. Returns {mean (0
/// for RMSNorm), rstd}.
template <class T, bool Layer, unsigned Threads = kRowBlock>
std::pair<F32, F32> normStats(KernelBuilder &k, const NormParams<T> &p,
                              const U64 &row, const U32 &tid, const F32 &shift,
                              const F32 &s1, const F32 &s2) {
  F32 count = cast<float>(p.n);
  F32 mean = k.constant(0.0f), rstd;
  if constexpr (Layer) {
    auto [t1, t2] = BlockPairSum<Threads>(k)(tid, k.constant(0u), s1, s2);
    F32 d = t1 / count;
    F32 var = max(t2 / count - d * d, 0.0f);
    mean = shift + d;
    rstd = rsqrt(var + p.eps);
  } else {
    (void)shift;
    (void)s1;
    rstd = rsqrt(k.blockReduce(ReduceKind::sum, s2) / count + p.eps);
  }
  Pred first = tid == 0u;
  k.if_(first && p.hasRstd, [&] { p.rstdOut.store(row, rstd); });
  if constexpr (Layer)
    k.if_(first && p.hasMean, [&] { p.meanOut.store(row, mean); });
  return {mean, rstd};
}

/// LayerNorm's shift, h[0] (x[0] + residual[0] rounded to T); 0 for
/// RMSNorm.
template <class T, bool Layer>
F32 normShift(KernelBuilder &k, const NormParams<T> &p,
              const Ptr<const T> &xr, const Ptr<const T> &resr) {
  if constexpr (!Layer)
    return k.constant(0.0f);
  U32 first = k.constant(0u);
  return roundTo<T>(toF32(xr.load(first)) +
                    toF32(resr.load(first, p.hasResidual, 0.0f)));
}

/// (h - mean) * rstd * w + b (LayerNorm) or h * rstd * w (RMSNorm).
template <bool Layer>
F32 normalize(const F32 &h, const F32 &mean, const F32 &rstd, const F32 &w,
              const F32 &b) {
  if constexpr (Layer)
    return fma((h - mean) * rstd, w, b);
  else
    return h * rstd * w;
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
        NormParams<T> p(k);
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(p.x, row, p.ldx);
        auto resr = rowOf(p.residual, row, p.ldres);
        auto sumr = rowOf(p.sumOut, row, p.ldsum);
        auto srcr = rowOf(p.src, row, p.ldsrc);
        auto outr = rowOf(p.out, row, p.ldout);
        F32 zero = k.constant(0.0f);
        // LayerNorm sums h - shift with shift = h[0]. Every thread reads it
        // before any writes sum_out, which may be x or residual (in place).
        F32 shift = normShift<T, Layer>(k, p, xr, resr);
        if constexpr (Layer)
          k.barrier();
        auto [s1, s2] = rowFold<V>(
            k, tid, bdim, p.n, std::make_tuple(zero, zero),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, b] = state;
              Chunk<W> h = loadChunk<W>(xr, i);
              Chunk<W> r = loadChunkOr<W>(resr, i, p.hasResidual, 0.0f);
              for (unsigned j = 0; j < W; ++j)
                h[j] = roundTo<T>(h[j] + r[j]);
              storeChunk<W>(sumr, i, h, &p.hasResidual);
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
        auto [mean, rstd] = normStats<T, Layer>(k, p, row, tid, shift, s1, s2);
        rowFor<V>(k, tid, bdim, p.n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> h = loadChunk<W>(srcr, i);
          Chunk<W> w = loadChunkOr<W>(p.weight, i, p.hasWeight, 1.0f);
          Chunk<W> b = Layer ? loadChunkOr<W>(p.bias, i, p.hasBias, 0.0f)
                             : Chunk<W>{};
          Chunk<W> y;
          for (unsigned j = 0; j < W; ++j)
            y[j] = normalize<Layer>(h[j], mean, rstd, w[j], b[j]);
          storeChunk<W>(outr, i, y);
        });
      });
}

/// The norms on rows of up to registerRowMaxCols elements held in
/// registers (rms_norm_regs<R>_*, layer_norm_regs<R>_*; 16-byte accesses):
/// x and residual read once, h = x + residual kept (and stored to sum_out),
/// the statistics and the output from the registers; `src` is not read. Same
/// parameters and results as buildNorm's.
template <class T, unsigned V, bool Layer, unsigned R>
void buildNormRegs(ModuleBuilder &mb) {
  constexpr unsigned Threads = registerRowThreads(R);
  std::string base =
      std::string(Layer ? "layer_norm_regs" : "rms_norm_regs") +
      std::to_string(R);
  mb.kernel(
      kernelName<T, V>(base.c_str()), {int32_t(Threads)},
      [](KernelBuilder &k) {
        NormParams<T> p(k);
        U32 tid = k.threadId();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(p.x, row, p.ldx);
        auto resr = rowOf(p.residual, row, p.ldres);
        // Slots outside the row hold the shift (LayerNorm: h[0], whose
        // h - shift is 0) or 0 (RMSNorm): the sums take them as they are.
        F32 shift = normShift<T, Layer>(k, p, xr, resr);
        F32 zero = k.constant(0.0f);
        RegisterRow<T, V, R * kRowBlock / Threads, Threads> h(k, tid, p.n);
        h.loadOr(xr, fromF32<T>(shift));
        h.update(resr, &p.hasResidual,
                 [](const F32 &x, const F32 &r) { return x + r; });
        auto held = [&](auto width, const U32 &, const Pred &, unsigned slot) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> c;
          for (unsigned j = 0; j < W; ++j)
            c[j] = h.at(slot + j);
          return c;
        };
        auto [s1, s2] = h.fold(std::make_tuple(zero, zero),
                               [&](std::tuple<F32, F32> s, unsigned i) {
                                 auto [a, b] = s;
                                 if constexpr (!Layer)
                                   return std::make_tuple(
                                       a, fma(h.at(i), h.at(i), b));
                                 F32 d = h.at(i) - shift;
                                 return std::make_tuple(a + d, fma(d, d, b));
                               });
        auto [mean, rstd] =
            normStats<T, Layer, Threads>(k, p, row, tid, shift, s1, s2);
        // sum_out may be x or residual (in place): written only once every
        // thread has read them (the shift included), past the reductions'
        // barriers.
        h.store(rowOf(p.sumOut, row, p.ldsum), held, &p.hasResidual);
        // The output: with every affine operand present (the common
        // case), whole chunks read weight and bias unmasked (no select per
        // element); otherwise absent ones read as 1 and 0.
        auto output = [&](bool affine) {
          h.store(rowOf(p.out, row, p.ldout), [&](auto width, const U32 &col,
                                                  const Pred &valid,
                                                  unsigned slot) {
            constexpr unsigned W = decltype(width)::value;
            Chunk<W> w, b{};
            if (affine && W > 1) {
              w = loadChunk<W>(p.weight, col);
              if constexpr (Layer)
                b = loadChunk<W>(p.bias, col);
            } else {
              w = loadChunkOr<W>(p.weight, col, valid && p.hasWeight, 1.0f);
              if constexpr (Layer)
                b = loadChunkOr<W>(p.bias, col, valid && p.hasBias, 0.0f);
            }
            Chunk<W> y;
            for (unsigned j = 0; j < W; ++j)
              y[j] = normalize<Layer>(h.at(slot + j), mean, rstd, w[j], b[j]);
            return y;
          });
        };
        Pred affine = Layer ? p.hasWeight && p.hasBias : p.hasWeight;
        k.if_(affine, [&] { output(true); }, [&] { output(false); });
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
  forEachRegisterRowChunks([&](auto chunks) {
    constexpr unsigned R = decltype(chunks)::value;
    buildSoftmaxRegs<T, V, false, R>(mb);
    buildSoftmaxRegs<T, V, true, R>(mb);
    buildNormRegs<T, V, false, R>(mb);
    buildNormRegs<T, V, true, R>(mb);
  });
}

} // namespace

void kaio::ops::kernels::buildRowKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

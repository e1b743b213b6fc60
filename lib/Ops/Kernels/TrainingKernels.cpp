//===- TrainingKernels.cpp - softmax backward, cross-entropy, reductions --===//
//
// Row kernels in the style of RowKernels.cpp (a block per row, 16-byte
// chunks then the ragged tail, f32 statistics reduced across the block in a
// fixed order, hence bitwise reproducible run to run).
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

/// The softmax backward kernels' parameters (y, dy, dx, n, ld_y, ld_dy,
/// ld_dx, scale) and this block's rows of them.
template <class T> struct SoftmaxBwdRows {
  Ptr<const T> y, dy;
  Ptr<T> dx;
  U32 n;
  F32 scale;

  explicit SoftmaxBwdRows(KernelBuilder &k) {
    auto yp = k.param<Ptr<const T>>("y");
    auto dyp = k.param<Ptr<const T>>("dy");
    auto dxp = k.param<Ptr<T>>("dx");
    n = k.param<uint32_t>("n");
    U32 ldy = k.param<uint32_t>("ld_y");
    U32 lddy = k.param<uint32_t>("ld_dy");
    U32 lddx = k.param<uint32_t>("ld_dx");
    scale = k.param<float>("scale");
    U64 row = cast<uint64_t>(k.blockId());
    y = rowOf(yp, row, ldy);
    dy = rowOf(dyp, row, lddy);
    dx = rowOf(dxp, row, lddx);
  }
};

template <class T, unsigned V, bool Log>
void buildSoftmaxBackward(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(Log ? "log_softmax_bwd" : "softmax_bwd"),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        SoftmaxBwdRows<T> p(k);
        U32 tid = k.threadId(), bdim = k.blockDim();
        U32 n = p.n;
        F32 scale = p.scale;
        auto yr = p.y, dyr = p.dy;
        auto dxr = p.dx;
        F32 zero = k.constant(0.0f);
        // softmax: sum(dy * y); log-softmax: sum(dy).
        auto [dot, unused] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(zero, zero),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [acc, other] = state;
              Chunk<W> g = loadChunk<W>(dyr, i);
              Chunk<W> p;
              if constexpr (!Log)
                p = loadChunk<W>(yr, i);
              for (unsigned j = 0; j < W; ++j)
                acc = Log ? acc + g[j] : fma(g[j], p[j], acc);
              return std::make_tuple(acc, other);
            });
        (void)unused;
        F32 total = k.blockReduce(ReduceKind::sum, dot);
        rowFor<V>(k, tid, bdim, n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> p = loadChunk<W>(yr, i);
          Chunk<W> g = loadChunk<W>(dyr, i);
          for (unsigned j = 0; j < W; ++j)
            p[j] = Log ? scale * (g[j] - exp(p[j]) * total)
                       : scale * p[j] * (g[j] - total);
          storeChunk<W>(dxr, i, p);
        });
      });
}

/// The same on rows of up to kSoftmaxBwdRegisterRowMaxCols elements with
/// y and dy held in registers, R 16-byte chunks of each a thread
/// (softmax_bwd_regs<R>_*; the host takes the fewest that hold the row):
/// each read once (the walking kernel reads them twice). Same parameters.
template <class T, unsigned V, bool Log, unsigned R>
void buildSoftmaxBackwardRegs(ModuleBuilder &mb) {
  constexpr unsigned Threads = registerRowThreads(R);
  std::string base = std::string(Log ? "log_softmax_bwd_regs"
                                     : "softmax_bwd_regs") +
                     std::to_string(R);
  mb.kernel(
      kernelName<T, V>(base.c_str()),
      {int32_t(Threads)}, [](KernelBuilder &k) {
        SoftmaxBwdRows<T> rows(k);
        F32 scale = rows.scale;
        U32 tid = k.threadId();
        using Row = RegisterRow<T, V, R * kRowBlock / Threads, Threads>;
        Row p(k, tid, rows.n), g(k, tid, rows.n);
        p.load(rows.y);
        g.load(rows.dy);
        // softmax: sum(dy * y); log-softmax: sum(dy). The slots past the
        // row hold 0.
        F32 dot = g.fold(k.constant(0.0f), [&](F32 acc, unsigned i) {
          return Log ? acc + g.at(i) : fma(g.at(i), p.at(i), acc);
        });
        F32 total = k.blockReduce(ReduceKind::sum, dot);
        p.store(rows.dx,
                [&](auto width, const U32 &, const Pred &, unsigned slot) {
                  constexpr unsigned W = decltype(width)::value;
                  Chunk<W> out;
                  for (unsigned j = 0; j < W; ++j) {
                    F32 pv = p.at(slot + j), gv = g.at(slot + j);
                    out[j] = Log ? scale * (gv - exp(pv) * total)
                                 : scale * pv * (gv - total);
                  }
                  return out;
                });
      });
}

/// The kernels' base name for class indices of type I: "cross_entropy" for
/// int32, "cross_entropy_t64" for int64 (torch's default).
template <class I> std::string targetsName(const char *base) {
  return std::is_same_v<I, int64_t> ? std::string(base) + "_t64"
                                    : std::string(base);
}

/// A class index in 64 bits.
template <class I> I64 toIndex64(const Val<I> &t) {
  if constexpr (std::is_same_v<I, int64_t>)
    return t;
  else
    return cast<int64_t>(t);
}

template <class T, unsigned V, class I = int32_t>
void buildCrossEntropy(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(targetsName<I>("cross_entropy").c_str()),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        auto logits = k.param<Ptr<const T>>("logits");
        auto targets = k.param<Ptr<const I>>("targets");
        auto loss = k.param<Ptr<float>>("loss");
        auto lseOut = k.param<Ptr<float>>("lse");
        auto n = k.param<uint32_t>("n");
        auto ld = k.param<uint32_t>("ld");
        auto ignore = k.param<int32_t>("ignore_index");
        auto flags = k.param<uint32_t>("flags");
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(logits, row, ld);
        RowLse st = rowLogSumExp<V>(k, tid, bdim, n, xr, k.constant(1.0f));
        F32 lse = st.offset + log(st.sum);
        k.if_(tid == 0u, [&] {
          // In 64 bits either way: an int64 index beyond 2^32 is out of
          // range, not wrapped into it.
          I64 t = toIndex64(targets.load(row));
          Pred inRange = (t >= int64_t(0)) && (t < cast<int64_t>(n));
          F32 picked = toF32(
              xr.load(cast<uint32_t>(t), inRange, 0.0f));
          F32 l = select(inRange, lse - picked, k.constant(NAN));
          loss.store(row, select(t == cast<int64_t>(ignore),
                                 k.constant(0.0f), l));
          k.if_((flags & uint32_t(kCrossEntropyLse)) != 0u,
                [&] { lseOut.store(row, lse); });
        });
      });
}

template <class T, unsigned V, class I = int32_t>
void buildCrossEntropyBackward(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(targetsName<I>("cross_entropy_bwd").c_str()),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        auto logits = k.param<Ptr<const T>>("logits");
        auto targets = k.param<Ptr<const I>>("targets");
        auto lse = k.param<Ptr<const float>>("lse");
        auto dloss = k.param<Ptr<const float>>("dloss");
        auto dx = k.param<Ptr<T>>("dx");
        auto n = k.param<uint32_t>("n");
        auto ld = k.param<uint32_t>("ld");
        auto lddx = k.param<uint32_t>("ld_dx");
        auto ignore = k.param<int32_t>("ignore_index");
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(logits, row, ld);
        auto dxr = rowOf(dx, row, lddx);
        I64 t = toIndex64(targets.load(row));
        F32 l = lse.load(row);
        // An ignored row has no gradient.
        F32 g = select(t == cast<int64_t>(ignore), k.constant(0.0f),
                       dloss.load(row));
        rowFor<V>(k, tid, bdim, n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> v = loadChunk<W>(xr, i);
          for (unsigned j = 0; j < W; ++j) {
            Pred hit = cast<int64_t>(i + j) == t;
            F32 onehot = select(hit, k.constant(1.0f), 0.0f);
            v[j] = g * (exp(v[j] - l) - onehot);
          }
          storeChunk<W>(dxr, i, v);
        });
      });
}

template <class T, unsigned V>
void buildReduce(ModuleBuilder &mb, RowReduction kind) {
  std::string base = std::string("reduce_") + getRowReductionName(kind);
  mb.kernel(
      kernelName<T, V>(base.c_str()), {int32_t(kRowBlock)},
      [kind](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto out = k.param<Ptr<float>>("out");
        auto n = k.param<uint32_t>("n");
        auto ld = k.param<uint32_t>("ld");
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(x, row, ld);
        float identity = kind == RowReduction::Sum   ? 0.0f
                         : kind == RowReduction::Max ? -INFINITY
                                                     : INFINITY;
        F32 init = k.constant(identity);
        // The second accumulator counts NaNs: max and min propagate them
        // (as torch.amax does), where max/minnum would drop them.
        auto [acc, nans] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(init, k.constant(0.0f)),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, bad] = state;
              Chunk<W> v = loadChunk<W>(xr, i);
              for (unsigned j = 0; j < W; ++j) {
                a = kind == RowReduction::Sum   ? a + v[j]
                    : kind == RowReduction::Max ? max(a, v[j])
                                                : min(a, v[j]);
                if (kind != RowReduction::Sum)
                  bad = bad + select(v[j] != v[j], k.constant(1.0f), 0.0f);
              }
              return std::make_tuple(a, bad);
            });
        ReduceKind rk = kind == RowReduction::Sum   ? ReduceKind::sum
                        : kind == RowReduction::Max ? ReduceKind::max
                                                    : ReduceKind::min;
        F32 total = k.blockReduce(rk, acc);
        if (kind != RowReduction::Sum)
          total = select(k.blockReduce(ReduceKind::sum, nans) > 0.0f,
                         k.constant(NAN), total);
        k.if_(tid == 0u, [&] { out.store(row, total); });
      });
}

/// The first index of the row's maximum: the block's maximum (NaN wins),
/// then the smallest index holding it.
template <class T, unsigned V> void buildArgmax(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>("argmax"), {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto out = k.param<Ptr<int32_t>>("out");
        auto n = k.param<uint32_t>("n");
        auto ld = k.param<uint32_t>("ld");
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(x, row, ld);
        F32 ninf = k.constant(-INFINITY);
        // The maximum, and a count of NaNs (max ignores them).
        auto [m, nans] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(ninf, k.constant(0.0f)),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, bad] = state;
              Chunk<W> v = loadChunk<W>(xr, i);
              for (unsigned j = 0; j < W; ++j) {
                a = max(a, v[j]);
                bad = bad + select(v[j] != v[j], k.constant(1.0f), 0.0f);
              }
              return std::make_tuple(a, bad);
            });
        F32 best = k.blockReduce(ReduceKind::max, m);
        Pred bestIsNaN = k.blockReduce(ReduceKind::sum, nans) > 0.0f;
        // The smallest index holding it; indices as f32 are exact below
        // 2^24, which the host checks.
        F32 none = k.constant(float(1 << 25));
        auto [first, unused2] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(none, none),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, other] = state;
              Chunk<W> v = loadChunk<W>(xr, i);
              for (unsigned j = 0; j < W; ++j) {
                Pred isNaN = v[j] != v[j];
                Pred match = select(bestIsNaN, isNaN, v[j] == best);
                a = select(match, min(a, cast<float>(i + j)), a);
              }
              return std::make_tuple(a, other);
            });
        (void)unused2;
        F32 index = k.blockReduce(ReduceKind::min, first);
        k.if_(tid == 0u,
              [&] { out.store(row, cast<int32_t>(index)); });
      });
}

template <class T> void buildForType(ModuleBuilder &mb) {
  constexpr unsigned V = vectorWidth<T>();
  buildSoftmaxBackward<T, V, false>(mb);
  buildSoftmaxBackward<T, 1, false>(mb);
  buildSoftmaxBackward<T, V, true>(mb);
  buildSoftmaxBackward<T, 1, true>(mb);
  forEachRegisterRowChunks([&](auto chunks) {
    constexpr unsigned R = decltype(chunks)::value;
    if constexpr (R * kRowBlock * V <= kSoftmaxBwdRegisterRowMaxCols) {
      buildSoftmaxBackwardRegs<T, V, false, R>(mb);
      buildSoftmaxBackwardRegs<T, V, true, R>(mb);
    }
  });
  buildCrossEntropy<T, V>(mb);
  buildCrossEntropy<T, 1>(mb);
  buildCrossEntropyBackward<T, V>(mb);
  buildCrossEntropyBackward<T, 1>(mb);
  buildCrossEntropy<T, V, int64_t>(mb);
  buildCrossEntropy<T, 1, int64_t>(mb);
  buildCrossEntropyBackward<T, V, int64_t>(mb);
  buildCrossEntropyBackward<T, 1, int64_t>(mb);
  for (RowReduction r :
       {RowReduction::Sum, RowReduction::Max, RowReduction::Min}) {
    buildReduce<T, V>(mb, r);
    buildReduce<T, 1>(mb, r);
  }
  buildArgmax<T, V>(mb);
  buildArgmax<T, 1>(mb);
}

/// argmaxAll's last step: the matrix's first maximum is in row
/// row_index[0] (the argmax of the rows' maxima) at column per_row[row].
void buildArgmaxAllFinish(ModuleBuilder &mb) {
  mb.kernel("argmax_all_finish", {32}, [](KernelBuilder &k) {
    auto rowIndex = k.param<Ptr<const int32_t>>("row_index");
    auto perRow = k.param<Ptr<const int32_t>>("per_row");
    auto out = k.param<Ptr<int32_t>>("out");
    auto cols = k.param<uint32_t>("cols");
    k.if_(k.threadId() == 0u, [&] {
      U32 row = cast<uint32_t>(rowIndex.load(0u));
      U32 col = cast<uint32_t>(perRow.load(row));
      out.store(0u, cast<int32_t>(row * cols + col));
    });
  });
  // The same index as s64, for matrices of 2^31 elements or more.
  mb.kernel("argmax_all_finish_s64", {32}, [](KernelBuilder &k) {
    auto rowIndex = k.param<Ptr<const int32_t>>("row_index");
    auto perRow = k.param<Ptr<const int32_t>>("per_row");
    auto out = k.param<Ptr<int64_t>>("out");
    auto cols = k.param<uint32_t>("cols");
    k.if_(k.threadId() == 0u, [&] {
      U64 row = cast<uint64_t>(cast<uint32_t>(rowIndex.load(0u)));
      U32 col = cast<uint32_t>(perRow.load(row));
      out.store(0u, cast<int64_t>(row * cast<uint64_t>(cols) +
                                  cast<uint64_t>(col)));
    });
  });
}

} // namespace

void kaio::ops::kernels::buildTrainingKernels(ModuleBuilder &mb) {
  buildArgmaxAllFinish(mb);
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

//===- KernelSupport.h - builder helpers the library's kernels share -----===//
//
// Element-type names, f32 conversions, 16-byte chunk loads and stores, and
// the walk of a row by a block (chunks, then the ragged tail), for kernels
// written with the C++ builder once for f32, f16 and bf16.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H
#define KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H

#include "Activation.h"
#include "OpsKernels.h"

#include "Kaio/Builder/Builder.h"

#include <array>
#include <cmath>
#include <tuple>
#include <string>
#include <type_traits>
#include <utility>

namespace kaio::ops::kernels::support {

using namespace kaio::builder;

template <class T> constexpr const char *typeName() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, f16>)
    return "f16";
  else
    return "bf16";
}

/// `base_type` or `base_type_vN`.
template <class T, unsigned V> std::string kernelName(const char *base) {
  std::string name = std::string(base) + "_" + typeName<T>();
  if (V > 1)
    name += "_v" + std::to_string(V);
  return name;
}

template <class T> F32 toF32(const Val<T> &v) {
  if constexpr (std::is_same_v<T, float>)
    return v;
  else
    return cast<float>(v);
}
template <class T> Val<T> fromF32(const F32 &v) {
  if constexpr (std::is_same_v<T, float>)
    return v;
  else
    return cast<T>(v);
}
/// v rounded to T and back: what storing v as a T and reading it gives.
template <class T> F32 roundTo(const F32 &v) { return toF32(fromF32<T>(v)); }

template <unsigned W> using Chunk = std::array<F32, W>;
template <unsigned W> using Width = std::integral_constant<unsigned, W>;

/// Elements i .. i+W-1 of a row, as f32 (one vector access when W > 1).
template <unsigned W, class T>
Chunk<W> loadChunk(const Ptr<T> &p, const U32 &i) {
  Chunk<W> out;
  if constexpr (W == 1) {
    out[0] = toF32(p.load(i));
  } else {
    auto v = p.template loadVector<W>(i);
    for (unsigned j = 0; j < W; ++j)
      out[j] = toF32(v[j]);
  }
  return out;
}
/// The same where `mask` holds, else `other` everywhere (nothing read).
template <unsigned W, class T>
Chunk<W> loadChunkOr(const Ptr<T> &p, const U32 &i, const Pred &mask,
                     float other) {
  Chunk<W> out;
  if constexpr (W == 1) {
    out[0] = toF32(p.load(i, mask, other));
  } else {
    auto v = p.template loadVector<W>(i, mask, other);
    for (unsigned j = 0; j < W; ++j)
      out[j] = toF32(v[j]);
  }
  return out;
}
/// Stores a chunk, converted to the pointer's element type.
template <unsigned W, class T>
void storeChunk(const Ptr<T> &p, const U32 &i, const Chunk<W> &values,
                const Pred *mask = nullptr) {
  std::array<Val<T>, W> v;
  for (unsigned j = 0; j < W; ++j)
    v[j] = fromF32<T>(values[j]);
  if constexpr (W == 1) {
    if (mask)
      p.store(i, v[0], *mask);
    else
      p.store(i, v[0]);
  } else {
    if (mask)
      p.template storeVector<W>(i, v, *mask);
    else
      p.template storeVector<W>(i, v);
  }
}

/// Elements i .. i+W-1 of a row of n elements: one vector access where
/// `whole` holds (the caller's promise: i + W <= n and the address is
/// aligned), else element by element, those below n; where `mask` fails or
/// past n, `other` (nothing read).
template <unsigned W, class T>
Chunk<W> loadEdgeChunkOr(KernelBuilder &k, const Ptr<T> &p, const U32 &i,
                         const U32 &n, const Pred &whole, const Pred &mask,
                         float other) {
  return k.if_(
      whole, [&] { return loadChunkOr<W>(p, i, mask, other); },
      [&] {
        Chunk<W> out;
        for (unsigned j = 0; j < W; ++j)
          out[j] = toF32(p.load(i + j, mask & (i + j < n), other));
        return out;
      });
}
/// Stores a chunk of a row of n elements: one vector access where `whole`
/// holds, else element by element, those below n.
template <unsigned W, class T>
void storeEdgeChunk(KernelBuilder &k, const Ptr<T> &p, const U32 &i,
                    const U32 &n, const Pred &whole, const Chunk<W> &values) {
  k.if_(
      whole, [&] { storeChunk<W>(p, i, values); },
      [&] {
        for (unsigned j = 0; j < W; ++j) {
          Pred in = i + j < n;
          storeChunk<1>(p, i + j, Chunk<1>{values[j]}, &in);
        }
      });
}

/// Elements per 16-byte access of T.
template <class T> constexpr unsigned vectorWidth() {
  return std::is_same_v<T, float> ? 4 : 8;
}

/// Two f32 accumulators carried through a row.
using Pair = std::tuple<F32, F32>;

/// Chunks of a row a thread has in flight in rowFold and rowFor
/// ({kaio.unroll} on their chunk loops), for f32 rows (4-element chunks).
/// Measured on an H100 (docs/perf.md): f32 norms 68-77% -> 74-96% of a
/// copy; for 16-bit rows it helped at 8192 columns (4 chunks a thread) but
/// cost up to 20% at 4096 (2 chunks a thread: the remainder loop alone
/// runs, after a run-time division by the block size), so 16-bit rows are
/// not unrolled.
constexpr unsigned kRowUnroll = 4;
template <unsigned W> constexpr bool unrollsRowChunks() { return W == 4; }

/// Folds body(Width<W>, index, state) over this thread's chunks of a row of
/// n elements: whole V-chunks first, then the tail one element at a time.
template <unsigned V, class F>
Pair rowFold(KernelBuilder &k, const U32 &tid, const U32 &bdim, const U32 &n,
             Pair init, F body) {
  Pair state = init;
  auto step = [&](auto width, const U32 &first, const U32 &end,
                  const U32 &stride) {
    constexpr unsigned W = decltype(width)::value;
    // The chunk loop unrolled: a thread's next chunks are loaded while the
    // first ones are folded (the tail of single elements is not).
    if constexpr (unrollsRowChunks<W>())
      k.unroll(kRowUnroll);
    state = k.for_(first, end, stride, state, [&](U32 c, F32 a, F32 b) {
      return body(width, W == 1 ? c : c * W, Pair(a, b));
    });
  };
  U32 tail = k.constant(0u);
  if constexpr (V > 1) {
    step(Width<V>(), tid, n / V, bdim);
    tail = (n / V) * V;
  }
  step(Width<1>(), tail + tid, n, bdim);
  return state;
}

/// body(Width<W>, index) over this thread's chunks (no state).
template <unsigned V, class F>
void rowFor(KernelBuilder &k, const U32 &tid, const U32 &bdim, const U32 &n,
            F body) {
  auto step = [&](auto width, const U32 &first, const U32 &end,
                  const U32 &stride) {
    constexpr unsigned W = decltype(width)::value;
    if constexpr (unrollsRowChunks<W>())
      k.unroll(kRowUnroll);
    k.for_(first, end, stride,
           [&](U32 c) { body(width, W == 1 ? c : c * W); });
  };
  U32 tail = k.constant(0u);
  if constexpr (V > 1) {
    step(Width<V>(), tid, n / V, bdim);
    tail = (n / V) * V;
  }
  step(Width<1>(), tail + tid, n, bdim);
}

/// Row r of a matrix with leading dimension ld.
template <class P> P rowOf(const P &base, const U64 &row, const U32 &ld) {
  return base + row * cast<uint64_t>(ld);
}

/// A row held in registers by the Threads threads of a block, read once:
/// thread t's chunks t, t + Threads, ..., R of them of V elements each
/// (masked off past the row's whole chunks), and of the ragged tail past
/// them (fewer than V elements) element t. The values stay in T (16-bit
/// rows take half the registers). Slots 0 .. kSlots - 1 are the chunks'
/// elements in order, then the tail's; `valid(slot)` says whether the slot
/// holds an element of the row (the others hold what the reads put there —
/// 0, or loadOr's `outside` — or, in chunks no thread holds, 0),
/// `col(slot)` which. Chunk r is skipped by a uniform branch when no thread
/// holds it (r * Threads >= n / V), so short rows do not pay for R chunks.
/// Kernels on rows of up to Threads * V * R elements use it to skip the
/// second read of the row (from L1/L2) that a block walking longer rows
/// needs.
template <class T, unsigned V, unsigned R, unsigned Threads> class RegisterRow {
public:
  static constexpr unsigned kSlots = R * V + 1;
  static constexpr unsigned kTail = R * V;

  /// Every slot starts as `fill` (what `update` with a false `when`
  /// leaves).
  RegisterRow(KernelBuilder &k, const U32 &tid, const U32 &n,
              float fill = 0.0f)
      : k_(k) {
    U32 whole = n / V;
    for (unsigned r = 0; r < R; ++r) {
      U32 chunk = tid + r * Threads;
      first_[r] = chunk * V;
      chunkValid_[r] = chunk < whole;
      live_[r] = whole > r * Threads;
    }
    tailCol_ = whole * V + tid;
    tailValid_ = tailCol_ < n;
    for (Val<T> &v : values_)
      v = k.constantOf<T>(fill);
  }

  /// Reads the row from p (0 outside it).
  template <class P> void load(const P &p) {
    update(p, nullptr, [](const F32 &, const F32 &in) { return in; });
  }
  /// Reads the row from p; the slots outside it hold `outside` (no
  /// conversion: the loads' own selects).
  template <class P> void loadOr(const P &p, const Val<T> &outside) {
    for (unsigned r = 0; r < R; ++r) {
      auto next = k_.if_(
          live_[r],
          [&] {
            return asTuple(
                p.template loadVector<V>(first_[r], chunkValid_[r], outside));
          },
          [&] { return asTuple(chunk(r)); });
      setChunk(r, next, std::make_index_sequence<V>());
    }
    values_[kTail] = p.load(tailCol_, tailValid_, outside);
  }
  /// Slots of columns past `limit` (signed) take `masked`: a causal mask
  /// applied once, where the values are read. Only chunks that reach past
  /// the limit select element by element (a branch per chunk: rows without
  /// a mask, whose limit is INT32_MAX, never enter it).
  void maskPast(const I32 &limit, const Val<T> &masked) {
    // Limits below -1 keep nothing, as -1 does: clamped so that the room
    // left in a chunk cannot wrap (first < 2^15).
    I32 lim = select(limit < -1, k_.constant(int32_t(-1)), limit);
    for (unsigned r = 0; r < R; ++r) {
      I32 room = lim - first_[r].template as<int32_t>();
      auto next = k_.if_(
          live_[r] && room < int32_t(V - 1),
          [&] {
            std::array<Val<T>, V> out = chunk(r);
            for (unsigned j = 0; j < V; ++j)
              out[j] = select(room >= int32_t(j), out[j], masked);
            return asTuple(out);
          },
          [&] { return asTuple(chunk(r)); });
      setChunk(r, next, std::make_index_sequence<V>());
    }
    values_[kTail] = select(tailCol_.template as<int32_t>() <= limit,
                            values_[kTail], masked);
  }
  /// Each slot's value becomes fn(value, p's element), rounded to T (0
  /// read outside the row) — where `when` holds: otherwise (a flag, e.g.
  /// no residual) the values stay and p is not read, a branch per chunk.
  template <class P, class F> void update(const P &p, const Pred *when, F fn) {
    for (unsigned r = 0; r < R; ++r) {
      auto next = k_.if_(
          when ? live_[r] && *when : live_[r],
          [&] {
            auto in = p.template loadVector<V>(first_[r], chunkValid_[r], 0.0f);
            std::array<Val<T>, V> out;
            for (unsigned j = 0; j < V; ++j)
              out[j] = fromF32<T>(fn(at(r * V + j), toF32(in[j])));
            return asTuple(out);
          },
          [&] { return asTuple(chunk(r)); });
      setChunk(r, next, std::make_index_sequence<V>());
    }
    Pred tail = mask(tailValid_, when);
    Val<T> updated =
        fromF32<T>(fn(at(kTail), toF32(p.load(tailCol_, tail, 0.0f))));
    values_[kTail] = when ? select(*when, updated, values_[kTail]) : updated;
  }

  /// fn(state, slot) folded over the slots (a Val or a tuple of Vals).
  template <class S, class F> S fold(S state, F fn) const {
    for (unsigned r = 0; r < R; ++r)
      state = k_.if_(
          live_[r],
          [&] {
            S s = state;
            for (unsigned j = 0; j < V; ++j)
              s = fn(s, r * V + j);
            return s;
          },
          [&] { return state; });
    return fn(state, kTail);
  }

  /// Stores fn(Width<W>, col, valid, slot) — the Chunk<W> of W elements
  /// from column col, slots slot .. slot + W - 1, `valid` where they are
  /// the row's — converted to p's type, where `enable` holds. fn runs for
  /// whole chunks only where they are the row's (a branch per chunk,
  /// divergent at the row's end only), so it may read other rows of n
  /// elements unmasked there (W > 1); the tail's (W = 1) it runs for every
  /// thread, `valid` saying which.
  template <class P, class F>
  void store(const P &p, F fn, const Pred *enable = nullptr) const {
    using E = typename P::element_type;
    for (unsigned r = 0; r < R; ++r)
      k_.if_(live_[r] && chunkValid_[r], [&] {
        Chunk<V> c = fn(Width<V>(), first_[r], chunkValid_[r], r * V);
        std::array<Val<E>, V> v;
        for (unsigned j = 0; j < V; ++j)
          v[j] = fromF32<E>(c[j]);
        if (enable)
          p.template storeVector<V>(first_[r], v, *enable);
        else
          p.template storeVector<V>(first_[r], v);
      });
    Chunk<1> c = fn(Width<1>(), tailCol_, tailValid_, kTail);
    p.store(tailCol_, fromF32<E>(c[0]), mask(tailValid_, enable));
  }

  F32 at(unsigned slot) const { return toF32(values_[slot]); }
  /// Whether any thread of the block holds chunk r of the row (a branch
  /// around chunk r is then uniform but at the row's last chunk).
  const Pred &live(unsigned r) const { return live_[r]; }
  Pred valid(unsigned slot) const {
    return slot < kTail ? chunkValid_[slot / V] : tailValid_;
  }
  U32 col(unsigned slot) const {
    return slot < kTail ? first_[slot / V] + slot % V : tailCol_;
  }

private:
  static Pred mask(const Pred &valid, const Pred *enable) {
    return enable ? valid && *enable : valid;
  }
  std::array<Val<T>, V> chunk(unsigned r) const {
    std::array<Val<T>, V> out;
    for (unsigned j = 0; j < V; ++j)
      out[j] = values_[r * V + j];
    return out;
  }
  static auto asTuple(const std::array<Val<T>, V> &a) {
    return std::apply([](const auto &...v) { return std::make_tuple(v...); },
                      a);
  }
  template <class Tuple, std::size_t... J>
  void setChunk(unsigned r, const Tuple &t, std::index_sequence<J...>) {
    ((values_[r * V + J] = std::get<J>(t)), ...);
  }

  KernelBuilder &k_;
  std::array<Val<T>, kSlots> values_;
  std::array<U32, R> first_;
  std::array<Pred, R> chunkValid_, live_;
  U32 tailCol_;
  Pred tailValid_;
};

/// The sums of two f32 values over a block of Threads threads behind one
/// barrier (two kaio.block_reduce take two barriers each): each warp's
/// sums (shuffles) to shared memory by its lane 0; after the barrier, lane
/// l of every warp reads warp l's and a second shuffle reduction adds them
/// (every thread gets the same bits: deterministic). Two buffers, the
/// caller's `parity` choosing one, make it safe in a loop: a thread writes
/// a buffer again only two calls later, past a barrier every thread
/// reaches only after reading it (pass 0 for a single call).
template <unsigned Threads> class BlockPairSum {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, <= 32");
  static constexpr int64_t kWarps = Threads / 32;

public:
  explicit BlockPairSum(KernelBuilder &k)
      : k_(k), part_(k.shared<float>({4, kWarps})) {}

  std::pair<F32, F32> operator()(const U32 &tid, const U32 &parity,
                                 const F32 &a, const F32 &b) const {
    F32 wa = k_.warpReduce(ReduceKind::sum, a);
    F32 wb = k_.warpReduce(ReduceKind::sum, b);
    // Rows 2 parity and 2 parity + 1: the buffer's a and b.
    U32 ra = parity * 2u, rb = ra + 1u;
    U32 warp = tid / 32u, lane = tid % 32u;
    k_.if_(lane == 0u, [&] {
      part_.store({ra, warp}, wa);
      part_.store({rb, warp}, wb);
    });
    k_.barrier();
    if constexpr (kWarps == 1)
      return {part_.load({ra, 0}), part_.load({rb, 0})};
    // Lanes past the warps read the last warp's and count 0.
    Pred has = lane < uint32_t(kWarps);
    U32 from = min(lane, uint32_t(kWarps - 1));
    F32 pa = select(has, part_.load({ra, from}), 0.0f);
    F32 pb = select(has, part_.load({rb, from}), 0.0f);
    return {k_.warpReduce(ReduceKind::sum, pa),
            k_.warpReduce(ReduceKind::sum, pb)};
  }

private:
  KernelBuilder &k_;
  Shared<float> part_;
};

/// The reduction across the threads that share a row: the block's, or (for
/// the warp-per-row kernels) the warp's.
template <bool Warp>
F32 reduceRow(KernelBuilder &k, ReduceKind kind, const F32 &v) {
  return Warp ? k.warpReduce(kind, v) : k.blockReduce(kind, v);
}

/// The row's online softmax statistics: `offset` = the maximum of scale * x
/// (0 when it is -inf, so that exp(-inf - offset) is 0, not NaN) and `sum`
/// = sum of exp(scale * x - offset), reduced across the row's threads
/// (every thread gets them). Elements whose column exceeds `limit` (when
/// given) count as -inf (a causal mask). One read of the row.
struct RowLse {
  F32 offset, sum;
};
/// scale * x, or -inf past the mask's limit.
inline F32 scaledOrMasked(const F32 &v, const F32 &scale, const U32 &col,
                          const I32 *limit) {
  F32 s = v * scale;
  if (!limit)
    return s;
  return select(col.as<int32_t>() <= *limit, s, -INFINITY);
}
template <unsigned V, bool Warp = false, class T>
RowLse rowLogSumExp(KernelBuilder &k, const U32 &tid, const U32 &bdim,
                    const U32 &n, const Ptr<T> &xr, const F32 &scale,
                    const I32 *limit = nullptr) {
  const float ninf = -INFINITY;
  auto [m, s] = rowFold<V>(
      k, tid, bdim, n, std::make_tuple(k.constant(ninf), k.constant(0.0f)),
      [&](auto width, const U32 &i, Pair state) {
        constexpr unsigned W = decltype(width)::value;
        auto [mOld, sOld] = state;
        Chunk<W> v = loadChunk<W>(xr, i);
        for (unsigned j = 0; j < W; ++j)
          v[j] = scaledOrMasked(v[j], scale, i + j, limit);
        F32 cm = v[0];
        for (unsigned j = 1; j < W; ++j)
          cm = max(cm, v[j]);
        F32 mNew = max(mOld, cm);
        F32 off = select(mNew == ninf, k.constant(0.0f), mNew);
        F32 sNew = sOld * exp(mOld - off);
        for (unsigned j = 0; j < W; ++j)
          sNew = sNew + exp(v[j] - off);
        return std::make_tuple(mNew, sNew);
      });
  F32 rowMax = reduceRow<Warp>(k, ReduceKind::max, m);
  F32 off = select(rowMax == ninf, k.constant(0.0f), rowMax);
  return {off, reduceRow<Warp>(k, ReduceKind::sum, s * exp(m - off))};
}

/// act(x) for the run-time activation `act` (a uniform branch per
/// formula; no activation, the common case, tested first: one compare).
inline F32 activateBy(KernelBuilder &k, const U32 &act, const F32 &x) {
  auto orElse = [&](ops::Activation a, auto rest) {
    return [&k, &act, &x, a, rest] {
      return k.if_(act == uint32_t(a), [&] { return activate(a, x); }, rest);
    };
  };
  auto geluErf = [&] { return activate(ops::Activation::GeluErf, x); };
  auto geluTanh = orElse(ops::Activation::GeluTanh, geluErf);
  auto silu = orElse(ops::Activation::Silu, geluTanh);
  auto relu = orElse(ops::Activation::Relu, silu);
  return k.if_(act == uint32_t(ops::Activation::None), [&] { return x; }, relu);
}

/// The parameters of the library's builder GEMM kernels, in their order:
/// (a, b, c, m, n, k, lda, ldb, ldc, alpha, beta, bias, epilogue) — C =
/// act(alpha A B + beta C + bias), `epilogue` a HopperGemmEpilogue.
template <class In, class Out> struct GemmParams {
  Ptr<const In> a, b;
  Ptr<Out> c;
  U32 m, n, k, lda, ldb, ldc;
  F32 alpha, beta;
  Ptr<const Out> bias;
  U32 epilogue;
};
template <class In, class Out>
GemmParams<In, Out> gemmParams(KernelBuilder &k) {
  GemmParams<In, Out> p;
  p.a = k.param<Ptr<const In>>("a");
  p.b = k.param<Ptr<const In>>("b");
  p.c = k.param<Ptr<Out>>("c");
  p.m = k.param<uint32_t>("m");
  p.n = k.param<uint32_t>("n");
  p.k = k.param<uint32_t>("k");
  p.lda = k.param<uint32_t>("lda");
  p.ldb = k.param<uint32_t>("ldb");
  p.ldc = k.param<uint32_t>("ldc");
  p.alpha = k.param<float>("alpha");
  p.beta = k.param<float>("beta");
  p.bias = k.param<Ptr<const Out>>("bias");
  p.epilogue = k.param<uint32_t>("epilogue");
  return p;
}

} // namespace kaio::ops::kernels::support

#endif // KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H

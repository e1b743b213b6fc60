//===- GemvKernels.cpp - y = A x for decode, with the builder -------------===//
//
// Batch-1 decode is a matrix-vector product: every element of A is used
// once, so the kernel is a stream over A at the memory bandwidth. Warp w of
// block b owns row b * kGemvRowsPerBlock + w; lane l reads the row's
// 16-byte chunks l, l + 32, ... (a warp reads 512 contiguous bytes per
// step) and the matching chunks of x (shared by every warp, from L1/L2),
// accumulates in f32, and the warp sums its lanes with shuffles.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <cmath>
#include <optional>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

template <class T, unsigned V> void buildGemv(ModuleBuilder &mb) {
  mb.kernel(kernelName<T, V>("gemv"), {int32_t(kGemvBlock)},
            [](KernelBuilder &k) {
              auto a = k.param<Ptr<const T>>("a");
              auto x = k.param<Ptr<const T>>("x");
              auto bias = k.param<Ptr<const T>>("bias");
              auto y = k.param<Ptr<T>>("y");
              auto m = k.param<uint32_t>("m");
              auto n = k.param<uint32_t>("k");
              auto lda = k.param<uint32_t>("ld_a");
              auto flags = k.param<uint32_t>("flags");
              U32 tid = k.threadId();
              U32 lane = tid % 32u;
              U32 row = k.blockId() * kGemvRowsPerBlock + tid / 32u;
              // Warp-uniform: a warp's rows are all in or all out.
              k.if_(row < m, [&] {
                auto arow = a + cast<uint64_t>(row) * cast<uint64_t>(lda);
                F32 acc = k.constant(0.0f);
                U32 tail = k.constant(0u);
                if constexpr (V > 1) {
                  acc = k.for_(lane, n / V, 32u, acc, [&](U32 c, F32 s) {
                    Chunk<V> av = loadChunk<V>(arow, c * V);
                    Chunk<V> xv = loadChunk<V>(x, c * V);
                    for (unsigned j = 0; j < V; ++j)
                      s = fma(av[j], xv[j], s);
                    return s;
                  });
                  tail = (n / V) * V;
                }
                acc = k.for_(tail + lane, n, 32u, acc, [&](U32 i, F32 s) {
                  return fma(toF32(arow.load(i)), toF32(x.load(i)), s);
                });
                F32 sum = k.warpReduce(ReduceKind::sum, acc);
                k.if_(lane == 0u, [&] {
                  Pred hasBias = (flags & uint32_t(kGemvBias)) != 0u;
                  F32 b = toF32(bias.load(row, hasBias, 0.0f));
                  y.store(row, fromF32<T>(sum + b));
                });
              });
            });
}

/// What a column kernel folds down each column: x[r] * A[r, c] (the
/// transposed GEMV), or A[r, c] itself (sum, max, min; NaN propagates
/// through max and min).
enum class ColumnFold { Dot, Sum, Max, Min };

constexpr RowReduction toReduction(ColumnFold f) {
  return f == ColumnFold::Max   ? RowReduction::Max
         : f == ColumnFold::Min ? RowReduction::Min
                                : RowReduction::Sum;
}

/// The fold's start value and step, in f32.
F32 foldInit(KernelBuilder &k, ColumnFold f) {
  return k.constant(f == ColumnFold::Max   ? -INFINITY
                    : f == ColumnFold::Min ? INFINITY
                                           : 0.0f);
}
F32 foldStep(KernelBuilder &k, ColumnFold f, const F32 &acc, const F32 &v) {
  if (f == ColumnFold::Sum || f == ColumnFold::Dot)
    return acc + v;
  F32 m = f == ColumnFold::Max ? max(acc, v) : min(acc, v);
  return select((acc != acc) | (v != v), k.constant(NAN), m);
}

/// Partial folds over a slice of A's rows: a thread owns a chunk of V
/// columns (a warp reads 32 consecutive chunks of a row). The transposed
/// GEMV (Dot) weighs row r by x[r]; the column reductions take no x.
template <class T, unsigned V, ColumnFold F>
void buildColumnPartial(ModuleBuilder &mb) {
  std::string base = F == ColumnFold::Dot
                         ? std::string("gemv_t_partial")
                         : std::string("reduce_cols_") +
                               getRowReductionName(toReduction(F));
  std::string name = kernelName<T, V>(base.c_str());
  mb.kernel(name, {int32_t(kGemvBlock)},
            [](KernelBuilder &k) {
              // Left to itself, ptxas holds the 16-bit kernels (8 columns a
              // thread, 4 rows in flight) to 32 registers for a full SM and
              // spills; 48 warps an SM leave them 40 and keep as many
              // 16-byte loads in flight as the bandwidth needs.
              if constexpr (V == 8)
                k.setMinBlocksPerSM(int32_t(48 * 32 / kGemvBlock));
              auto a = k.param<Ptr<const T>>("a");
              std::optional<Ptr<const T>> x;
              if constexpr (F == ColumnFold::Dot)
                x = k.param<Ptr<const T>>("x");
              auto partial = k.param<Ptr<float>>("partial");
              auto rows = k.param<uint32_t>("k");
              auto n = k.param<uint32_t>("n");
              auto lda = k.param<uint32_t>("ld_a");
              auto perSplit = k.param<uint32_t>("rows_per_split");
              U32 col = (k.blockId() * kGemvBlock + k.threadId()) * V;
              U32 split = k.blockId(Dim::y);
              U32 first = split * perSplit;
              U32 last = min(first + perSplit, rows);
              U64 out = cast<uint64_t>(split) * cast<uint64_t>(n);
              auto sums = [&](auto width, const U32 &c) {
                constexpr unsigned W = decltype(width)::value;
                // One chunk of the row per step (a 16-byte load when W > 1),
                // W accumulators carried through the loop.
                auto step = [&](const U32 &r, Chunk<W> acc) {
                  auto row = a + cast<uint64_t>(r) * cast<uint64_t>(lda);
                  Chunk<W> v = loadChunk<W>(row, c);
                  if constexpr (F == ColumnFold::Dot) {
                    F32 xv = toF32(x->load(r));
                    for (unsigned j = 0; j < W; ++j)
                      acc[j] = fma(xv, v[j], acc[j]);
                  } else {
                    for (unsigned j = 0; j < W; ++j)
                      acc[j] = foldStep(k, F, acc[j], v[j]);
                  }
                  return acc;
                };
                F32 z = foldInit(k, F);
                Chunk<W> acc;
                if constexpr (W == 1) {
                  acc[0] = k.unroll(kColumnUnroll).for_(first, last, 1u, z, [&](U32 r, F32 a0) {
                    return step(r, {a0})[0];
                  });
                } else if constexpr (W == 4) {
                  auto t = k.unroll(kColumnUnroll).for_(first, last, 1u, std::make_tuple(z, z, z, z),
                                  [&](U32 r, F32 a0, F32 a1, F32 a2, F32 a3) {
                                    Chunk<4> o = step(r, {a0, a1, a2, a3});
                                    return std::make_tuple(o[0], o[1], o[2],
                                                           o[3]);
                                  });
                  acc = {std::get<0>(t), std::get<1>(t), std::get<2>(t),
                         std::get<3>(t)};
                } else {
                  static_assert(W == 8, "chunks of 1, 4 or 8 elements");
                    auto t = k.unroll(kColumnUnroll).for_(
                      first, last, 1u, std::make_tuple(z, z, z, z, z, z, z, z),
                      [&](U32 r, F32 a0, F32 a1, F32 a2, F32 a3, F32 a4,
                          F32 a5, F32 a6, F32 a7) {
                        Chunk<8> o = step(r, {a0, a1, a2, a3, a4, a5, a6, a7});
                        return std::make_tuple(o[0], o[1], o[2], o[3], o[4],
                                               o[5], o[6], o[7]);
                      });
                  acc = {std::get<0>(t), std::get<1>(t), std::get<2>(t),
                         std::get<3>(t), std::get<4>(t), std::get<5>(t),
                         std::get<6>(t), std::get<7>(t)};
                }
                // f32 partials: at most 4 per 16-byte store.
                if constexpr (W == 8) {
                  storeChunk<4>(partial + out, c, {acc[0], acc[1], acc[2], acc[3]});
                  storeChunk<4>(partial + out, c + 4u,
                                {acc[4], acc[5], acc[6], acc[7]});
                } else {
                  storeChunk<W>(partial + out, c, acc);
                }
              };
              if constexpr (V == 1) {
                k.if_(col < n, [&] { sums(Width<1>(), col); });
              } else {
                k.if_(
                    col + V <= n, [&] { sums(Width<V>(), col); },
                    [&] {
                      k.for_(col, n, 1u,
                             [&](U32 c) { sums(Width<1>(), c); });
                    });
              }
            });
}

template <class T> void buildGemvTReduce(ModuleBuilder &mb) {
  mb.kernel(std::string("gemv_t_reduce_") + typeName<T>(),
            {int32_t(kGemvBlock)}, [](KernelBuilder &k) {
              auto partial = k.param<Ptr<const float>>("partial");
              auto bias = k.param<Ptr<const T>>("bias");
              auto y = k.param<Ptr<T>>("y");
              auto n = k.param<uint32_t>("n");
              auto splits = k.param<uint32_t>("splits");
              auto flags = k.param<uint32_t>("flags");
              U32 col = k.blockId() * kGemvBlock + k.threadId();
              k.if_(col < n, [&] {
                F32 sum = k.unroll(kColumnUnroll).for_(0u, splits, 1u, k.constant(0.0f),
                                 [&](U32 s, F32 acc) {
                                   return acc + partial.load(
                                                    cast<uint64_t>(s) *
                                                        cast<uint64_t>(n) +
                                                    cast<uint64_t>(col));
                                 });
                Pred hasBias = (flags & uint32_t(kGemvBias)) != 0u;
                F32 b = toF32(bias.load(col, hasBias, 0.0f));
                y.store(col, fromF32<T>(sum + b));
              });
            });
}

/// out[c] (f32) = the partials' fold over the slices, in order.
template <ColumnFold F> void buildColumnFinish(ModuleBuilder &mb) {
  mb.kernel(std::string("reduce_cols_finish_") +
                getRowReductionName(toReduction(F)),
            {int32_t(kGemvBlock)}, [](KernelBuilder &k) {
              auto partial = k.param<Ptr<const float>>("partial");
              auto out = k.param<Ptr<float>>("out");
              auto n = k.param<uint32_t>("n");
              auto splits = k.param<uint32_t>("splits");
              U32 col = k.blockId() * kGemvBlock + k.threadId();
              k.if_(col < n, [&] {
                F32 acc = k.unroll(kColumnUnroll).for_(
                    0u, splits, 1u, foldInit(k, F), [&](U32 s, F32 a) {
                      return foldStep(k, F, a,
                                      partial.load(cast<uint64_t>(s) *
                                                       cast<uint64_t>(n) +
                                                   cast<uint64_t>(col)));
                    });
                out.store(col, acc);
              });
            });
}

template <class T, ColumnFold F> void buildColumnPartials(ModuleBuilder &mb) {
  buildColumnPartial<T, vectorWidth<T>(), F>(mb);
  buildColumnPartial<T, 1, F>(mb);
}

template <class T> void buildForType(ModuleBuilder &mb) {
  buildGemv<T, vectorWidth<T>()>(mb);
  buildGemv<T, 1>(mb);
  buildColumnPartials<T, ColumnFold::Dot>(mb);
  buildGemvTReduce<T>(mb);
  buildColumnPartials<T, ColumnFold::Sum>(mb);
  buildColumnPartials<T, ColumnFold::Max>(mb);
  buildColumnPartials<T, ColumnFold::Min>(mb);
}

} // namespace

void kaio::ops::kernels::buildGemvKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
  buildColumnFinish<ColumnFold::Sum>(mb);
  buildColumnFinish<ColumnFold::Max>(mb);
  buildColumnFinish<ColumnFold::Min>(mb);
}

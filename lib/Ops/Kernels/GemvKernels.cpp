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

/// Partial sums of y = xᵀ A over a slice of A's rows: a thread owns a
/// chunk of V columns (a warp reads 32 consecutive chunks of a row).
template <class T, unsigned V> void buildGemvTPartial(ModuleBuilder &mb) {
  mb.kernel(kernelName<T, V>("gemv_t_partial"), {int32_t(kGemvBlock)},
            [](KernelBuilder &k) {
              auto a = k.param<Ptr<const T>>("a");
              auto x = k.param<Ptr<const T>>("x");
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
                  F32 xv = toF32(x.load(r));
                  Chunk<W> v = loadChunk<W>(row, c);
                  for (unsigned j = 0; j < W; ++j)
                    acc[j] = fma(xv, v[j], acc[j]);
                  return acc;
                };
                F32 z = k.constant(0.0f);
                Chunk<W> acc;
                if constexpr (W == 1) {
                  acc[0] = k.for_(first, last, 1u, z, [&](U32 r, F32 a0) {
                    return step(r, {a0})[0];
                  });
                } else if constexpr (W == 4) {
                  auto t = k.for_(first, last, 1u, std::make_tuple(z, z, z, z),
                                  [&](U32 r, F32 a0, F32 a1, F32 a2, F32 a3) {
                                    Chunk<4> o = step(r, {a0, a1, a2, a3});
                                    return std::make_tuple(o[0], o[1], o[2],
                                                           o[3]);
                                  });
                  acc = {std::get<0>(t), std::get<1>(t), std::get<2>(t),
                         std::get<3>(t)};
                } else {
                  static_assert(W == 8, "chunks of 1, 4 or 8 elements");
                  auto t = k.for_(
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
                F32 sum = k.for_(0u, splits, 1u, k.constant(0.0f),
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

template <class T> void buildForType(ModuleBuilder &mb) {
  buildGemv<T, vectorWidth<T>()>(mb);
  buildGemv<T, 1>(mb);
  buildGemvTPartial<T, vectorWidth<T>()>(mb);
  buildGemvTPartial<T, 1>(mb);
  buildGemvTReduce<T>(mb);
}

} // namespace

void kaio::ops::kernels::buildGemvKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

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

template <class T> void buildForType(ModuleBuilder &mb) {
  buildGemv<T, vectorWidth<T>()>(mb);
  buildGemv<T, 1>(mb);
}

} // namespace

void kaio::ops::kernels::buildGemvKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}

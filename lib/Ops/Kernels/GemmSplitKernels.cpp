//===- GemmSplitKernels.cpp - the reduction of a split-K GEMM -------------===//
//
// A GEMM whose C has too few tiles to fill the GPU splits K across blocks
// (the sm_90a kernel's work units, the portable kernel's grid z; Gemm.cpp):
// split s leaves its partial
// sums A[:, K_s] B[K_s, :] as f32 rows of `ldw` elements (a multiple of 4)
// at ws + s * split_stride. This kernel adds them in split order (the same
// bits every run) and applies the GEMM's epilogue once:
//   C = act(alpha * sum + beta * C + bias),
// bias along C's columns or rows and the activation as the `epilogue` bits
// say (HopperGemmEpilogue), converted to C's type. A thread takes 4
// columns of a row: one 16-byte load per split, then one vector access of
// C (and the column bias) where the host says C's rows allow it
// (kGemmVectorC), else C's elements one by one.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

namespace {

template <class O> void buildSplitReduce(ModuleBuilder &mb) {
  mb.kernel(
      std::string("gemm_split_reduce_") + support::typeName<O>(),
      {int32_t(kGemmSplitReduceThreads)}, [](KernelBuilder &k) {
        auto ws = k.param<Ptr<const float>>("ws");
        U32 splits = k.param<uint32_t>("splits");
        U64 splitStride = k.param<uint64_t>("split_stride");
        U32 ldw = k.param<uint32_t>("ldw");
        auto c = k.param<Ptr<O>>("c");
        U32 m = k.param<uint32_t>("m"), n = k.param<uint32_t>("n");
        U32 ldc = k.param<uint32_t>("ldc");
        F32 alpha = k.param<float>("alpha"), beta = k.param<float>("beta");
        auto bias = k.param<Ptr<const O>>("bias");
        U32 epilogue = k.param<uint32_t>("epilogue");
        U32 col = (k.blockId() * kGemmSplitReduceThreads + k.threadId()) * 4u;
        U32 act = epilogue & uint32_t(kGemmActivationMask);
        Pred readC = beta != 0.0f;
        Pred biasRows = (epilogue & uint32_t(kGemmBiasRows)) != 0u;
        Pred biasCols = (epilogue & uint32_t(kGemmBiasColumns)) != 0u;
        Pred vectorC = (epilogue & uint32_t(kGemmVectorC)) != 0u;
        k.if_(col < n, [&] {
          k.for_(k.blockId(Dim::y), m, k.gridDim(Dim::y), [&](U32 row) {
            auto wrow = ws + cast<uint64_t>(row) * cast<uint64_t>(ldw);
            support::Chunk<4> sum = k.for_(
                1u, splits, 1u, support::loadChunk<4>(wrow, col),
                [&](U32 s, support::Chunk<4> acc) {
                  support::Chunk<4> part = support::loadChunk<4>(
                      wrow + cast<uint64_t>(s) * splitStride, col);
                  for (unsigned j = 0; j < 4; ++j)
                    acc[j] = acc[j] + part[j];
                  return acc;
                });
            auto crow = c + cast<uint64_t>(row) * cast<uint64_t>(ldc);
            F32 rowBias = support::toF32(bias.load(row, biasRows, 0.0f));
            // Whole chunks of a C whose rows are 4-element aligned: one
            // vector access each; else element by element.
            Pred whole = vectorC & (col + 4u <= n);
            support::Chunk<4> old =
                support::loadEdgeChunkOr<4>(k, crow, col, n, whole, readC, 0.0f);
            support::Chunk<4> cb =
                support::loadEdgeChunkOr<4>(k, bias, col, n, whole, biasCols, 0.0f);
            support::Chunk<4> v;
            for (unsigned j = 0; j < 4; ++j)
              v[j] = support::activateBy(
                  k, act, fma(old[j], beta, alpha * sum[j]) + cb[j] + rowBias);
            support::storeEdgeChunk<4>(k, crow, col, n, whole, v);
          });
        });
      });
}

} // namespace

void kaio::ops::kernels::buildGemmSplitKernels(ModuleBuilder &mb) {
  buildSplitReduce<float>(mb);
  buildSplitReduce<f16>(mb);
  buildSplitReduce<bf16>(mb);
}

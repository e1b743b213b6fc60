//===- ExampleKernels.cpp - examples/*.mlir written with the builder ------===//
//
// Each kernel builds the same ops in the same order as its .mlir version;
// BuilderExamplesTest checks that both lower to identical PTX.
//
//===----------------------------------------------------------------------===//

#include "ExampleKernels.h"

using namespace kaio;
using namespace kaio::builder;

void examples::buildVectorAdd(ModuleBuilder &mb) {
  mb.kernel("vector_add", {256}, [](KernelBuilder &k) {
    auto a = k.param<Ptr<const float>>("a");
    auto b = k.param<Ptr<const float>>("b");
    auto c = k.param<Ptr<float>>("c");
    auto n = k.param<uint32_t>("n");
    U32 tid = k.threadId(), bid = k.blockId(), bdim = k.blockDim();
    U32 i = bid * bdim + tid;
    k.if_(i < n, [&] {
      F32 x = a[i];
      F32 y = b[i];
      c[i] = x + y;
    });
  });
}

void examples::buildFusedSiluGate(ModuleBuilder &mb) {
  mb.kernel("fused_silu_gate", {256}, [](KernelBuilder &k) {
    auto x = k.param<Ptr<const float>>("x");
    auto gate = k.param<Ptr<const float>>("gate");
    auto out = k.param<Ptr<float>>("out");
    auto n = k.param<uint32_t>("n");
    U32 tid = k.threadId(), bid = k.blockId(), bdim = k.blockDim();
    U32 i = bid * bdim + tid;
    k.if_(i < n, [&] {
      F32 one = k.constant(1.0f);
      F32 xi = x[i];
      F32 g = gate[i];
      F32 sig = one / (one + exp(-xi));
      out[i] = xi * sig * g;
    });
  });
}

void examples::buildTiledMatmul(ModuleBuilder &mb) {
  mb.kernel("tiled_matmul", {16, 16}, [](KernelBuilder &k) {
    auto A = k.param<Ptr<const float>>("A");
    auto B = k.param<Ptr<const float>>("B");
    auto C = k.param<Ptr<float>>("C");
    auto M = k.param<int32_t>("M");
    auto N = k.param<int32_t>("N");
    auto K = k.param<int32_t>("K");
    I32 c0 = k.constant(0), c16 = k.constant(16);
    F32 zero = k.constant(0.0f);
    // Signed ids: the bounds checks compare against signed sizes.
    I32 tx = k.threadId(Dim::x).as<int32_t>();
    I32 ty = k.threadId(Dim::y).as<int32_t>();
    I32 bx = k.blockId(Dim::x).as<int32_t>();
    I32 by = k.blockId(Dim::y).as<int32_t>();
    I32 row = by * c16 + ty;
    I32 col = bx * c16 + tx;
    auto As = k.shared<float>({16, 16});
    auto Bs = k.shared<float>({16, 16});
    Pred rowOk = row < M;
    Pred colOk = col < N;
    F32 acc = k.for_(c0, K, c16, zero, [&](I32 t, F32 sum) {
      I32 ak = t + tx;
      Pred aOk = rowOk && ak < K;
      F32 a = A.load(row * K + ak, aOk, zero);
      As(ty, tx) = a;
      I32 bk = t + ty;
      Pred bOk = bk < K && colOk;
      F32 b = B.load(bk * N + col, bOk, zero);
      Bs(ty, tx) = b;
      k.barrier();
      I32 c1 = k.constant(1);
      F32 inner = k.for_(c0, c16, c1, sum, [&](I32 kk, F32 s) {
        F32 av = As(ty, kk);
        F32 bv = Bs(kk, tx);
        return fma(av, bv, s);
      });
      k.barrier();
      return inner;
    });
    k.if_(rowOk && colOk, [&] { C[row * N + col] = acc; });
  });
}

//===- ExampleKernels.cpp - examples/*.mlir written with the builder ------===//
//
// Each kernel builds the same ops in the same order as its .mlir version;
// BuilderExamplesTest checks that both lower to identical PTX.
//
//===----------------------------------------------------------------------===//

#include "ExampleKernels.h"

#include "Kaio/Builder/Hopper.h"

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

void examples::buildHopperGemm(ModuleBuilder &mb) {
  mb.setTarget("sm_90a");
  mb.kernel("hopper_gemm", {384}, [](KernelBuilder &k) {
    auto ma = tensorMapParam<f16>(k, {128, 64}, 128, "ma");
    auto mbm = tensorMapParam<f16>(k, {64, 64}, 128, "mb");
    auto C = k.param<Ptr<float>>("C");
    auto M = k.param<uint32_t>("M");
    auto N = k.param<uint32_t>("N");
    auto K = k.param<uint32_t>("K");
    // The .mlir's constants, in its order.
    for (uint32_t c : {0u, 1u, 2u, 3u, 4u, 16u, 63u, 64u, 127u, 128u, 49152u,
                       192u, 255u, 256u})
      k.constant(c);
    k.constant(0.0f);
    auto As = k.shared<f16>({512, 64}, swizzle128());
    auto Bs = k.shared<f16>({1024, 64}, swizzle128());
    MBarriers full = mbarriers(k, 4), empty = mbarriers(k, 4);
    U32 tid = k.threadId();
    U32 wg = tid / 128u;
    U32 wgLane = tid % 128u;
    Pred first = tid == 0u;
    Pred wgLeader = wgLane == 0u;
    // full[s]: the producer's arrival and the stage's bytes; empty[s]: one
    // arrival per consumer warpgroup.
    k.if_(first, [&] {
      k.for_(0u, 4u, 1u, [&](U32 s) {
        full.init(s, 1u);
        empty.init(s, 2u);
      });
    });
    k.barrier();
    U32 tilesM = (M + 127u) / 128u, tilesN = (N + 255u) / 256u;
    U32 tiles = tilesM * tilesN;
    U32 kTiles = (K + 63u) / 64u;
    U32 bx = k.blockId(), nbx = k.gridDim();
    k.if_(
        wg == 0u,
        [&] {
          setMaxNReg(k, RegisterAction::dec, 40);
          k.if_(first, [&] {
            k.for_(bx, tiles, nbx, k.constant(0u), [&](U32 t, U32 it) {
              U32 tm = t % tilesM, tn = t / tilesM;
              U32 row0 = tm * 128u, col0 = tn * 256u;
              U32 col1 = col0 + 64u, col2 = col0 + 128u, col3 = col0 + 192u;
              return k.for_(0u, kTiles, 1u, it, [&](U32 kt, U32 i) {
                U32 s = i % 4u;
                U32 phase = i / 4u % 2u;
                // Round r waits for the consumers' release of round r - 1.
                empty.wait(s, phase ^ 1u);
                full.arriveExpectTx(s, 49152u);
                U32 k0 = kt * 64u;
                U32 arow = s * 128u;
                U32 brow0 = s * 256u;
                U32 brow1 = brow0 + 64u, brow2 = brow0 + 128u,
                    brow3 = brow0 + 192u;
                tmaLoad(ma, {row0, k0}, As, arow, full, s);
                tmaLoad(mbm, {k0, col0}, Bs, brow0, full, s);
                tmaLoad(mbm, {k0, col1}, Bs, brow1, full, s);
                tmaLoad(mbm, {k0, col2}, Bs, brow2, full, s);
                tmaLoad(mbm, {k0, col3}, Bs, brow3, full, s);
                return i + 1u;
              });
            });
          });
        },
        [&] {
          setMaxNReg(k, RegisterAction::inc, 232);
          U32 g = wg - 1u;
          U32 gRows = g * 64u;
          U32 rows = gRows + k.warpId() % 4u * 16u;
          Frag init = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16,
                                        0.0f, FragTile{1, 32});
          k.for_(bx, tiles, nbx, k.constant(0u), [&](U32 t, U32 it) {
            auto [d, next] = k.forCarrying(
                0u, kTiles, 1u, std::tuple<Frag, U32>(init, it),
                [&](U32 kt, Frag acc, U32 i) {
                  U32 s = i % 4u;
                  U32 phase = i / 4u % 2u;
                  full.wait(s, phase);
                  U32 stage = s * 128u;
                  U32 bstage = s * 256u;
                  Frag d1 = warpgroupMma(As, stage + gRows, Bs, bstage, acc);
                  // The previous group is done: its stage is free.
                  warpgroupWait(k, 1);
                  k.if_(wgLeader && kt != 0u,
                        [&] { empty.arrive((i + 3u) % 4u); });
                  return std::tuple<Frag, U32>(d1, i + 1u);
                });
            Frag res = warpgroupWait(d);
            k.if_(wgLeader && kTiles != 0u,
                  [&] { empty.arrive((next + 3u) % 4u); });
            U32 tm = t % tilesM, tn = t / tilesM;
            U32 row0 = tm * 128u, col0 = tn * 256u;
            res.store(C, row0 + rows, col0, M, N, N);
            return next;
          });
        });
  });
}

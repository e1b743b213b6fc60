//===- SgemmKernels.cpp - full-precision f32 GEMM on the CUDA cores --------===//
//
// C = alpha * A * B + beta * C in f32 (FMA, no tensor cores: every bit of
// the inputs counts), A (M x K) and B (K x N) row-major with leading
// dimensions, any M, N, K. A block of 256 threads owns a 128 x 128 tile of
// C; thread (tx, ty) = (tid % 16, tid / 16) owns the 8 x 8 elements at rows
// ty + 16 i and columns tx + 16 j, so that at every k the half-warp's 16
// lanes read 16 consecutive floats of the B tile (one wavefront) and the
// warp's two rows of the A tile are broadcasts: no bank conflicts whatever
// swizzle the layout pass picks (the interpreter tests assert it).
// K advances by two 16-deep tiles per trip: both are copied with cp.async
// at its start (zero fill past M, N, K), and the second lands while the
// first is multiplied.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <array>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;

namespace {

constexpr unsigned kTile = kSgemmBlockTile, kDepth = 16, kPerThread = 8;
constexpr unsigned kAccs = kPerThread * kPerThread;

void buildSgemm(ModuleBuilder &mb, bool aligned) {
  mb.kernel(aligned ? "sgemm_f32_aligned" : "sgemm_f32",
            {int32_t(kSgemmThreads)}, [aligned](KernelBuilder &k) {
    const auto p = support::gemmParams<float, float>(k);
    const CopyAlignment copies =
        aligned ? CopyAlignment::Promised : CopyAlignment::Checked;
    U32 tid = k.threadId();
    U32 tx = tid % 16u, ty = tid / 16u;
    U32 row0 = k.blockId(Dim::y) * kTile, col0 = k.blockId() * kTile;
    // Plain row-major tiles (no swizzle: the reads above are conflict-free
    // as they are, and every read is then the tile's base + an immediate).
    const TileLayout plain;
    std::array<Shared<float>, 2> as = {k.shared<float>({kTile, kDepth}, plain),
                                       k.shared<float>({kTile, kDepth}, plain)};
    std::array<Shared<float>, 2> bs = {k.shared<float>({kDepth, kTile}, plain),
                                       k.shared<float>({kDepth, kTile}, plain)};
    std::array<F32, kAccs> init;
    for (F32 &x : init)
      x = k.constant(0.0f);
    // acc[i * 8 + j] += A tile (ty + 16 i, kk) * B tile (kk, tx + 16 j).
    auto multiply = [&](const Shared<float> &at, const Shared<float> &bt,
                        std::array<F32, kAccs> acc) {
      for (unsigned kk = 0; kk < kDepth; ++kk) {
        std::array<F32, kPerThread> av, bv;
        for (unsigned i = 0; i < kPerThread; ++i)
          av[i] = at(ty + 16 * i, kk);
        for (unsigned j = 0; j < kPerThread; ++j)
          bv[j] = bt(kk, tx + 16 * j);
        for (unsigned i = 0; i < kPerThread; ++i)
          for (unsigned j = 0; j < kPerThread; ++j)
            acc[i * kPerThread + j] =
                fma(av[i], bv[j], acc[i * kPerThread + j]);
      }
      return acc;
    };
    std::array<F32, kAccs> acc = k.for_(
        0u, p.k, 2 * kDepth, init,
        [&](U32 k0, std::array<F32, kAccs> s) {
          std::array<Token, 2> landed;
          for (unsigned h = 0; h < 2; ++h) {
            U32 kh = k0 + h * kDepth;
            Token ta = k.asyncCopy(p.a, row0, kh, p.m, p.k, p.lda, as[h], copies);
            Token tb = k.asyncCopy(p.b, kh, col0, p.k, p.n, p.ldb, bs[h], copies);
            landed[h] = tb;
            (void)ta;
          }
          for (unsigned h = 0; h < 2; ++h) {
            k.asyncWait({landed[h]});
            k.barrier();
            s = multiply(as[h], bs[h], s);
          }
          // Every warp is done with both tiles before the next copies.
          k.barrier();
          return s;
        });
    // C = act(alpha * acc + beta * C + bias) (beta 0 never reads C; the
    // bias along C's columns or rows, `epilogue` as the tensor-core
    // kernels').
    Pred readC = p.beta != 0.0f;
    U32 act = p.epilogue & uint32_t(kGemmActivationMask);
    Pred biasCols = (p.epilogue & uint32_t(kGemmBiasColumns)) != 0u;
    Pred biasRows = (p.epilogue & uint32_t(kGemmBiasRows)) != 0u;
    std::array<F32, kPerThread> colBias;
    for (unsigned j = 0; j < kPerThread; ++j) {
      U32 col = col0 + tx + 16 * j;
      colBias[j] = p.bias.load(col, biasCols & (col < p.n), 0.0f);
    }
    for (unsigned i = 0; i < kPerThread; ++i) {
      U32 row = row0 + ty + 16 * i;
      auto crow = p.c + cast<uint64_t>(row) * cast<uint64_t>(p.ldc);
      F32 rowBias = p.bias.load(row, biasRows & (row < p.m), 0.0f);
      for (unsigned j = 0; j < kPerThread; ++j) {
        U32 col = col0 + tx + 16 * j;
        k.if_((row < p.m) & (col < p.n), [&] {
          F32 v = p.alpha * acc[i * kPerThread + j];
          F32 old = crow.load(col, readC, 0.0f);
          v = fma(old, p.beta, v) + colBias[j] + rowBias;
          crow.store(col, support::activateBy(k, act, v));
        });
      }
    }
  });
}

} // namespace

void kaio::ops::kernels::buildSgemmKernels(ModuleBuilder &mb) {
  buildSgemm(mb, /*aligned=*/false);
  buildSgemm(mb, /*aligned=*/true);
}

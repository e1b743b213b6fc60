//===- SgemmKernels.cpp - full-precision f32 GEMM on the CUDA cores --------===//
//
// C = alpha * A * B + beta * C in f32 (FMA, no tensor cores: every bit of
// the inputs counts), A (M x K) and B (K x N) each row- or column-major
// with a leading dimension, any M, N, K. A block of 256 threads owns a
// 128 x 128 tile of C; thread (tx, ty) = (tid % 16, tid / 16) owns the
// 8 x 8 elements at rows ty + 16 i and columns tx + 16 j. Each operand's
// tile is copied as it lies in memory (a column-major operand as its
// transpose, [k][m] or [n][k]), and read so that no read conflicts:
//  - A's element (ty + 16 i, k) is one of the warp's two rows: a broadcast
//    from an [m][k] tile or a [k][m] one alike;
//  - B's elements (k, tx + 16 j) of a [k][n] tile: the half-warp's 16 lanes
//    read 16 consecutive floats (one wavefront);
//  - from an [n][k] tile a lane reads its column's 4 consecutive k at
//    once (ld.shared.v4); the tile takes the layout table's swizzle for
//    64-byte rows (Swizzle<3, 4, 3>), under which the 8 rows a
//    quarter-warp reads land in 8 distinct 16-byte slots, as do the
//    copies' consecutive chunks.
// The interpreter tests assert it for every layout.
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
/// k values of a column-major B a lane reads at once (one 16-byte read).
constexpr unsigned kBVector = 4;

void buildSgemm(ModuleBuilder &mb, const SgemmConfig &c) {
  mb.kernel(sgemmName(c), {int32_t(kSgemmThreads)}, [c](KernelBuilder &k) {
    const auto p = support::gemmParams<float, float>(k);
    const CopyAlignment copies =
        c.aligned ? CopyAlignment::Promised : CopyAlignment::Checked;
    U32 tid = k.threadId();
    U32 tx = tid % 16u, ty = tid / 16u;
    U32 row0 = k.blockId(Dim::y) * kTile, col0 = k.blockId() * kTile;
    // Plain row-major tiles (no swizzle: the reads above are conflict-free
    // as they are, and every read is then the tile's base + an immediate);
    // a column-major B's [n][k] tile without a layout: kaio-assign-shared-
    // layouts swizzles it (padding its rows would make the copies' chunk
    // writes conflict).
    const TileLayout plain;
    auto aTile = [&] {
      return c.aColMajor ? k.shared<float>({kDepth, kTile}, plain)
                         : k.shared<float>({kTile, kDepth}, plain);
    };
    auto bTile = [&] {
      return c.bColMajor ? k.shared<float>({kTile, kDepth})
                         : k.shared<float>({kDepth, kTile}, plain);
    };
    std::array<Shared<float>, 2> as = {aTile(), aTile()};
    std::array<Shared<float>, 2> bs = {bTile(), bTile()};
    std::array<F32, kAccs> init;
    for (F32 &x : init)
      x = k.constant(0.0f);
    // acc[i * 8 + j] += A (ty + 16 i, kk) * B (kk, tx + 16 j), kk in groups
    // of kBVector (a column-major B's reads).
    auto multiply = [&](const Shared<float> &at, const Shared<float> &bt,
                        std::array<F32, kAccs> acc) {
      for (unsigned k4 = 0; k4 < kDepth; k4 += kBVector) {
        std::array<std::array<F32, kBVector>, kPerThread> bv;
        if (c.bColMajor)
          for (unsigned j = 0; j < kPerThread; ++j) {
            auto v = bt.template loadVector<kBVector>({tx + 16 * j, k4});
            for (unsigned q = 0; q < kBVector; ++q)
              bv[j][q] = v[q];
          }
        for (unsigned q = 0; q < kBVector; ++q) {
          unsigned kk = k4 + q;
          std::array<F32, kPerThread> av;
          for (unsigned i = 0; i < kPerThread; ++i)
            av[i] = c.aColMajor ? F32(at(kk, ty + 16 * i))
                                : F32(at(ty + 16 * i, kk));
          if (!c.bColMajor)
            for (unsigned j = 0; j < kPerThread; ++j)
              bv[j][q] = bt(kk, tx + 16 * j);
          for (unsigned i = 0; i < kPerThread; ++i)
            for (unsigned j = 0; j < kPerThread; ++j)
              acc[i * kPerThread + j] =
                  fma(av[i], bv[j][q], acc[i * kPerThread + j]);
        }
      }
      return acc;
    };
    std::array<F32, kAccs> acc = k.for_(
        0u, p.k, 2 * kDepth, init,
        [&](U32 k0, std::array<F32, kAccs> s) {
          std::array<Token, 2> landed;
          for (unsigned h = 0; h < 2; ++h) {
            U32 kh = k0 + h * kDepth;
            Token ta =
                c.aColMajor
                    ? k.asyncCopy(p.a, kh, row0, p.k, p.m, p.lda, as[h], copies)
                    : k.asyncCopy(p.a, row0, kh, p.m, p.k, p.lda, as[h], copies);
            Token tb =
                c.bColMajor
                    ? k.asyncCopy(p.b, col0, kh, p.n, p.k, p.ldb, bs[h], copies)
                    : k.asyncCopy(p.b, kh, col0, p.k, p.n, p.ldb, bs[h], copies);
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

std::vector<SgemmConfig> kaio::ops::kernels::getSgemmConfigs() {
  // Rows that are not 16-byte aligned (the copies' run-time test and
  // element-wise path): row-major A and B only.
  return {{false, false, false}, {false, false, true}, {true, false, true},
          {false, true, true},   {true, true, true}};
}

void kaio::ops::kernels::buildSgemmKernels(ModuleBuilder &mb) {
  for (const SgemmConfig &c : getSgemmConfigs())
    buildSgemm(mb, c);
}

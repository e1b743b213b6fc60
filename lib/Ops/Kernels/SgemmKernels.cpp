//===- SgemmKernels.cpp - full-precision f32 GEMM on the CUDA cores --------===//
//
// C = alpha * A * B + beta * C in f32 (FMA, no tensor cores: every bit of
// the inputs counts), A (M x K) and B (K x N) each row- or column-major
// with a leading dimension, any M, N, K. A block of 256 threads owns a
// 128 x 128 tile of C; thread (tx, ty) = (tid % 16, tid / 16) owns the
// 8 x 8 elements at rows 4 ty + r and 64 + 4 ty + r, columns 4 tx + c and
// 64 + 4 tx + c (r, c < 4): two runs of 4 consecutive rows and columns, so
// that every shared read is 16 bytes and C is written 16 bytes at a time.
// Each operand's tile is copied as it lies in memory (a column-major one
// as its transpose, [k][m] or [n][k]) and read 16 bytes at a time, 4 reads
// (16 floats) per 64 FMA a k step whatever the layouts:
//  - from a [k][m] A tile the thread's two runs of rows at one k (the
//    half-warp reads one 16-byte chunk: a broadcast), from a [k][n] B tile
//    its two runs of columns (the half-warp: 16 consecutive chunks);
//  - from an [m][k] A tile 4 consecutive k of each of its 8 rows (a
//    quarter-warp's lanes share a row: a broadcast), from an [n][k] B tile
//    the same of its columns: a quarter-warp reads rows 4 apart, which the
//    layout table's swizzle for 16-byte reads of rows 4 apart
//    (Swizzle<3, 4, 4> on 64-byte rows) spreads over 8 bank groups, as it
//    does the copies' consecutive chunks.
// Operands read 4 k at once are held through those 4 k steps: 32 floats of
// A (row-major A), or of B (column-major B and A); with both K-contiguous,
// A's 32 and B's 16 columns' worth in two halves (48 registers, not 64).
// The interpreter tests assert the conflict-free reads, the 16-byte reads
// only and their count, the 16-byte C accesses.
// K advances by two 16-deep tiles per trip: both are copied with cp.async
// at its start (zero fill past M, N, K), and the second lands while the
// first is multiplied. The epilogue writes C 4 columns at a time where the
// host says C's rows are 16-byte aligned (kGemmVectorC; element by element
// at the ragged right edge); in the checked variant other rows pass through
// shared memory, a row of the thread's 8 at a time, and each warp writes 32
// consecutive elements a store (the aligned variants write them element by
// element: staging would cost them registers).
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include "Kaio/Dialect/PTX/IR/Swizzle.h"

#include "llvm/Support/ErrorHandling.h"

#include <array>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;

namespace {

constexpr unsigned kTile = kSgemmBlockTile, kDepth = 16, kPerThread = 8;
constexpr unsigned kAccs = kPerThread * kPerThread;
/// Consecutive rows (columns) a thread owns in each half of the tile, and
/// the k values a 16-byte read of a K-contiguous tile holds.
constexpr unsigned kRun = 4, kHalf = kTile / 2;
static_assert(kPerThread == 2 * kRun && kHalf == 16 * kRun,
              "16 x 16 threads, two runs of 4 rows and columns each");

/// Row (column) e of a thread's 8, given its first: 4 ty (4 tx).
U32 ownedAt(const U32 &first, unsigned e) {
  return first + (e / kRun) * kHalf + e % kRun;
}

/// The layout of a 16-deep K-contiguous tile whose quarter-warps read 16
/// bytes of 8 rows kRun apart ([n][k] B): the table's swizzle for them.
TileLayout kContiguousLayout() {
  std::optional<ptx::Swizzle> s =
      ptx::getConflictFreeSwizzle(kDepth * sizeof(float), kRun);
  if (!s) // SwizzleTest covers the entry
    llvm::report_fatal_error("the layout table has no swizzle for 64-byte "
                             "rows 4 apart");
  TileLayout layout;
  layout.swizzleBits = s->bits;
  layout.swizzleBase = s->base;
  layout.swizzleShift = s->shift;
  return layout;
}

using Run = std::array<F32, kRun>;

void buildSgemm(ModuleBuilder &mb, const SgemmConfig &c) {
  mb.kernel(sgemmName(c), {int32_t(kSgemmThreads)}, [c](KernelBuilder &k) {
    const auto p = support::gemmParams<float, float>(k);
    const CopyAlignment copies =
        c.aligned ? CopyAlignment::Promised : CopyAlignment::Checked;
    U32 tid = k.threadId();
    U32 row4 = (tid / 16u) * kRun, col4 = (tid % 16u) * kRun;
    U32 row0 = k.blockId(Dim::y) * kTile, col0 = k.blockId() * kTile;
    // Tiles plain where a quarter-warp's reads are one chunk or 8
    // consecutive ones (every read is then the tile's base + an
    // immediate): [k][m], [k][n] and [m][k] (a quarter-warp has one row);
    // an [n][k] B tile swizzled.
    const TileLayout plain, kMajor = kContiguousLayout();
    auto aTile = [&] {
      return c.aColMajor ? k.shared<float>({kDepth, kTile}, plain)
                         : k.shared<float>({kTile, kDepth}, plain);
    };
    auto bTile = [&] {
      return c.bColMajor ? k.shared<float>({kTile, kDepth}, kMajor)
                         : k.shared<float>({kDepth, kTile}, plain);
    };
    std::array<Shared<float>, 2> as = {aTile(), aTile()};
    std::array<Shared<float>, 2> bs = {bTile(), bTile()};
    std::array<F32, kAccs> init;
    for (F32 &x : init)
      x = k.constant(0.0f);
    // The 4 consecutive k (from k4) of a K-contiguous tile's row (column).
    auto kRunOf = [&](const Shared<float> &t, const U32 &line, unsigned k4) {
      return t.template loadVector<kRun>({line, k4});
    };
    // Both runs (8 values) of a [k][m] or [k][n] tile at k.
    auto linesAt = [&](const Shared<float> &t, unsigned kk, const U32 &first) {
      std::array<F32, kPerThread> out;
      for (unsigned h = 0; h < 2; ++h) {
        auto v = t.template loadVector<kRun>({kk, first + h * kHalf});
        for (unsigned e = 0; e < kRun; ++e)
          out[h * kRun + e] = v[e];
      }
      return out;
    };
    // With A and B both K-contiguous B's columns come in two halves, so
    // that A's 32 held values and 16 of B's are live, not 64.
    const unsigned bParts = c.bColMajor && !c.aColMajor ? 2 : 1;
    // acc[i * 8 + j] += A (row i, kk) * B (kk, column j).
    auto multiply = [&](const Shared<float> &at, const Shared<float> &bt,
                        std::array<F32, kAccs> acc) {
      for (unsigned k4 = 0; k4 < kDepth; k4 += kRun) {
        std::array<Run, kPerThread> aHeld, bHeld;
        if (!c.aColMajor)
          for (unsigned i = 0; i < kPerThread; ++i) {
            auto v = kRunOf(at, ownedAt(row4, i), k4);
            for (unsigned e = 0; e < kRun; ++e)
              aHeld[i][e] = v[e];
          }
        for (unsigned part = 0; part < bParts; ++part) {
          const unsigned j0 = part * kPerThread / bParts,
                         j1 = (part + 1) * kPerThread / bParts;
          if (c.bColMajor)
            for (unsigned j = j0; j < j1; ++j) {
              auto v = kRunOf(bt, ownedAt(col4, j), k4);
              for (unsigned e = 0; e < kRun; ++e)
                bHeld[j][e] = v[e];
            }
          for (unsigned q = 0; q < kRun; ++q) {
            const unsigned kk = k4 + q;
            std::array<F32, kPerThread> av, bv;
            if (c.aColMajor)
              av = linesAt(at, kk, row4);
            else
              for (unsigned i = 0; i < kPerThread; ++i)
                av[i] = aHeld[i][q];
            if (c.bColMajor)
              for (unsigned j = j0; j < j1; ++j)
                bv[j] = bHeld[j][q];
            else
              bv = linesAt(bt, kk, col4);
            for (unsigned i = 0; i < kPerThread; ++i)
              for (unsigned j = j0; j < j1; ++j)
                acc[i * kPerThread + j] =
                    fma(av[i], bv[j], acc[i * kPerThread + j]);
          }
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
    Pred vectorC = (p.epilogue & uint32_t(kGemmVectorC)) != 0u;
    auto result = [&](const F32 &sum, const F32 &old, const F32 &colBias,
                      const F32 &rowBias) {
      return support::activateBy(
          k, act, fma(old, p.beta, p.alpha * sum) + colBias + rowBias);
    };
    // Each thread writes its own runs, 4 columns at a time where C's rows
    // are 16-byte aligned, else (and at a ragged right edge) element by
    // element.
    auto writeOwnRuns = [&] {
      std::array<U32, 2> cols;
      std::array<Pred, 2> whole;
      std::array<Run, 2> colBias;
      for (unsigned h = 0; h < 2; ++h) {
        cols[h] = col0 + col4 + h * kHalf;
        whole[h] = vectorC & (cols[h] + kRun <= p.n);
        colBias[h] = support::loadEdgeChunkOr<kRun>(
            k, p.bias, cols[h], p.n, whole[h], biasCols, 0.0f);
      }
      for (unsigned i = 0; i < kPerThread; ++i) {
        U32 row = row0 + ownedAt(row4, i);
        k.if_(row < p.m, [&] {
          auto crow = p.c + cast<uint64_t>(row) * cast<uint64_t>(p.ldc);
          F32 rowBias = p.bias.load(row, biasRows, 0.0f);
          for (unsigned h = 0; h < 2; ++h) {
            Run old = support::loadEdgeChunkOr<kRun>(k, crow, cols[h], p.n,
                                                     whole[h], readC, 0.0f);
            Run v;
            for (unsigned e = 0; e < kRun; ++e)
              v[e] = result(acc[i * kPerThread + h * kRun + e], old[e],
                            colBias[h][e], rowBias);
            support::storeEdgeChunk<kRun>(k, crow, cols[h], p.n, whole[h], v);
          }
        });
      }
    };
    // The `_aligned` variants (16-byte lines of A and B: C's too, in
    // practice) keep that alone: staging costs registers (sm_80: 121 -> 136
    // for column-major A, which then no longer runs two blocks an SM).
    if (c.aligned) {
      writeOwnRuns();
      return;
    }
    // The checked variant (lines not 16-byte aligned, e.g. N odd) stages C:
    // a thread writes its two runs of row i (16 bytes each, conflict-free)
    // to shared row tid / 16, then each warp writes its two rows, lane l at
    // columns l + 32 j: 128 contiguous bytes a store, where the thread's
    // own 4-byte stores are 16 bytes apart (a quarter of each sector).
    Shared<float> staged = k.shared<float>({kSgemmThreads / 16, kTile}, plain);
    k.if_(vectorC, writeOwnRuns, [&] {
      U32 warp = tid / 32u, lane = tid % 32u;
      constexpr unsigned kPerLane = kTile / 32;
      std::array<U32, kPerLane> cols;
      std::array<Pred, kPerLane> inside;
      std::array<F32, kPerLane> colBias;
      for (unsigned j = 0; j < kPerLane; ++j) {
        cols[j] = col0 + lane + j * 32;
        inside[j] = cols[j] < p.n;
        colBias[j] = p.bias.load(cols[j], biasCols & inside[j], 0.0f);
      }
      for (unsigned i = 0; i < kPerThread; ++i) {
        for (unsigned h = 0; h < 2; ++h) {
          Run v;
          for (unsigned e = 0; e < kRun; ++e)
            v[e] = acc[i * kPerThread + h * kRun + e];
          staged.storeVector<kRun>({tid / 16u, col4 + h * kHalf}, v);
        }
        k.barrier();
        for (unsigned r = 0; r < 2; ++r) {
          U32 line = warp * 2u + r;
          U32 row = row0 + ownedAt(line * kRun, i);
          k.if_(row < p.m, [&] {
            auto crow = p.c + cast<uint64_t>(row) * cast<uint64_t>(p.ldc);
            F32 rowBias = p.bias.load(row, biasRows, 0.0f);
            for (unsigned j = 0; j < kPerLane; ++j) {
              F32 old = crow.load(cols[j], readC & inside[j], 0.0f);
              F32 v = result(staged.load({line, lane + j * 32}), old,
                             colBias[j], rowBias);
              crow.store(cols[j], v, inside[j]);
            }
          });
        }
        // The warp's lanes have read row i before they replace it with
        // row i + 1 (each warp reads back only the rows it staged: a warp
        // barrier would do; kaio has the block's).
        if (i + 1 < kPerThread)
          k.barrier();
      }
    });
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

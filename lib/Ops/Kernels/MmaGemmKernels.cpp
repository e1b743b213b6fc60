//===- MmaGemmKernels.cpp - the portable tensor-core GEMM (mma.sync) ------===//
//
// C = alpha * A * B + beta * C on mma.sync tensor cores (sm_80 and later:
// the library's GEMM wherever the sm_90a kernel does not run), A and B f16
// or bf16 (m16n8k16), each row- or column-major with a leading dimension, C
// f32 or the inputs' type, row-major with a leading dimension; any M, N, K.
// K-major f32 A and B multiply as tf32 (m16n8k8, C f32) and K-major s8 A
// and B as s8 (m16n8k32, s32 sums; C s32 exact, or f32, f16 or bf16 scaled
// like any other): one kernel, whose k steps are 32 bytes of K for every
// input type (16 f16, 8 tf32, 32 s8), so that tiles, copies, swizzles and
// fragment registers are the same.
//
// Written in the tile language (the C++ builder); the compiler does the
// rest:
//  - a block of kMmaGemmThreads threads (4 warps, 2 x 2) owns a
//    kMmaGemmBlockM x kMmaGemmBlockN tile of C; each warp a 64 x 64 tile,
//    held as 4 x 8 accumulator atoms (128 f32 registers);
//  - per kMmaGemmBlockK-deep step, the block copies A's and B's tiles into
//    shared memory in the layout they have in memory (a column-major
//    operand as its transpose, [k][m] or [n][k]), 16-byte cp.async chunks
//    unrolled for the block (kaio.async_copy; zero fill past M, N, K);
//  - K may be split across grid z (decode-like M: a split's partial sums
//    into the host's workspace, gemm_split_reduce adds them);
//  - the loop is marked for mmaGemmStages pipeline stages
//    (kaio-pipeline-copies): each tile gets that many buffers and the
//    copies of step i + stages - 1 are in flight while step i computes,
//    issued after the step's one barrier (which both publishes step i's
//    tiles and ends every warp's reads of step i - 1's buffers, the ones
//    refilled: CUTLASS's multistage order, one barrier a step);
//    4 in the default variant (two blocks an SM), 3 in the one built for
//    three (`.minnctapersm 3`, at most 168 registers; kMmaGemmBlocksPerSM);
//  - per 32 bytes of K a warp loads its 4 A atoms (ldmatrix.x4; .trans
//    from a [k][m] tile) and 8 B atoms (ldmatrix.x4.trans pairs from a
//    [k][n] tile, plain from an [n][k] one; tf32 registers rounded by
//    cvt.rna) and issues 32 mma.sync;
//  - the two-block variant's pipeline prefetches (PipelineReads::Prefetch;
//    aligned copies): step i + 1's wait, barrier and first 16-of-K
//    fragments are issued before step i's last 32 mma.sync, which cover
//    their latency (CUTLASS's fragment double buffering across k tiles);
//    the wait then leaves one step's copies in flight, not two;
//  - kaio-assign-shared-layouts XOR-swizzles the tiles so that 16-byte
//    copies and ldmatrix rows are bank-conflict free (the interpreter tests
//    assert it);
//  - the epilogue is staged through shared memory (kMmaGemmStageRows rows of
//    the block's tile at a time, rows padded by 8 words: the accumulators'
//    8-byte writes from a warp's 8 rows land 8 banks apart) and fused:
//    each thread owns one column of C, so the read-back is conflict-free,
//    each row of C is written by consecutive threads (coalesced), and a
//    column bias is loaded once; per element out = act(alpha * acc +
//    beta * C + bias) (beta 0 never reads C; the activation one copy of
//    each formula behind a uniform branch, Activation.h), converted to
//    C's type; an s32 C gets acc + beta C (beta 0 or 1). The store loop is
//    a loop, not unrolled: the kernel stays small.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

#include <tuple>
#include <type_traits>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

namespace {

/// The mma.sync shape of an input type: 32 bytes of K.
template <class T> constexpr ptx::MMAShape mmaShapeOf() {
  if constexpr (std::is_same_v<T, float>)
    return ptx::MMAShape::m16n8k8; // tf32
  else if constexpr (std::is_same_v<T, int8_t>)
    return ptx::MMAShape::m16n8k32;
  else
    return ptx::MMAShape::m16n8k16;
}
/// The accumulators' type: s32 sums of s8 products, else f32.
template <class T>
using AccOf = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, float>;
constexpr unsigned kStepBytes = 32;

constexpr unsigned kBM = kMmaGemmBlockM, kBN = kMmaGemmBlockN;
constexpr unsigned kWarpsN = 2, kWarpM = 64, kWarpN = 64;
constexpr unsigned kAtomsM = kWarpM / 16, kAtomsN = kWarpN / 8;
static_assert(kMmaGemmThreads == 32 * (kBM / kWarpM) * (kBN / kWarpN),
              "one warp per 64 x 64 tile of the block's");
static_assert(kBN / kWarpN == kWarpsN, "2 x 2 warps");
static_assert(kMmaGemmThreads == kBN, "the epilogue: a thread per column");
static_assert(kMmaGemmStageRows == (kBM / kWarpM) * 16,
              "a staged pass: one atom row (16 rows) of each warp row");
constexpr unsigned kPasses = kWarpM / 16;


/// The epilogue's shared stage: kMmaGemmStageRows rows of the block's
/// accumulators, each row padded by 8 words (see the header); and where a
/// thread's warp puts its atoms in it.
template <class Acc> struct EpilogueStage {
  Shared<Acc> tile;
  U32 tid, col, row, warpCol;
  EpilogueStage(KernelBuilder &k, const U32 &col0)
      : tile(k.shared<Acc>({kMmaGemmStageRows, kBN},
                           TileLayout{MatrixOrder::row_major, /*pad=*/8})),
        tid(k.threadId()), col(col0 + tid),
        row((k.warpId() / kWarpsN) * 16u),
        warpCol((k.warpId() % kWarpsN) * kWarpN) {}
  /// Stages atom row `pass` of every warp: rows 64 h + 16 pass + r of the
  /// block's tile (h the warp row) at stage row 16 h + r; then calls
  /// `write(stage row r, C's row)` for each staged row (one column a
  /// thread) and ends with a barrier (the next pass overwrites the stage).
  template <class Fn>
  void forEachPass(KernelBuilder &k, const Frag &acc, const U32 &row0,
                   Fn write) {
    for (unsigned pass = 0; pass < kPasses; ++pass) {
      acc.slice(pass, 0, FragTile{1, kAtomsN}).store(tile, row, warpCol);
      k.barrier();
      k.for_(0u, kMmaGemmStageRows, 1u, [&](U32 r) {
        write(r, row0 + (r / 16u) * kWarpM + pass * 16 + r % 16u);
      });
      k.barrier();
    }
  }
};

/// An s32 C: the exact sums plus beta C (beta 0 or 1, the host checks).
template <class T>
void writeSums(KernelBuilder &k, const Frag &acc,
               const support::GemmParams<T, int32_t> &p, const U32 &row0,
               const U32 &col0) {
  EpilogueStage<int32_t> stage(k, col0);
  Pred colIn = stage.col < p.n;
  Pred readC = p.beta != 0.0f;
  stage.forEachPass(k, acc, row0, [&](const U32 &r, const U32 &row) {
    k.if_((row < p.m) & colIn, [&] {
      auto crow = p.c + cast<uint64_t>(row) * cast<uint64_t>(p.ldc);
      I32 sum = stage.tile(r, stage.tid);
      crow.store(stage.col, sum + crow.load(stage.col, readC, 0));
    });
  });
}

/// C = act(alpha * acc + beta * C + bias), staged through shared memory
/// kMmaGemmStageRows rows at a time (see the header); s32 sums convert to
/// f32 first (exact up to 2^24).
template <class T, class O>
void writeEpilogue(KernelBuilder &k, const Frag &acc,
                   const support::GemmParams<T, O> &p, const U32 &row0,
                   const U32 &col0) {
  EpilogueStage<AccOf<T>> stage(k, col0);
  const U32 &col = stage.col;
  Pred colIn = col < p.n;
  Pred readC = p.beta != 0.0f;
  U32 act = p.epilogue & uint32_t(kGemmActivationMask);
  Pred biasRows = (p.epilogue & uint32_t(kGemmBiasRows)) != 0u;
  // A column bias: loaded once (0 without one, or past N).
  F32 colBias = support::toF32(p.bias.load(
      col, colIn & ((p.epilogue & uint32_t(kGemmBiasColumns)) != 0u), 0.0f));
  stage.forEachPass(k, acc, row0, [&](const U32 &r, const U32 &row) {
    k.if_((row < p.m) & colIn, [&] {
      auto crow = p.c + cast<uint64_t>(row) * cast<uint64_t>(p.ldc);
      Val<AccOf<T>> sum = stage.tile(r, stage.tid);
      F32 v = p.alpha * cast<float>(sum);
      v = fma(support::toF32(crow.load(col, readC, 0.0f)), p.beta, v);
      F32 rowBias = support::toF32(p.bias.load(row, biasRows, 0.0f));
      v = support::activateBy(k, act, v + colBias + rowBias);
      crow.store(col, support::fromF32<O>(v));
    });
  });
}

template <class T, class O>
void buildMmaGemm(ModuleBuilder &mb, const MmaGemmConfig &c) {
  constexpr ptx::MMAShape kShape = mmaShapeOf<T>();
  mb.kernel(mmaGemmName(c), {int32_t(kMmaGemmThreads)},
            [c](KernelBuilder &k) {
    // A k tile's depth, and one mma's, in elements.
    const unsigned kBK = mmaGemmBlockK(c.in),
                   kStep = kBK * kStepBytes / kMmaGemmBlockKBytes;
    if (c.blocksPerSM != 2)
      k.setMinBlocksPerSM(int32_t(c.blocksPerSM));
    auto p = support::gemmParams<T, O>(k);
    U32 kPerSplit = k.param<uint32_t>("k_per_split");
    U64 cSplit = k.param<uint64_t>("c_split");
    // This block's split of K, and its C (a split's partial sums).
    U32 split = k.blockId(Dim::z);
    U32 kBegin = split * kPerSplit;
    U32 kEnd = min(kBegin + kPerSplit, p.k);
    p.c = p.c + cast<uint64_t>(split) * cSplit;
    const CopyAlignment copies =
        c.aligned ? CopyAlignment::Promised : CopyAlignment::Checked;
    U32 row0 = k.blockId(Dim::y) * kBM, col0 = k.blockId() * kBN;
    U32 warp = k.warpId();
    U32 wrow = (warp / kWarpsN) * kWarpM, wcol = (warp % kWarpsN) * kWarpN;
    // Each operand's tile as it lies in memory: a column-major A is A^T
    // ([k][m]), a column-major B is B^T ([n][k]).
    Shared<T> as = c.aColMajor ? k.shared<T>({kBK, kBM}) : k.shared<T>({kBM, kBK});
    Shared<T> bs = c.bColMajor ? k.shared<T>({kBN, kBK}) : k.shared<T>({kBK, kBN});
    Frag init = k.fragFill<AccOf<T>>(FragRole::acc, kShape, AccOf<T>(0),
                                     FragTile{kAtomsM, kAtomsN});
    const PipelineReads reads = mmaGemmPrefetches(c)
                                    ? PipelineReads::Prefetch
                                    : PipelineReads::InOrder;
    auto [acc] = k.pipeline(mmaGemmStages(c.blocksPerSM), reads)
                     .forCarrying(kBegin, kEnd, kBK, std::tuple<Frag>(init),
                                  [&](U32 k0, Frag s) {
      Token ta = c.aColMajor
                     ? k.asyncCopy(p.a, k0, row0, p.k, p.m, p.lda, as, copies)
                     : k.asyncCopy(p.a, row0, k0, p.m, p.k, p.lda, as, copies);
      Token tb = c.bColMajor
                     ? k.asyncCopy(p.b, col0, k0, p.n, p.k, p.ldb, bs, copies)
                     : k.asyncCopy(p.b, k0, col0, p.k, p.n, p.ldb, bs, copies);
      k.asyncWait({ta, tb});
      k.barrier();
      for (unsigned kk = 0; kk < kBK; kk += kStep) {
        Frag fa =
            c.aColMajor
                ? as.loadFragmentTransposed(FragRole::a, kShape, kk, wrow,
                                            FragTile{kAtomsM, 1})
                : as.loadFragment(FragRole::a, kShape, wrow, kk,
                                  FragTile{kAtomsM, 1});
        Frag fb = c.bColMajor
                      ? bs.loadFragmentTransposed(kShape, wcol, kk,
                                                  FragTile{1, kAtomsN})
                      : bs.loadFragment(FragRole::b, kShape, kk, wcol,
                                        FragTile{1, kAtomsN});
        s = k.mma(fa, fb, s);
      }
      // No barrier here: the barrier above also fences the refill (the
      // pipeline issues step i + stages - 1's copies after it, when every
      // warp is done with step i - 1, whose buffers they overwrite).
      return std::tuple<Frag>(s);
    });
    // The pipeline's last copies (predicated off past the split's end) have
    // landed.
    k.asyncWait({});
    if constexpr (std::is_same_v<O, int32_t>)
      writeSums(k, acc, p, row0, col0);
    else
      writeEpilogue(k, acc, p, row0, col0);
  });
}

template <class T>
void buildFor(ModuleBuilder &mb, const MmaGemmConfig &c) {
  if constexpr (std::is_same_v<T, int8_t>) {
    switch (c.out) {
    case GemmElem::S32:
      return buildMmaGemm<T, int32_t>(mb, c);
    case GemmElem::F16:
      return buildMmaGemm<T, f16>(mb, c);
    case GemmElem::BF16:
      return buildMmaGemm<T, bf16>(mb, c);
    default:
      return buildMmaGemm<T, float>(mb, c);
    }
  } else if (c.out == GemmElem::F32) {
    buildMmaGemm<T, float>(mb, c);
  } else {
    buildMmaGemm<T, T>(mb, c);
  }
}

} // namespace

std::vector<MmaGemmConfig> kaio::ops::kernels::getMmaGemmConfigs() {
  std::vector<MmaGemmConfig> configs;
  for (GemmElem in : {GemmElem::F16, GemmElem::BF16})
    for (GemmElem out : {GemmElem::F32, in})
      for (bool aCol : {false, true})
        for (bool bCol : {false, true})
          for (bool aligned : {false, true})
            // Rows that are not 16-byte aligned take the copies' run-time
            // test and element-wise path (twice the code): embedded for
            // row-major A and B only.
            for (unsigned blocks : kMmaGemmBlocksPerSM)
              if (blocks == 2 ? aligned || (!aCol && !bCol) : aligned)
                configs.push_back({in, out, aCol, bCol, aligned, blocks});
  // tf32 and s8 read K-major operands only (ldmatrix moves their 4-byte
  // runs of K; .trans only 16-bit halves), 16-byte aligned lines.
  configs.push_back({GemmElem::F32, GemmElem::F32, false, true, true, 2});
  for (GemmElem out :
       {GemmElem::S32, GemmElem::F32, GemmElem::F16, GemmElem::BF16})
    configs.push_back({GemmElem::S8, out, false, true, true, 2});
  return configs;
}

void kaio::ops::kernels::buildMmaGemmKernels(ModuleBuilder &mb) {
  for (const MmaGemmConfig &c : getMmaGemmConfigs()) {
    switch (c.in) {
    case GemmElem::F16:
      buildFor<f16>(mb, c);
      break;
    case GemmElem::BF16:
      buildFor<bf16>(mb, c);
      break;
    case GemmElem::F32:
      buildFor<float>(mb, c);
      break;
    case GemmElem::S8:
      buildFor<int8_t>(mb, c);
      break;
    default:
      llvm_unreachable("no such portable GEMM input");
    }
  }
}

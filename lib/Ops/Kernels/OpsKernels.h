//===- OpsKernels.h - the op library's builder kernels -----------*- C++ -*-===//
//
// Kernels written with the C++ builder (Kaio/Builder) once for every element
// type (f32, f16, bf16) and access width (16-byte vectors, or scalars where
// the data is not aligned): softmax, log-softmax, RMSNorm and LayerNorm over
// rows (RowKernels.cpp), element-wise activations (ElementwiseKernels.cpp),
// matrix-vector products (GemvKernels.cpp).
// The build-time generator writes them as a .mlir module that
// kaio_add_kernels compiles and embeds into KaioOps; the tests build the
// same module in-process and run it in the interpreter.
//
// The kernels' names, parameter lists and flag bits are the contract with
// lib/Ops/*.cpp, which launch them: keep both in step.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_OPSKERNELS_H
#define KAIO_LIB_OPS_KERNELS_OPSKERNELS_H

#include "Kaio/Ops/Elementwise.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kaio::builder {
class ModuleBuilder;
} // namespace kaio::builder

// The runtime-only op library includes this header too: MLIR types by
// declaration only.
namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace kaio::ops::kernels {

/// Threads per block of the row kernels (one block per row; the
/// register-row kernels of eight chunks' worth: registerRowThreads).
constexpr unsigned kRowBlock = 256;

/// Rows a block of the warp-per-row softmax kernels handles (a warp each).
constexpr unsigned kRowsPerWarpBlock = kRowBlock / 32;
/// Rows up to this long take the warp-per-row softmax.
constexpr std::int64_t kWarpSoftmaxMaxCols = 1024;
/// 16-byte chunks each thread of the register-row kernels holds
/// (softmax_regs<R>_*, rms_norm_regs<R>_*, ...: one kernel for each count R
/// here): rows of up to kRowBlock x R chunks are read once (up to 8192 f32,
/// 16384 f16/bf16 elements at the most chunks). The host takes the fewest
/// chunks that hold the row (registerRowChunks): registers scale with R,
/// and fewer of them let more blocks share an SM, more rows in flight.
constexpr unsigned kRegisterRowChunkCounts[] = {1, 2, 4, 8};
constexpr unsigned kRegisterRowChunks = 8; ///< the most
/// Threads per block of the register-row kernels (softmax, log-softmax,
/// the norms, the softmax backward) of R: the row of kRowBlock x R chunks is spread
/// over twice the threads past 4 chunks a thread (8: 512 threads of 4,
/// ptxas 32-60 registers —
/// 64 registers of row at 256 threads left 4 blocks, 32 warps an SM, and
/// 73-78 % of a copy at 8192 f32 columns where 4 chunks a thread at 4096
/// reached 91 %; measured on an H200, docs/perf.md).
constexpr unsigned registerRowThreads(unsigned chunks) {
  return chunks > 4 ? 2 * kRowBlock : kRowBlock;
}
template <class F, std::size_t... I>
void forEachRegisterRowChunksOf(F &fn, std::index_sequence<I...>) {
  (fn(std::integral_constant<unsigned, kRegisterRowChunkCounts[I]>()), ...);
}
/// fn(std::integral_constant<unsigned, R>) for each count R.
template <class F> void forEachRegisterRowChunks(F fn) {
  forEachRegisterRowChunksOf(
      fn, std::make_index_sequence<std::size(kRegisterRowChunkCounts)>());
}
/// The longest row the softmax backward's register-row kernels take (y
/// and dy held: 8192 elements of any type, 64 registers of data).
constexpr std::int64_t kSoftmaxBwdRegisterRowMaxCols = 8192;
/// The longest row the register-row kernels take for elements of
/// `elementBytes` bytes.
constexpr std::int64_t registerRowMaxCols(unsigned elementBytes) {
  return std::int64_t(kRowBlock) * kRegisterRowChunks * (16 / elementBytes);
}
/// The fewest chunks a thread of the register-row kernels holds for rows
/// of `cols` elements (0: longer than registerRowMaxCols).
constexpr unsigned registerRowChunks(std::int64_t cols, unsigned elementBytes) {
  for (unsigned r : kRegisterRowChunkCounts)
    if (cols <= std::int64_t(kRowBlock) * r * (16 / elementBytes))
      return r;
  return 0;
}
/// The same for the softmax backward's register-row kernels (y and dy
/// held: rows of up to kSoftmaxBwdRegisterRowMaxCols).
constexpr unsigned softmaxBwdRegisterRowChunks(std::int64_t cols,
                                               unsigned elementBytes) {
  return cols <= kSoftmaxBwdRegisterRowMaxCols
             ? registerRowChunks(cols, elementBytes)
             : 0;
}

/// Bits of the norm kernels' `flags` parameter.
enum NormFlags : std::uint32_t {
  kNormWeight = 1,   ///< multiply by weight[col]
  kNormBias = 2,     ///< add bias[col] (LayerNorm)
  kNormResidual = 4, ///< normalise x + residual, also stored to sum_out
  kNormMean = 8,     ///< store the row's mean to mean[row] (LayerNorm)
  kNormRstd = 16,    ///< store the row's rstd to rstd[row]
};

/// Adds every row kernel: {softmax, log_softmax, rms_norm, layer_norm} x
/// {f32, f16, bf16} x {scalar, vector}; names like `rms_norm_bf16_v8` (8
/// elements per 16-byte access) and `softmax_f32` (scalar accesses).
/// Softmax and log-softmax also come as `softmax_warp_*` (a warp per row,
/// for short rows); all of them take (x, out, rows, n, ld_x, ld_out, scale,
/// mask_period, mask_offset). The vector kernels also come as
/// `*_regs<R>_<type>_vN` (`softmax_regs4_f32_v4`, same parameters): rows of
/// up to kRowBlock x R 16-byte chunks held in registers, read once, R in
/// kRegisterRowChunkCounts (the host takes registerRowChunks), in blocks of
/// registerRowThreads(R) threads.
void buildRowKernels(builder::ModuleBuilder &mb);

/// Threads per block of the element-wise kernels; each thread handles one
/// 16-byte chunk (or, at a row's end, the elements left) of a row, blocks
/// tile the columns along x and the rows along y (grid-striding past 65535).
constexpr unsigned kElementwiseBlock = 256;

/// Bits of bias_<act> kernels' `flags` parameter.
enum BiasFlags : std::uint32_t { kBiasPresent = 1 };

/// Adds the element-wise kernels:
/// (act: getActivationName, e.g. "bias_gelu_tanh_bf16_v8")
///   bias_<act>_<type>[_vN](x, bias, out, rows, cols, ld_x, ld_out, flags):
///     out = act(x + bias[col]) (no bias without kBiasPresent), act any;
///   glu_<act>_<type>[_vN](gate, up, out, rows, cols, ld_gate, ld_up,
///     ld_out): out = act(gate) * up, act silu (SwiGLU) or a GELU (GeGLU);
///   add_<type>[_vN](a, b, out, rows, cols, ld_a, ld_b, ld_out): a + b.
///   rope_<interleaved|half>_<type>(x, out, positions, cos, sin, rows,
///     heads, head_dim, ld_x, ld_out, ld_cs, max_pos): rotary embedding of
///     each row's heads x head_dim values by the angles of row's position
///     (cos/sin: f32 [max_pos, head_dim / 2]); pairs (2i, 2i+1) or
///     (i, i + head_dim / 2); a position outside [0, max_pos) gives NaN.
void buildElementwiseKernels(builder::ModuleBuilder &mb);
/// Row reductions, in the kernels' names ("reduce_max_bf16_v8").
enum class RowReduction : std::uint8_t { Sum, Max, Min };
constexpr const char *getRowReductionName(RowReduction r) {
  return r == RowReduction::Sum ? "sum" : r == RowReduction::Max ? "max" : "min";
}

/// Bits of the cross_entropy kernel's `flags` parameter.
enum CrossEntropyFlags : std::uint32_t { kCrossEntropyLse = 1 };

/// Adds the row kernels of training and of reductions (kRowBlock threads,
/// registerRowThreads(R) for softmax_bwd_regs<R>; a block per row;
/// TrainingKernels.cpp):
///   softmax_bwd_<type>[_vN](y, dy, dx, n, ld_y, ld_dy, ld_dx, scale):
///     dx = scale * y * (dy - sum(dy * y));
///   log_softmax_bwd_<type>[_vN](y, dy, dx, ...): dx = scale * (dy -
///     exp(y) * sum(dy));
///   {log_}softmax_bwd_regs<R>_<type>_vN(same parameters): rows of up to
///     kSoftmaxBwdRegisterRowMaxCols, y and dy held in registers, R 16-byte
///     chunks of each a thread (softmaxBwdRegisterRowChunks; read once);
///   cross_entropy_<type>[_vN](logits, targets, loss, lse, n, ld, ignore,
///     flags): loss[r] = logsumexp(row) - row[target[r]], 0 for the ignored
///     target, NaN for a target outside [0, n); lse stored with
///     kCrossEntropyLse;
///   cross_entropy_bwd_<type>[_vN](logits, targets, lse, dloss, dx, n, ld,
///     ld_dx, ignore): dx = dloss[r] * (softmax(row) - onehot(target[r]));
///   reduce_<sum|max|min>_<type>[_vN](x, out, n, ld): out[r] (f32) over
///     the row; argmax_<type>[_vN](x, out, n, ld): out[r] (i32) the first
///     index of the maximum (of the first NaN when there is one).
void buildTrainingKernels(builder::ModuleBuilder &mb);

/// Bits of the norm backward kernels' `flags` parameter.
enum NormBackwardFlags : std::uint32_t {
  kNormBwdWeight = 1, ///< the forward multiplied by weight
  kNormBwdLayer = 2,  ///< LayerNorm (subtract the mean), else RMSNorm
  kNormBwdBias = 4,   ///< norm_bwd_reduce: also store dbias
};
/// Threads per block of the parameter-gradient kernels (a column each).
constexpr unsigned kNormParamsBlock = 256;
/// The fused norm backward (dx with the slices' dweight/dbias partials),
/// built for 16-byte chunks only, in blocks of 128, 256 or 512 threads of
/// kNormFusedChunks chunks each: x and dy of the next row staged in shared
/// memory by cp.async (a two-stage pipeline) while the block works on the
/// current one, the weight staged once, each thread's dw, db accumulators
/// (f32) in registers (ptxas: 80 to 126, no spills). Rows of up to 512 *
/// kNormFusedChunks chunks (f32: 4096 elements, f16/bf16: 8192) are read
/// once. The host picks the smallest block whose threads' slots the row
/// fills (more blocks, so more rows, per SM). Other rows and unaligned
/// tensors take the two-kernel path.
constexpr unsigned kNormFusedChunks = 2;
constexpr unsigned kNormFusedBlocks[] = {128, 256, 512};
/// The wide fused variant (`*_norm_bwd_fused_b512r4_*`) for longer rows:
/// up to kNormFusedWideBlock x kNormFusedWideChunks chunks (8192 f32,
/// 16384 f16/bf16 elements), the same pipeline over 160 KiB of staging
/// buffers (dynamic, opted in; a GPU with less, as sm_86/89's 99 KiB,
/// takes the two-kernel path); ptxas: 128 registers, 16-bit rows (66
/// accumulators a thread) spilling under 100 bytes.
constexpr unsigned kNormFusedWideBlock = 512, kNormFusedWideChunks = 4;
/// The fused kernel's block for rows of `chunks` 16-byte chunks: the
/// smallest whose slots hold them, or 0 when none does.
constexpr unsigned normFusedBlock(long long chunks) {
  for (unsigned b : kNormFusedBlocks)
    if (chunks <= static_cast<long long>(b) * kNormFusedChunks)
      return b;
  return 0;
}
/// The column kernels (gemv_t, reduce_cols, the norms' dweight/dbias and
/// their in-order sums of slices) load one chunk per row and fold it: their
/// row loops are unrolled by this ({kaio.unroll}), so a thread has this
/// many loads in flight rather than one.
constexpr unsigned kColumnUnroll = 4;

/// Adds the norm backward kernels (NormBackwardKernels.cpp):
///   rms_norm_bwd_<type>[_vN] and layer_norm_bwd_<type>[_vN](x, dy, weight,
///     mean, rstd, dx, n, ld_x, ld_dy, ld_dx, flags): dx, a block per row;
///   rms_norm_bwd_fused_b<B>[r4]_<type>_vN and
///     layer_norm_bwd_fused_b<B>[r4]_<type>_vN(x,
///     dy, weight, mean, rstd, dx, partial, n, rows, ld_x, ld_dy, ld_dx,
///     rows_per_split, flags): dx and the partials below in one pass, block
///     p (B threads) over rows [p * rows_per_split, ...) (at most
///     B * kNormFusedChunks chunks of N; `r4`: the wide variant);
///   norm_bwd_params_<type>(x, dy, mean, rstd, partial, n, rows, ld_x,
///     ld_dy, rows_per_split, flags): thread j of block (bx, p) sums
///     dy * xhat and dy over rows [p * rows_per_split, ...) of column
///     bx * 256 + j into partial[p][0][j] and partial[p][1][j] (f32);
///   norm_bwd_reduce_<type>(partial, dweight, dbias, n, splits, flags):
///     dweight[j] (dbias[j]) = the sum over p, in order (deterministic).
void buildNormBackwardKernels(builder::ModuleBuilder &mb);

/// Threads per block of the GEMV kernels: one warp per row of A.
constexpr unsigned kGemvBlock = 256;
constexpr unsigned kGemvRowsPerBlock = kGemvBlock / 32;

/// Bits of the GEMV kernels' `flags` parameter.
enum GemvFlags : std::uint32_t { kGemvBias = 1 };

/// Adds gemv_<type>[_vN](a, x, bias, y, m, k, ld_a, flags): y = A x (+ bias)
/// for a row-major m x k A, f32 accumulation; a warp per row walks it in
/// 16-byte chunks and reduces with shuffles.
///
/// And the transposed product y = xᵀ A (A k x n row-major), split along k
/// so that short-and-wide shapes still fill the GPU, deterministically:
///   gemv_t_partial_<type>[_vN](a, x, partial, k, n, ld_a, rows_per_split):
///     thread t of block (bx, s) sums x[r] * A[r, c..c+N) over rows
///     [s * rows_per_split, ...) for its chunk of columns into
///     partial[s][c..] (f32);
///   gemv_t_reduce_<type>(partial, bias, y, n, splits, flags): y[c] = sum
///     over s, in order (+ bias[c] with kGemvBias).
///
/// Column reductions the same way (sum, max, min; NaN propagates):
///   reduce_cols_<op>_<type>[_vN](a, partial, k, n, ld_a, rows_per_split)
///   reduce_cols_finish_<op>(partial, out, n, splits): out[c] (f32).
void buildGemvKernels(builder::ModuleBuilder &mb);

/// FlashAttention forward (AttentionKernels.cpp): warps per block, query
/// rows per block (16 per warp) and keys per step of the key loop.
constexpr unsigned kAttnWarps = 4;
constexpr unsigned kAttnBlockQ = 16 * kAttnWarps;
constexpr unsigned kAttnBlockK = 64;
/// Blocks per SM the tensor-core attention kernels (forward, dQ, dK/dV) are
/// built for (`.minnctapersm`): 8 warps an SM. Without it ptxas may trade
/// spills in the key loop for a third block (the d64 forward: 168
/// registers with 56 bytes of spill loads, against 179 and none).
constexpr unsigned kAttnMinBlocksPerSM = 2;
/// Keys per block of flash_bwd_dkdv: 16 a warp, or at head dims above 128
/// 16 a pair of warps (each accumulates half of dK's and dV's columns).
constexpr unsigned attnDkdvBlockK(unsigned headDim) {
  return headDim > 128 ? kAttnBlockK / 2 : kAttnBlockK;
}

/// Bits of the attention kernels' `flags` parameter.
enum AttentionFlags : std::uint32_t {
  kAttnVarlen = 1,      ///< rows from cu_seqlens_q/k (packed sequences)
  kAttnBottomRight = 2, ///< the diagonal at key j = i + seq_k - seq_q
  kAttnLse = 4,         ///< store each row's logsumexp
};

/// Adds the attention kernels (AttentionKernels.cpp,
/// AttentionBackwardKernels.cpp; grids and math in their headers). Their
/// parameters: each [batch, seq, heads, dim] tensor as its pointer and
/// batch, head (u64) and row (u32) strides in elements; each per-row f32
/// vector ([batch, heads, seq_q]: lse, delta) as its pointer and batch and
/// head strides; then cu_seqlens_q, cu_seqlens_k, seq_q, seq_k, kv_group,
/// scale_log2 (scale * log2 e), scale, window_left, window_right (< 0:
/// unbounded; causal is window_right = 0) and flags (AttentionFlags).
/// Query head h reads key/value head h / kv_group. Row i of a batch sees
/// key j when i + d - window_left <= j <= i + d + window_right and j <
/// seq_k, d = seq_k - seq_q with kAttnBottomRight, else 0. Every row must be
/// 16-byte aligned.
///
///   flash_fwd_<f16|bf16>_d<D>(q, k, v, o, lse, ...): grid
///     (ceil(max seq_q / kAttnBlockQ), heads, batch), 32 * kAttnWarps
///     threads; O = softmax(scale Q K^T) V (0 for a row that sees no key),
///     lse[row] (with kAttnLse) its natural logsumexp (-inf then).
///   flash_bwd_prep_<type>_d<D>(o, do, delta, ...): delta[row] = sum(dO * O)
///     over the row; grid (ceil(max seq_q / 8), heads, batch), 256 threads.
///   flash_bwd_dq_<type>_d<D>(q, k, v, do, dq, lse, delta, ...): dQ = scale
///     dS K, dS = P * (dO V^T - delta), P = exp(scale Q K^T - lse); grid
///     as flash_fwd's.
///   flash_bwd_dkdv_<type>_d<D>(q, k, v, do, dk, dv, lse, delta, ...): dV =
///     sum over the kv group's heads of P^T dO, dK = scale dS^T Q; grid
///     (ceil(max seq_k / attnDkdvBlockK(D)), kv heads, batch), 32 *
///     kAttnWarps threads. No atomics: deterministic. At head dim 128 also
///     flash_bwd_dkdv_single_<type>_d128 (the same, one set of Q/dO tiles:
///     49 KiB where the double-buffered one takes 65, for GPUs whose SM
///     holds less than two of those).
/// Head dims 64, 128 and 256 (the forward and the backward alike).
void buildAttentionKernels(builder::ModuleBuilder &mb);
void buildAttentionBackwardKernels(builder::ModuleBuilder &mb);

/// Bits of the decode kernel's `flags` parameter.
enum DecodeFlags : std::uint32_t {
  kDecodePaged = 1,  ///< K/V pages from block_table, else one cache a batch
  kDecodeCausal = 2, ///< token i of q_len sees keys up to seq_k - q_len + i
};

/// Adds the decode kernels (AttentionDecodeKernels.cpp), added by
/// buildAttentionKernels:
///   flash_decode_<type>_d<D>[_p16](q, k_cache, v_cache (tensors), block_table,
///     block_table_stride, page_size, seqlens_k, q_len, kv_group,
///     row_blocks, keys_per_split, scale_log2, flags, partial_o,
///     partial_lse): grid (splits, kv heads * row_blocks, batch), 32 *
///     kAttnWarps threads; a kv head's rows (kv_group * q_len) in 16-row
///     blocks, block y taking rows 16 (y % row_blocks) .. + 15 of head
///     y / row_blocks (`_r32`, head dims up to kDecodeMaxR32Dim, pages of
///     64-key multiples or none: 32-row blocks, each warp holding two
///     16-row atoms, so that a head's keys are read once for 32 rows —
///     for more than 16 rows, MQA's say); a paged cache's tensors index pages where others index
///     batches (page_size a multiple of 64; of 16 for `_p16`, which copies
///     each 16-key part of a tile from its own page); warp w of split s
///     leaves partial s * kAttnWarps + w of each row in partial_o (f32
///     [batch, kv heads, splits * kAttnWarps, rows, D], O / l) and
///     partial_lse ([..., rows], log2).
///   flash_decode_combine_<type>_d<D>(o, partial_o, partial_lse, splits
///     (all partials), q_len, kv_group): grid (rows, kv heads, batch),
///     kDecodeCombineThreads threads.
void buildAttentionDecodeKernels(builder::ModuleBuilder &mb);
/// cp.async stages of flash_decode's key loop (head dims up to 128; 256
/// has one).
constexpr unsigned kDecodeStages = 2;
/// The largest head dim with a 32-row decode kernel (`_r32`; at 256 its
/// accumulators would not fit the registers).
constexpr unsigned kDecodeMaxR32Dim = 128;
/// The query rows (kv_group * q_len) a decode block holds: 32 with the
/// `_r32` kernels, for more than 16 rows where they exist, else 16.
constexpr unsigned decodeBlockRows(std::int64_t rows, unsigned dim,
                                   bool pageParts) {
  return rows > 16 && dim <= kDecodeMaxR32Dim && !pageParts ? 32 : 16;
}
/// Threads of a flash_decode_combine block (groups of D walking the
/// partials side by side).
constexpr unsigned kDecodeCombineThreads = 512;

/// The full-precision f32 GEMM on the CUDA cores (SgemmKernels.cpp):
/// `sgemm_f32[_acol][_bcol][_aligned](a, b, c, m, n, k, lda, ldb, ldc,
/// alpha, beta, bias, epilogue)`, C = act(alpha A B + beta C + bias)
/// (`epilogue` as the tensor-core kernels', HopperGemmEpilogue), A and B
/// row- or column-major (`_acol`, `_bcol`), C row-major, any shape;
/// kSgemmThreads threads per kSgemmBlockTile x kSgemmBlockTile tile of C
/// (grid x along N, y along M); `_aligned` when A's and B's lines are
/// 16-byte aligned (pointers and leading dimensions), its copies skip the
/// run-time alignment test — the column-major variants need it.
constexpr unsigned kSgemmBlockTile = 128, kSgemmThreads = 256;
struct SgemmConfig {
  /// A column-major A (M contiguous) / B (K contiguous).
  bool aColMajor = false, bColMajor = false;
  /// A's and B's lines (as stored) are 16-byte aligned.
  bool aligned = false;
};
inline std::string sgemmName(const SgemmConfig &c) {
  return std::string("sgemm_f32") + (c.aColMajor ? "_acol" : "") +
         (c.bColMajor ? "_bcol" : "") + (c.aligned ? "_aligned" : "");
}
/// Every embedded variant: row-major A and B checked or aligned, and each
/// column-major combination aligned.
std::vector<SgemmConfig> getSgemmConfigs();
void buildSgemmKernels(builder::ModuleBuilder &mb);

/// The element types of the sm_90a GEMM's operands and result.
enum class GemmElem : std::uint8_t { F16, BF16, E4M3, E5M2, F32, S8, S32 };
/// Its PTX spelling ("f16", "e4m3", ...) and size in bytes (inline: the
/// host names kernels with them).
inline const char *getGemmElemName(GemmElem type) {
  static constexpr const char *kNames[] = {"f16",  "bf16", "e4m3", "e5m2",
                                           "f32",  "s8",   "s32"};
  return kNames[unsigned(type)];
}
/// The wgmma operand type of an input: f32 inputs multiply as tf32 (the
/// tensor core reads the top 19 bits of each element).
inline const char *getGemmMmaTypeName(GemmElem in) {
  return in == GemmElem::F32 ? "tf32" : getGemmElemName(in);
}
/// Inputs wgmma reads K-major only (no transposed form): 8-bit floats and
/// tf32.
inline bool isKMajorOnly(GemmElem in) {
  return in == GemmElem::E4M3 || in == GemmElem::E5M2 || in == GemmElem::F32 ||
         in == GemmElem::S8;
}
constexpr unsigned getGemmElemBytes(GemmElem type) {
  return type == GemmElem::F32 || type == GemmElem::S32 ? 4
         : type == GemmElem::E4M3 || type == GemmElem::E5M2 ||
                 type == GemmElem::S8
             ? 1
             : 2;
}

/// The portable tensor-core GEMM (MmaGemmKernels.cpp, mma.sync, sm_80 and
/// later): C = alpha A B + beta C with A and B f16 or bf16 (m16n8k16), each
/// row- or column-major with a leading dimension, C row-major in f32 or the
/// inputs' type; K-major f32 A and B as tf32 (m16n8k8; C f32) and K-major
/// s8 A and B (m16n8k32, s32 sums; C s32, f32, f16 or bf16); any M, N, K.
/// kMmaGemmThreads threads (4 warps of 64 x 64) per kMmaGemmBlockM x
/// kMmaGemmBlockN tile of C (grid x along N, y along M); an
/// mmaGemmStages-deep cp.async pipeline of tiles kMmaGemmBlockKBytes of K
/// deep (kMmaGemmBlockK 16-bit elements, 16 tf32, 64 s8; 4 stages x (8 KiB
/// of A + 8 KiB of B) = 64 KiB of shared memory, 3 stages = 48 KiB in the
/// 3-blocks-an-SM variant, + 17 KiB for the staged epilogue).
constexpr unsigned kMmaGemmBlockM = 128, kMmaGemmBlockN = 128,
                   kMmaGemmBlockKBytes = 64, kMmaGemmBlockK = 32,
                   kMmaGemmStages = 4, kMmaGemmThreads = 128;
/// The depth of a k tile in elements of the input type.
constexpr unsigned mmaGemmBlockK(GemmElem in) {
  return kMmaGemmBlockKBytes / getGemmElemBytes(in);
}
static_assert(kMmaGemmBlockK * 2 == kMmaGemmBlockKBytes, "16-bit elements");
/// Blocks an SM each variant is built for, and its pipeline depth: 2 (the
/// default, measured with 224 registers, now 254 with prefetched
/// fragments; 4 stages, 81 KiB) or 3
/// (`.minnctapersm 3`: at most 168 registers, so 12 warps an SM where 2
/// blocks give 8 — ncu found the 2-block kernel short of warps to hide
/// fixed-latency dependencies —, and 3 stages, 65 KiB, so that three fit
/// in an H100's 228 KiB). The tuner times both (choices "b2" and "b3").
constexpr unsigned kMmaGemmBlocksPerSM[] = {2, 3};
constexpr unsigned mmaGemmStages(unsigned blocksPerSM) {
  return blocksPerSM >= 3 ? 3 : kMmaGemmStages;
}
/// Rows of C its epilogue stages through shared memory per pass (f32, rows
/// of kMmaGemmBlockN + 8 words: 17 KiB).
constexpr unsigned kMmaGemmStageRows = 32;
struct MmaGemmConfig {
  GemmElem in = GemmElem::F16, out = GemmElem::F32;
  /// A column-major A (M contiguous) / B (K contiguous).
  bool aColMajor = false, bColMajor = false;
  /// A's and B's rows (as stored) are 16-byte aligned: pointers and
  /// leading dimensions; the copies skip the run-time alignment test.
  bool aligned = false;
  /// kMmaGemmBlocksPerSM: 3 only for aligned variants.
  unsigned blocksPerSM = 2;
};
/// Whether a variant's pipeline prefetches each K step's first fragments
/// during the step before (PipelineReads::Prefetch: 32 registers more live
/// across a step, which fit the two-block variant's 255 but would spill in
/// the three-block one's 168 and beside the checked copies' longer code).
constexpr bool mmaGemmPrefetches(const MmaGemmConfig &c) {
  return c.aligned && c.blocksPerSM == 2;
}
/// `mma_gemm_<in>_<out>[_acol][_bcol][_aligned][_b3](a, b, c, m, n, k, lda, ldb,
/// ldc, alpha, beta, bias, epilogue, k_per_split, c_split)`: C = act(alpha
/// A B + beta C + bias) with `epilogue` as the sm_90a kernel's
/// (HopperGemmEpilogue: the Activation and where the bias, of C's type, is
/// added; `bias` any valid pointer without one). Split K: grid z is the
/// split, block z computing K [z k_per_split, z k_per_split + k_per_split)
/// (a multiple of mmaGemmBlockK(in) when there are several splits; at least
/// K: one split) into its C at c + z c_split elements. `<in>` is tf32 for
/// f32 inputs (what the tensor cores read). An s32 C takes the exact sums:
/// alpha 1, beta 0 or 1, no bias or activation (the host checks).
inline std::string mmaGemmName(const MmaGemmConfig &c) {
  return std::string("mma_gemm_") + getGemmMmaTypeName(c.in) + "_" +
         getGemmElemName(c.out) + (c.aColMajor ? "_acol" : "") +
         (c.bColMajor ? "_bcol" : "") + (c.aligned ? "_aligned" : "") +
         (c.blocksPerSM != 2 ? "_b" + std::to_string(c.blocksPerSM) : "");
}
/// Every configuration the library embeds: f16 and bf16 inputs, f32 or
/// the inputs' type out, the four layouts aligned (each for 2 and 3
/// blocks an SM), and row-major A and B also unaligned (2 blocks); tf32
/// and s8 (every C type) for K-major aligned A and B (2 blocks).
std::vector<MmaGemmConfig> getMmaGemmConfigs();
void buildMmaGemmKernels(builder::ModuleBuilder &mb);

/// A configuration of the warp-specialised TMA + wgmma GEMM for sm_90a
/// (HopperGemmKernels.cpp): C = A * B with A and B f16 or bf16 (row- or
/// column-major, any leading dimension of 16-byte lines), e4m3 or e5m2
/// (FP8) or f32 (multiplied as tf32) — FP8 and tf32 with A row-major and B
/// column-major, both K-major as wgmma reads them —, row-major C in f32 or
/// a 16-bit type (for 16-bit inputs, theirs; f32 for f32 inputs), rounded
/// once from f32; 384 threads (a producer and two consumer warpgroups), a
/// `stages`-deep ring of BM x BK and BK x BN shared tiles in
/// 128-byte-swizzled layout (BK 64 16-bit, 128 8-bit or 32 32-bit
/// elements: 128-byte rows).
struct HopperGemmConfig {
  GemmElem in = GemmElem::F16, out = GemmElem::F32;
  unsigned blockM = 128, blockN = 128, blockK = 64, stages = 4;
  /// A column-major A (M contiguous) / B (K contiguous).
  bool aColMajor = false, bColMajor = false;
  /// Blocks per thread block cluster (1 or 2), along M: the two blocks of
  /// a cluster compute vertically adjacent tiles, which share B's columns;
  /// each loads half of B's k tile and multicasts it to both (half the B
  /// traffic from L2).
  unsigned clusterM = 1;
};
/// The GEMM kernels' `epilogue` parameter (sm_90a, the portable mma.sync
/// kernel, the f32 one): the Activation in the low bits, and where a bias
/// vector (C's type) is added before it.
enum HopperGemmEpilogue : std::uint32_t {
  kGemmActivationMask = 7, ///< an Activation (0: none)
  kGemmBiasColumns = 8,    ///< + bias[col] (one per column of C)
  kGemmBiasRows = 16,      ///< + bias[row] (one per row of C)
  /// gemm_split_reduce and sgemm_f32 only: C's rows (and a column bias)
  /// start at 16-byte aligned addresses, 4 elements apart or more (their
  /// 4-element vector accesses of C; the host's `vectorCBit`).
  kGemmVectorC = 32,
};
/// Threads of gemm_split_reduce_<f32|f16|bf16> (GemmSplitKernels.cpp): 4
/// columns each; grid (ceil(n / (4 threads)), rows walked by gridDim.y).
constexpr unsigned kGemmSplitReduceThreads = 128;
/// Adds the split-K GEMM's reduction, gemm_split_reduce_<type>(ws, splits,
/// split_stride, ldw, c, m, n, ldc, alpha, beta, bias, epilogue): C =
/// act(alpha * sum over s of ws[s * split_stride + row * ldw + col] + beta
/// * C + bias) (ws 16-byte aligned, ldw and split_stride multiples of 4).
void buildGemmSplitKernels(builder::ModuleBuilder &mb);

/// The fused epilogue stages each consumer warpgroup's 64 rows of the tile
/// through shared memory (after the ring) in chunks of this many f32
/// columns, rows this many bytes apart: 8 words of padding make the
/// accumulators' 8-byte writes conflict-free (quads of rows land 8 banks
/// apart) and each 16-byte read-back of a row's 128 bytes one wavefront.
constexpr unsigned kGemmStagingColumns = 32, kGemmStagingRowBytes = 160;
/// FP8 sums are promoted: each K tile's wgmmas accumulate apart (scale-d 0
/// on the first) and the tile's sum is added into f32 registers, since the
/// tensor cores keep FP8 sums to about 14 significant bits (CUTLASS's and
/// cuBLAS's default FP8 accumulation does the same): errors stay those of
/// one 128-deep tile whatever K.
inline bool hopperGemmPromotesSums(GemmElem in) {
  return in == GemmElem::E4M3 || in == GemmElem::E5M2;
}
/// Whether a 128 x 256 tile exists beside the 128 x 128 one: not for an s32
/// C (read beside the accumulators, it would spill) nor for promoted FP8
/// sums (two sets of 128 accumulators would not fit in 232 registers).
inline bool hopperGemmHasWideTile(GemmElem in, GemmElem out) {
  return out != GemmElem::S32 && !hopperGemmPromotesSums(in);
}
/// Dynamic shared memory of a configuration: the ring of A and B stages,
/// then the two consumer warpgroups' staging buffers.
inline unsigned hopperGemmSharedBytes(const HopperGemmConfig &c) {
  const unsigned inBytes = getGemmElemBytes(c.in);
  return c.stages * (c.blockM + c.blockN) * c.blockK * inBytes +
         c.blockM * kGemmStagingRowBytes;
}
/// Its kernel (the name is what the host launches, so it is defined here):
/// `hopper_gemm_f16_f32_128x128x64_s4(a_map, b_map, c, m, n, k, ldc,
/// alpha, beta, bias, epilogue, k_tiles_per_split, c_split_bytes)`
/// computing C = act(alpha * A * B + beta * C + bias) (beta 0 never reads
/// C), with `_acol` / `_bcol` appended for a column-major A / B; a_map and
/// b_map are 128-byte-swizzled tensor maps over A and B (boxes below);
/// `bias` any valid pointer when `epilogue` has no bias bit. K runs in
/// splits of k_tiles_per_split k tiles (at least the k tile count: one
/// split), split s writing its C at c + s * c_split_bytes. Persistent: any
/// 1-D grid (up to the number of work units, BM x BN tiles times splits)
/// covers C. Plain results (no activation or bias) leave from the
/// accumulators' registers (pairs of columns per store); the fused
/// epilogue (and beta on 256-column tiles, where loading C beside 128
/// accumulators would spill) goes through the staging buffers: 16-byte
/// rows of 4 columns per thread, coalesced.
inline std::string hopperGemmName(const HopperGemmConfig &c) {
  return std::string("hopper_gemm_") + getGemmElemName(c.in) + "_" +
         getGemmElemName(c.out) + "_" + std::to_string(c.blockM) + "x" +
         std::to_string(c.blockN) + "x" + std::to_string(c.blockK) + "_s" +
         std::to_string(c.stages) + (c.aColMajor ? "_acol" : "") +
         (c.bColMajor ? "_bcol" : "") +
         (c.clusterM > 1 ? "_c" + std::to_string(c.clusterM) : "");
}
/// `_c2` kernels (clusterM 2) are launched in clusters of 2 blocks along
/// x (an even grid): cluster u walks the work units u, u + clusters, ...,
/// a unit being a pair of vertically adjacent tiles (2 BM x BN), block rank
/// r taking its r-th tile.
/// Whether `_c2` cluster kernels exist for these inputs (16-bit and FP8
/// ones: the dense tensor-core rates, where B's traffic counts most).
inline bool hopperGemmHasClusters(GemmElem in) {
  return in == GemmElem::F16 || in == GemmElem::BF16 ||
         in == GemmElem::E4M3 || in == GemmElem::E5M2;
}
/// Its ptx-dialect text (the tensor-map boxes it expects, innermost first:
/// A's BK x BM, column-major 64 x BK; B's 64 x BK, column-major BK x BN, or
/// BK x BN / 2 in a cluster): a ptx.var pair and a ptx.entry.
std::string hopperGemmSource(const HopperGemmConfig &config);
/// The boxes (innermost dimension first) of its tensor maps over A and B.
struct HopperGemmBox {
  unsigned inner, outer;
};
inline HopperGemmBox hopperGemmBoxA(const HopperGemmConfig &c) {
  return c.aColMajor ? HopperGemmBox{64, c.blockK}
                     : HopperGemmBox{c.blockK, c.blockM};
}
inline HopperGemmBox hopperGemmBoxB(const HopperGemmConfig &c) {
  return c.bColMajor ? HopperGemmBox{c.blockK, c.blockN / c.clusterM}
                     : HopperGemmBox{64, c.blockK};
}
std::vector<HopperGemmConfig> getHopperGemmConfigs();
/// A FlashAttention forward configuration for sm_90a
/// (HopperAttentionKernels.cpp): f16 or bf16 Q, K, V, O; head dim 64, 128
/// or 256; 64 query rows per consumer warpgroup, `consumers` of them (2:
/// 128 rows a block; 3: 192, FlashAttention-3's tile at head dim 64,
/// hopperAttentionWideBuilt), blocks of hopperAttentionKeys(head dim) keys
/// in a `stages`-deep K/V ring; `pingPong`: the consumers take turns
/// issuing their wgmmas, round robin (FlashAttention-3's inter-warpgroup
/// schedule), else they issue freely.
struct HopperAttentionConfig {
  bool bf16 = false;
  unsigned headDim = 64, stages = 2;
  bool pingPong = false;
  unsigned consumers = 2;
};
/// Query rows a block of `c` takes (64 per consumer warpgroup).
constexpr unsigned hopperAttentionRows(const HopperAttentionConfig &c) {
  return 64 * c.consumers;
}
/// Threads a block of `c` has: the producer warpgroup and the consumers.
constexpr unsigned hopperAttentionThreads(const HopperAttentionConfig &c) {
  return 128 * (c.consumers + 1);
}
/// The head dims with three-consumer (192-row) kernels: 64, where a
/// consumer's 32 O and 64 S accumulators fit the 160 registers three
/// consumers leave (FlashAttention-3's 192 x 128 tile there; at 128, O and
/// S alone would take 128).
constexpr bool hopperAttentionWideBuilt(unsigned headDim) {
  return headDim == 64;
}
/// The consumers `flashAttention` picks when the caller leaves the query
/// rows to the library: two everywhere until the three-consumer kernels
/// are measured against them (bench BM_FlashAttentionRows192* against
/// BM_FlashAttention* at head dim 64, and set this from what they show).
constexpr unsigned hopperAttentionConsumers(unsigned headDim) {
  (void)headDim;
  return 2;
}
/// The head dims with a ping-pong kernel: up to 128. At 256 each consumer
/// holds 128 O accumulators and 64-key blocks, and FlashAttention-3 turns
/// the schedule off there too.
constexpr bool hopperAttentionPingPongBuilt(unsigned headDim) {
  return headDim <= 128;
}
/// The schedule `flashAttention` picks when the caller leaves it to the
/// library: ping-pong wherever it is built, as FlashAttention-3 does for
/// 16-bit inputs (not yet measured here: bench BM_FlashAttention* against
/// BM_FlashAttentionIndependent*, and set this from what they show).
constexpr bool hopperAttentionPingPong(unsigned headDim) {
  return hopperAttentionPingPongBuilt(headDim);
}
/// Keys per block of the sm_90a forward (the K and V boxes' rows): 128 up
/// to head dim 128 (S a 64 x 128 wgmma per consumer, FlashAttention-3's
/// block), 64 at 256 (O's 128 accumulators leave no room for more).
constexpr unsigned hopperAttentionKeys(unsigned headDim) {
  return headDim > 128 ? 64 : 128;
}
/// `hopper_flash_fwd_f16_d64(q_map, k_map, v_map, o, o_batch, o_seq,
/// o_head, seq_q, seq_k, group, scale_log2, window_left, window_right,
/// bottom_right, lse, lse_stride, cu_q, cu_k)`: the maps are 4-d tensor
/// maps over [batch][seq][heads][dim] (innermost first: dim, heads, seq,
/// batch) with box (64, 1, rows, 1), 128-byte swizzled (rows
/// hopperAttentionRows for Q, hopperAttentionKeys(head dim) for K and V);
/// O's strides are in elements (even); grid (ceil(seq_q /
/// hopperAttentionRows), heads, batch), hopperAttentionThreads threads;
/// scale_log2 = softmax scale * log2(e). Row i sees
/// keys [i + offset - window_left, i + offset + window_right] (negative:
/// unbounded; causal: window_right 0), offset = seq_k - seq_q when
/// bottom_right. lse (null: none) gets each row's natural logsumexp at
/// [(batch * heads + head) * lse_stride + row]. cu_q / cu_k (null: not
/// packed): s32 batch + 1 offsets into batch-1 tensors; seq_q / seq_k are
/// then unused and the grid's x covers the longest query sequence. The
/// three-consumer kernels' names have `_q192`, the ping-pong ones end in
/// `_pp`.
inline std::string hopperAttentionName(const HopperAttentionConfig &c) {
  return std::string("hopper_flash_fwd_") + (c.bf16 ? "bf16" : "f16") + "_d" +
         std::to_string(c.headDim) + (c.consumers == 3 ? "_q192" : "") +
         (c.pingPong ? "_pp" : "");
}
std::string hopperAttentionSource(const HopperAttentionConfig &config);
std::vector<HopperAttentionConfig> getHopperAttentionConfigs();
/// The attention backward's sm_90a kernels, dK/dV and dQ
/// (HopperAttentionBackwardKernels.cpp): f16 or bf16, head dim 64 or 128
/// (hopperDkdvBuilt; at 256 dK and dV alone would take 256 registers a
/// thread), `stages`-deep rings. The dK/dV kernel: kHopperDkdvKeys keys a
/// block (two consumer warpgroups of 64), blocks of kHopperDkdvQueries
/// queries of Q and dO streamed.
struct HopperAttentionBackwardConfig {
  bool bf16 = false;
  unsigned headDim = 64, stages = 2;
};
constexpr unsigned kHopperDkdvKeys = 128, kHopperDkdvQueries = 64;
constexpr bool hopperDkdvBuilt(unsigned headDim) {
  return headDim == 64 || headDim == 128;
}
/// K and V once, then a Q and a dO tile and the lse and delta rows a stage
/// (dynamic shared memory).
inline unsigned
hopperDkdvSharedBytes(const HopperAttentionBackwardConfig &c) {
  return 2 * kHopperDkdvKeys * c.headDim * 2 +
         c.stages * (2 * kHopperDkdvQueries * c.headDim * 2 +
                     2 * kHopperDkdvQueries * 4);
}
/// `hopper_flash_bwd_dkdv_f16_d128(q_map, k_map, v_map, do_map, dk,
/// dk_batch, dk_seq, dk_head, dv, dv_batch, dv_seq, dv_head, lse, delta,
/// row_batch, row_head, seq_q, seq_k, group, scale_log2, scale,
/// window_left, window_right, bottom_right, cu_q, cu_k)`: the maps as the
/// forward's, box rows kHopperDkdvQueries for Q and dO, kHopperDkdvKeys
/// for K and V; dK and dV strides in elements (even, below 2^32); lse
/// (natural, the forward's) and delta (flash_bwd_prep's) f32 at batch *
/// row_batch + head * row_head + row; grid (ceil(seq_k / kHopperDkdvKeys),
/// kv heads, batch), 384 threads; the rest as in the forward, scale the
/// softmax scale and scale_log2 = scale * log2(e).
inline std::string hopperDkdvName(const HopperAttentionBackwardConfig &c) {
  return std::string("hopper_flash_bwd_dkdv_") + (c.bf16 ? "bf16" : "f16") +
         "_d" + std::to_string(c.headDim);
}
/// The dQ kernel of the backward on sm_90a: kHopperDqQueries query rows a
/// block (two consumer warpgroups of 64), blocks of kHopperDqKeys keys of
/// K and V in a `stages`-deep ring; Q and dO once (dynamic shared memory).
constexpr unsigned kHopperDqQueries = 128, kHopperDqKeys = 64;
inline unsigned hopperDqSharedBytes(const HopperAttentionBackwardConfig &c) {
  return 2 * kHopperDqQueries * c.headDim * 2 +
         c.stages * 2 * kHopperDqKeys * c.headDim * 2;
}
/// `hopper_flash_bwd_dq_f16_d128(q_map, k_map, v_map, do_map, dq,
/// dq_batch, dq_seq, dq_head, lse, ...)`: as the dK/dV kernel's with one
/// output; box rows kHopperDqQueries for Q and dO, kHopperDqKeys for K and
/// V; grid (ceil(seq_q / kHopperDqQueries), heads, batch), 384 threads.
inline std::string hopperDqName(const HopperAttentionBackwardConfig &c) {
  return std::string("hopper_flash_bwd_dq_") + (c.bf16 ? "bf16" : "f16") +
         "_d" + std::to_string(c.headDim);
}
/// Both kernels of `config` (dK/dV, then dQ).
std::string
hopperAttentionBackwardSource(const HopperAttentionBackwardConfig &config);
std::vector<HopperAttentionBackwardConfig> getHopperAttentionBackwardConfigs();

/// A module (ptx.target sm_90a) with every sm_90a kernel: the GEMM and
/// attention configurations, each op's operand trees in operand order
/// (ptx-order-operand-trees: the same module from every host compiler),
/// parsed into `context` (null, with the parser's diagnostics, if the
/// generated text does not parse).
mlir::OwningOpRef<mlir::ModuleOp> parseHopperKernels(mlir::MLIRContext &context);
/// The same module as text (kaio-ops-hopper-gen).
std::string hopperKernelsModule();

} // namespace kaio::ops::kernels

#endif // KAIO_LIB_OPS_KERNELS_OPSKERNELS_H

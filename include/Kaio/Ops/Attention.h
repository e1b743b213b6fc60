//===- Attention.h - FlashAttention's arguments ------------------*- C++ -*-===//
//
// Attention tensors are [batch, seq, heads, dim] with element strides for
// batch, seq and head (dim contiguous): torch's [b, s, h, d] and
// [b, h, s, d] layouts are both views of it. Library::flashAttention
// computes O = softmax(scale Q K^T) V per (batch, head) with FlashAttention-2
// (online softmax in f32, nothing of size seq^2 stored, no sequence cap).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_ATTENTION_H
#define KAIO_OPS_ATTENTION_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"

#include <cstdint>
#include <type_traits>

namespace kaio::rt {
class Stream;
} // namespace kaio::rt

namespace kaio::ops {

/// A [batch, seq, heads, dim] tensor; element (b, s, h, d) at b *
/// batchStride + s * seqStride + h * headStride + d.
struct AttentionTensor {
  CUdeviceptr data = 0;
  DType dtype = DType::F16;
  std::int64_t batch = 0, seq = 0, heads = 0, dim = 0;
  std::int64_t batchStride = 0, seqStride = 0, headStride = 0;
  /// Bytes the memory holds when known (tensors made from a DeviceView).
  std::uint64_t capacityBytes = 0;

  /// Contiguous [batch, seq, heads, dim] (FlashAttention's layout).
  template <typename T>
  static AttentionTensor bshd(rt::DeviceView<T> view, std::int64_t batch,
                              std::int64_t seq, std::int64_t heads,
                              std::int64_t dim) {
    return make(view, batch, seq, heads, dim, seq * heads * dim, heads * dim,
                dim);
  }
  /// Contiguous [batch, heads, seq, dim] (torch's SDPA layout).
  template <typename T>
  static AttentionTensor bhsd(rt::DeviceView<T> view, std::int64_t batch,
                              std::int64_t seq, std::int64_t heads,
                              std::int64_t dim) {
    return make(view, batch, seq, heads, dim, heads * seq * dim, dim,
                seq * dim);
  }

private:
  template <typename T>
  static AttentionTensor make(rt::DeviceView<T> view, std::int64_t batch,
                              std::int64_t seq, std::int64_t heads,
                              std::int64_t dim, std::int64_t batchStride,
                              std::int64_t seqStride, std::int64_t headStride) {
    using E = std::remove_const_t<T>;
    static_assert(std::is_same_v<E, rt::Half> || std::is_same_v<E, rt::BFloat16>,
                  "kaio::ops::AttentionTensor: f16 or bf16 elements");
    AttentionTensor t;
    t.data = view.ptr();
    t.dtype = std::is_same_v<E, rt::Half> ? DType::F16 : DType::BF16;
    t.batch = batch;
    t.seq = seq;
    t.heads = heads;
    t.dim = dim;
    t.batchStride = batchStride;
    t.seqStride = seqStride;
    t.headStride = headStride;
    t.capacityBytes = view.sizeBytes();
    return t;
  }
};

struct AttentionOptions {
  /// Softmax scale; 0: 1 / sqrt(dim).
  float scale = 0.0f;
  /// Row i sees key j when j <= i + offset (windowRight = 0).
  bool causal = false;
  /// The diagonal's offset for seq_q != seq_k: 0 (top-left) or seq_k -
  /// seq_q (bottom-right, FlashAttention >= 2.1's causal).
  bool bottomRight = false;
  /// Sliding window: row i sees keys [i + offset - windowLeft, i + offset +
  /// windowRight]; -1: unbounded on that side.
  std::int64_t windowLeft = -1, windowRight = -1;
  /// Packed variable-length batches: s32 vectors of batch + 1 cumulative
  /// offsets into the tensors' seq dimension (whose batch is then 1), and
  /// the longest query and key sequences (the grids' sizes; the forward
  /// needs only maxSeqlenQ).
  Matrix cuSeqlensQ, cuSeqlensK;
  std::int64_t maxSeqlenQ = 0, maxSeqlenK = 0;
  /// Each row's natural logsumexp of the scaled scores (-inf for a row that
  /// sees no key), f32 [batch, heads, seq_q] contiguous, or [heads,
  /// total_q] when packed: the forward's optional output, the backward's
  /// required input.
  Matrix lse;
  /// The backward's f32 scratch of flashAttentionBackwardWorkspaceElements.
  Matrix workspace;
  /// The forward and the backward run the portable mma.sync kernels even
  /// on a 9.0 GPU (comparisons and tests of the path every other GPU
  /// takes; there the backward's dQ and dK/dV kernels are TMA + wgmma at
  /// head dims 64 and 128).
  bool portable = false;
  /// How the sm_90a forward's two consumer warpgroups share the tensor
  /// cores (the portable forward and the backward ignore it; PingPong at
  /// head dim 256 is Unsupported everywhere).
  enum class Schedule {
    /// The library's choice: ping-pong at head dims 64 and 128.
    Auto,
    /// Take turns issuing the products (FlashAttention-3's ping-pong): one
    /// warpgroup's softmax runs while the other's products do. Head dims
    /// 64 and 128.
    PingPong,
    /// Each warpgroup issues as soon as its operands are in.
    Independent,
  };
  Schedule schedule = Schedule::Auto;
  /// Query rows a block of the sm_90a forward takes: 0 (the library's
  /// choice), 128 (two consumer warpgroups), or 192 (three:
  /// FlashAttention-3's tile at head dim 64; Unsupported at other head
  /// dims everywhere). The portable forward and the backward ignore it.
  int queryRows = 0;
  const rt::Stream *stream = nullptr;
};

/// The head dimensions the forward, the backward and decoding take.
constexpr std::int64_t kAttentionHeadDims[] = {64, 128, 256};

/// Checks flashAttention's arguments (what Library::flashAttention
/// launches with).
rt::Error validateFlashAttention(const AttentionTensor &q,
                                 const AttentionTensor &k,
                                 const AttentionTensor &v,
                                 const AttentionTensor &o,
                                 const AttentionOptions &options = {});

/// Elements of the backward's f32 workspace (one per query row and head).
std::int64_t flashAttentionBackwardWorkspaceElements(const AttentionTensor &q);

/// Checks flashAttentionBackward's arguments: the forward's, plus dO (q's
/// shape), dq, dk, dv (q's, k's, k's shapes; written, so overlapping
/// nothing), options.lse and options.workspace; maxSeqlenK when packed.
rt::Error validateFlashAttentionBackward(
    const AttentionTensor &q, const AttentionTensor &k,
    const AttentionTensor &v, const AttentionTensor &o,
    const AttentionTensor &dO, const AttentionTensor &dq,
    const AttentionTensor &dk, const AttentionTensor &dv,
    const AttentionOptions &options);

/// A KV cache for decoding: k and v as [batch, capacity, kv heads, dim]
/// (contiguous), or as a pool of pages [pages, pageSize, kv heads, dim]
/// that `blockTable` (s32 [batch, max pages], vLLM's layout) maps each
/// sequence's keys to; `seqlens` (s32, one per batch) says how many keys
/// each sequence has.
struct KVCache {
  AttentionTensor k, v;
  Matrix blockTable;
  std::int64_t pageSize = 0;
  Matrix seqlens;
};

struct DecodeOptions {
  /// 0: 1 / sqrt(dim).
  float scale = 0.0f;
  /// With several query tokens (speculative decoding, chunked prefill),
  /// token i of q_len sees keys up to seqlen - q_len + i.
  bool causal = false;
  /// f32 scratch for the splits' partials: flashDecodeWorkspaceElements.
  Matrix workspace;
  const rt::Stream *stream = nullptr;
};

/// Elements of flashDecode's workspace for these shapes.
std::int64_t flashDecodeWorkspaceElements(const AttentionTensor &q,
                                          const KVCache &cache);

/// Checks flashDecode's arguments.
rt::Error validateFlashDecode(const AttentionTensor &q, const KVCache &cache,
                              const AttentionTensor &o,
                              const DecodeOptions &options);

} // namespace kaio::ops

#endif // KAIO_OPS_ATTENTION_H

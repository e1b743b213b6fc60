//===- AttentionSupport.h - what the attention kernels share ----*- C++ -*-===//
//
// The parameters every attention kernel takes (strided [batch, seq, heads,
// dim] tensors, packed-sequence offsets, the mask), the per-batch sequence
// bounds, and the visibility rule of the causal / sliding-window mask, for
// AttentionKernels.cpp (forward) and AttentionBackwardKernels.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_ATTENTIONSUPPORT_H
#define KAIO_LIB_OPS_KERNELS_ATTENTIONSUPPORT_H

#include "KernelSupport.h"
#include "OpsKernels.h"

#include <string>

namespace kaio::ops::kernels::attention {

using namespace kaio::builder;

constexpr ptx::MMAShape kShape = ptx::MMAShape::m16n8k16;

/// A [batch, seq, heads, dim] tensor parameter: the pointer, then its
/// batch, head (u64) and row (u32) strides in elements.
template <class P> struct Tensor {
  P ptr;
  U64 batchStride, headStride;
  U32 rowStride;
  /// Row `row` of head h of batch b.
  P at(const U32 &b, const U32 &h, const U32 &row) const {
    return ptr + cast<uint64_t>(b) * batchStride +
           cast<uint64_t>(h) * headStride +
           cast<uint64_t>(row) * cast<uint64_t>(rowStride);
  }
};
template <class P>
Tensor<P> tensorParam(KernelBuilder &k, const std::string &name) {
  P ptr = k.param<P>(name);
  U64 bs = k.param<uint64_t>(name + "_batch_stride");
  U64 hs = k.param<uint64_t>(name + "_head_stride");
  U32 rs = k.param<uint32_t>(name + "_row_stride");
  return {ptr, bs, hs, rs};
}

/// A per-row f32 vector [batch, heads, seq_q] (lse, delta): the pointer and
/// its batch and head strides (rows contiguous).
template <class P> struct RowVector {
  P ptr;
  U64 batchStride, headStride;
  P at(const U32 &b, const U32 &h, const U32 &row) const {
    return ptr + cast<uint64_t>(b) * batchStride +
           cast<uint64_t>(h) * headStride + cast<uint64_t>(row);
  }
};
template <class P>
RowVector<P> rowVectorParam(KernelBuilder &k, const std::string &name) {
  P ptr = k.param<P>(name);
  U64 bs = k.param<uint64_t>(name + "_batch_stride");
  U64 hs = k.param<uint64_t>(name + "_head_stride");
  return {ptr, bs, hs};
}

/// The rest of the parameters, in this order after the tensors: packed
/// offsets, lengths, the GQA group, the scale, the mask and the flags.
struct Common {
  Ptr<const int32_t> cuQ, cuK;
  U32 seqQ, seqK, group;
  F32 scaleLog2, scale;
  I32 windowLeft, windowRight;
  U32 flags;
};
inline Common commonParams(KernelBuilder &k) {
  Common c;
  c.cuQ = k.param<Ptr<const int32_t>>("cu_seqlens_q");
  c.cuK = k.param<Ptr<const int32_t>>("cu_seqlens_k");
  c.seqQ = k.param<uint32_t>("seq_q");
  c.seqK = k.param<uint32_t>("seq_k");
  c.group = k.param<uint32_t>("kv_group");
  c.scaleLog2 = k.param<float>("scale_log2");
  c.scale = k.param<float>("scale");
  c.windowLeft = k.param<int32_t>("window_left");
  c.windowRight = k.param<int32_t>("window_right");
  c.flags = k.param<uint32_t>("flags");
  return c;
}

/// Batch b's rows: packed sequences (cumulative offsets) or dense.
struct Sequences {
  U32 qStart, sq, kStart, sk;
};
inline Sequences sequences(const Common &c, const U32 &b) {
  Pred varlen = (c.flags & uint32_t(kAttnVarlen)) != 0u;
  auto offset = [&](const Ptr<const int32_t> &cu, const U32 &i) {
    return cu.load(i, varlen, 0).as<uint32_t>();
  };
  U32 qStart = offset(c.cuQ, b), kStart = offset(c.cuK, b);
  return {qStart, select(varlen, offset(c.cuQ, b + 1u) - qStart, c.seqQ),
          kStart, select(varlen, offset(c.cuK, b + 1u) - kStart, c.seqK)};
}

/// Key j is visible from query row i when i + off - wl <= j <= i + off +
/// wr (no bound on a side whose window is negative) and j < sk; off aligns
/// the diagonal bottom-right (sk - sq) or top-left (0).
struct Mask {
  I32 sq, sk, off, left, right;
  Pred hasLeft, hasRight;
  Pred visible(const I32 &i, const I32 &j) const {
    return (j < sk) && (!hasRight || j <= i + off + right) &&
           (!hasLeft || j >= i + off - left);
  }
};
inline Mask mask(KernelBuilder &k, const Common &c, const Sequences &s) {
  I32 sq = s.sq.as<int32_t>(), sk = s.sk.as<int32_t>();
  Pred bottomRight = (c.flags & uint32_t(kAttnBottomRight)) != 0u;
  return {sq,
          sk,
          select(bottomRight, sk - sq, k.constant(0)),
          c.windowLeft,
          c.windowRight,
          c.windowLeft >= 0,
          c.windowRight >= 0};
}

/// A loop's blocks split into those that need the mask and those that do
/// not: [first, clean) and [cleanEnd, end) masked, [clean, cleanEnd) not.
struct BlockRange {
  I32 first, clean, cleanEnd, end;
};

/// The key blocks (of bk keys) query rows [q0, q0 + kAttnBlockQ) see, and
/// among them those every row sees whole (no mask).
inline BlockRange keyBlocks(KernelBuilder &k, const Mask &m, const I32 &q0,
                            int32_t bk = kAttnBlockK) {
  const int32_t bq = kAttnBlockQ;
  I32 jLo = select(m.hasLeft, max(q0 + m.off - m.left, 0), k.constant(0));
  I32 jHi = select(m.hasRight, min(q0 + bq + m.off + m.right, m.sk), m.sk);
  I32 first = (jLo / bk) * bk;
  I32 blocks = max(jHi - first + (bk - 1), 0) / bk;
  // Left edge: every row's window starts at or before the block.
  I32 leftNeed = q0 + (bq - 1) + m.off - m.left;
  I32 cleanFrom = select(
      m.hasLeft, min(max(leftNeed - first + (bk - 1), 0) / bk, blocks),
      k.constant(0));
  // Right edge: the first row sees the whole block, inside the keys.
  I32 rightNeed =
      select(m.hasRight, min(q0 + m.off + m.right + 1, m.sk), m.sk);
  I32 cleanTo =
      max(min(max(rightNeed - first, 0) / bk, blocks), cleanFrom);
  return {first, first + cleanFrom * bk, first + cleanTo * bk,
          first + blocks * bk};
}

inline std::string kernelName(const char *base, const char *type,
                              unsigned dim) {
  return std::string(base) + "_" + type + "_d" + std::to_string(dim);
}

} // namespace kaio::ops::kernels::attention

#endif // KAIO_LIB_OPS_KERNELS_ATTENTIONSUPPORT_H

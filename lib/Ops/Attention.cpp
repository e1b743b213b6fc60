//===- Attention.cpp - validation and dispatch of FlashAttention ----------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

namespace {

constexpr const char *kOp = "flash_attention";

std::string dims(const AttentionTensor &t) {
  return std::to_string(t.batch) + "x" + std::to_string(t.seq) + "x" +
         std::to_string(t.heads) + "x" + std::to_string(t.dim);
}

/// Bytes from the first element to one past the last.
std::uint64_t spanBytes(const AttentionTensor &t) {
  if (!t.batch || !t.seq || !t.heads || !t.dim)
    return 0;
  std::uint64_t last = std::uint64_t(t.batch - 1) * t.batchStride +
                       std::uint64_t(t.seq - 1) * t.seqStride +
                       std::uint64_t(t.heads - 1) * t.headStride + t.dim;
  return last * getDTypeBytes(t.dtype);
}

/// Shape, strides, dtype, 16-byte rows and capacity of one tensor.
rt::Error checkTensor(const char *name, const AttentionTensor &t) {
  if (t.dtype != DType::F16 && t.dtype != DType::BF16)
    return detail::unsupported(kOp, name,
                               std::string("dtype ") + getDTypeName(t.dtype) +
                                   " (f16 or bf16)");
  if (t.batch < 0 || t.seq < 0 || t.heads < 1 || t.dim < 1)
    return detail::invalid(kOp, name, "shape " + dims(t) +
                                          " (batch, seq >= 0; heads, dim >= 1)");
  if (t.seq > detail::kMaxExtent)
    return detail::invalid(kOp, name, "more than 2^31 - 1 rows");
  if (t.batchStride < 0 || t.seqStride < 0 || t.headStride < 0)
    return detail::invalid(kOp, name, "negative stride");
  if (t.seqStride > detail::kMaxExtent)
    return detail::invalid(kOp, name, "seq stride beyond 2^31 - 1 elements");
  if (t.batch && t.seq && (t.data % 16 || t.batchStride % 8 ||
                           t.seqStride % 8 || t.headStride % 8))
    return detail::invalid(
        kOp, name,
        "every row must start 16-byte aligned (pointer a multiple of 16 "
        "bytes, strides multiples of 8 elements)");
  if (!t.data && spanBytes(t))
    return detail::invalid(kOp, name, "null pointer");
  if (t.capacityBytes && spanBytes(t) > t.capacityBytes)
    return detail::invalid(kOp, name,
                           dims(t) + " spans " + std::to_string(spanBytes(t)) +
                               " bytes but the buffer holds " +
                               std::to_string(t.capacityBytes));
  return rt::Error::success();
}

bool overlaps(const AttentionTensor &a, const AttentionTensor &b) {
  std::uint64_t sa = spanBytes(a), sb = spanBytes(b);
  return sa && sb && a.data < b.data + sb && b.data < a.data + sa;
}

bool overlaps(const AttentionTensor &a, const Matrix &b) {
  std::uint64_t sa = spanBytes(a), sb = detail::spanBytes(b);
  return sa && sb && a.data < b.data + sb && b.data < a.data + sa;
}

bool isVarlen(const AttentionOptions &o) {
  return !o.cuSeqlensQ.isAbsent() || !o.cuSeqlensK.isAbsent();
}

} // namespace

rt::Error kaio::ops::validateFlashAttention(const AttentionTensor &q,
                                            const AttentionTensor &k,
                                            const AttentionTensor &v,
                                            const AttentionTensor &o,
                                            const AttentionOptions &opt) {
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k", &k}, {"v", &v}, {"o", &o}})
    if (rt::Error e = checkTensor(name, *t))
      return e;
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "k", &k},
                         {"v", &v}, {"o", &o}})
    if (t->dtype != q.dtype)
      return detail::invalid(kOp, name,
                             std::string("dtype ") + getDTypeName(t->dtype) +
                                 " but must be " + getDTypeName(q.dtype) +
                                 " (q's)");
  if (o.batch != q.batch || o.seq != q.seq || o.heads != q.heads ||
      o.dim != q.dim)
    return detail::invalid(kOp, "o", "is " + dims(o) + " but must be " +
                                         dims(q) + " (q's shape)");
  if (v.batch != k.batch || v.seq != k.seq || v.heads != k.heads ||
      v.dim != k.dim)
    return detail::invalid(kOp, "v", "is " + dims(v) + " but must be " +
                                         dims(k) + " (k's shape)");
  if (k.batch != q.batch)
    return detail::invalid(kOp, "k", "batch " + std::to_string(k.batch) +
                                         " but q's is " +
                                         std::to_string(q.batch));
  if (k.dim != q.dim)
    return detail::invalid(kOp, "k", "head dimension " +
                                         std::to_string(k.dim) +
                                         " but q's is " + std::to_string(q.dim));
  if (std::find(std::begin(kAttentionHeadDims), std::end(kAttentionHeadDims),
                q.dim) == std::end(kAttentionHeadDims))
    return detail::unsupported(kOp, "q",
                               "head dimension " + std::to_string(q.dim) +
                                   " (supported: 64, 128)");
  if (q.heads % k.heads)
    return detail::invalid(kOp, "k",
                           std::to_string(k.heads) +
                               " heads do not divide q's " +
                               std::to_string(q.heads) + " (GQA/MQA groups)");
  if (q.heads > 65535 || q.batch > 65535)
    return detail::invalid(kOp, "q", "more than 65535 heads or batches");
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k", &k}, {"v", &v}})
    if (overlaps(*t, o))
      return detail::invalid(kOp, "o", std::string("overlaps ") + name);
  float scale = opt.scale;
  if (!std::isfinite(scale) || scale < 0)
    return detail::invalid(kOp, "scale",
                           "must be finite and positive (0: 1 / sqrt(dim))");
  if (opt.windowLeft < -1 || opt.windowRight < -1 ||
      opt.windowLeft > detail::kMaxExtent ||
      opt.windowRight > detail::kMaxExtent)
    return detail::invalid(kOp, "window",
                           "sides are -1 (unbounded) or 0 .. 2^31 - 1");
  if (opt.causal && opt.windowRight > 0)
    return detail::invalid(kOp, "window",
                           "a causal mask has no keys right of the diagonal "
                           "(windowRight must be -1 or 0)");

  // Packed sequences: batch + 1 offsets each, tensors of batch 1.
  std::int64_t batch = q.batch, maxQ = q.seq;
  if (isVarlen(opt)) {
    if (q.batch != 1)
      return detail::invalid(kOp, "q",
                             "packed sequences (cu_seqlens) take tensors of "
                             "batch 1, not " + std::to_string(q.batch));
    std::int64_t n = opt.cuSeqlensQ.cols;
    if (rt::Error e = detail::checkVector(kOp, "cu_seqlens_q", opt.cuSeqlensQ,
                                          std::max<std::int64_t>(n, 2),
                                          DType::S32, "batch + 1 offsets"))
      return e;
    if (rt::Error e = detail::checkVector(kOp, "cu_seqlens_k", opt.cuSeqlensK,
                                          n, DType::S32,
                                          "as many as cu_seqlens_q"))
      return e;
    batch = n - 1;
    if (batch > 65535)
      return detail::invalid(kOp, "cu_seqlens_q", "more than 65535 batches");
    if (opt.maxSeqlenQ < 1 || opt.maxSeqlenQ > q.seq)
      return detail::invalid(kOp, "max_seqlen_q",
                             "must be in 1 .. " + std::to_string(q.seq) +
                                 " (the packed query rows)");
    maxQ = opt.maxSeqlenQ;
  }
  if (!opt.lse.isAbsent()) {
    std::int64_t need = isVarlen(opt) ? q.heads * q.seq : batch * q.heads * q.seq;
    if (rt::Error e = detail::checkVector(
            kOp, "lse", opt.lse, need, DType::F32,
            isVarlen(opt) ? "[heads, total_q]" : "[batch, heads, seq_q]"))
      return e;
    for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                               "q", &q},
                           {"k", &k}, {"v", &v}, {"o", &o}})
      if (overlaps(*t, opt.lse))
        return detail::invalid(kOp, "lse", std::string("overlaps ") + name);
  }
  if ((maxQ + kAttnBlockQ - 1) / kAttnBlockQ > detail::kMaxExtent)
    return detail::invalid(kOp, "q", "too many rows for one grid");
  return rt::Error::success();
}

rt::Error Library::flashAttention(const AttentionTensor &q,
                                  const AttentionTensor &k,
                                  const AttentionTensor &v,
                                  const AttentionTensor &o,
                                  const AttentionOptions &opt) {
  if (rt::Error e = validateFlashAttention(q, k, v, o, opt))
    return e;
  bool varlen = isVarlen(opt);
  std::int64_t batch = varlen ? opt.cuSeqlensQ.cols - 1 : q.batch;
  std::int64_t maxQ = varlen ? opt.maxSeqlenQ : q.seq;
  if (!batch || !maxQ)
    return rt::Error::success();
  std::string name = std::string("flash_fwd_") + getDTypeName(q.dtype) +
                     "_d" + std::to_string(q.dim);
  rt::Expected<rt::Kernel *> kernel = impl_->kernel(name);
  if (!kernel)
    return kernel.takeError().addContext(kOp);
  float scale = opt.scale ? opt.scale : float(1.0 / std::sqrt(double(q.dim)));
  std::int64_t windowRight = opt.causal ? 0 : opt.windowRight;
  std::uint32_t flags = (varlen ? kAttnVarlen : 0u) |
                        (opt.bottomRight ? kAttnBottomRight : 0u) |
                        (opt.lse.isAbsent() ? 0u : kAttnLse);
  rt::ScalarType elem = detail::scalarTypeOf(q.dtype);
  auto ptr = [&](CUdeviceptr p, rt::ScalarType t, bool isConst) {
    return rt::KernelArg::pointer(p, t, isConst);
  };
  // Absent optional pointers are never read (their flags are off).
  CUdeviceptr cuQ = varlen ? opt.cuSeqlensQ.data : q.data;
  CUdeviceptr cuK = varlen ? opt.cuSeqlensK.data : q.data;
  CUdeviceptr lse = opt.lse.isAbsent() ? o.data : opt.lse.data;
  auto u64 = [](std::int64_t x) {
    return rt::KernelArg::scalar(std::uint64_t(x));
  };
  auto u32 = [](std::int64_t x) {
    return rt::KernelArg::scalar(std::uint32_t(x));
  };
  auto tensor = [&](const AttentionTensor &t, bool isConst) {
    return std::vector<rt::KernelArg>{ptr(t.data, elem, isConst),
                                      u64(t.batchStride), u64(t.headStride),
                                      u32(t.seqStride)};
  };
  std::vector<rt::KernelArg> args;
  for (auto [t, isConst] : {std::pair{&q, true}, std::pair{&k, true},
                            std::pair{&v, true}, std::pair{&o, false}})
    for (rt::KernelArg &a : tensor(*t, isConst))
      args.push_back(a);
  std::vector<rt::KernelArg> rest = {
      // lse: [batch, heads, seq_q], or [heads, total_q] when packed.
      ptr(lse, rt::ScalarType::F32, false), u64(varlen ? 0 : q.heads * q.seq),
      u64(q.seq),
      // (The builder's signatures do not tell the pointee's signedness.)
      ptr(cuQ, rt::ScalarType::U32, true), ptr(cuK, rt::ScalarType::U32, true),
      u32(q.seq), u32(k.seq), u32(q.heads / k.heads),
      rt::KernelArg::scalar(float(scale * M_LOG2E)),
      rt::KernelArg::scalar(scale),
      rt::KernelArg::scalar(std::int32_t(opt.windowLeft)),
      rt::KernelArg::scalar(std::int32_t(windowRight)),
      rt::KernelArg::scalar(flags)};
  args.insert(args.end(), rest.begin(), rest.end());
  rt::LaunchConfig config;
  config.grid = rt::Dim3(unsigned((maxQ + kAttnBlockQ - 1) / kAttnBlockQ),
                         unsigned(q.heads), unsigned(batch));
  config.block = rt::Dim3(32 * kAttnWarps);
  config.stream = opt.stream;
  if (rt::Error e = (*kernel)->launchArgs(config, args))
    return e.addContext(kOp);
  return rt::Error::success();
}

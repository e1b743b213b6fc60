//===- Attention.cpp - validation and dispatch of FlashAttention ----------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "AttentionCheck.h"
#include "Validate.h"

#include "Kaio/Runtime/TensorMap.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

std::string detail::dims(const AttentionTensor &t) {
  return std::to_string(t.batch) + "x" + std::to_string(t.seq) + "x" +
         std::to_string(t.heads) + "x" + std::to_string(t.dim);
}

/// Bytes from the first element to one past the last.
std::uint64_t detail::spanBytes(const AttentionTensor &t) {
  if (!t.batch || !t.seq || !t.heads || !t.dim)
    return 0;
  std::uint64_t last = std::uint64_t(t.batch - 1) * t.batchStride +
                       std::uint64_t(t.seq - 1) * t.seqStride +
                       std::uint64_t(t.heads - 1) * t.headStride + t.dim;
  return last * getDTypeBytes(t.dtype);
}

/// Shape, strides, dtype, 16-byte rows and capacity of one tensor.
rt::Error detail::checkTensor(const char *op, const char *name,
                              const AttentionTensor &t) {
  if (t.dtype != DType::F16 && t.dtype != DType::BF16)
    return detail::unsupported(op, name,
                               std::string("dtype ") + getDTypeName(t.dtype) +
                                   " (f16 or bf16)");
  if (t.batch < 0 || t.seq < 0 || t.heads < 1 || t.dim < 1)
    return detail::invalid(op, name, "shape " + dims(t) +
                                          " (batch, seq >= 0; heads, dim >= 1)");
  if (t.seq > detail::kMaxExtent)
    return detail::invalid(op, name, "more than 2^31 - 1 rows");
  if (t.batchStride < 0 || t.seqStride < 0 || t.headStride < 0)
    return detail::invalid(op, name, "negative stride");
  if (t.seqStride > detail::kMaxExtent)
    return detail::invalid(op, name, "seq stride beyond 2^31 - 1 elements");
  if (t.batch && t.seq && (t.data % 16 || t.batchStride % 8 ||
                           t.seqStride % 8 || t.headStride % 8))
    return detail::invalid(
        op, name,
        "every row must start 16-byte aligned (pointer a multiple of 16 "
        "bytes, strides multiples of 8 elements)");
  if (!t.data && spanBytes(t))
    return detail::invalid(op, name, "null pointer");
  if (t.capacityBytes && spanBytes(t) > t.capacityBytes)
    return detail::invalid(op, name,
                           dims(t) + " spans " + std::to_string(spanBytes(t)) +
                               " bytes but the buffer holds " +
                               std::to_string(t.capacityBytes));
  return rt::Error::success();
}

bool detail::overlaps(const AttentionTensor &a, const AttentionTensor &b) {
  std::uint64_t sa = spanBytes(a), sb = spanBytes(b);
  return sa && sb && a.data < b.data + sb && b.data < a.data + sa;
}

bool detail::overlaps(const AttentionTensor &a, const Matrix &b) {
  std::uint64_t sa = spanBytes(a), sb = detail::spanBytes(b);
  return sa && sb && a.data < b.data + sb && b.data < a.data + sa;
}

rt::Error detail::checkSameDType(const char *op, const char *name,
                                 const AttentionTensor &t,
                                 const AttentionTensor &q) {
  if (t.dtype == q.dtype)
    return rt::Error::success();
  return invalid(op, name, std::string("dtype ") + getDTypeName(t.dtype) +
                               " but must be " + getDTypeName(q.dtype) +
                               " (q's)");
}

rt::Error detail::checkSameShape(const char *op, const char *name,
                                 const AttentionTensor &t,
                                 const AttentionTensor &like,
                                 const char *likeName) {
  if (t.batch == like.batch && t.seq == like.seq && t.heads == like.heads &&
      t.dim == like.dim)
    return rt::Error::success();
  return invalid(op, name, "is " + dims(t) + " but must be " + dims(like) +
                               " (" + likeName + "'s shape)");
}

void detail::appendTensorArgs(std::vector<rt::KernelArg> &args,
                              const char *name, const AttentionTensor &t,
                              bool isConst) {
  args.push_back(rt::KernelArg::pointer(t.data, scalarTypeOf(t.dtype), isConst)
                     .named(name));
  args.push_back(rt::KernelArg::scalar(std::uint64_t(t.batchStride)));
  args.push_back(rt::KernelArg::scalar(std::uint64_t(t.headStride)));
  args.push_back(rt::KernelArg::scalar(std::uint32_t(t.seqStride)));
}

namespace {

constexpr const char *kOp = "flash_attention";

using detail::checkTensor;
using detail::dims;
using detail::overlaps;
using detail::spanBytes;

bool isVarlen(const AttentionOptions &o) {
  return !o.cuSeqlensQ.isAbsent() || !o.cuSeqlensK.isAbsent();
}

} // namespace

namespace {

/// What forward and backward check alike: q, k, v and o (the forward's
/// output, the backward's input) and the options; `lseRequired` for the
/// backward. Sets the batch count and the longest sequences.
struct Extents {
  std::int64_t batch = 0, maxQ = 0, maxK = 0;
};
rt::Error validateAttention(const AttentionTensor &q, const AttentionTensor &k,
                            const AttentionTensor &v, const AttentionTensor &o,
                            const AttentionOptions &opt, bool lseRequired,
                            Extents &x) {
  std::int64_t &batch = x.batch, &maxQ = x.maxQ, &maxK = x.maxK;
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k", &k}, {"v", &v}, {"o", &o}})
    if (rt::Error e = checkTensor(kOp, name, *t))
      return e;
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "k", &k},
                         {"v", &v}, {"o", &o}})
    if (rt::Error e = detail::checkSameDType(kOp, name, *t, q))
      return e;
  if (rt::Error e = detail::checkSameShape(kOp, "o", o, q, "q"))
    return e;
  if (rt::Error e = detail::checkSameShape(kOp, "v", v, k, "k"))
    return e;
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
                                   " (supported: 64, 128, 256)");
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
  // The forward's option (the backward ignores it); asking for ping-pong
  // where no kernel has it is an error on every GPU alike.
  if (!lseRequired &&
      opt.schedule == AttentionOptions::Schedule::PingPong &&
      !kernels::hopperAttentionPingPongBuilt(unsigned(q.dim)))
    return detail::unsupported(kOp, "schedule",
                               "ping-pong at head dimension " +
                                   std::to_string(q.dim) +
                                   " (supported: 64, 128)");
  if (!lseRequired && opt.queryRows != 0 && opt.queryRows != 128 &&
      opt.queryRows != 192)
    return detail::invalid(kOp, "queryRows",
                           std::to_string(opt.queryRows) +
                               " is not 0 (the library's choice), 128 or 192");
  if (!lseRequired && opt.queryRows == 192 &&
      !kernels::hopperAttentionWideBuilt(unsigned(q.dim)))
    return detail::unsupported(kOp, "queryRows",
                               "192 at head dimension " +
                                   std::to_string(q.dim) + " (supported: 64)");
  if (opt.causal && opt.windowRight > 0)
    return detail::invalid(kOp, "window",
                           "a causal mask has no keys right of the diagonal "
                           "(windowRight must be -1 or 0)");

  // Packed sequences: batch + 1 offsets each, tensors of batch 1.
  batch = q.batch;
  maxQ = q.seq;
  maxK = k.seq;
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
    // The backward's key blocks; the forward needs no bound on keys.
    if (lseRequired && (opt.maxSeqlenK < 1 || opt.maxSeqlenK > k.seq))
      return detail::invalid(kOp, "max_seqlen_k",
                             "must be in 1 .. " + std::to_string(k.seq) +
                                 " (the packed key rows)");
    maxK = opt.maxSeqlenK;
  }
  if (lseRequired && opt.lse.isAbsent())
    return detail::invalid(kOp, "lse",
                           "required (the forward's logsumexp per row)");
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

/// A window side as the kernels take it: one reaching past every key of
/// every row (more than seq_q + seq_k) is unbounded (-1), so that the
/// kernels' s32 sums of rows, offsets and sides cannot wrap.
std::int32_t windowSide(std::int64_t side, const AttentionTensor &q,
                        const AttentionTensor &k) {
  return side > q.seq + k.seq ? -1 : std::int32_t(side);
}

} // namespace

rt::Error kaio::ops::validateFlashAttention(const AttentionTensor &q,
                                            const AttentionTensor &k,
                                            const AttentionTensor &v,
                                            const AttentionTensor &o,
                                            const AttentionOptions &opt) {
  Extents x;
  return validateAttention(q, k, v, o, opt, false, x);
}

std::int64_t
kaio::ops::flashAttentionBackwardWorkspaceElements(const AttentionTensor &q) {
  return q.batch * q.heads * q.seq;
}

namespace {

/// validateFlashAttentionBackward, also giving the extents the launches
/// need.
rt::Error validateBackward(const AttentionTensor &q, const AttentionTensor &k,
                           const AttentionTensor &v, const AttentionTensor &o,
                           const AttentionTensor &dO, const AttentionTensor &dq,
                           const AttentionTensor &dk, const AttentionTensor &dv,
                           const AttentionOptions &opt, Extents &x) {
  if (rt::Error e = validateAttention(q, k, v, o, opt, true, x))
    return e;
  for (auto [name, t, like, likeName] :
       {std::tuple<const char *, const AttentionTensor *,
                   const AttentionTensor *, const char *>{"do", &dO, &q, "q"},
        {"dq", &dq, &q, "q"}, {"dk", &dk, &k, "k"}, {"dv", &dv, &k, "k"}}) {
    if (rt::Error e = checkTensor(kOp, name, *t))
      return e;
    if (rt::Error e = detail::checkSameDType(kOp, name, *t, q))
      return e;
    if (rt::Error e = detail::checkSameShape(kOp, name, *t, *like, likeName))
      return e;
  }
  // The gradients are written while everything else is read.
  std::pair<const char *, const AttentionTensor *> inputs[] = {
      {"q", &q}, {"k", &k}, {"v", &v}, {"o", &o}, {"do", &dO}};
  std::pair<const char *, const AttentionTensor *> outputs[] = {
      {"dq", &dq}, {"dk", &dk}, {"dv", &dv}};
  for (size_t i = 0; i < std::size(outputs); ++i) {
    const auto &out = outputs[i];
    for (auto [name, in] : inputs)
      if (overlaps(*in, *out.second))
        return detail::invalid(kOp, out.first, std::string("overlaps ") + name);
    for (size_t j = 0; j < i; ++j)
      if (overlaps(*outputs[j].second, *out.second))
        return detail::invalid(kOp, out.first,
                               std::string("overlaps ") + outputs[j].first);
    if (overlaps(*out.second, opt.lse))
      return detail::invalid(kOp, "lse",
                             std::string("overlaps ") + out.first);
  }
  if (rt::Error e = detail::checkWorkspace(
          kOp, opt.workspace, flashAttentionBackwardWorkspaceElements(q),
          "flashAttentionBackwardWorkspaceElements"))
    return e;
  for (auto [name, in] : inputs)
    if (overlaps(*in, opt.workspace))
      return detail::invalid(kOp, "workspace", std::string("overlaps ") + name);
  for (auto [name, out] : outputs)
    if (overlaps(*out, opt.workspace))
      return detail::invalid(kOp, "workspace", std::string("overlaps ") + name);
  if (rt::Error e =
          detail::checkDisjoint(kOp, "lse", opt.lse, "workspace", opt.workspace))
    return e;
  const std::int64_t keysPerBlock = attnDkdvBlockK(unsigned(q.dim));
  if ((x.maxK + keysPerBlock - 1) / keysPerBlock > detail::kMaxExtent)
    return detail::invalid(kOp, "k", "too many rows for one grid");
  return rt::Error::success();
}

} // namespace

rt::Error kaio::ops::validateFlashAttentionBackward(
    const AttentionTensor &q, const AttentionTensor &k,
    const AttentionTensor &v, const AttentionTensor &o,
    const AttentionTensor &dO, const AttentionTensor &dq,
    const AttentionTensor &dk, const AttentionTensor &dv,
    const AttentionOptions &opt) {
  Extents x;
  return validateBackward(q, k, v, o, dO, dq, dk, dv, opt, x);
}

namespace {

/// The kernel arguments the attention kernels share: a tensor's pointer
/// and strides, a row vector's pointer and strides, the trailing ones.
struct ArgBuilder {
  const AttentionTensor &q, &k;
  const AttentionOptions &opt;
  std::vector<rt::KernelArg> args;

  bool varlen() const { return isVarlen(opt); }
  void tensor(const char *name, const AttentionTensor &t, bool isConst) {
    detail::appendTensorArgs(args, name, t, isConst);
  }
  /// [batch, heads, seq_q], or [heads, total_q] when packed.
  void rowVector(const char *name, CUdeviceptr p, bool isConst) {
    args.push_back(
        rt::KernelArg::pointer(p, rt::ScalarType::F32, isConst).named(name));
    args.push_back(
        rt::KernelArg::scalar(std::uint64_t(varlen() ? 0 : q.heads * q.seq)));
    args.push_back(rt::KernelArg::scalar(std::uint64_t(q.seq)));
  }
  void common(std::uint32_t flags) {
    float scale =
        opt.scale ? opt.scale : float(1.0 / std::sqrt(double(q.dim)));
    // Absent packed offsets are never read (the flag is off).
    rt::ScalarType s32 = detail::scalarTypeOf(DType::S32);
    CUdeviceptr cuQ = varlen() ? opt.cuSeqlensQ.data : q.data;
    CUdeviceptr cuK = varlen() ? opt.cuSeqlensK.data : q.data;
    for (rt::KernelArg a :
         {rt::KernelArg::pointer(cuQ, s32, true).named("cuSeqlensQ"),
          rt::KernelArg::pointer(cuK, s32, true).named("cuSeqlensK"),
          rt::KernelArg::scalar(std::uint32_t(q.seq)),
          rt::KernelArg::scalar(std::uint32_t(k.seq)),
          rt::KernelArg::scalar(std::uint32_t(q.heads / k.heads)),
          rt::KernelArg::scalar(float(scale * M_LOG2E)),
          rt::KernelArg::scalar(scale),
          rt::KernelArg::scalar(windowSide(opt.windowLeft, q, k)),
          rt::KernelArg::scalar(
              windowSide(opt.causal ? 0 : opt.windowRight, q, k)),
          rt::KernelArg::scalar(flags | (varlen() ? kAttnVarlen : 0u) |
                                (opt.bottomRight ? kAttnBottomRight : 0u))})
      args.push_back(a);
  }
};

std::string kernelName(const char *base, const AttentionTensor &q) {
  return std::string(base) + "_" + getDTypeName(q.dtype) + "_d" +
         std::to_string(q.dim);
}

/// The 4-d tensor map of an attention tensor ([batch][seq][heads][dim] with
/// its strides; innermost first: dim, heads, seq, batch), boxes of 64
/// columns of `rows` rows of one head, 128-byte swizzled.
rt::Expected<rt::TensorMap> attentionMap(const rt::Kernel &kernel,
                                         const AttentionTensor &t,
                                         std::uint32_t rows) {
  rt::TensorMapDesc d;
  d.elem = detail::scalarTypeOf(t.dtype);
  d.rank = 4;
  d.address = t.data;
  const std::int64_t dims[4] = {t.dim, t.heads, t.seq, t.batch};
  const std::int64_t strides[4] = {1, t.headStride, t.seqStride,
                                   t.batchStride};
  const std::uint32_t box[4] = {64, 1, rows, 1};
  for (unsigned i = 0; i < 4; ++i) {
    d.dims[i] = std::uint64_t(dims[i]);
    d.strides[i] = std::uint64_t(strides[i]) * 2;
    d.box[i] = box[i];
  }
  d.swizzle = rt::TensorMapSwizzle::B128;
  return rt::makeTensorMap(kernel, d);
}

/// Whether two blocks of `kernel` (its dynamic shared memory and the 1 KiB
/// the GPU reserves a block) fit an SM's shared memory.
bool twoBlocksFit(const Library::Impl &impl, const rt::Kernel &kernel) {
  const rt::KernelSignature *sig = kernel.signature();
  std::uint64_t block = (sig ? sig->dynamicSharedBytes : 0) + 1024;
  return 2 * block <= impl.sharedPerSM;
}

/// Whether the sm_90a forward can read `t` through a tensor map (16-byte
/// aligned base and strides) or, for O, store its 16-bit pairs.
bool tmaReadable(const AttentionTensor &t) {
  return t.data % 16 == 0 && t.headStride % 8 == 0 && t.seqStride % 8 == 0 &&
         t.batchStride % 8 == 0;
}
/// Whether the sm_90a kernels can store `t`'s 16-bit pairs: 4-byte aligned
/// pairs, and strides that fit the 32-bit arguments they take (a view into
/// a larger tensor, e.g. one of a fused QKV gradient's, may not).
bool pairWritable(const AttentionTensor &t) {
  auto fits = [](std::int64_t stride) {
    return stride <= std::int64_t(UINT32_MAX);
  };
  return t.data % 4 == 0 && t.headStride % 2 == 0 && t.seqStride % 2 == 0 &&
         t.batchStride % 2 == 0 && fits(t.headStride) &&
         fits(t.seqStride) && fits(t.batchStride);
}

} // namespace

/// The FlashAttention-3-style forward on a 9.0 GPU (TMA + wgmma, warp
/// specialised). Returns false, launching nothing, when it does not apply
/// (no sm_90a kernels, the portable kernel asked for, a head dim it lacks,
/// tensors a tensor map cannot describe); the portable kernel runs then.
static bool launchHopperAttention(Library::Impl &impl,
                                  const AttentionTensor &q,
                                  const AttentionTensor &k,
                                  const AttentionTensor &v,
                                  const AttentionTensor &o,
                                  const AttentionOptions &opt,
                                  std::int64_t batch, std::int64_t maxQ,
                                  rt::Error &error) {
  if (!impl.hopper || opt.portable || (q.dim != 64 && q.dim != 128 && q.dim != 256) ||
      !tmaReadable(q) || !tmaReadable(k) || !tmaReadable(v) ||
      !pairWritable(o))
    return false;
  HopperAttentionConfig config;
  config.bf16 = q.dtype == DType::BF16;
  config.headDim = unsigned(q.dim);
  using Schedule = AttentionOptions::Schedule;
  config.pingPong = opt.schedule == Schedule::Auto
                        ? hopperAttentionPingPong(config.headDim)
                        : opt.schedule == Schedule::PingPong;
  config.consumers = opt.queryRows == 0
                         ? hopperAttentionConsumers(config.headDim)
                         : unsigned(opt.queryRows) / 64;
  const unsigned rows = hopperAttentionRows(config);
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(hopperAttentionName(config), /*hopperSet=*/true);
  if (!kernel) {
    error = kernel.takeError();
    return true;
  }
  rt::Expected<rt::TensorMap> mq = attentionMap(**kernel, q, rows);
  const std::uint32_t keys = hopperAttentionKeys(config.headDim);
  rt::Expected<rt::TensorMap> mk = attentionMap(**kernel, k, keys);
  rt::Expected<rt::TensorMap> mv = attentionMap(**kernel, v, keys);
  if (!mq || !mk || !mv) {
    // The driver refused a layout (e.g. strides it does not take): the
    // portable kernel handles any strides.
    (void)mq.takeError(), (void)mk.takeError(), (void)mv.takeError();
    return false;
  }
  const bool varlen = isVarlen(opt);
  const float scale =
      opt.scale ? opt.scale : float(1.0 / std::sqrt(double(q.dim)));
  rt::ScalarType s32 = detail::scalarTypeOf(DType::S32);
  std::vector<rt::KernelArg> args = {
      rt::toKernelArg(*mq),
      rt::toKernelArg(*mk),
      rt::toKernelArg(*mv),
      rt::KernelArg::pointer(o.data, detail::scalarTypeOf(o.dtype), false)
          .named("o"),
      rt::KernelArg::scalar(std::uint32_t(o.batchStride)),
      rt::KernelArg::scalar(std::uint32_t(o.seqStride)),
      rt::KernelArg::scalar(std::uint32_t(o.headStride)),
      rt::KernelArg::scalar(std::uint32_t(q.seq)),
      rt::KernelArg::scalar(std::uint32_t(k.seq)),
      rt::KernelArg::scalar(std::uint32_t(q.heads / k.heads)),
      rt::KernelArg::scalar(float(scale * M_LOG2E)),
      rt::KernelArg::scalar(windowSide(opt.windowLeft, q, k)),
      rt::KernelArg::scalar(windowSide(opt.causal ? 0 : opt.windowRight, q, k)),
      rt::KernelArg::scalar(std::uint32_t(opt.bottomRight)),
      rt::KernelArg::pointer(opt.lse.isAbsent() ? 0 : opt.lse.data,
                             rt::ScalarType::F32, false)
          .named("lse"),
      rt::KernelArg::scalar(std::uint32_t(q.seq)),
      rt::KernelArg::pointer(varlen ? opt.cuSeqlensQ.data : 0, s32, true)
          .named("cuSeqlensQ"),
      rt::KernelArg::pointer(varlen ? opt.cuSeqlensK.data : 0, s32, true)
          .named("cuSeqlensK")};
  rt::LaunchConfig launch;
  launch.grid = rt::Dim3(unsigned((maxQ + rows - 1) / rows),
                         unsigned(q.heads), unsigned(batch));
  launch.block = rt::Dim3(hopperAttentionThreads(config));
  launch.stream = opt.stream;
  error = (*kernel)->launchArgs(launch, args);
  return true;
}

rt::Error Library::flashAttention(const AttentionTensor &q,
                                  const AttentionTensor &k,
                                  const AttentionTensor &v,
                                  const AttentionTensor &o,
                                  const AttentionOptions &opt) {
  Extents x;
  if (rt::Error e = validateAttention(q, k, v, o, opt, false, x))
    return e;
  std::int64_t batch = x.batch, maxQ = x.maxQ;
  if (!batch || !maxQ)
    return rt::Error::success();
  rt::Error hopperError = rt::Error::success();
  if (launchHopperAttention(*impl_, q, k, v, o, opt, batch, maxQ,
                            hopperError)) {
    if (hopperError)
      return hopperError.addContext(kOp);
    return rt::Error::success();
  }
  rt::Expected<rt::Kernel *> kernel =
      impl_->kernel(kernelName("flash_fwd", q));
  if (!kernel)
    return kernel.takeError().addContext(kOp);
  ArgBuilder a{q, k, opt, {}};
  a.tensor("q", q, true);
  a.tensor("k", k, true);
  a.tensor("v", v, true);
  a.tensor("o", o, false);
  // Without lse the kernel stores none (the pointer is never written).
  a.rowVector("lse", opt.lse.isAbsent() ? o.data : opt.lse.data, false);
  a.common(opt.lse.isAbsent() ? 0u : kAttnLse);
  rt::LaunchConfig config;
  config.grid = rt::Dim3(unsigned((maxQ + kAttnBlockQ - 1) / kAttnBlockQ),
                         unsigned(q.heads), unsigned(batch));
  config.block = rt::Dim3(32 * kAttnWarps);
  config.stream = opt.stream;
  if (rt::Error e = (*kernel)->launchArgs(config, a.args))
    return e.addContext(kOp);
  return rt::Error::success();
}

/// Whether the sm_90a backward kernels apply: sm_90a kernels loaded, the
/// portable ones not asked for, head dim 64 or 128, tensors tensor maps
/// can describe and 16-bit pairs can be stored to.
static bool hopperBackwardApplies(const Library::Impl &impl,
                                  const AttentionTensor &q,
                                  const AttentionTensor &k,
                                  const AttentionTensor &v,
                                  const AttentionTensor &dO,
                                  const AttentionTensor &dq,
                                  const AttentionTensor &dk,
                                  const AttentionTensor &dv,
                                  const AttentionOptions &opt) {
  return impl.hopper && !opt.portable &&
         kernels::hopperDkdvBuilt(unsigned(q.dim)) && tmaReadable(q) &&
         tmaReadable(k) && tmaReadable(v) && tmaReadable(dO) &&
         pairWritable(dq) && pairWritable(dk) && pairWritable(dv) &&
         q.heads * q.seq <= std::int64_t(UINT32_MAX);
}

/// One of the sm_90a backward kernels (TMA + wgmma, warp specialised):
/// dK and dV (`outputs` dk, dv; a block per kHopperDkdvKeys keys of each kv
/// head) or dQ (`outputs` dq; a block per kHopperDqQueries rows of each
/// head). Returns false, launching nothing, when the driver refuses a
/// tensor map (the portable kernel runs then); a failed load or launch is
/// `error`.
static bool launchHopperBackward(
    Library::Impl &impl, bool dqKernel, const AttentionTensor &q,
    const AttentionTensor &k, const AttentionTensor &v,
    const AttentionTensor &dO,
    std::initializer_list<std::pair<const char *, const AttentionTensor *>>
        outputs,
    const AttentionOptions &opt, std::int64_t batch, std::int64_t rows,
    rt::Error &error) {
  HopperAttentionBackwardConfig config;
  config.bf16 = q.dtype == DType::BF16;
  config.headDim = unsigned(q.dim);
  rt::Expected<rt::Kernel *> kernel = impl.kernel(
      dqKernel ? hopperDqName(config) : hopperDkdvName(config),
      /*hopperSet=*/true);
  if (!kernel) {
    error = kernel.takeError();
    return true;
  }
  const std::uint32_t queryRows =
      dqKernel ? kernels::kHopperDqQueries : kernels::kHopperDkdvQueries;
  const std::uint32_t keyRows =
      dqKernel ? kernels::kHopperDqKeys : kernels::kHopperDkdvKeys;
  rt::Expected<rt::TensorMap> mq = attentionMap(**kernel, q, queryRows);
  rt::Expected<rt::TensorMap> mk = attentionMap(**kernel, k, keyRows);
  rt::Expected<rt::TensorMap> mv = attentionMap(**kernel, v, keyRows);
  rt::Expected<rt::TensorMap> mdo = attentionMap(**kernel, dO, queryRows);
  if (!mq || !mk || !mv || !mdo) {
    (void)mq.takeError(), (void)mk.takeError(), (void)mv.takeError(),
        (void)mdo.takeError();
    return false;
  }
  const bool varlen = isVarlen(opt);
  const float scale =
      opt.scale ? opt.scale : float(1.0 / std::sqrt(double(q.dim)));
  rt::ScalarType s32 = detail::scalarTypeOf(DType::S32);
  std::vector<rt::KernelArg> args = {rt::toKernelArg(*mq), rt::toKernelArg(*mk),
                                     rt::toKernelArg(*mv),
                                     rt::toKernelArg(*mdo)};
  for (auto [name, t] : outputs) {
    args.push_back(
        rt::KernelArg::pointer(t->data, detail::scalarTypeOf(t->dtype), false)
            .named(name));
    args.push_back(rt::KernelArg::scalar(std::uint32_t(t->batchStride)));
    args.push_back(rt::KernelArg::scalar(std::uint32_t(t->seqStride)));
    args.push_back(rt::KernelArg::scalar(std::uint32_t(t->headStride)));
  }
  for (rt::KernelArg a :
       {rt::KernelArg::pointer(opt.lse.data, rt::ScalarType::F32, true)
            .named("lse"),
        rt::KernelArg::pointer(opt.workspace.data, rt::ScalarType::F32, true)
            .named("workspace"),
        // lse and delta: [batch, heads, seq_q], or [heads, total_q] packed.
        rt::KernelArg::scalar(std::uint32_t(varlen ? 0 : q.heads * q.seq)),
        rt::KernelArg::scalar(std::uint32_t(q.seq)),
        rt::KernelArg::scalar(std::uint32_t(q.seq)),
        rt::KernelArg::scalar(std::uint32_t(k.seq)),
        rt::KernelArg::scalar(std::uint32_t(q.heads / k.heads)),
        rt::KernelArg::scalar(float(scale * M_LOG2E)),
        rt::KernelArg::scalar(scale),
        rt::KernelArg::scalar(windowSide(opt.windowLeft, q, k)),
        rt::KernelArg::scalar(
            windowSide(opt.causal ? 0 : opt.windowRight, q, k)),
        rt::KernelArg::scalar(std::uint32_t(opt.bottomRight)),
        rt::KernelArg::pointer(varlen ? opt.cuSeqlensQ.data : 0, s32, true)
            .named("cuSeqlensQ"),
        rt::KernelArg::pointer(varlen ? opt.cuSeqlensK.data : 0, s32, true)
            .named("cuSeqlensK")})
    args.push_back(a);
  const std::int64_t perBlock = dqKernel ? queryRows : keyRows;
  rt::LaunchConfig launch;
  launch.grid = rt::Dim3(unsigned((rows + perBlock - 1) / perBlock),
                         unsigned(dqKernel ? q.heads : k.heads),
                         unsigned(batch));
  launch.block = rt::Dim3(384);
  launch.stream = opt.stream;
  error = (*kernel)->launchArgs(launch, args);
  return true;
}

rt::Error Library::flashAttentionBackward(
    const AttentionTensor &q, const AttentionTensor &k,
    const AttentionTensor &v, const AttentionTensor &o,
    const AttentionTensor &dO, const AttentionTensor &dq,
    const AttentionTensor &dk, const AttentionTensor &dv,
    const AttentionOptions &opt) {
  Extents x;
  if (rt::Error e = validateBackward(q, k, v, o, dO, dq, dk, dv, opt, x))
    return e;
  std::int64_t batch = x.batch, maxQ = x.maxQ, maxK = x.maxK;
  if (!batch || (!maxQ && !maxK))
    return rt::Error::success();
  rt::Expected<rt::Kernel *> prep =
      impl_->kernel(kernelName("flash_bwd_prep", q));
  rt::Expected<rt::Kernel *> dqKernel =
      impl_->kernel(kernelName("flash_bwd_dq", q));
  rt::Expected<rt::Kernel *> dkdv =
      impl_->kernel(kernelName("flash_bwd_dkdv", q));
  // The double-buffered dK/dV kernel is built for two blocks an SM; where
  // two do not fit (an 8.6 or 8.9 GPU's 100 KiB at head dim 128) the
  // single-set variant keeps two.
  if (dkdv && q.dim == 128 && !twoBlocksFit(*impl_, **dkdv))
    dkdv = impl_->kernel(kernelName("flash_bwd_dkdv_single", q));
  for (rt::Expected<rt::Kernel *> *kern : {&prep, &dqKernel, &dkdv})
    if (!*kern)
      return kern->takeError().addContext(kOp);
  auto launch = [&](rt::Kernel *kernel, rt::Dim3 grid, unsigned block,
                    std::vector<rt::KernelArg> &args) {
    rt::LaunchConfig config;
    config.grid = grid;
    config.block = rt::Dim3(block);
    config.stream = opt.stream;
    return kernel->launchArgs(config, args);
  };
  unsigned heads = unsigned(q.heads), batches = unsigned(batch);
  // delta = rowsum(dO * O), into the workspace.
  ArgBuilder pa{q, k, opt, {}};
  pa.tensor("o", o, true);
  pa.tensor("dO", dO, true);
  pa.rowVector("workspace", opt.workspace.data, false);
  pa.common(0);
  ArgBuilder qa{q, k, opt, {}};
  auto inputs = [&](ArgBuilder &builder) {
    builder.tensor("q", q, true);
    builder.tensor("k", k, true);
    builder.tensor("v", v, true);
    builder.tensor("dO", dO, true);
  };
  inputs(qa);
  qa.tensor("dq", dq, false);
  qa.rowVector("lse", opt.lse.data, true);
  qa.rowVector("workspace", opt.workspace.data, true);
  qa.common(0);
  ArgBuilder ka{q, k, opt, {}};
  inputs(ka);
  ka.tensor("dk", dk, false);
  ka.tensor("dv", dv, false);
  ka.rowVector("lse", opt.lse.data, true);
  ka.rowVector("workspace", opt.workspace.data, true);
  ka.common(0);
  unsigned qBlocks = unsigned((maxQ + kAttnBlockQ - 1) / kAttnBlockQ);
  // On a 9.0 GPU at head dims 64 and 128: the TMA/wgmma dQ and dK/dV
  // kernels (each falls back to its portable twin if the driver refuses a
  // tensor map).
  const bool hopper =
      hopperBackwardApplies(*impl_, q, k, v, dO, dq, dk, dv, opt);
  if (maxQ) {
    if (rt::Error e = launch(*prep, rt::Dim3(unsigned((maxQ + 7) / 8), heads,
                                             batches),
                             256, pa.args))
      return e.addContext(kOp);
    rt::Error hopperError = rt::Error::success();
    if (hopper &&
        launchHopperBackward(*impl_, /*dqKernel=*/true, q, k, v, dO,
                             {{"dq", &dq}}, opt, batch, maxQ, hopperError)) {
      if (hopperError)
        return hopperError.addContext(kOp);
    } else if (rt::Error e =
                   launch(*dqKernel, rt::Dim3(qBlocks, heads, batches),
                          32 * kAttnWarps, qa.args)) {
      return e.addContext(kOp);
    }
  }
  // Every key block writes its dK and dV (zeros where no query sees it).
  if (maxK) {
    rt::Error hopperError = rt::Error::success();
    if (hopper && launchHopperBackward(*impl_, /*dqKernel=*/false, q, k, v, dO,
                                       {{"dk", &dk}, {"dv", &dv}}, opt, batch,
                                       maxK, hopperError))
      return hopperError ? hopperError.addContext(kOp) : rt::Error::success();
    if (rt::Error e = launch(
            *dkdv,
            rt::Dim3(unsigned((maxK + attnDkdvBlockK(unsigned(q.dim)) - 1) /
                              attnDkdvBlockK(unsigned(q.dim))),
                     unsigned(k.heads), batches),
            32 * kAttnWarps, ka.args))
      return e.addContext(kOp);
  }
  return rt::Error::success();
}

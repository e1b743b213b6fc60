//===- Elementwise.cpp - validation and dispatch of the element-wise ops --===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <algorithm>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;
using detail::invalid;

namespace {

/// Every operand of the op: a float matrix of the first one's shape and
/// dtype; outputs may be an input but not overlap one partially.
rt::Error checkOperands(const char *op,
                        std::initializer_list<std::pair<const char *,
                                                        const Matrix *>>
                            inputs,
                        const char *outName, const Matrix &out) {
  auto [firstName, first] = *inputs.begin();
  if (rt::Error e = detail::checkFloatMatrix(op, firstName, *first))
    return e;
  for (auto [name, m] : inputs)
    if (m != first)
      if (rt::Error e = detail::checkFloatMatrix(op, name, *m, first,
                                                 firstName))
        return e;
  if (rt::Error e =
          detail::checkFloatMatrix(op, outName, out, first, firstName))
    return e;
  for (auto [name, m] : inputs)
    if (rt::Error e = detail::checkNoPartialOverlap(op, name, *m, outName, out))
      return e;
  return rt::Error::success();
}

rt::LaunchConfig elementwiseLaunch(const Matrix &out, unsigned width,
                                   const rt::Stream *stream) {
  std::int64_t chunks = (out.cols + width - 1) / width;
  rt::LaunchConfig config;
  config.grid =
      rt::Dim3(unsigned((chunks + kElementwiseBlock - 1) / kElementwiseBlock),
               unsigned(std::min<std::int64_t>(out.rows, 65535)));
  config.block = rt::Dim3(kElementwiseBlock);
  config.stream = stream;
  return config;
}

rt::KernelArg u32(std::int64_t v) {
  return rt::KernelArg::scalar(std::uint32_t(v));
}

/// Picks the variant and launches `base` on args (pointers first).
rt::Error launch(Library::Impl &impl, const char *op, const std::string &base,
                 const Matrix &out, unsigned width,
                 std::initializer_list<rt::KernelArg> args,
                 const rt::Stream *stream) {
  if (out.rows == 0 || out.cols == 0)
    return rt::Error::success();
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(detail::kernelName(base.c_str(), out.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext(op);
  if (rt::Error e = (*kernel)->launchArgs(
          elementwiseLaunch(out, width, stream), args))
    return e.addContext(op);
  return rt::Error::success();
}

} // namespace

rt::Error kaio::ops::validateBiasActivation(const Matrix &x, const Matrix &out,
                                            Activation act,
                                            const ElementwiseOptions &o) {
  const char *op = "bias_activation";
  if (rt::Error e = checkOperands(op, {{"x", &x}}, "out", out))
    return e;
  if (!o.bias.isAbsent())
    if (rt::Error e = detail::checkVector(op, "bias", o.bias, x.cols, x.dtype,
                                          "one per column of x"))
      return e;
  (void)act;
  return rt::Error::success();
}

rt::Error kaio::ops::validateGatedActivation(const Matrix &gate,
                                             const Matrix &up,
                                             const Matrix &out, Activation act,
                                             const ElementwiseOptions &) {
  const char *op = "gated_activation";
  if (act != Activation::Silu && act != Activation::GeluTanh &&
      act != Activation::GeluErf)
    return invalid(op, "act",
                   std::string("gated activations are silu (SwiGLU), "
                               "gelu_tanh or gelu_erf (GeGLU), not ") +
                       getActivationName(act));
  return checkOperands(op, {{"gate", &gate}, {"up", &up}}, "out", out);
}

rt::Error kaio::ops::validateAdd(const Matrix &a, const Matrix &b,
                                 const Matrix &out,
                                 const ElementwiseOptions &) {
  return checkOperands("add", {{"a", &a}, {"b", &b}}, "out", out);
}

rt::Error Library::biasActivation(const Matrix &x, const Matrix &out,
                                  Activation act,
                                  const ElementwiseOptions &o) {
  if (rt::Error e = validateBiasActivation(x, out, act, o))
    return e;
  unsigned width = detail::vectorWidth(x.dtype, {&x, &out, &o.bias});
  const Matrix &bias = o.bias.isAbsent() ? x : o.bias;
  return launch(*impl_, "bias_activation",
                std::string("bias_") + getActivationName(act), out, width,
                {detail::pointerArg("x", x, x.dtype, true),
                 detail::pointerArg("bias", bias, x.dtype, true),
                 detail::pointerArg("out", out, x.dtype, false), u32(x.rows),
                 u32(x.cols), u32(x.ld), u32(out.ld),
                 u32(o.bias.isAbsent() ? 0u : unsigned(kBiasPresent))},
                o.stream);
}

rt::Error Library::gatedActivation(const Matrix &gate, const Matrix &up,
                                   const Matrix &out, Activation act,
                                   const ElementwiseOptions &o) {
  if (rt::Error e = validateGatedActivation(gate, up, out, act, o))
    return e;
  unsigned width = detail::vectorWidth(gate.dtype, {&gate, &up, &out});
  return launch(*impl_, "gated_activation",
                std::string("glu_") + getActivationName(act), out, width,
                {detail::pointerArg("gate", gate, gate.dtype, true),
                 detail::pointerArg("up", up, gate.dtype, true),
                 detail::pointerArg("out", out, gate.dtype, false),
                 u32(gate.rows), u32(gate.cols), u32(gate.ld), u32(up.ld),
                 u32(out.ld)},
                o.stream);
}

rt::Error Library::add(const Matrix &a, const Matrix &b, const Matrix &out,
                       const ElementwiseOptions &o) {
  if (rt::Error e = validateAdd(a, b, out, o))
    return e;
  unsigned width = detail::vectorWidth(a.dtype, {&a, &b, &out});
  return launch(*impl_, "add", "add", out, width,
                {detail::pointerArg("a", a, a.dtype, true),
                 detail::pointerArg("b", b, a.dtype, true),
                 detail::pointerArg("out", out, a.dtype, false), u32(a.rows),
                 u32(a.cols), u32(a.ld), u32(b.ld), u32(out.ld)},
                o.stream);
}

rt::Error kaio::ops::validateRope(const Matrix &x, const Matrix &out,
                                  const Matrix &positions, const Matrix &cos,
                                  const Matrix &sin, std::int64_t heads,
                                  const RopeOptions &) {
  const char *op = "rope";
  if (rt::Error e = checkOperands(op, {{"x", &x}}, "out", out))
    return e;
  if (heads <= 0 || x.cols % heads)
    return invalid(op, "heads",
                   std::to_string(heads) + " does not divide the " +
                       std::to_string(x.cols) + " columns of x");
  std::int64_t headDim = x.cols / heads;
  if (headDim % 2)
    return invalid(op, "heads",
                   "head_dim " + std::to_string(headDim) +
                       " is odd (rotary pairs need an even head_dim)");
  if (rt::Error e = detail::checkVector(op, "positions", positions, x.rows,
                                        DType::S32, "one per row of x"))
    return e;
  for (auto [name, t] : {std::pair<const char *, const Matrix *>{"cos", &cos},
                         {"sin", &sin}}) {
    if (rt::Error e = detail::validateMatrix(op, name, *t))
      return e;
    if (t->dtype != DType::F32 || t->layout != Layout::RowMajor ||
        t->cols != headDim / 2 || t->rows < 1)
      return invalid(op, name,
                     std::string("must be a row-major f32 table [max_pos, ") +
                         std::to_string(headDim / 2) + "], is " +
                         getDTypeName(t->dtype) + " " + detail::shape(*t));
    if (rt::Error e = detail::checkDisjoint(op, name, *t, "out", out))
      return e;
  }
  if (cos.rows != sin.rows || cos.ld != sin.ld)
    return invalid(op, "sin",
                   "must have cos's shape and leading dimension");
  return rt::Error::success();
}

rt::Error Library::rope(const Matrix &x, const Matrix &out,
                        const Matrix &positions, const Matrix &cos,
                        const Matrix &sin, std::int64_t heads,
                        const RopeOptions &o) {
  if (rt::Error e = validateRope(x, out, positions, cos, sin, heads, o))
    return e;
  if (x.rows == 0 || x.cols == 0)
    return rt::Error::success();
  // 16-byte accesses (V elements of x, V or V / 2 pairs per thread) when
  // x, out and the tables are aligned and a head holds whole chunks.
  bool interleaved = o.layout == RopeLayout::Interleaved;
  std::int64_t headDim = x.cols / heads;
  unsigned width = detail::vectorWidth(x.dtype, {&x, &out});
  if (width > 1 &&
      ((interleaved ? headDim : headDim / 2) % width != 0 ||
       detail::vectorWidth(DType::F32, {&cos, &sin}) == 1))
    width = 1;
  std::string name = detail::kernelName(
      interleaved ? "rope_interleaved" : "rope_half", x.dtype, width);
  rt::Expected<rt::Kernel *> kernel = impl_->kernel(name);
  if (!kernel)
    return kernel.takeError().addContext("rope");
  // Threads per row: one per pair, or per V (half) or V / 2 (interleaved)
  // pairs.
  std::int64_t pairs = x.cols / 2;
  std::int64_t perThread = width == 1 ? 1 : interleaved ? width / 2 : width;
  std::int64_t threads = pairs / perThread;
  rt::LaunchConfig config;
  config.grid =
      rt::Dim3(unsigned((threads + kElementwiseBlock - 1) / kElementwiseBlock),
               unsigned(std::min<std::int64_t>(x.rows, 65535)));
  config.block = rt::Dim3(kElementwiseBlock);
  config.stream = o.stream;
  std::vector<rt::KernelArg> args = {
      detail::pointerArg("x", x, x.dtype, true),
      detail::pointerArg("out", out, x.dtype, false),
      detail::pointerArg("positions", positions, DType::S32, true),
      detail::pointerArg("cos", cos, DType::F32, true),
      detail::pointerArg("sin", sin, DType::F32, true),
      u32(x.rows),
      u32(heads),
      u32(headDim),
      u32(x.ld),
      u32(out.ld),
      u32(cos.ld),
      u32(cos.rows)};
  if (rt::Error e = (*kernel)->launchArgs(config, args))
    return e.addContext("rope");
  return rt::Error::success();
}

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
                 std::vector<rt::KernelArg> args, const rt::Stream *stream) {
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
                {detail::pointerArg(x, x.dtype, true),
                 detail::pointerArg(bias, x.dtype, true),
                 detail::pointerArg(out, x.dtype, false), u32(x.rows),
                 u32(x.cols), u32(x.ld), u32(out.ld),
                 u32(o.bias.isAbsent() ? 0 : kBiasPresent)},
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
                {detail::pointerArg(gate, gate.dtype, true),
                 detail::pointerArg(up, gate.dtype, true),
                 detail::pointerArg(out, gate.dtype, false), u32(gate.rows),
                 u32(gate.cols), u32(gate.ld), u32(up.ld), u32(out.ld)},
                o.stream);
}

rt::Error Library::add(const Matrix &a, const Matrix &b, const Matrix &out,
                       const ElementwiseOptions &o) {
  if (rt::Error e = validateAdd(a, b, out, o))
    return e;
  unsigned width = detail::vectorWidth(a.dtype, {&a, &b, &out});
  return launch(*impl_, "add", "add", out, width,
                {detail::pointerArg(a, a.dtype, true),
                 detail::pointerArg(b, a.dtype, true),
                 detail::pointerArg(out, a.dtype, false), u32(a.rows),
                 u32(a.cols), u32(a.ld), u32(b.ld), u32(out.ld)},
                o.stream);
}

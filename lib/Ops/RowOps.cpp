//===- RowOps.cpp - validation and dispatch of softmax and the norms ------===//
//
// Each op checks every argument, then picks the kernel for the dtype and
// access width (16-byte vectors when every pointer is 16-byte aligned and
// every leading dimension a multiple of the vector; scalars otherwise) and
// launches one block per row. The kernels' parameters and flag bits come
// from Kernels/RowKernels.h, which also builds them.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/RowKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <cmath>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;
using detail::invalid;
using detail::shape;
using detail::unsupported;

namespace {

rt::ScalarType scalarOf(DType type) {
  switch (type) {
  case DType::F16:
    return rt::ScalarType::F16;
  case DType::BF16:
    return rt::ScalarType::BF16;
  case DType::F32:
    return rt::ScalarType::F32;
  case DType::S8:
    return rt::ScalarType::S8;
  case DType::S32:
    return rt::ScalarType::S32;
  }
  return rt::ScalarType::B8;
}

/// An input or output of x's shape and dtype (x itself: want == nullptr).
rt::Error checkRowMatrix(const char *op, const char *name, const Matrix &m,
                         const Matrix *like) {
  if (rt::Error e = detail::validateMatrix(op, name, m))
    return e;
  if (m.layout != Layout::RowMajor)
    return unsupported(op, name,
                       "column-major matrices are not supported (rows are "
                       "contiguous)");
  if (m.dtype != DType::F32 && m.dtype != DType::F16 && m.dtype != DType::BF16)
    return unsupported(op, name,
                       std::string("dtype ") + getDTypeName(m.dtype) +
                           " is not supported (f32, f16 or bf16)");
  if (m.ld > detail::kMaxExtent)
    return invalid(op, name,
                   "leading dimension " + std::to_string(m.ld) + " exceeds " +
                       std::to_string(detail::kMaxExtent));
  if (like) {
    if (m.rows != like->rows || m.cols != like->cols)
      return invalid(op, name, "is " + shape(m) + " but x is " + shape(*like));
    if (m.dtype != like->dtype)
      return invalid(op, name,
                     std::string("dtype ") + getDTypeName(m.dtype) +
                         " differs from x's " + getDTypeName(like->dtype));
  }
  return rt::Error::success();
}

/// A contiguous vector of n elements of `type` (1 x n, or n x 1 with ld 1).
rt::Error checkVector(const char *op, const char *name, const Matrix &v,
                      std::int64_t n, DType type, const char *what) {
  if (rt::Error e = detail::validateMatrix(op, name, v))
    return e;
  bool isVector = v.layout == Layout::RowMajor &&
                  ((v.rows == 1 && v.cols == n) ||
                   (v.cols == 1 && v.rows == n && v.ld == 1));
  if (!isVector)
    return invalid(op, name,
                   "is " + shape(v) + " but must be a contiguous vector of " +
                       std::to_string(n) + " elements (" + what + ")");
  if (v.dtype != type)
    return invalid(op, name,
                   std::string("dtype ") + getDTypeName(v.dtype) +
                       " but must be " + getDTypeName(type));
  return rt::Error::success();
}

rt::Error checkFinite(const char *op, const char *name, float value) {
  if (!std::isfinite(value))
    return invalid(op, name, "must be finite, got " + std::to_string(value));
  return rt::Error::success();
}

rt::Error checkSoftmax(const char *op, const Matrix &x, const Matrix &out,
                       const SoftmaxOptions &options) {
  if (rt::Error e = checkRowMatrix(op, "x", x, nullptr))
    return e;
  if (rt::Error e = checkRowMatrix(op, "out", out, &x))
    return e;
  if (rt::Error e = detail::checkNoPartialOverlap(op, "x", x, "out", out))
    return e;
  return checkFinite(op, "scale", options.scale);
}

rt::Error checkNorm(const char *op, bool layer, const Matrix &x,
                    const Matrix &out, const NormOptions &o) {
  if (rt::Error e = checkRowMatrix(op, "x", x, nullptr))
    return e;
  if (x.rows > 0 && x.cols == 0)
    return invalid(op, "x", "rows of length 0 have no norm (x is " +
                                shape(x) + ")");
  if (rt::Error e = checkRowMatrix(op, "out", out, &x))
    return e;
  if (rt::Error e = detail::checkNoPartialOverlap(op, "x", x, "out", out))
    return e;
  if (!std::isfinite(o.eps) || o.eps < 0)
    return invalid(op, "eps",
                   "must be a finite number >= 0, got " + std::to_string(o.eps));
  if (!o.weight.isAbsent())
    if (rt::Error e = checkVector(op, "weight", o.weight, x.cols, x.dtype,
                                  "one per column of x"))
      return e;
  if (!o.bias.isAbsent()) {
    if (!layer)
      return invalid(op, "bias", "RMSNorm takes no bias");
    if (rt::Error e = checkVector(op, "bias", o.bias, x.cols, x.dtype,
                                  "one per column of x"))
      return e;
  }
  if (!o.residual.isAbsent()) {
    if (rt::Error e = checkRowMatrix(op, "residual", o.residual, &x))
      return e;
    if (o.residualOut.isAbsent())
      return invalid(op, "residualOut",
                     "is required with residual (it receives x + residual)");
    if (rt::Error e = checkRowMatrix(op, "residualOut", o.residualOut, &x))
      return e;
    if (rt::Error e = detail::checkNoPartialOverlap(op, "out", out, "residual",
                                                    o.residual))
      return e;
    for (auto [name, m] : {std::pair<const char *, const Matrix *>{"x", &x},
                           {"residual", &o.residual}, {"out", &out}})
      if (rt::Error e = detail::checkNoPartialOverlap(op, name, *m,
                                                      "residualOut",
                                                      o.residualOut))
        return e;
  } else if (!o.residualOut.isAbsent()) {
    return invalid(op, "residualOut", "is given without residual");
  }
  if (!o.mean.isAbsent()) {
    if (!layer)
      return invalid(op, "mean", "RMSNorm has no mean output (only rstd)");
    if (rt::Error e = checkVector(op, "mean", o.mean, x.rows, DType::F32,
                                  "one per row of x"))
      return e;
  }
  if (!o.rstd.isAbsent())
    if (rt::Error e = checkVector(op, "rstd", o.rstd, x.rows, DType::F32,
                                  "one per row of x"))
      return e;
  return rt::Error::success();
}

/// 16-byte vectors of the dtype when every matrix allows them, else 1.
unsigned vectorWidth(DType type, std::initializer_list<const Matrix *> ms) {
  unsigned v = 16 / getDTypeBytes(type);
  for (const Matrix *m : ms)
    if (!m->isAbsent() && (m->data % 16 || m->ld % v))
      return 1;
  return v;
}

std::string kernelName(const char *base, DType type, unsigned width) {
  std::string name = std::string(base) + "_" + getDTypeName(type);
  if (width > 1)
    name += "_v" + std::to_string(width);
  return name;
}

rt::KernelArg ptrArg(const Matrix &m, DType type, bool isConst) {
  return rt::KernelArg::pointer(m.data, scalarOf(type), isConst);
}

rt::LaunchConfig rowLaunch(const Matrix &x, const rt::Stream *stream) {
  rt::LaunchConfig config;
  config.grid = rt::Dim3(unsigned(x.rows));
  config.block = rt::Dim3(kRowBlock);
  config.stream = stream;
  return config;
}

} // namespace

rt::Error kaio::ops::validateSoftmax(const Matrix &x, const Matrix &out,
                                     const SoftmaxOptions &options) {
  return checkSoftmax("softmax", x, out, options);
}

rt::Error kaio::ops::validateRmsNorm(const Matrix &x, const Matrix &out,
                                     const NormOptions &options) {
  return checkNorm("rms_norm", false, x, out, options);
}

rt::Error kaio::ops::validateLayerNorm(const Matrix &x, const Matrix &out,
                                       const NormOptions &options) {
  return checkNorm("layer_norm", true, x, out, options);
}

namespace {

rt::Error launchSoftmax(Library::Impl &impl, const char *op, const Matrix &x,
                        const Matrix &out, const SoftmaxOptions &options) {
  if (rt::Error e = checkSoftmax(op, x, out, options))
    return e;
  if (x.rows == 0 || x.cols == 0)
    return rt::Error::success();
  unsigned width = vectorWidth(x.dtype, {&x, &out});
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(kernelName(op, x.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext(op);
  std::vector<rt::KernelArg> args = {
      ptrArg(x, x.dtype, true),
      ptrArg(out, x.dtype, false),
      rt::KernelArg::scalar(std::uint32_t(x.cols)),
      rt::KernelArg::scalar(std::uint32_t(x.ld)),
      rt::KernelArg::scalar(std::uint32_t(out.ld)),
      rt::KernelArg::scalar(options.scale)};
  if (rt::Error e = (*kernel)->launchArgs(rowLaunch(x, options.stream), args))
    return e.addContext(op);
  return rt::Error::success();
}

rt::Error launchNorm(Library::Impl &impl, const char *op, bool layer,
                     const Matrix &x, const Matrix &out,
                     const NormOptions &o) {
  if (rt::Error e = checkNorm(op, layer, x, out, o))
    return e;
  if (x.rows == 0)
    return rt::Error::success();
  std::uint32_t flags = 0;
  if (!o.weight.isAbsent())
    flags |= kNormWeight;
  if (!o.bias.isAbsent())
    flags |= kNormBias;
  bool residual = !o.residual.isAbsent();
  if (residual)
    flags |= kNormResidual;
  if (!o.mean.isAbsent())
    flags |= kNormMean;
  if (!o.rstd.isAbsent())
    flags |= kNormRstd;
  unsigned width = vectorWidth(x.dtype, {&x, &out, &o.weight, &o.bias,
                                         &o.residual, &o.residualOut});
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(kernelName(op, x.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext(op);
  // Absent operands: pointers the flags keep the kernel from touching.
  auto orX = [&](const Matrix &m) { return m.isAbsent() ? x : m; };
  const Matrix &sum = residual ? o.residualOut : out;
  const Matrix &src = residual ? o.residualOut : x;
  auto u32 = [](std::int64_t v) {
    return rt::KernelArg::scalar(std::uint32_t(v));
  };
  std::vector<rt::KernelArg> args = {
      ptrArg(x, x.dtype, true),
      ptrArg(orX(o.residual), x.dtype, true),
      ptrArg(orX(o.weight), x.dtype, true),
      ptrArg(orX(o.bias), x.dtype, true),
      ptrArg(out, x.dtype, false),
      ptrArg(sum, x.dtype, false),
      ptrArg(src, x.dtype, false),
      ptrArg(o.mean, DType::F32, false),
      ptrArg(o.rstd, DType::F32, false),
      u32(x.cols),
      u32(x.ld),
      u32(orX(o.residual).ld),
      u32(out.ld),
      u32(sum.ld),
      u32(src.ld),
      rt::KernelArg::scalar(o.eps),
      rt::KernelArg::scalar(flags)};
  if (rt::Error e = (*kernel)->launchArgs(rowLaunch(x, o.stream), args))
    return e.addContext(op);
  return rt::Error::success();
}

} // namespace

rt::Error Library::softmax(const Matrix &x, const Matrix &out,
                           const SoftmaxOptions &options) {
  return launchSoftmax(*impl_, "softmax", x, out, options);
}

rt::Error Library::logSoftmax(const Matrix &x, const Matrix &out,
                              const SoftmaxOptions &options) {
  return launchSoftmax(*impl_, "log_softmax", x, out, options);
}

rt::Error Library::rmsNorm(const Matrix &x, const Matrix &out,
                           const NormOptions &options) {
  return launchNorm(*impl_, "rms_norm", false, x, out, options);
}

rt::Error Library::layerNorm(const Matrix &x, const Matrix &out,
                             const NormOptions &options) {
  return launchNorm(*impl_, "layer_norm", true, x, out, options);
}

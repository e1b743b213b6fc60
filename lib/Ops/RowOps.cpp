//===- RowOps.cpp - validation and dispatch of softmax and the norms ------===//
//
// Each op checks every argument, then picks the kernel for the dtype and
// access width (16-byte vectors when every pointer is 16-byte aligned and
// every leading dimension a multiple of the vector; scalars otherwise; with
// vectors, rows up to registerRowMaxCols held in registers) and launches
// one block per row (a warp per row for short softmax rows). The kernels' parameters and flag bits come
// from Kernels/RowKernels.h, which also builds them.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
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

rt::Error checkSoftmax(const char *op, const Matrix &x, const Matrix &out,
                       const SoftmaxOptions &options) {
  if (rt::Error e = detail::checkFloatMatrix(op, "x", x, nullptr))
    return e;
  if (rt::Error e = detail::checkFloatMatrix(op, "out", out, &x))
    return e;
  if (rt::Error e = detail::checkNoPartialOverlap(op, "x", x, "out", out))
    return e;
  if (options.causalRows < 0 || options.causalRows > detail::kMaxExtent)
    return invalid(op, "causalRows",
                   "must be in [0, 2^31), got " +
                       std::to_string(options.causalRows));
  if (options.causalOffset < -detail::kMaxExtent ||
      options.causalOffset > detail::kMaxExtent)
    return invalid(op, "causalOffset",
                   "must fit in 32 bits, got " +
                       std::to_string(options.causalOffset));
  return detail::checkFinite(op, "scale", options.scale);
}

rt::Error checkNorm(const char *op, bool layer, const Matrix &x,
                    const Matrix &out, const NormOptions &o) {
  if (rt::Error e = detail::checkFloatMatrix(op, "x", x, nullptr))
    return e;
  if (x.rows > 0 && x.cols == 0)
    return invalid(op, "x", "rows of length 0 have no norm (x is " +
                                shape(x) + ")");
  if (rt::Error e = detail::checkFloatMatrix(op, "out", out, &x))
    return e;
  if (rt::Error e = detail::checkNoPartialOverlap(op, "x", x, "out", out))
    return e;
  if (!std::isfinite(o.eps) || o.eps < 0)
    return invalid(op, "eps",
                   "must be a finite number >= 0, got " + std::to_string(o.eps));
  if (!o.weight.isAbsent())
    if (rt::Error e = detail::checkVector(op, "weight", o.weight, x.cols, x.dtype,
                                  "one per column of x"))
      return e;
  if (!o.bias.isAbsent()) {
    if (!layer)
      return invalid(op, "bias", "RMSNorm takes no bias");
    if (rt::Error e = detail::checkVector(op, "bias", o.bias, x.cols, x.dtype,
                                  "one per column of x"))
      return e;
  }
  if (!o.residual.isAbsent()) {
    if (rt::Error e = detail::checkFloatMatrix(op, "residual", o.residual, &x))
      return e;
    if (o.residualOut.isAbsent())
      return invalid(op, "residualOut",
                     "is required with residual (it receives x + residual)");
    if (rt::Error e = detail::checkFloatMatrix(op, "residualOut", o.residualOut, &x))
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
    if (rt::Error e = detail::checkVector(op, "mean", o.mean, x.rows, DType::F32,
                                  "one per row of x"))
      return e;
  }
  if (!o.rstd.isAbsent())
    if (rt::Error e = detail::checkVector(op, "rstd", o.rstd, x.rows, DType::F32,
                                  "one per row of x"))
      return e;
  return rt::Error::success();
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

/// The register-row kernel's name part (`_regs<R>`, R the fewest 16-byte
/// chunks a thread holds that take the row: registerRowChunks) when rows of
/// x run on one (16-byte accesses, rows they hold whole: read once, not
/// twice), else "".
std::string registerRowPart(const Matrix &x, unsigned width) {
  unsigned chunks = registerRowChunks(x.cols, getDTypeBytes(x.dtype));
  return width > 1 && chunks ? "_regs" + std::to_string(chunks) : "";
}

/// The block of the kernel registerRowPart names (`allowed`: whether the
/// op may take a register-row kernel at all).
unsigned registerRowBlock(const Matrix &x, unsigned width, bool allowed) {
  unsigned chunks = registerRowChunks(x.cols, getDTypeBytes(x.dtype));
  return allowed && width > 1 && chunks ? registerRowThreads(chunks)
                                        : kRowBlock;
}

rt::Error launchSoftmax(Library::Impl &impl, const char *op, const Matrix &x,
                        const Matrix &out, const SoftmaxOptions &options) {
  if (rt::Error e = checkSoftmax(op, x, out, options))
    return e;
  if (x.rows == 0 || x.cols == 0)
    return rt::Error::success();
  unsigned width = detail::vectorWidth(x.dtype, {&x, &out});
  // Short rows: a warp per row (8 rows a block) rather than 256 threads
  // sharing a few chunks. The register-row kernels mask by the sign of the
  // scale: a zero one walks the row.
  bool warp = x.cols <= kWarpSoftmaxMaxCols;
  std::string base =
      std::string(op) +
      (warp ? "_warp"
            : options.scale != 0.0f ? registerRowPart(x, width) : "");
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(detail::kernelName(base.c_str(), x.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext(op);
  std::vector<rt::KernelArg> args = {
      detail::pointerArg("x", x, x.dtype, true),
      detail::pointerArg("out", out, x.dtype, false),
      rt::KernelArg::scalar(std::uint32_t(x.rows)),
      rt::KernelArg::scalar(std::uint32_t(x.cols)),
      rt::KernelArg::scalar(std::uint32_t(x.ld)),
      rt::KernelArg::scalar(std::uint32_t(out.ld)),
      rt::KernelArg::scalar(options.scale),
      rt::KernelArg::scalar(std::uint32_t(options.causalRows)),
      rt::KernelArg::scalar(std::int32_t(options.causalOffset))};
  rt::LaunchConfig config = detail::rowLaunch(x.rows, options.stream);
  if (warp)
    config.grid = rt::Dim3(
        unsigned((x.rows + kRowsPerWarpBlock - 1) / kRowsPerWarpBlock));
  else
    config.block = rt::Dim3(registerRowBlock(x, width, options.scale != 0.0f));
  if (rt::Error e = (*kernel)->launchArgs(config, args))
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
  unsigned width = detail::vectorWidth(x.dtype, {&x, &out, &o.weight, &o.bias,
                                         &o.residual, &o.residualOut});
  std::string base = std::string(op) + registerRowPart(x, width);
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(detail::kernelName(base.c_str(), x.dtype, width));
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
      detail::pointerArg("x", x, x.dtype, true),
      detail::pointerArg("residual", orX(o.residual), x.dtype, true),
      detail::pointerArg("weight", orX(o.weight), x.dtype, true),
      detail::pointerArg("bias", orX(o.bias), x.dtype, true),
      detail::pointerArg("out", out, x.dtype, false),
      detail::pointerArg(residual ? "residualOut" : "out", sum, x.dtype, false),
      detail::pointerArg(residual ? "residualOut" : "x", src, x.dtype, false),
      detail::pointerArg("mean", o.mean, DType::F32, false),
      detail::pointerArg("rstd", o.rstd, DType::F32, false),
      u32(x.cols),
      u32(x.ld),
      u32(orX(o.residual).ld),
      u32(out.ld),
      u32(sum.ld),
      u32(src.ld),
      rt::KernelArg::scalar(o.eps),
      rt::KernelArg::scalar(flags)};
  rt::LaunchConfig config = detail::rowLaunch(x.rows, o.stream);
  config.block = rt::Dim3(registerRowBlock(x, width, true));
  if (rt::Error e = (*kernel)->launchArgs(config, args))
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

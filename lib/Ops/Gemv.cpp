//===- Gemv.cpp - validation and dispatch of the matrix-vector product ----===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <algorithm>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

rt::Error kaio::ops::validateGemv(const Matrix &a, const Matrix &x,
                                  const Matrix &y, const GemvOptions &o) {
  const char *op = "gemv";
  if (rt::Error e = detail::checkFloatMatrix(op, "a", a))
    return e;
  if (rt::Error e =
          detail::checkVector(op, "x", x, a.cols, a.dtype, "one per column of a"))
    return e;
  if (rt::Error e =
          detail::checkVector(op, "y", y, a.rows, a.dtype, "one per row of a"))
    return e;
  if (!o.bias.isAbsent())
    if (rt::Error e = detail::checkVector(op, "bias", o.bias, a.rows, a.dtype,
                                          "one per row of a"))
      return e;
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"x", &x}, {"bias", &o.bias}})
    if (rt::Error e = detail::checkDisjoint(op, name, *m, "y", y))
      return e;
  if ((a.rows + kGemvRowsPerBlock - 1) / kGemvRowsPerBlock > detail::kMaxExtent)
    return detail::invalid(op, "a", "too many rows for one grid");
  return rt::Error::success();
}

rt::Error Library::gemv(const Matrix &a, const Matrix &x, const Matrix &y,
                        const GemvOptions &o) {
  if (rt::Error e = validateGemv(a, x, y, o))
    return e;
  if (a.rows == 0)
    return rt::Error::success();
  // y and bias are read and written one element per row: no alignment
  // needed for the vector kernel.
  unsigned width = detail::vectorWidth(a.dtype, {&a, &x});
  rt::Expected<rt::Kernel *> kernel =
      impl_->kernel(detail::kernelName("gemv", a.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext("gemv");
  const Matrix &bias = o.bias.isAbsent() ? y : o.bias;
  std::vector<rt::KernelArg> args = {
      detail::pointerArg("a", a, a.dtype, true),
      detail::pointerArg("x", x, a.dtype, true),
      detail::pointerArg(o.bias.isAbsent() ? "y" : "bias", bias, a.dtype, true),
      detail::pointerArg("y", y, a.dtype, false),
      rt::KernelArg::scalar(std::uint32_t(a.rows)),
      rt::KernelArg::scalar(std::uint32_t(a.cols)),
      rt::KernelArg::scalar(std::uint32_t(a.ld)),
      rt::KernelArg::scalar(
          std::uint32_t(o.bias.isAbsent() ? 0u : unsigned(kGemvBias)))};
  rt::LaunchConfig config;
  config.grid = rt::Dim3(
      unsigned((a.rows + kGemvRowsPerBlock - 1) / kGemvRowsPerBlock));
  config.block = rt::Dim3(kGemvBlock);
  config.stream = o.stream;
  if (rt::Error e = (*kernel)->launchArgs(config, args))
    return e.addContext("gemv");
  return rt::Error::success();
}

std::int64_t kaio::ops::gemvTransposedWorkspaceElements(std::int64_t k,
                                                        std::int64_t n) {
  return detail::maxColumnSplits(k, n) * std::max<std::int64_t>(n, 1);
}

rt::Error kaio::ops::validateGemvTransposed(const Matrix &a, const Matrix &x,
                                            const Matrix &y,
                                            const GemvOptions &o) {
  const char *op = "gemv_t";
  if (rt::Error e = detail::checkFloatMatrix(op, "a", a))
    return e;
  if (rt::Error e =
          detail::checkVector(op, "x", x, a.rows, a.dtype, "one per row of a"))
    return e;
  if (rt::Error e = detail::checkVector(op, "y", y, a.cols, a.dtype,
                                        "one per column of a"))
    return e;
  if (!o.bias.isAbsent())
    if (rt::Error e = detail::checkVector(op, "bias", o.bias, a.cols, a.dtype,
                                          "one per column of a"))
      return e;
  if (rt::Error e = detail::checkWorkspace(
          op, o.workspace, gemvTransposedWorkspaceElements(a.rows, a.cols),
          "gemvTransposedWorkspaceElements"))
    return e;
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"x", &x}, {"bias", &o.bias}, {"workspace",
                                                        &o.workspace}})
    if (rt::Error e = detail::checkDisjoint(op, name, *m, "y", y))
      return e;
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"x", &x}, {"bias", &o.bias}})
    if (rt::Error e =
            detail::checkDisjoint(op, name, *m, "workspace", o.workspace))
      return e;
  return rt::Error::success();
}

rt::Error Library::gemvTransposed(const Matrix &a, const Matrix &x,
                                  const Matrix &y, const GemvOptions &o) {
  if (rt::Error e = validateGemvTransposed(a, x, y, o))
    return e;
  if (a.cols == 0)
    return rt::Error::success();
  std::int64_t k = a.rows, n = a.cols;
  auto u32 = [](std::int64_t v) {
    return rt::KernelArg::scalar(std::uint32_t(v));
  };
  // Vector chunks when A's rows and the partials' rows stay 16-byte
  // aligned.
  unsigned width = detail::vectorWidth(a.dtype, {&a, &o.workspace});
  if (n % width)
    width = 1;
  std::int64_t chunks = (n + width - 1) / width;
  std::int64_t splits = k > 0 ? detail::columnSplits(k, chunks) : 0;
  if (splits > 0) {
    if (rt::Error e = impl_->launchColumns(
            "gemv_t", detail::kernelName("gemv_t_partial", a.dtype, width),
            chunks, splits, o.stream,
            {detail::pointerArg("a", a, a.dtype, true),
             detail::pointerArg("x", x, a.dtype, true),
             detail::pointerArg("workspace", o.workspace, DType::F32, false),
             u32(k), u32(n), u32(a.ld), u32((k + splits - 1) / splits)}))
      return e;
  }
  const Matrix &bias = o.bias.isAbsent() ? y : o.bias;
  return impl_->launchColumns(
      "gemv_t", std::string("gemv_t_reduce_") + getDTypeName(a.dtype), n, 1,
      o.stream,
      {detail::pointerArg("workspace", o.workspace, DType::F32, true),
       detail::pointerArg(o.bias.isAbsent() ? "y" : "bias", bias, a.dtype,
                          true),
       detail::pointerArg("y", y, a.dtype, false), u32(n), u32(splits),
       u32(o.bias.isAbsent() ? 0u : unsigned(kGemvBias))});
}

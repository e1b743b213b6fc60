//===- Gemv.cpp - validation and dispatch of the matrix-vector product ----===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

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
      detail::pointerArg(a, a.dtype, true),
      detail::pointerArg(x, a.dtype, true),
      detail::pointerArg(bias, a.dtype, true),
      detail::pointerArg(y, a.dtype, false),
      rt::KernelArg::scalar(std::uint32_t(a.rows)),
      rt::KernelArg::scalar(std::uint32_t(a.cols)),
      rt::KernelArg::scalar(std::uint32_t(a.ld)),
      rt::KernelArg::scalar(std::uint32_t(o.bias.isAbsent() ? 0 : kGemvBias))};
  rt::LaunchConfig config;
  config.grid = rt::Dim3(
      unsigned((a.rows + kGemvRowsPerBlock - 1) / kGemvRowsPerBlock));
  config.block = rt::Dim3(kGemvBlock);
  config.stream = o.stream;
  if (rt::Error e = (*kernel)->launchArgs(config, args))
    return e.addContext("gemv");
  return rt::Error::success();
}

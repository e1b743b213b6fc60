//===- TrainingOps.cpp - softmax backward, cross-entropy, reductions ------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <cstdint>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;
using detail::invalid;

namespace {

rt::KernelArg u32(std::int64_t v) {
  return rt::KernelArg::scalar(std::uint32_t(v));
}

/// Looks `base` up for x's dtype and width and launches it a block per row.
rt::Error launchRows(Library::Impl &impl, const char *op, const char *base,
                     const Matrix &x, unsigned width,
                     std::vector<rt::KernelArg> args,
                     const rt::Stream *stream, unsigned block = kRowBlock) {
  if (x.rows == 0)
    return rt::Error::success();
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(detail::kernelName(base, x.dtype, width));
  if (!kernel)
    return kernel.takeError().addContext(op);
  rt::LaunchConfig config = detail::rowLaunch(x.rows, stream);
  config.block = rt::Dim3(block);
  if (rt::Error e = (*kernel)->launchArgs(config, args))
    return e.addContext(op);
  return rt::Error::success();
}

rt::Error checkSoftmaxBackward(const char *op, const Matrix &y,
                               const Matrix &dy, const Matrix &dx,
                               const SoftmaxOptions &o) {
  if (rt::Error e = detail::checkFloatMatrix(op, "y", y, nullptr, "y"))
    return e;
  if (rt::Error e = detail::checkFloatMatrix(op, "dy", dy, &y, "y"))
    return e;
  if (rt::Error e = detail::checkFloatMatrix(op, "dx", dx, &y, "y"))
    return e;
  // dx may be dy (each element is read before it is written, by the same
  // thread), never y, which the second pass reads again.
  if (rt::Error e = detail::checkNoPartialOverlap(op, "dy", dy, "dx", dx))
    return e;
  if (rt::Error e = detail::checkDisjoint(op, "y", y, "dx", dx))
    return e;
  return detail::checkFinite(op, "scale", o.scale);
}

rt::Error launchSoftmaxBackward(Library::Impl &impl, const char *op,
                                const char *base, const Matrix &y,
                                const Matrix &dy, const Matrix &dx,
                                const SoftmaxOptions &o) {
  if (rt::Error e = checkSoftmaxBackward(op, y, dy, dx, o))
    return e;
  if (y.cols == 0)
    return rt::Error::success();
  // Rows a register-row kernel holds (the fewest chunks that do): y and
  // dy read once.
  unsigned width = detail::vectorWidth(y.dtype, {&y, &dy, &dx});
  unsigned chunks =
      softmaxBwdRegisterRowChunks(y.cols, getDTypeBytes(y.dtype));
  bool regs = width > 1 && chunks;
  std::string name =
      std::string(base) + (regs ? "_regs" + std::to_string(chunks) : "");
  return launchRows(impl, op, name.c_str(), y, width,
                    {detail::pointerArg("y", y, y.dtype, true),
                     detail::pointerArg("dy", dy, y.dtype, true),
                     detail::pointerArg("dx", dx, y.dtype, false), u32(y.cols),
                     u32(y.ld), u32(dy.ld), u32(dx.ld),
                     rt::KernelArg::scalar(o.scale)},
                    o.stream, regs ? registerRowThreads(chunks) : kRowBlock);
}

rt::Error checkLogits(const char *op, const Matrix &logits,
                      const Matrix &targets) {
  if (rt::Error e = detail::checkFloatMatrix(op, "logits", logits, nullptr,
                                             "logits"))
    return e;
  if (logits.rows > 0 && logits.cols == 0)
    return invalid(op, "logits", "rows of length 0 have no cross-entropy");
  // int32 or int64 (torch's default) class indices.
  DType type = targets.dtype == DType::S64 ? DType::S64 : DType::S32;
  return detail::checkVector(op, "targets", targets, logits.rows, type,
                             "one class index per row of logits");
}

/// The cross-entropy kernels' base name for the targets' index type.
std::string targetsBase(const char *base, const Matrix &targets) {
  return targets.dtype == DType::S64 ? std::string(base) + "_t64"
                                     : std::string(base);
}

const char *reductionName(Reduction r) {
  return r == Reduction::Sum ? "sum" : r == Reduction::Max ? "max" : "min";
}

rt::Error checkReduce(const char *op, const Matrix &x, Reduction reduction) {
  if (rt::Error e = detail::checkFloatMatrix(op, "x", x))
    return e;
  if (reduction != Reduction::Sum && x.rows > 0 && x.cols == 0)
    return invalid(op, "x",
                   std::string("rows of length 0 have no ") +
                       reductionName(reduction));
  return rt::Error::success();
}

/// x, out and the workspace do not overlap.
rt::Error checkReduceOperands(const char *op, const Matrix &x,
                              const Matrix &out, const Matrix &workspace) {
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"x", &x},
                         {"out", &out}})
    if (rt::Error e =
            detail::checkDisjoint(op, name, *m, "workspace", workspace))
      return e;
  return detail::checkDisjoint(op, "x", x, "out", out);
}

} // namespace

rt::Error kaio::ops::validateSoftmaxBackward(const Matrix &y, const Matrix &dy,
                                             const Matrix &dx,
                                             const SoftmaxOptions &o) {
  return checkSoftmaxBackward("softmax_bwd", y, dy, dx, o);
}

rt::Error kaio::ops::validateCrossEntropy(const Matrix &logits,
                                          const Matrix &targets,
                                          const Matrix &loss,
                                          const CrossEntropyOptions &o) {
  const char *op = "cross_entropy";
  if (rt::Error e = checkLogits(op, logits, targets))
    return e;
  if (rt::Error e = detail::checkVector(op, "loss", loss, logits.rows,
                                        DType::F32, "one per row of logits"))
    return e;
  if (!o.lse.isAbsent())
    if (rt::Error e = detail::checkVector(op, "lse", o.lse, logits.rows,
                                          DType::F32, "one per row of logits"))
      return e;
  return rt::Error::success();
}

rt::Error kaio::ops::validateCrossEntropyBackward(
    const Matrix &logits, const Matrix &targets, const Matrix &lse,
    const Matrix &dloss, const Matrix &dlogits, const CrossEntropyOptions &) {
  const char *op = "cross_entropy_bwd";
  if (rt::Error e = checkLogits(op, logits, targets))
    return e;
  for (auto [name, v] : {std::pair<const char *, const Matrix *>{"lse", &lse},
                         {"dloss", &dloss}})
    if (rt::Error e = detail::checkVector(op, name, *v, logits.rows,
                                          DType::F32, "one per row of logits"))
      return e;
  if (rt::Error e = detail::checkFloatMatrix(op, "dlogits", dlogits, &logits,
                                             "logits"))
    return e;
  return detail::checkNoPartialOverlap(op, "logits", logits, "dlogits",
                                       dlogits);
}

rt::Error kaio::ops::validateReduceRows(const Matrix &x, const Matrix &out,
                                        Reduction reduction,
                                        const ReduceOptions &) {
  const char *op = "reduce_rows";
  if (rt::Error e = checkReduce(op, x, reduction))
    return e;
  if (rt::Error e = detail::checkVector(op, "out", out, x.rows, DType::F32,
                                        "one per row of x"))
    return e;
  return detail::checkDisjoint(op, "x", x, "out", out);
}

rt::Error kaio::ops::validateArgmaxRows(const Matrix &x, const Matrix &out,
                                        const ReduceOptions &) {
  const char *op = "argmax_rows";
  if (rt::Error e = checkReduce(op, x, Reduction::Max))
    return e;
  if (x.cols > (1 << 24))
    return detail::unsupported(op, "x",
                               "rows longer than 2^24 elements are not "
                               "supported (got " +
                                   std::to_string(x.cols) + ")");
  if (rt::Error e = detail::checkVector(op, "out", out, x.rows, DType::S32,
                                        "one index per row of x"))
    return e;
  return detail::checkDisjoint(op, "x", x, "out", out);
}

rt::Error kaio::ops::validateReduceAll(const Matrix &x, const Matrix &out,
                                       Reduction reduction,
                                       const ReduceOptions &o) {
  const char *op = "reduce_all";
  if (rt::Error e = checkReduce(op, x, reduction))
    return e;
  if (reduction != Reduction::Sum && (x.rows == 0 || x.cols == 0))
    return invalid(op, "x",
                   std::string("an empty matrix has no ") +
                       reductionName(reduction));
  if (rt::Error e = detail::checkVector(op, "out", out, 1, DType::F32,
                                        "the result"))
    return e;
  if (rt::Error e = detail::checkWorkspace(op, o.workspace, x.rows,
                                           "one per row of x"))
    return e;
  return checkReduceOperands(op, x, out, o.workspace);
}

std::int64_t kaio::ops::argmaxAllWorkspaceElements(std::int64_t rows) {
  // The rows' maxima (f32), their argmaxes (s32), the row of the maximum.
  return 2 * std::max<std::int64_t>(rows, 0) + 1;
}

rt::Error kaio::ops::validateArgmaxAll(const Matrix &x, const Matrix &out,
                                       const ReduceOptions &o) {
  const char *op = "argmax_all";
  if (rt::Error e = checkReduce(op, x, Reduction::Max))
    return e;
  if (x.rows == 0 || x.cols == 0)
    return invalid(op, "x", "an empty matrix has no maximum");
  if (x.rows > (1 << 24) || x.cols > (1 << 24))
    return detail::unsupported(op, "x",
                               "is " + detail::shape(x) +
                                   " (rows and columns up to 2^24)");
  // The index: s32, or s64 for 2^31 elements and more.
  bool wide = out.dtype == DType::S64;
  if (rt::Error e = detail::checkVector(op, "out", out, 1,
                                        wide ? DType::S64 : DType::S32,
                                        "the index"))
    return e;
  if (!wide && x.rows * x.cols > std::int64_t(INT32_MAX))
    return invalid(op, "out",
                   "an s32 index cannot address " + detail::shape(x) +
                       " (2^31 elements or more): pass an s64 out");
  if (rt::Error e = detail::checkWorkspace(op, o.workspace,
                                           argmaxAllWorkspaceElements(x.rows),
                                           "argmaxAllWorkspaceElements"))
    return e;
  return checkReduceOperands(op, x, out, o.workspace);
}

std::int64_t kaio::ops::reduceColsWorkspaceElements(std::int64_t rows,
                                                    std::int64_t cols) {
  return detail::maxColumnSplits(rows, cols) * std::max<std::int64_t>(cols, 1);
}

rt::Error kaio::ops::validateReduceCols(const Matrix &x, const Matrix &out,
                                        Reduction reduction,
                                        const ReduceOptions &o) {
  const char *op = "reduce_cols";
  if (rt::Error e = detail::checkFloatMatrix(op, "x", x))
    return e;
  if (reduction != Reduction::Sum && x.rows == 0 && x.cols > 0)
    return invalid(op, "x",
                   std::string("columns of length 0 have no ") +
                       reductionName(reduction));
  if (rt::Error e = detail::checkVector(op, "out", out, x.cols, DType::F32,
                                        "one per column of x"))
    return e;
  if (rt::Error e = detail::checkWorkspace(
          op, o.workspace, reduceColsWorkspaceElements(x.rows, x.cols),
          "reduceColsWorkspaceElements"))
    return e;
  return checkReduceOperands(op, x, out, o.workspace);
}

rt::Error Library::softmaxBackward(const Matrix &y, const Matrix &dy,
                                   const Matrix &dx, const SoftmaxOptions &o) {
  return launchSoftmaxBackward(*impl_, "softmax_bwd", "softmax_bwd", y, dy, dx,
                               o);
}

rt::Error Library::logSoftmaxBackward(const Matrix &y, const Matrix &dy,
                                      const Matrix &dx,
                                      const SoftmaxOptions &o) {
  return launchSoftmaxBackward(*impl_, "log_softmax_bwd", "log_softmax_bwd", y,
                               dy, dx, o);
}

rt::Error Library::crossEntropy(const Matrix &logits, const Matrix &targets,
                                const Matrix &loss,
                                const CrossEntropyOptions &o) {
  if (rt::Error e = validateCrossEntropy(logits, targets, loss, o))
    return e;
  return launchRows(
      *impl_, "cross_entropy", targetsBase("cross_entropy", targets).c_str(),
      logits, detail::vectorWidth(logits.dtype, {&logits}),
      {detail::pointerArg("logits", logits, logits.dtype, true),
       detail::pointerArg("targets", targets, targets.dtype, true),
       detail::pointerArg("loss", loss, DType::F32, false),
       detail::pointerArg("lse", o.lse, DType::F32, false), u32(logits.cols),
       u32(logits.ld), rt::KernelArg::scalar(o.ignoreIndex),
       u32(o.lse.isAbsent() ? 0u : unsigned(kCrossEntropyLse))},
      o.stream);
}

rt::Error Library::crossEntropyBackward(const Matrix &logits,
                                        const Matrix &targets,
                                        const Matrix &lse, const Matrix &dloss,
                                        const Matrix &dlogits,
                                        const CrossEntropyOptions &o) {
  if (rt::Error e =
          validateCrossEntropyBackward(logits, targets, lse, dloss, dlogits, o))
    return e;
  return launchRows(
      *impl_, "cross_entropy_bwd",
      targetsBase("cross_entropy_bwd", targets).c_str(), logits,
      detail::vectorWidth(logits.dtype, {&logits, &dlogits}),
      {detail::pointerArg("logits", logits, logits.dtype, true),
       detail::pointerArg("targets", targets, targets.dtype, true),
       detail::pointerArg("lse", lse, DType::F32, true),
       detail::pointerArg("dloss", dloss, DType::F32, true),
       detail::pointerArg("dlogits", dlogits, logits.dtype, false),
       u32(logits.cols), u32(logits.ld), u32(dlogits.ld),
       rt::KernelArg::scalar(o.ignoreIndex)},
      o.stream);
}

rt::Error Library::reduceRows(const Matrix &x, const Matrix &out,
                              Reduction reduction, const ReduceOptions &o) {
  if (rt::Error e = validateReduceRows(x, out, reduction, o))
    return e;
  std::string base = std::string("reduce_") + reductionName(reduction);
  return launchRows(*impl_, "reduce_rows", base.c_str(), x,
                    detail::vectorWidth(x.dtype, {&x}),
                    {detail::pointerArg("x", x, x.dtype, true),
                     detail::pointerArg("out", out, DType::F32, false),
                     u32(x.cols), u32(x.ld)},
                    o.stream);
}

rt::Error Library::argmaxAll(const Matrix &x, const Matrix &out,
                             const ReduceOptions &o) {
  const char *op = "argmax_all";
  if (rt::Error e = validateArgmaxAll(x, out, o))
    return e;
  // The workspace: rows f32 maxima, rows s32 argmaxes, one s32 row index.
  auto part = [&](DType type, std::int64_t offset, std::int64_t n) {
    Matrix m = o.workspace;
    m.data += std::uint64_t(offset) * 4;
    m.dtype = type;
    m.rows = 1;
    m.cols = n;
    m.ld = n;
    m.capacityBytes = 0;
    return m;
  };
  Matrix maxima = part(DType::F32, 0, x.rows);
  Matrix perRow = part(DType::S32, x.rows, x.rows);
  Matrix rowIndex = part(DType::S32, 2 * x.rows, 1);
  ReduceOptions inner;
  inner.stream = o.stream;
  if (rt::Error e = reduceRows(x, maxima, Reduction::Max, inner))
    return e.addContext(op);
  if (rt::Error e = argmaxRows(x, perRow, inner))
    return e.addContext(op);
  if (rt::Error e = argmaxRows(maxima, rowIndex, inner))
    return e.addContext(op);
  bool wide = out.dtype == DType::S64;
  rt::Expected<rt::Kernel *> finish =
      impl_->kernel(wide ? "argmax_all_finish_s64" : "argmax_all_finish");
  if (!finish)
    return finish.takeError().addContext(op);
  rt::LaunchConfig config;
  config.grid = rt::Dim3(1);
  config.block = rt::Dim3(32);
  config.stream = o.stream;
  std::vector<rt::KernelArg> args = {
      detail::pointerArg("workspace", rowIndex, DType::S32, true),
      detail::pointerArg("workspace", perRow, DType::S32, true),
      detail::pointerArg("out", out, out.dtype, false), u32(x.cols)};
  if (rt::Error e = (*finish)->launchArgs(config, args))
    return e.addContext(op);
  return rt::Error::success();
}

rt::Error Library::reduceCols(const Matrix &x, const Matrix &out,
                              Reduction reduction, const ReduceOptions &o) {
  const char *op = "reduce_cols";
  if (rt::Error e = validateReduceCols(x, out, reduction, o))
    return e;
  if (x.cols == 0)
    return rt::Error::success();
  std::int64_t k = x.rows, n = x.cols;
  std::string name = reductionName(reduction);
  // A thread folds a 16-byte chunk of columns down a slice of rows.
  unsigned width = detail::vectorWidth(x.dtype, {&x, &o.workspace});
  if (n % width)
    width = 1;
  std::int64_t chunks = (n + width - 1) / width;
  std::int64_t splits = k > 0 ? detail::columnSplits(k, chunks) : 0;
  if (splits > 0) {
    if (rt::Error e = impl_->launchColumns(
            op,
            detail::kernelName(("reduce_cols_" + name).c_str(), x.dtype, width),
            chunks, splits, o.stream,
            {detail::pointerArg("x", x, x.dtype, true),
             detail::pointerArg("workspace", o.workspace, DType::F32, false),
             u32(k), u32(n), u32(x.ld), u32((k + splits - 1) / splits)}))
      return e;
  }
  // The slices' results, in order: bitwise the same every run.
  return impl_->launchColumns(
      op, "reduce_cols_finish_" + name, n, 1, o.stream,
      {detail::pointerArg("workspace", o.workspace, DType::F32, true),
       detail::pointerArg("out", out, DType::F32, false), u32(n), u32(splits)});
}

rt::Error Library::argmaxRows(const Matrix &x, const Matrix &out,
                              const ReduceOptions &o) {
  if (rt::Error e = validateArgmaxRows(x, out, o))
    return e;
  return launchRows(*impl_, "argmax_rows", "argmax", x,
                    detail::vectorWidth(x.dtype, {&x}),
                    {detail::pointerArg("x", x, x.dtype, true),
                     detail::pointerArg("out", out, DType::S32, false),
                     u32(x.cols), u32(x.ld)},
                    o.stream);
}

rt::Error Library::reduceAll(const Matrix &x, const Matrix &out,
                             Reduction reduction, const ReduceOptions &o) {
  if (rt::Error e = validateReduceAll(x, out, reduction, o))
    return e;
  // Rows into the workspace, then the workspace as one row into out (an
  // empty sum: a one-element row of 0 from the first stage is not there,
  // so reduce a zero-length row: the kernel stores the identity).
  Matrix partial = o.workspace;
  partial.rows = 1;
  partial.cols = x.rows;
  partial.ld = std::max<std::int64_t>(x.rows, 1);
  ReduceOptions inner;
  inner.stream = o.stream;
  if (x.rows > 0)
    if (rt::Error e = reduceRows(x, partial, reduction, inner))
      return e.addContext("reduce_all");
  return launchRows(*impl_, "reduce_all",
                    (std::string("reduce_") + reductionName(reduction)).c_str(),
                    partial, detail::vectorWidth(DType::F32, {&partial}),
                    {detail::pointerArg("workspace", partial, DType::F32, true),
                     detail::pointerArg("out", out, DType::F32, false),
                     u32(partial.cols), u32(partial.ld)},
                    o.stream);
}

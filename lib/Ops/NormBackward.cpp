//===- NormBackward.cpp - validation and dispatch of the norms' backward --===//

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

/// Row slices of the parameter gradients: enough blocks to fill a GPU
/// (the fused kernel: a block per slice; else columns / 256 x splits), at
/// least 16 rows a slice, at most 512 slices.
std::int64_t splitsFor(std::int64_t rows) {
  return std::clamp<std::int64_t>((rows + 15) / 16, 1, 512);
}

rt::KernelArg u32(std::int64_t v) {
  return rt::KernelArg::scalar(std::uint32_t(v));
}

rt::Error checkNormBackward(const char *op, bool layer, const Matrix &x,
                            const Matrix &dy, const Matrix &dx,
                            const NormBackwardOptions &o) {
  if (rt::Error e = detail::checkFloatMatrix(op, "x", x))
    return e;
  if (x.rows > 0 && x.cols == 0)
    return invalid(op, "x", "rows of length 0 have no norm (x is " +
                                detail::shape(x) + ")");
  if (rt::Error e = detail::checkFloatMatrix(op, "dy", dy, &x))
    return e;
  if (rt::Error e = detail::checkFloatMatrix(op, "dx", dx, &x))
    return e;
  if (rt::Error e = detail::checkNoPartialOverlap(op, "dy", dy, "dx", dx))
    return e;
  if (rt::Error e = detail::checkDisjoint(op, "x", x, "dx", dx))
    return e;
  if (!o.weight.isAbsent())
    if (rt::Error e = detail::checkVector(op, "weight", o.weight, x.cols,
                                          x.dtype, "one per column of x"))
      return e;
  if (rt::Error e = detail::checkVector(op, "rstd", o.rstd, x.rows,
                                        DType::F32, "one per row of x"))
    return e;
  if (layer) {
    if (rt::Error e = detail::checkVector(op, "mean", o.mean, x.rows,
                                          DType::F32, "one per row of x"))
      return e;
  } else if (!o.mean.isAbsent()) {
    return invalid(op, "mean", "RMSNorm has no mean");
  }
  if (!o.dbias.isAbsent() && !layer)
    return invalid(op, "dbias", "RMSNorm has no bias");
  bool params = !o.dweight.isAbsent() || !o.dbias.isAbsent();
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{
                             "dweight", &o.dweight},
                         {"dbias", &o.dbias}})
    if (!m->isAbsent())
      if (rt::Error e = detail::checkVector(op, name, *m, x.cols, x.dtype,
                                            "one per column of x"))
        return e;
  if (!params)
    return rt::Error::success();
  std::int64_t need = normBackwardWorkspaceElements(x.rows, x.cols);
  if (rt::Error e = detail::validateMatrix(op, "workspace", o.workspace))
    return e;
  if (o.workspace.dtype != DType::F32 ||
      o.workspace.rows * o.workspace.cols < need ||
      (o.workspace.rows != 1 && o.workspace.ld != 1))
    return invalid(op, "workspace",
                   "must be a contiguous f32 vector of at least " +
                       std::to_string(need) + " elements "
                       "(normBackwardWorkspaceElements)");
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"x", &x},
                         {"dy", &dy}, {"dx", &dx}, {"dweight", &o.dweight},
                         {"dbias", &o.dbias}})
    if (rt::Error e =
            detail::checkDisjoint(op, name, *m, "workspace", o.workspace))
      return e;
  return rt::Error::success();
}

rt::Error launchNormBackward(Library::Impl &impl, const char *op, bool layer,
                             const Matrix &x, const Matrix &dy,
                             const Matrix &dx, const NormBackwardOptions &o) {
  if (rt::Error e = checkNormBackward(op, layer, x, dy, dx, o))
    return e;
  if (x.rows == 0 && o.dweight.isAbsent() && o.dbias.isAbsent())
    return rt::Error::success();
  auto kernel = [&](const std::string &name) {
    return impl.kernel(name);
  };
  const Matrix &mean = layer ? o.mean : o.rstd;
  bool params = !o.dweight.isAbsent() || !o.dbias.isAbsent();
  // With parameter gradients, 16-byte chunks and rows that fit a block's
  // registers (or the wide variant's registers and shared memory), one
  // kernel writes dx and the slices' partials (x and dy read once).
  unsigned width = detail::vectorWidth(x.dtype, {&x, &dy, &dx, &o.weight});
  std::string base = op;
  unsigned block = 0; // the fused kernel's, 0 for the two-kernel path
  if (params && x.rows > 0 && width > 1) {
    long long chunks = x.cols / width;
    if ((block = normFusedBlock(chunks))) {
      base += "_fused_b" + std::to_string(block);
    } else if (chunks <= static_cast<long long>(kNormFusedWideBlock) *
                             kNormFusedWideChunks) {
      std::string wide = base + "_fused_b" +
                         std::to_string(kNormFusedWideBlock) + "r" +
                         std::to_string(kNormFusedWideChunks);
      rt::Expected<rt::Kernel *> k =
          kernel(detail::kernelName(wide.c_str(), x.dtype, width));
      if (!k)
        return k.takeError().addContext(op);
      // Its accumulators need the GPU's opt-in shared memory.
      const rt::KernelSignature *sig = (*k)->signature();
      std::uint64_t need = (*k)->attributes().staticSharedBytes +
                           (sig ? sig->dynamicSharedBytes : 0);
      if (need <= impl.sharedOptin) {
        base = wide;
        block = kNormFusedWideBlock;
      }
    }
  }
  bool fused = block != 0;
  std::int64_t splits = x.rows > 0 ? splitsFor(x.rows) : 0;
  std::int64_t perSplit = x.rows > 0 ? (x.rows + splits - 1) / splits : 0;
  // Without the fused kernel, the slices' partials first: dx may be dy
  // (in place), which the dx kernel overwrites.
  unsigned columnBlocks =
      unsigned((x.cols + kNormParamsBlock - 1) / kNormParamsBlock);
  if (params && splits > 0 && !fused) {
    rt::Expected<rt::Kernel *> k = kernel(
        std::string("norm_bwd_params_") + getDTypeName(x.dtype));
    if (!k)
      return k.takeError().addContext(op);
    std::vector<rt::KernelArg> args = {
        detail::pointerArg("x", x, x.dtype, true),
        detail::pointerArg("dy", dy, x.dtype, true),
        detail::pointerArg(layer ? "mean" : "rstd", mean, DType::F32, true),
        detail::pointerArg("rstd", o.rstd, DType::F32, true),
        detail::pointerArg("workspace", o.workspace, DType::F32, false),
        u32(x.cols),
        u32(x.rows),
        u32(x.ld),
        u32(dy.ld),
        u32(perSplit),
        u32(layer ? unsigned(kNormBwdLayer) : 0u)};
    rt::LaunchConfig config;
    config.grid = rt::Dim3(columnBlocks, unsigned(splits));
    config.block = rt::Dim3(kNormParamsBlock);
    config.stream = o.stream;
    if (rt::Error e = (*k)->launchArgs(config, args))
      return e.addContext(op);
  }
  if (x.rows > 0) {
    rt::Expected<rt::Kernel *> k =
        kernel(detail::kernelName(base.c_str(), x.dtype, width));
    if (!k)
      return k.takeError().addContext(op);
    const Matrix &weight = o.weight.isAbsent() ? x : o.weight;
    std::vector<rt::KernelArg> args = {
        detail::pointerArg("x", x, x.dtype, true),
        detail::pointerArg("dy", dy, x.dtype, true),
        detail::pointerArg(o.weight.isAbsent() ? "x" : "weight", weight,
                           x.dtype, true),
        detail::pointerArg(layer ? "mean" : "rstd", mean, DType::F32, true),
        detail::pointerArg("rstd", o.rstd, DType::F32, true),
        detail::pointerArg("dx", dx, x.dtype, false)};
    rt::LaunchConfig config = detail::rowLaunch(x.rows, o.stream);
    if (fused) {
      args.push_back(
          detail::pointerArg("workspace", o.workspace, DType::F32, false));
      args.insert(args.end(), {u32(x.cols), u32(x.rows), u32(x.ld),
                               u32(dy.ld), u32(dx.ld), u32(perSplit)});
      config.grid = rt::Dim3(unsigned(splits));
      config.block = rt::Dim3(block);
    } else {
      args.insert(args.end(),
                  {u32(x.cols), u32(x.ld), u32(dy.ld), u32(dx.ld)});
    }
    args.push_back(u32(o.weight.isAbsent() ? 0u : unsigned(kNormBwdWeight)));
    if (rt::Error e = (*k)->launchArgs(config, args))
      return e.addContext(op);
  }
  if (!params)
    return rt::Error::success();
  // The parameter gradients: the slices' partials summed in order.
  rt::Expected<rt::Kernel *> k =
      kernel(std::string("norm_bwd_reduce_") + getDTypeName(x.dtype));
  if (!k)
    return k.takeError().addContext(op);
  // Absent outputs point at a present one; the flags skip dbias.
  const Matrix &dweight = o.dweight.isAbsent() ? o.dbias : o.dweight;
  const Matrix &dbias = o.dbias.isAbsent() ? dweight : o.dbias;
  std::vector<rt::KernelArg> args = {
      detail::pointerArg("workspace", o.workspace, DType::F32, true),
      detail::pointerArg(o.dweight.isAbsent() ? "dbias" : "dweight", dweight,
                         x.dtype, false),
      detail::pointerArg("dbias", dbias, x.dtype, false),
      u32(x.cols),
      u32(splits),
      u32(o.dbias.isAbsent() ? 0u : unsigned(kNormBwdBias))};
  rt::LaunchConfig config;
  config.grid = rt::Dim3(columnBlocks);
  config.block = rt::Dim3(kNormParamsBlock);
  config.stream = o.stream;
  if (rt::Error e = (*k)->launchArgs(config, args))
    return e.addContext(op);
  return rt::Error::success();
}

} // namespace

std::int64_t kaio::ops::normBackwardWorkspaceElements(std::int64_t rows,
                                                      std::int64_t cols) {
  return 2 * splitsFor(std::max<std::int64_t>(rows, 1)) *
         std::max<std::int64_t>(cols, 1);
}

rt::Error kaio::ops::validateRmsNormBackward(const Matrix &x, const Matrix &dy,
                                             const Matrix &dx,
                                             const NormBackwardOptions &o) {
  return checkNormBackward("rms_norm_bwd", false, x, dy, dx, o);
}

rt::Error kaio::ops::validateLayerNormBackward(const Matrix &x,
                                               const Matrix &dy,
                                               const Matrix &dx,
                                               const NormBackwardOptions &o) {
  return checkNormBackward("layer_norm_bwd", true, x, dy, dx, o);
}

rt::Error Library::rmsNormBackward(const Matrix &x, const Matrix &dy,
                                   const Matrix &dx,
                                   const NormBackwardOptions &o) {
  return launchNormBackward(*impl_, "rms_norm_bwd", false, x, dy, dx, o);
}

rt::Error Library::layerNormBackward(const Matrix &x, const Matrix &dy,
                                     const Matrix &dx,
                                     const NormBackwardOptions &o) {
  return launchNormBackward(*impl_, "layer_norm_bwd", true, x, dy, dx, o);
}

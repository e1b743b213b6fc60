//===- RowOps.h - softmax and norms over rows: options, checks --*- C++ -*-===//
//
// Row-wise ops of the library (Library::softmax, logSoftmax, rmsNorm,
// layerNorm in Kaio/Ops/Library.h): their options and argument checks,
// which need no device. Inputs and outputs are f32, f16 or bf16 row-major
// matrices with any leading dimension; statistics are computed in f32.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_ROWOPS_H
#define KAIO_OPS_ROWOPS_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

namespace kaio::ops {

struct SoftmaxOptions {
  /// softmax(scale * x) (e.g. 1/sqrt(d) for attention scores).
  float scale = 1.0f;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// Optional arguments are default-constructed Matrix values (isAbsent()).
struct NormOptions {
  float eps = 1e-5f;
  /// Per-column scale and shift: vectors of x.cols elements of x's dtype.
  /// bias: LayerNorm only.
  Matrix weight, bias;
  /// Fused residual add: normalise x + residual (x's shape and dtype) and
  /// store x + residual to residualOut (required with residual; it may be x
  /// itself, updating the hidden state in place).
  Matrix residual, residualOut;
  /// Statistics for the backward pass, f32 vectors of x.rows elements:
  /// 1 / sqrt(mean(h^2) + eps) (RMSNorm) or 1 / sqrt(var(h) + eps), and the
  /// row mean (LayerNorm only).
  Matrix mean, rstd;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// The error softmax() / logSoftmax() return for these arguments before
/// launching anything, or success. out may be x itself (in place).
rt::Error validateSoftmax(const Matrix &x, const Matrix &out,
                          const SoftmaxOptions &options = {});
/// The same for rmsNorm() and layerNorm(): rows of length 0 have no norm.
rt::Error validateRmsNorm(const Matrix &x, const Matrix &out,
                          const NormOptions &options = {});
rt::Error validateLayerNorm(const Matrix &x, const Matrix &out,
                            const NormOptions &options = {});

} // namespace kaio::ops

#endif // KAIO_OPS_ROWOPS_H

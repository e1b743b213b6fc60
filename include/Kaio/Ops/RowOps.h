//===- RowOps.h - softmax and norms over rows: options, checks --*- C++ -*-===//
//
// Row-wise ops of the library (Library::softmax, logSoftmax, rmsNorm,
// layerNorm, their backward, cross-entropy and reductions in
// Kaio/Ops/Library.h): their options and argument checks, which need no
// device. Inputs and outputs are f32, f16 or bf16 row-major
// matrices with any leading dimension; statistics are computed in f32.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_ROWOPS_H
#define KAIO_OPS_ROWOPS_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

#include <cstdint>

namespace kaio::ops {

struct SoftmaxOptions {
  /// softmax(scale * x) (e.g. 1/sqrt(d) for attention scores).
  float scale = 1.0f;
  /// Causal mask (softmax and log-softmax): the rows are groups of
  /// causalRows queries (batch x heads x seq_q rows of seq_k scores); row r
  /// keeps columns 0 .. (r % causalRows) + causalOffset, the rest count as
  /// -inf. causalOffset 0 aligns the mask top-left, seq_k - seq_q
  /// bottom-right. 0 rows: no mask.
  std::int64_t causalRows = 0, causalOffset = 0;
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

struct NormBackwardOptions {
  /// The forward's weight (optional) and statistics: rstd always, mean for
  /// LayerNorm (f32 vectors of x.rows elements, as NormOptions returns them).
  Matrix weight, mean, rstd;
  /// Parameter gradients (optional outputs, x's dtype, x.cols elements):
  /// summed over rows deterministically (fixed slices, then in order).
  Matrix dweight, dbias;
  /// With dweight or dbias: f32 scratch of at least
  /// normBackwardWorkspaceElements(x.rows, x.cols) elements.
  Matrix workspace;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// The f32 elements the backward's workspace needs for an rows x cols x.
std::int64_t normBackwardWorkspaceElements(std::int64_t rows,
                                           std::int64_t cols);

/// rmsNormBackward / layerNormBackward: dx (x's shape and dtype; it may be
/// dy) from the forward's input x (x + residual for the fused variant: its
/// residualOut) and dy.
rt::Error validateRmsNormBackward(const Matrix &x, const Matrix &dy,
                                  const Matrix &dx,
                                  const NormBackwardOptions &options);
rt::Error validateLayerNormBackward(const Matrix &x, const Matrix &dy,
                                    const Matrix &dx,
                                    const NormBackwardOptions &options);

/// softmaxBackward / logSoftmaxBackward: dx from the forward's output y
/// and the gradient dy (all of one shape and dtype; dx may be dy).
rt::Error validateSoftmaxBackward(const Matrix &y, const Matrix &dy,
                                  const Matrix &dx,
                                  const SoftmaxOptions &options = {});

struct CrossEntropyOptions {
  /// Rows whose target is this get loss 0 and no gradient.
  std::int32_t ignoreIndex = -100;
  /// crossEntropy: the rows' logsumexp (f32, one per row; optional), which
  /// crossEntropyBackward needs.
  Matrix lse;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// crossEntropy: loss[r] = logsumexp(logits[r]) - logits[r, targets[r]]
/// per row (f32; no mean over rows: the caller weighs them), logits f32,
/// f16 or bf16 rows of any length (vocabularies of 256k and more), targets
/// s32, one per row. A target outside [0, cols) other than ignoreIndex gives
/// a NaN loss (device data the host cannot check).
rt::Error validateCrossEntropy(const Matrix &logits, const Matrix &targets,
                               const Matrix &loss,
                               const CrossEntropyOptions &options = {});
/// crossEntropyBackward: dlogits = dloss[r] * (softmax(logits[r]) -
/// onehot(targets[r])), from the forward's lse (f32 per row) and dloss (f32
/// per row).
rt::Error validateCrossEntropyBackward(const Matrix &logits,
                                       const Matrix &targets,
                                       const Matrix &lse, const Matrix &dloss,
                                       const Matrix &dlogits,
                                       const CrossEntropyOptions &options = {});

enum class Reduction : std::uint8_t { Sum, Max, Min };

struct ReduceOptions {
  /// reduceAll: f32 scratch of at least x.rows elements (the per-row
  /// results, reduced again in a second launch); reduceCols: of
  /// reduceColsWorkspaceElements(x.rows, x.cols).
  Matrix workspace;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// reduceRows: out[r] (f32, one per row) = the sum, max or min of row r,
/// in a fixed order (bitwise the same every run). max and min propagate
/// NaN; rows may not be empty for max and min.
rt::Error validateReduceRows(const Matrix &x, const Matrix &out,
                             Reduction reduction,
                             const ReduceOptions &options = {});
/// argmaxRows: out[r] (s32) = the first index of row r's maximum (of its
/// first NaN, if any); rows of 1 to 2^24 elements.
rt::Error validateArgmaxRows(const Matrix &x, const Matrix &out,
                             const ReduceOptions &options = {});
/// argmaxAll: out (s32, 1 element) = the row-major index of the first
/// maximum of all of x (of its first NaN, if any), deterministic: the rows'
/// maxima and argmaxes into the workspace (f32, at least
/// argmaxAllWorkspaceElements(x.rows) elements), then the argmax of the
/// maxima. x non-empty, under 2^31 elements, rows and columns at most 2^24.
rt::Error validateArgmaxAll(const Matrix &x, const Matrix &out,
                            const ReduceOptions &options = {});
std::int64_t argmaxAllWorkspaceElements(std::int64_t rows);
/// reduceCols: out[c] (f32, one per column) = the sum, max or min of
/// column c (e.g. a bias gradient: the sum of dy over rows), deterministic:
/// slices of rows fold into an f32 workspace of at least
/// reduceColsWorkspaceElements(x.rows, x.cols) elements, then the slices in
/// order. max and min propagate NaN; columns may not be empty for them.
rt::Error validateReduceCols(const Matrix &x, const Matrix &out,
                             Reduction reduction,
                             const ReduceOptions &options = {});
std::int64_t reduceColsWorkspaceElements(std::int64_t rows,
                                         std::int64_t cols);
/// reduceAll: out (f32, 1 element) = the reduction of every element of x,
/// deterministic (rows, then the row results, in a fixed order).
rt::Error validateReduceAll(const Matrix &x, const Matrix &out,
                            Reduction reduction,
                            const ReduceOptions &options = {});

} // namespace kaio::ops

#endif // KAIO_OPS_ROWOPS_H

//===- Gemv.h - matrix-vector products: options, checks ----------*- C++ -*-===//
//
// Library::gemv (Kaio/Ops/Library.h): y = A x (+ bias) for a row-major A of
// f32, f16 or bf16 (batch-1 decode), accumulated in f32. The checks need no
// device.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_GEMV_H
#define KAIO_OPS_GEMV_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

#include <cstdint>

namespace kaio::ops {

struct GemvOptions {
  /// Added to y: a vector of y's elements of A's dtype (optional).
  Matrix bias;
  /// gemvTransposed: f32 scratch of at least
  /// gemvTransposedWorkspaceElements(a.rows, a.cols) elements.
  Matrix workspace;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// a: m x k row-major; x: a vector of k elements; y: a vector of m elements
/// (all one dtype; vectors 1 x n, or n x 1 with ld 1). y may not overlap a,
/// x or bias.
rt::Error validateGemv(const Matrix &a, const Matrix &x, const Matrix &y,
                       const GemvOptions &options = {});

/// gemvTransposed: y = xᵀ A for a row-major k x n A, x of k elements, y of
/// n, split along k into f32 partials summed in a fixed order
/// (deterministic); the workspace holds the partials.
rt::Error validateGemvTransposed(const Matrix &a, const Matrix &x,
                                 const Matrix &y,
                                 const GemvOptions &options = {});
/// The f32 elements gemvTransposed's workspace needs for a k x n A.
std::int64_t gemvTransposedWorkspaceElements(std::int64_t k, std::int64_t n);

} // namespace kaio::ops

#endif // KAIO_OPS_GEMV_H

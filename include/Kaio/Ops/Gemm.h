//===- Gemm.h - the op library's matrix multiplication: options, checks ---===//
//
// GEMM's options and its argument check (which needs no device); the entry
// point is Library::gemm (Kaio/Ops/Library.h).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_GEMM_H
#define KAIO_OPS_GEMM_H

#include "Kaio/Ops/Elementwise.h"
#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

namespace kaio::ops {

struct GemmOptions {
  /// C = alpha * A B + beta * C, scaled in f32. beta == 0 does not read C.
  float alpha = 1.0f, beta = 0.0f;
  /// C = act(alpha * A B + beta * C + bias), fused into every GEMM
  /// kernel's epilogue (one launch; with K split, into the reduction of the
  /// splits): bias (optional) is a vector of C.cols elements of C's dtype,
  /// one per column.
  Matrix bias;
  Activation activation = Activation::None;
  /// f32 A and B may run on the tensor cores as tf32 (10-bit mantissas),
  /// as torch's allow_tf32 permits, when A is row-major and B
  /// column-major with 16-byte aligned lines (the sm_90 kernel truncates
  /// each element to its top 19 bits, the mma.sync one on other GPUs
  /// rounds to nearest). Otherwise f32 runs in full precision on the CUDA
  /// cores (A and B row- or column-major; a column-major one needs 16-byte
  /// aligned lines of both).
  bool allowTf32 = false;
  /// Run the portable kernels even on a 9.0 GPU (comparisons and tests of
  /// the path every other GPU takes): mma.sync for f16, bf16, s8 and (with
  /// allowTf32) tf32 inputs, the CUDA cores for other f32; FP8, which only
  /// the sm_90 kernel takes, is then Unsupported.
  bool portable = false;
  /// Optional f32 scratch, a contiguous vector 16-byte aligned, overlapping
  /// nothing else: when it holds Library::gemmWorkspaceElements() elements
  /// (more than 0 for a C of few tiles — decode-like small M — and a long
  /// K, on the sm_90a and the portable tensor-core kernels), K is split
  /// across blocks, each writing its partial sums there,
  /// and a second kernel adds them in a fixed order (the same bits every
  /// run) and applies alpha, beta, the bias and the activation. Absent or
  /// smaller: K is not split.
  Matrix workspace;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

struct GemmBackwardOptions {
  /// The forward's alpha: C = alpha * A B (+ ...), so dA = alpha dC B^T
  /// and dB = alpha A^T dC.
  float alpha = 1.0f;
  /// dA = ... + beta * dA, dB = ... + beta * dB (1: accumulate gradients).
  float beta = 0.0f;
  /// As GemmOptions::allowTf32, for f32 operands.
  bool allowTf32 = false;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// The error gemmBackward() returns before launching anything, or success:
/// da (absent or A's shape) and db (absent or B's shape), then each
/// product as gemm() checks it.
rt::Error validateGemmBackward(const Matrix &a, const Matrix &b,
                               const Matrix &dc, const Matrix &da,
                               const Matrix &db,
                               const GemmBackwardOptions &options = {});

/// The error gemm() returns for these arguments before launching anything,
/// or success: shapes, leading dimensions, capacities, pointers, dtypes and
/// layouts, alpha/beta. Needs no device.
rt::Error validateGemm(const Matrix &a, const Matrix &b, const Matrix &c,
                       const GemmOptions &options = {});

} // namespace kaio::ops

#endif // KAIO_OPS_GEMM_H

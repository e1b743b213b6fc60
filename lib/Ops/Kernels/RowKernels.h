//===- RowKernels.h - the op library's row-wise kernels, as builder code --===//
//
// Softmax, log-softmax, RMSNorm and LayerNorm over the rows of a matrix,
// written with the C++ builder (Kaio/Builder) once for every element type
// (f32, f16, bf16) and access width (16-byte vectors, or scalars where the
// rows are not aligned). The build-time generator writes them as a .mlir
// module that kaio_add_kernels compiles and embeds into KaioOps; the tests
// build the same module in-process and run it in the interpreter.
//
// The kernels' parameter lists and flag bits are the contract with
// lib/Ops/RowOps.cpp, which launches them: keep both in step.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_ROWKERNELS_H
#define KAIO_LIB_OPS_KERNELS_ROWKERNELS_H

#include <cstdint>

namespace kaio::builder {
class ModuleBuilder;
} // namespace kaio::builder

namespace kaio::ops::kernels {

/// Threads per block of every row kernel (one block per row).
constexpr unsigned kRowBlock = 256;

/// Bits of the norm kernels' `flags` parameter.
enum NormFlags : std::uint32_t {
  kNormWeight = 1,   ///< multiply by weight[col]
  kNormBias = 2,     ///< add bias[col] (LayerNorm)
  kNormResidual = 4, ///< normalise x + residual, also stored to sum_out
  kNormMean = 8,     ///< store the row's mean to mean[row] (LayerNorm)
  kNormRstd = 16,    ///< store the row's rstd to rstd[row]
};

/// Adds every row kernel: {softmax, log_softmax, rms_norm, layer_norm} x
/// {f32, f16, bf16} x {scalar, vector}; names like `rms_norm_bf16_v8` (8
/// elements per 16-byte access) and `softmax_f32` (scalar accesses).
void buildRowKernels(builder::ModuleBuilder &mb);

} // namespace kaio::ops::kernels

#endif // KAIO_LIB_OPS_KERNELS_ROWKERNELS_H

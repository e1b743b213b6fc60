//===- Validate.h - argument checks and dispatch the ops share ---*- C++ -*-===//

#ifndef KAIO_LIB_OPS_VALIDATE_H
#define KAIO_LIB_OPS_VALIDATE_H

#include "Kaio/Ops/Gemm.h"
#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"

#include "Kaio/Runtime/Module.h"
#include "Kaio/Runtime/Signature.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

namespace kaio::ops::detail {

/// Sizes the kernels take as 32-bit integers.
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max();

/// "op: name: what", InvalidValue.
rt::Error invalid(const char *op, const char *name, const std::string &what);
/// "op: name: what", Unsupported (what the library does not do yet).
rt::Error unsupported(const char *op, const char *name,
                      const std::string &what);

/// "RxC".
std::string shape(const Matrix &m);

/// The same matrix seen transposed (no data moves): rows and columns and
/// the layout swap.
Matrix transposed(Matrix m);

/// gemm() runs A x B on the sm_90a kernel (on a 9.0 GPU) when this holds
/// (Gemm.cpp).
bool hopperGemmFits(const Matrix &a, const Matrix &b);
/// Whether gemm() runs A x B (C row-major) on the sm_90a kernel: a 9.0 GPU,
/// hopperGemmFits, and for f32 inputs allowTf32 with K-major operands.
bool gemmRunsOnHopper(bool hopperGpu, const Matrix &a, const Matrix &b,
                      const GemmOptions &options);
/// The sm_90a kernel's configurations for A (as the kernel reads it) into
/// C (kGemmTuningChoices): 128 x 256 tiles beside 128 x 128 but for FP8
/// inputs and an s32 C (hopperGemmHasWideTile), each also in clusters of
/// two for 16-bit and FP8 inputs (hopperGemmHasClusters).
std::vector<const char *> hopperGemmChoices(const Matrix &a, const Matrix &c);
/// Whether the portable mma.sync kernel that gemm() would launch for A x B
/// (not on the sm_90a kernel) has a variant to choose (blocks an SM,
/// kPortableGemmTuningChoices): 16-bit inputs with 16-byte aligned lines.
bool portableGemmHasBlockChoice(const Matrix &a, const Matrix &b);

/// What holds for any matrix argument: a non-negative shape within the
/// kernels' 32-bit sizes, a leading dimension covering a row (column), a
/// non-null pointer aligned to the elements and, when the capacity is
/// known, a buffer large enough.
rt::Error validateMatrix(const char *op, const char *name, const Matrix &m);

/// The bytes a matrix spans from its first element ([begin, end)).
std::uint64_t spanBytes(const Matrix &m);

/// Two matrices either are the same (same pointer, shape and leading
/// dimension: in-place use) or do not overlap in memory.
rt::Error checkNoPartialOverlap(const char *op, const char *nameA,
                                const Matrix &a, const char *nameB,
                                const Matrix &b);

/// An f32, f16 or bf16 row-major matrix with 32-bit leading dimension; with
/// `like`, also of like's shape and dtype (`likeName` names it).
rt::Error checkFloatMatrix(const char *op, const char *name, const Matrix &m,
                           const Matrix *like = nullptr,
                           const char *likeName = "x");

/// A contiguous vector of n elements of `type` (1 x n, or n x 1 with ld 1);
/// `what` says what it holds ("one per column of x").
rt::Error checkVector(const char *op, const char *name, const Matrix &v,
                      std::int64_t n, DType type, const char *what);

rt::Error checkFinite(const char *op, const char *name, float value);

/// options.workspace: a contiguous f32 vector of at least `need` elements
/// (`how` names the function that says how many).
rt::Error checkWorkspace(const char *op, const Matrix &workspace,
                         std::int64_t need, const char *how);

/// No byte of a is a byte of b (absent or empty matrices: success).
rt::Error checkDisjoint(const char *op, const char *nameA, const Matrix &a,
                        const char *nameB, const Matrix &b);

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

rt::ScalarType scalarTypeOf(DType type);

/// Elements per 16-byte access of `type` when every present matrix allows
/// them (16-byte aligned pointer, leading dimension a multiple), else 1.
unsigned vectorWidth(DType type, std::initializer_list<const Matrix *> ms);

/// "base_type" or "base_type_vN" (the builder kernels' names).
std::string kernelName(const char *base, DType type, unsigned width);

/// `m`'s pointer as a kernel argument of element `type`, called `name` (the
/// op's argument: a literal) in the launch's errors.
rt::KernelArg pointerArg(const char *name, const Matrix &m, DType type,
                         bool isConst);

/// Row slices of the column kernels (gemvTransposed, reduceCols) for k
/// rows and `threads` column threads (one per chunk of columns): about
/// kColumnBlocksWanted blocks in all (several per SM, so that enough loads
/// are in flight), at least 16 rows a slice, at most kMaxColumnSplits.
constexpr std::int64_t kColumnBlocksWanted = 1024;
constexpr std::int64_t kMaxColumnSplits = 256;
std::int64_t columnSplits(std::int64_t k, std::int64_t threads);

/// The most slices a k x n column kernel may use for any element type and
/// vector width (the workspace's size): fewer threads across, more slices.
std::int64_t maxColumnSplits(std::int64_t k, std::int64_t n);

/// One block of the row kernels' kRowBlock threads per row.
rt::LaunchConfig rowLaunch(std::int64_t rows, const rt::Stream *stream);

} // namespace kaio::ops::detail

#endif // KAIO_LIB_OPS_VALIDATE_H

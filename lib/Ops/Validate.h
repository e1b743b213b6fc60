//===- Validate.h - argument checks shared by the library's ops -*- C++ -*-===//

#ifndef KAIO_LIB_OPS_VALIDATE_H
#define KAIO_LIB_OPS_VALIDATE_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"

#include <cstdint>
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

} // namespace kaio::ops::detail

#endif // KAIO_LIB_OPS_VALIDATE_H

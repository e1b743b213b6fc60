//===- Tensor.h - the op library's view of device matrices ------*- C++ -*-===//
//
// Element types and the Matrix descriptor every op of the library takes:
// a pointer, a shape, a leading dimension and (when known) the capacity of
// the buffer behind it, so that the library can check an argument before it
// launches anything.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_TENSOR_H
#define KAIO_OPS_TENSOR_H

#include "Kaio/Runtime/Memory.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace kaio::ops {

/// E4M3 and E5M2: the 8-bit floats (OCP FP8, E4M3 without infinities)
/// the sm_90a GEMM reads.
enum class DType : std::uint8_t { F16, BF16, F32, S8, S32, S64, E4M3, E5M2 };
enum class Layout : std::uint8_t { RowMajor, ColMajor };

const char *getDTypeName(DType type);
unsigned getDTypeBytes(DType type);

/// A matrix in device memory: `rows` x `cols` elements of `dtype`; element
/// (r, c) at r * ld + c (row-major) or c * ld + r (column-major).
struct Matrix {
  CUdeviceptr data = 0;
  DType dtype = DType::F32;
  Layout layout = Layout::RowMajor;
  std::int64_t rows = 0, cols = 0, ld = 0;
  /// Bytes the memory holds when known (matrices made from a DeviceView);
  /// 0: unknown, not checked.
  std::uint64_t capacityBytes = 0;

  /// Whether this is a default-constructed Matrix: how optional arguments
  /// say "none".
  bool isAbsent() const { return !data && !rows && !cols && !ld; }

  /// A vector of n elements (a 1 x n row-major matrix) over a typed view.
  template <typename T>
  static Matrix vector(rt::DeviceView<T> view, std::int64_t n) {
    return rowMajor(view, 1, n);
  }

  /// A row-major matrix over a typed view (ld defaults to cols, at least 1).
  template <typename T>
  static Matrix rowMajor(rt::DeviceView<T> view, std::int64_t rows,
                         std::int64_t cols, std::int64_t ld = 0) {
    Matrix m;
    m.data = view.ptr();
    m.dtype = dtypeOf<std::remove_const_t<T>>();
    m.rows = rows;
    m.cols = cols;
    m.ld = ld ? ld : std::max<std::int64_t>(cols, 1);
    m.capacityBytes = view.sizeBytes();
    return m;
  }

private:
  template <typename T> static constexpr DType dtypeOf() {
    if constexpr (std::is_same_v<T, rt::Half>)
      return DType::F16;
    else if constexpr (std::is_same_v<T, rt::BFloat16>)
      return DType::BF16;
    else if constexpr (std::is_same_v<T, float>)
      return DType::F32;
    else if constexpr (std::is_same_v<T, std::int8_t>)
      return DType::S8;
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return DType::S64;
    else {
      static_assert(std::is_same_v<T, std::int32_t>,
                    "kaio::ops::Matrix: f16, bf16, f32, s8, s32 or s64 elements");
      return DType::S32;
    }
  }
};

} // namespace kaio::ops

#endif // KAIO_OPS_TENSOR_H

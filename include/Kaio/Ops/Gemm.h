//===- Gemm.h - the op library's matrix multiplication ----------*- C++ -*-===//
//
// KAIO's kernel library (include/Kaio/Ops, lib/Ops): kernels written in the
// kaio dialect, compiled to PTX for sm_80 and sm_90 when KAIO is built and
// embedded in the library, which links only the runtime (no LLVM/MLIR).
//
//   auto dev = kaio::rt::Device::open(0);
//   auto lib = kaio::ops::Library::load(*dev);
//   kaio::ops::Matrix a = kaio::ops::Matrix::rowMajor(aBuf.view(), m, k);
//   ...
//   if (kaio::rt::Error e = lib->gemm(a, b, c)) ...   // names the argument
//
// Every argument is validated before anything is launched; bad input is a
// typed error (InvalidValue, or Unsupported for what the library does not
// do yet) whose message names the argument.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_GEMM_H
#define KAIO_OPS_GEMM_H

#include "Kaio/Runtime/Device.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Memory.h"
#include "Kaio/Runtime/Stream.h"

#include <cstdint>
#include <memory>

namespace kaio::ops {

enum class DType : std::uint8_t { F16, BF16, F32, S8, S32 };
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

  /// A row-major matrix over a typed view (ld defaults to cols).
  template <typename T>
  static Matrix rowMajor(rt::DeviceView<T> view, std::int64_t rows,
                         std::int64_t cols, std::int64_t ld = 0) {
    Matrix m;
    m.data = view.ptr();
    m.dtype = dtypeOf<std::remove_const_t<T>>();
    m.rows = rows;
    m.cols = cols;
    m.ld = ld ? ld : cols;
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
    else {
      static_assert(std::is_same_v<T, std::int32_t>,
                    "kaio::ops::Matrix: f16, bf16, f32, s8 or s32 elements");
      return DType::S32;
    }
  }
};

struct GemmOptions {
  /// C = alpha * A B + beta * C, scaled in f32. beta == 0 does not read C.
  float alpha = 1.0f, beta = 0.0f;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// The error gemm() returns for these arguments before launching anything,
/// or success: shapes, leading dimensions, capacities, pointers, dtypes and
/// layouts, alpha/beta. Needs no device.
rt::Error validateGemm(const Matrix &a, const Matrix &b, const Matrix &c,
                       const GemmOptions &options = {});

/// The library's kernels, loaded on one device (the PTX that suits it; the
/// runtime's cache keeps the driver's compiled code across processes).
class Library {
public:
  static rt::Expected<Library> load(const rt::Device &device);
  Library(Library &&) noexcept;
  Library &operator=(Library &&) noexcept;
  ~Library();

  /// C = alpha * A B + beta * C. Today: f16 A and B, f32 C, all row-major
  /// and contiguous (ld = cols), any finite alpha and beta (beta 0 never
  /// reads C, so C may start as garbage), any M, N, K (edges zero filled) — 128 x 128 block tiles of 4 x 4 warp tiles, two cp.async
  /// stages (examples/tensor_core_matmul_tiled.mlir). Anything else is an
  /// Unsupported error naming the argument; nothing is launched.
  rt::Error gemm(const Matrix &a, const Matrix &b, const Matrix &c,
                 const GemmOptions &options = {});

  struct Impl;

private:
  explicit Library(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace kaio::ops

#endif // KAIO_OPS_GEMM_H

//===- Gemm.cpp - validation and dispatch of the library's GEMM -----------===//

#include "Kaio/Ops/Gemm.h"

#include "ops_kernels.h"

#include <cmath>
#include <limits>
#include <string>

using namespace kaio;
using namespace kaio::ops;

const char *kaio::ops::getDTypeName(DType type) {
  switch (type) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::S8:
    return "s8";
  case DType::S32:
    return "s32";
  }
  return "?";
}

unsigned kaio::ops::getDTypeBytes(DType type) {
  switch (type) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::S8:
    return 1;
  case DType::F32:
  case DType::S32:
    return 4;
  }
  return 0;
}

namespace {

/// The block tile of the kernel gemm() launches today.
constexpr std::int64_t kBlockTile = 128;
/// The kernel takes 32-bit sizes and indexes rows with 32-bit arithmetic.
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max();
/// Grid dimension y (rows of block tiles) is limited to 65535.
constexpr std::int64_t kMaxGridY = 65535;

rt::Error invalid(const char *name, const std::string &what) {
  return rt::Error::make(rt::ErrorCode::InvalidValue,
                         std::string("gemm: ") + name + ": " + what);
}
rt::Error unsupported(const char *name, const std::string &what) {
  return rt::Error::make(rt::ErrorCode::Unsupported,
                         std::string("gemm: ") + name + ": " + what);
}

std::string shape(const Matrix &m) {
  return std::to_string(m.rows) + "x" + std::to_string(m.cols);
}

/// What holds for any matrix argument.
rt::Error validateMatrix(const char *name, const Matrix &m) {
  if (m.rows < 0 || m.cols < 0)
    return invalid(name, "negative shape " + shape(m));
  if (m.rows > kMaxExtent || m.cols > kMaxExtent)
    return invalid(name, "shape " + shape(m) + " exceeds " +
                             std::to_string(kMaxExtent) + " in a dimension");
  std::int64_t contiguous = m.layout == Layout::RowMajor ? m.cols : m.rows;
  if (m.ld < std::max<std::int64_t>(contiguous, 1))
    return invalid(name, "leading dimension " + std::to_string(m.ld) +
                             " is less than the " +
                             std::to_string(contiguous) + " " +
                             (m.layout == Layout::RowMajor ? "columns"
                                                           : "rows") +
                             " of a " + shape(m) + " matrix");
  if (m.rows == 0 || m.cols == 0)
    return rt::Error::success();
  if (!m.data)
    return invalid(name, "null device pointer");
  std::uint64_t lines = m.layout == Layout::RowMajor ? m.rows : m.cols;
  std::uint64_t needed =
      ((lines - 1) * std::uint64_t(m.ld) + std::uint64_t(contiguous)) *
      getDTypeBytes(m.dtype);
  if (m.capacityBytes && needed > m.capacityBytes)
    return invalid(name, "a " + shape(m) + " " + getDTypeName(m.dtype) +
                             " matrix with leading dimension " +
                             std::to_string(m.ld) + " needs " +
                             std::to_string(needed) +
                             " bytes, but the buffer has " +
                             std::to_string(m.capacityBytes));
  if (m.data % getDTypeBytes(m.dtype))
    return invalid(name, "device pointer is not aligned to its " +
                             std::to_string(getDTypeBytes(m.dtype)) +
                             "-byte elements");
  return rt::Error::success();
}

/// What the kernel that gemm() launches today supports.
rt::Error checkSupported(const char *name, const Matrix &m, DType want) {
  if (m.dtype != want)
    return unsupported(name, std::string("dtype ") + getDTypeName(m.dtype) +
                                 " is not supported yet (A and B f16, C f32)");
  if (m.layout != Layout::RowMajor)
    return unsupported(name, "column-major matrices are not supported yet "
                             "(row-major only)");
  if (m.ld != m.cols)
    return unsupported(name, "leading dimension " + std::to_string(m.ld) +
                                 " != " + std::to_string(m.cols) +
                                 " columns: padded matrices are not "
                                 "supported yet");
  return rt::Error::success();
}

} // namespace

rt::Error kaio::ops::validateGemm(const Matrix &a, const Matrix &b,
                                  const Matrix &c, const GemmOptions &options) {
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"b", &b}, {"c", &c}})
    if (rt::Error e = validateMatrix(name, *m))
      return e;
  if (a.cols != b.rows)
    return invalid("a, b", "inner dimensions differ: a is " + shape(a) +
                               ", b is " + shape(b));
  if (c.rows != a.rows || c.cols != b.cols)
    return invalid("c", "is " + shape(c) + " but a x b is " +
                            std::to_string(a.rows) + "x" +
                            std::to_string(b.cols));
  if (rt::Error e = checkSupported("a", a, DType::F16))
    return e;
  if (rt::Error e = checkSupported("b", b, DType::F16))
    return e;
  if (rt::Error e = checkSupported("c", c, DType::F32))
    return e;
  if (!std::isfinite(options.alpha))
    return invalid("alpha", "must be finite, got " +
                                std::to_string(options.alpha));
  if (!std::isfinite(options.beta))
    return invalid("beta", "must be finite, got " +
                               std::to_string(options.beta));
  if ((c.rows + kBlockTile - 1) / kBlockTile > kMaxGridY)
    return invalid("c", std::to_string(c.rows) + " rows need more than " +
                            std::to_string(kMaxGridY) +
                            " rows of 128-row block tiles");
  return rt::Error::success();
}

//===----------------------------------------------------------------------===//
// Library
//===----------------------------------------------------------------------===//

struct Library::Impl {
  explicit Impl(ops_kernels::Kernels kernels) : kernels(std::move(kernels)) {}
  ops_kernels::Kernels kernels;
};

Library::Library(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Library::Library(Library &&) noexcept = default;
Library &Library::operator=(Library &&) noexcept = default;
Library::~Library() = default;

rt::Expected<Library> Library::load(const rt::Device &device) {
  rt::ModuleLoadOptions options;
  options.name = "kaio::ops";
  rt::Expected<ops_kernels::Kernels> kernels =
      ops_kernels::Kernels::load(device, options);
  if (!kernels)
    return kernels.takeError().addContext("loading the KAIO op library");
  return Library(std::make_unique<Impl>(std::move(*kernels)));
}

rt::Error Library::gemm(const Matrix &a, const Matrix &b, const Matrix &c,
                        const GemmOptions &options) {
  if (rt::Error e = validateGemm(a, b, c, options))
    return e;
  if (c.rows == 0 || c.cols == 0)
    return rt::Error::success();
  rt::LaunchConfig config;
  config.block = ops_kernels::Kernels::tensor_core_matmul_tiled_block();
  config.grid = rt::Dim3(unsigned((c.cols + kBlockTile - 1) / kBlockTile),
                         unsigned((c.rows + kBlockTile - 1) / kBlockTile));
  config.stream = options.stream;
  rt::DeviceView<const rt::Half> av(a.data, std::size_t(a.rows * a.ld));
  rt::DeviceView<const rt::Half> bv(b.data, std::size_t(b.rows * b.ld));
  rt::DeviceView<float> cv(c.data, std::size_t(c.rows * c.ld));
  if (rt::Error e = impl_->kernels.tensor_core_matmul_tiled(
          config, av, bv, cv, std::uint32_t(c.rows), std::uint32_t(c.cols),
          std::uint32_t(a.cols), options.alpha, options.beta))
    return e.addContext("gemm");
  return rt::Error::success();
}

//===- Validate.cpp - argument checks shared by the library's ops ---------===//

#include "Validate.h"

#include <cstring>

#include "Kernels/OpsKernels.h"

#include <algorithm>
#include <cmath>

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
  case DType::S64:
    return "s64";
  case DType::E4M3:
    return "e4m3";
  case DType::E5M2:
    return "e5m2";
  }
  return "?";
}

unsigned kaio::ops::getDTypeBytes(DType type) {
  switch (type) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::S8:
  case DType::E4M3:
  case DType::E5M2:
    return 1;
  case DType::F32:
  case DType::S32:
    return 4;
  case DType::S64:
    return 8;
  }
  return 0;
}

rt::Error detail::invalid(const char *op, const char *name,
                          const std::string &what) {
  return rt::Error::make(rt::ErrorCode::InvalidValue,
                         std::string(op) + ": " + name + ": " + what);
}

rt::Error detail::unsupported(const char *op, const char *name,
                              const std::string &what) {
  return rt::Error::make(rt::ErrorCode::Unsupported,
                         std::string(op) + ": " + name + ": " + what);
}

std::string detail::shape(const Matrix &m) {
  return std::to_string(m.rows) + "x" + std::to_string(m.cols);
}

rt::Error detail::validateMatrix(const char *op, const char *name,
                                 const Matrix &m) {
  if (m.rows < 0 || m.cols < 0)
    return invalid(op, name, "negative shape " + shape(m));
  if (m.rows > kMaxExtent || m.cols > kMaxExtent)
    return invalid(op, name, "shape " + shape(m) + " exceeds " +
                             std::to_string(kMaxExtent) + " in a dimension");
  std::int64_t contiguous = m.layout == Layout::RowMajor ? m.cols : m.rows;
  if (m.ld < std::max<std::int64_t>(contiguous, 1))
    return invalid(op, name, "leading dimension " + std::to_string(m.ld) +
                             " is less than the " +
                             std::to_string(contiguous) + " " +
                             (m.layout == Layout::RowMajor ? "columns"
                                                           : "rows") +
                             " of a " + shape(m) + " matrix");
  if (m.rows == 0 || m.cols == 0)
    return rt::Error::success();
  if (!m.data)
    return invalid(op, name, "null device pointer");
  std::uint64_t lines = m.layout == Layout::RowMajor ? m.rows : m.cols;
  std::uint64_t needed =
      ((lines - 1) * std::uint64_t(m.ld) + std::uint64_t(contiguous)) *
      getDTypeBytes(m.dtype);
  if (m.capacityBytes && needed > m.capacityBytes)
    return invalid(op, name, "a " + shape(m) + " " + getDTypeName(m.dtype) +
                             " matrix with leading dimension " +
                             std::to_string(m.ld) + " needs " +
                             std::to_string(needed) +
                             " bytes, but the buffer has " +
                             std::to_string(m.capacityBytes));
  if (m.data % getDTypeBytes(m.dtype))
    return invalid(op, name, "device pointer is not aligned to its " +
                             std::to_string(getDTypeBytes(m.dtype)) +
                             "-byte elements");
  return rt::Error::success();
}

std::uint64_t detail::spanBytes(const Matrix &m) {
  if (m.rows == 0 || m.cols == 0)
    return 0;
  bool rowMajor = m.layout == Layout::RowMajor;
  std::uint64_t lines = rowMajor ? m.rows : m.cols;
  std::uint64_t contiguous = rowMajor ? m.cols : m.rows;
  return ((lines - 1) * std::uint64_t(m.ld) + contiguous) *
         getDTypeBytes(m.dtype);
}

rt::Error detail::checkNoPartialOverlap(const char *op, const char *nameA,
                                        const Matrix &a, const char *nameB,
                                        const Matrix &b) {
  std::uint64_t sizeA = spanBytes(a), sizeB = spanBytes(b);
  if (!sizeA || !sizeB)
    return rt::Error::success();
  if (a.data == b.data && a.ld == b.ld && a.dtype == b.dtype &&
      a.layout == b.layout)
    return rt::Error::success();
  if (a.data < b.data + sizeB && b.data < a.data + sizeA)
    return invalid(op, nameB,
                   std::string("overlaps ") + nameA +
                       " without being the same matrix (in-place use needs "
                       "the same pointer and leading dimension)");
  return rt::Error::success();
}

rt::ScalarType detail::scalarTypeOf(DType type) {
  switch (type) {
  case DType::F16:
    return rt::ScalarType::F16;
  case DType::BF16:
    return rt::ScalarType::BF16;
  case DType::F32:
    return rt::ScalarType::F32;
  case DType::S8:
    // ptr<u8> in kernel signatures, as i32 below; mma.sync reads them as
    // s8.
    return rt::ScalarType::U8;
  case DType::S32:
    // Kernel signatures spell a pointer to i32 as ptr<u32> (the IR's
    // integers are signless); the kernels read them as signed.
    return rt::ScalarType::U32;
  case DType::S64:
    return rt::ScalarType::U64;
  case DType::E4M3:
  case DType::E5M2:
    // Bytes to the runtime (tensor maps copy them as such).
    return rt::ScalarType::U8;
  }
  return rt::ScalarType::B8;
}

rt::Error detail::checkFloatMatrix(const char *op, const char *name,
                                   const Matrix &m, const Matrix *like,
                                   const char *likeName) {
  if (rt::Error e = detail::validateMatrix(op, name, m))
    return e;
  if (m.layout != Layout::RowMajor)
    return unsupported(op, name,
                       "column-major matrices are not supported (rows are "
                       "contiguous)");
  if (m.dtype != DType::F32 && m.dtype != DType::F16 && m.dtype != DType::BF16)
    return unsupported(op, name,
                       std::string("dtype ") + getDTypeName(m.dtype) +
                           " is not supported (f32, f16 or bf16)");
  if (m.ld > detail::kMaxExtent)
    return invalid(op, name,
                   "leading dimension " + std::to_string(m.ld) + " exceeds " +
                       std::to_string(detail::kMaxExtent));
  if (like) {
    if (m.rows != like->rows || m.cols != like->cols)
      return invalid(op, name,
                     "is " + shape(m) + " but " + likeName + " is " +
                         shape(*like));
    if (m.dtype != like->dtype)
      return invalid(op, name,
                     std::string("dtype ") + getDTypeName(m.dtype) +
                         " differs from " + likeName + "'s " +
                         getDTypeName(like->dtype));
  }
  return rt::Error::success();
}

rt::Error detail::checkVector(const char *op, const char *name, const Matrix &v,
                      std::int64_t n, DType type, const char *what) {
  if (rt::Error e = detail::validateMatrix(op, name, v))
    return e;
  bool isVector = v.layout == Layout::RowMajor &&
                  ((v.rows == 1 && v.cols == n) ||
                   (v.cols == 1 && v.rows == n && v.ld == 1));
  if (!isVector)
    return invalid(op, name,
                   "is " + shape(v) + " but must be a contiguous vector of " +
                       std::to_string(n) + " elements (" + what + ")");
  if (v.dtype != type)
    return invalid(op, name,
                   std::string("dtype ") + getDTypeName(v.dtype) +
                       " but must be " + getDTypeName(type));
  return rt::Error::success();
}

rt::Error detail::checkFinite(const char *op, const char *name, float value) {
  if (!std::isfinite(value))
    return invalid(op, name, "must be finite, got " + std::to_string(value));
  return rt::Error::success();
}

unsigned detail::vectorWidth(DType type, std::initializer_list<const Matrix *> ms) {
  unsigned v = 16 / getDTypeBytes(type);
  for (const Matrix *m : ms)
    if (!m->isAbsent() && (m->data % 16 || m->ld % v))
      return 1;
  return v;
}

std::string detail::kernelName(const char *base, DType type, unsigned width) {
  // Built in place (every launch names its kernel: a hot path).
  const char *dtype = getDTypeName(type);
  const std::size_t baseLen = std::strlen(base), dtypeLen = std::strlen(dtype);
  std::string name;
  name.append(base, baseLen).append(1, '_').append(dtype, dtypeLen);
  if (width > 1) {
    char digits[10];
    std::size_t n = 0;
    for (unsigned w = width; w; w /= 10)
      digits[n++] = char('0' + w % 10);
    name.append("_v", 2);
    while (n)
      name.push_back(digits[--n]);
  }
  return name;
}

rt::KernelArg detail::pointerArg(const char *name, const Matrix &m, DType type,
                                 bool isConst) {
  return rt::KernelArg::pointer(m.data, scalarTypeOf(type), isConst)
      .named(name);
}

rt::Error detail::checkDisjoint(const char *op, const char *nameA,
                                const Matrix &a, const char *nameB,
                                const Matrix &b) {
  std::uint64_t sizeA = spanBytes(a), sizeB = spanBytes(b);
  if (sizeA && sizeB && a.data < b.data + sizeB && b.data < a.data + sizeA)
    return invalid(op, nameB, std::string("overlaps ") + nameA);
  return rt::Error::success();
}

rt::LaunchConfig detail::rowLaunch(std::int64_t rows,
                                   const rt::Stream *stream) {
  rt::LaunchConfig config;
  config.grid = rt::Dim3(unsigned(rows));
  config.block = rt::Dim3(kernels::kRowBlock);
  config.stream = stream;
  return config;
}

rt::Error kaio::ops::detail::checkWorkspace(const char *op,
                                            const Matrix &workspace,
                                            std::int64_t need,
                                            const char *how) {
  if (rt::Error e = validateMatrix(op, "workspace", workspace))
    return e;
  if (workspace.dtype != DType::F32 ||
      workspace.rows * workspace.cols < need ||
      (workspace.rows != 1 && workspace.ld != 1))
    return invalid(op, "workspace",
                   "must be a contiguous f32 vector of at least " +
                       std::to_string(need) + " elements (" + how + ")");
  return rt::Error::success();
}

std::int64_t kaio::ops::detail::columnSplits(std::int64_t k,
                                            std::int64_t threads) {
  std::int64_t columnBlocks = std::max<std::int64_t>(
      (threads + kernels::kGemvBlock - 1) / kernels::kGemvBlock, 1);
  std::int64_t want = (kColumnBlocksWanted + columnBlocks - 1) / columnBlocks;
  return std::clamp<std::int64_t>(std::min(want, (k + 15) / 16), 1,
                                  kMaxColumnSplits);
}

std::int64_t kaio::ops::detail::maxColumnSplits(std::int64_t k,
                                               std::int64_t n) {
  // The fewest threads across: 16-byte chunks of 2-byte elements.
  return columnSplits(k, (std::max<std::int64_t>(n, 1) + 7) / 8);
}

Matrix detail::transposed(Matrix m) {
  std::swap(m.rows, m.cols);
  m.layout = m.layout == Layout::RowMajor ? Layout::ColMajor : Layout::RowMajor;
  return m;
}

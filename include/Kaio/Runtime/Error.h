//===- Error.h - Runtime error and result types -----------------*- C++ -*-===//
//
// The runtime never throws: code that includes these headers is built with
// -fno-exceptions. Every fallible call returns an Error or an Expected<T>.
// Conventions follow LLVM: `if (Error e = f())` tests for *failure*, while
// `if (Expected<T> v = g())` tests for *success*.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_ERROR_H
#define KAIO_RUNTIME_ERROR_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace kaio::rt {

enum class ErrorCode {
  Success = 0,
  Driver,           ///< A CUDA driver call failed; cudaResult() is set.
  NoDriver,         ///< libcuda.so.1 could not be loaded or is unusable.
  InvalidValue,     ///< A bad argument was passed to the runtime.
  InvalidConfig,    ///< A launch configuration exceeds a device limit.
  ArgumentMismatch, ///< Launch arguments do not match the kernel signature.
  NotFound,         ///< A kernel, file or device was not found.
  Io,               ///< Reading or writing a file failed.
  Parse,            ///< Malformed text (signature comment, argument spec...).
  Unsupported,      ///< The feature is not available in this build.
};

const char *getErrorCodeName(ErrorCode code);

/// A success-or-failure value. A failure carries:
///  - for driver failures, the CUresult, its name (cuGetErrorName) and
///    description (cuGetErrorString);
///  - what KAIO was doing ("cuModuleLoadDataEx while loading module 'x.ptx'");
///  - optional details, e.g. the JIT error log.
class [[nodiscard]] Error {
public:
  Error() = default;
  static Error success() { return Error(); }
  /// A failure detected by KAIO itself.
  static Error make(ErrorCode code, std::string message);
  /// A failure reported by the driver.
  static Error driver(int cudaResult, std::string name, std::string description,
                      std::string context, std::string details = {});

  /// True on failure.
  explicit operator bool() const { return code_ != ErrorCode::Success; }
  bool isSuccess() const { return code_ == ErrorCode::Success; }
  ErrorCode code() const { return code_; }
  /// The CUresult for driver errors, 0 otherwise.
  int cudaResult() const { return cudaResult_; }
  /// "CUDA_ERROR_INVALID_PTX", or "KAIO_ERROR_..." for runtime-side errors.
  const std::string &name() const { return name_; }
  const std::string &description() const { return description_; }
  const std::string &context() const { return context_; }
  const std::string &details() const { return details_; }

  /// Prefixes what the caller was doing: "loading 'x.ptx': <old context>".
  Error &addContext(const std::string &outer);
  /// The full human-readable message.
  std::string message() const;

private:
  ErrorCode code_ = ErrorCode::Success;
  int cudaResult_ = 0;
  std::string name_, description_, context_, details_;
};

/// Either a T or a failure Error.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Error error) : error_(std::move(error)) {
    assert(error_ && "Expected constructed from a success Error");
  }

  /// True on success.
  explicit operator bool() const { return value_.has_value(); }
  T &operator*() & { assert(value_); return *value_; }
  const T &operator*() const & { assert(value_); return *value_; }
  /// Lets `T t = *f();` move out of a temporary (move-only handles).
  T &&operator*() && { assert(value_); return std::move(*value_); }
  T *operator->() { assert(value_); return &*value_; }
  const T *operator->() const { assert(value_); return &*value_; }
  T &get() & { return **this; }
  const T &get() const & { return **this; }

  const Error &error() const { return error_; }
  Error takeError() { return std::move(error_); }
  /// The value, or `fallback` on failure.
  T valueOr(T fallback) const & { return value_ ? *value_ : fallback; }

private:
  std::optional<T> value_;
  Error error_;
};

} // namespace kaio::rt

#endif // KAIO_RUNTIME_ERROR_H

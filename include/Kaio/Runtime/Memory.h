//===- Memory.h - Device, pinned host and non-owning memory -----*- C++ -*-===//
//
// DeviceBuffer<T> owns device memory, DeviceView<T> borrows memory another
// library owns, PinnedHostBuffer<T> owns page-locked host memory (needed for
// truly asynchronous copies). Sizes are in elements unless a name says Bytes.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_MEMORY_H
#define KAIO_RUNTIME_MEMORY_H

#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Signature.h"
#include "Kaio/Runtime/Types.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace kaio::rt {

class Device;
class Stream;
namespace detail {
struct DeviceState;
Error copyHostToDevice(DeviceState &state, CUdeviceptr dst, const void *src,
                       std::size_t bytes, const Stream *stream);
Error copyDeviceToHost(DeviceState &state, void *dst, CUdeviceptr src,
                       std::size_t bytes, const Stream *stream);
Error copyDeviceToDevice(DeviceState &state, CUdeviceptr dst, CUdeviceptr src,
                         std::size_t bytes, const Stream *stream);
Error fillDevice(DeviceState &state, CUdeviceptr dst, std::uint8_t value,
                 std::size_t bytes, const Stream *stream);
} // namespace detail

/// Raw copies on `device`'s context; synchronous when `stream` is null.
Error copyHostToDevice(const Device &device, CUdeviceptr dst, const void *src,
                       std::size_t bytes, const Stream *stream = nullptr);
Error copyDeviceToHost(const Device &device, void *dst, CUdeviceptr src,
                       std::size_t bytes, const Stream *stream = nullptr);
Error copyDeviceToDevice(const Device &device, CUdeviceptr dst,
                         CUdeviceptr src, std::size_t bytes,
                         const Stream *stream = nullptr);
Error fillDevice(const Device &device, CUdeviceptr dst, std::uint8_t value,
                 std::size_t bytes, const Stream *stream = nullptr);

/// Untyped owned device allocation. Move-only; freed on destruction.
class RawDeviceBuffer {
public:
  static Expected<RawDeviceBuffer> allocate(const Device &device,
                                            std::size_t bytes);
  RawDeviceBuffer() = default;
  RawDeviceBuffer(RawDeviceBuffer &&other) noexcept;
  RawDeviceBuffer &operator=(RawDeviceBuffer &&other) noexcept;
  RawDeviceBuffer(const RawDeviceBuffer &) = delete;
  RawDeviceBuffer &operator=(const RawDeviceBuffer &) = delete;
  ~RawDeviceBuffer();

  CUdeviceptr ptr() const { return ptr_; }
  std::size_t sizeBytes() const { return bytes_; }

  /// Copies `bytes` bytes between host memory and this buffer at
  /// `offsetBytes`; bounds-checked. Asynchronous when `stream` is non-null
  /// (the host memory must then stay alive, and be pinned to overlap).
  Error copyFromHost(const void *src, std::size_t bytes,
                     std::size_t offsetBytes = 0,
                     const Stream *stream = nullptr);
  Error copyToHost(void *dst, std::size_t bytes, std::size_t offsetBytes = 0,
                   const Stream *stream = nullptr) const;
  Error copyFromDevice(CUdeviceptr src, std::size_t bytes,
                       std::size_t offsetBytes = 0,
                       const Stream *stream = nullptr);
  Error fill(std::uint8_t value, const Stream *stream = nullptr);

private:
  Error checkRange(const char *what, std::size_t bytes,
                   std::size_t offsetBytes) const;
  void reset();
  std::shared_ptr<detail::DeviceState> state_;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

/// A non-owning typed view of device memory: a pointer and an element count.
template <typename T> class DeviceView {
public:
  DeviceView() = default;
  DeviceView(CUdeviceptr ptr, std::size_t count) : ptr_(ptr), count_(count) {}
  /// A view of const T can be formed from a view of T.
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  DeviceView(DeviceView<U> other) : ptr_(other.ptr()), count_(other.size()) {}

  CUdeviceptr ptr() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t sizeBytes() const { return count_ * sizeof(T); }
  /// Elements [offset, offset + count), clamped to the view.
  DeviceView subview(std::size_t offset, std::size_t count) const {
    if (offset > count_)
      offset = count_;
    if (count > count_ - offset)
      count = count_ - offset;
    return DeviceView(ptr_ + offset * sizeof(T), count);
  }

private:
  CUdeviceptr ptr_ = 0;
  std::size_t count_ = 0;
};

/// A typed owned device allocation of `size()` elements. Move-only.
template <typename T> class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "device buffers hold trivially copyable, non-const elements");

public:
  static Expected<DeviceBuffer> allocate(const Device &device,
                                         std::size_t count) {
    Expected<RawDeviceBuffer> raw =
        RawDeviceBuffer::allocate(device, count * sizeof(T));
    if (!raw)
      return raw.takeError();
    return DeviceBuffer(std::move(*raw), count);
  }
  /// Allocates and uploads `count` elements.
  static Expected<DeviceBuffer> fromHost(const Device &device, const T *data,
                                         std::size_t count) {
    Expected<DeviceBuffer> buf = allocate(device, count);
    if (!buf)
      return buf;
    if (Error e = buf->copyFromHost(data, count))
      return e;
    return buf;
  }
  static Expected<DeviceBuffer> fromHost(const Device &device,
                                         const std::vector<T> &data) {
    return fromHost(device, data.data(), data.size());
  }

  DeviceBuffer() = default;

  std::size_t size() const { return count_; }
  std::size_t sizeBytes() const { return count_ * sizeof(T); }
  CUdeviceptr ptr() const { return raw_.ptr(); }
  DeviceView<T> view() { return DeviceView<T>(ptr(), count_); }
  DeviceView<const T> view() const { return DeviceView<const T>(ptr(), count_); }
  RawDeviceBuffer &raw() { return raw_; }
  const RawDeviceBuffer &raw() const { return raw_; }

  // Synchronous copies; `offset` and `count` in elements.
  Error copyFromHost(const T *src, std::size_t count, std::size_t offset = 0) {
    return raw_.copyFromHost(src, count * sizeof(T), offset * sizeof(T));
  }
  Error copyFromHost(const std::vector<T> &src) {
    return copyFromHost(src.data(), src.size());
  }
  Error copyToHost(T *dst, std::size_t count, std::size_t offset = 0) const {
    return raw_.copyToHost(dst, count * sizeof(T), offset * sizeof(T));
  }
  Expected<std::vector<T>> toHost() const {
    std::vector<T> out(count_);
    if (Error e = copyToHost(out.data(), count_))
      return e;
    return out;
  }
  Error copyFrom(DeviceView<const T> src) {
    return raw_.copyFromDevice(src.ptr(), src.sizeBytes());
  }
  Error copyFrom(const DeviceBuffer &src) { return copyFrom(src.view()); }
  Error fillBytes(std::uint8_t value) { return raw_.fill(value); }
  Error zero() { return raw_.fill(0); }

  // Asynchronous variants, ordered on `stream`.
  Error copyFromHostAsync(const T *src, std::size_t count, const Stream &stream,
                          std::size_t offset = 0) {
    return raw_.copyFromHost(src, count * sizeof(T), offset * sizeof(T),
                             &stream);
  }
  Error copyToHostAsync(T *dst, std::size_t count, const Stream &stream,
                        std::size_t offset = 0) const {
    return raw_.copyToHost(dst, count * sizeof(T), offset * sizeof(T), &stream);
  }
  Error copyFromAsync(DeviceView<const T> src, const Stream &stream) {
    return raw_.copyFromDevice(src.ptr(), src.sizeBytes(), 0, &stream);
  }
  Error fillBytesAsync(std::uint8_t value, const Stream &stream) {
    return raw_.fill(value, &stream);
  }

private:
  DeviceBuffer(RawDeviceBuffer raw, std::size_t count)
      : raw_(std::move(raw)), count_(count) {}
  RawDeviceBuffer raw_;
  std::size_t count_ = 0;
};

/// Copies between host memory and a DeviceView (memory KAIO does not own).
template <typename T>
Error copyToView(const Device &device, DeviceView<T> dst, const T *src,
                 std::size_t count, const Stream *stream = nullptr) {
  static_assert(!std::is_const_v<T>, "cannot copy into a view of const");
  if (count > dst.size())
    return Error::make(ErrorCode::InvalidValue,
                       "copy of " + std::to_string(count) +
                           " elements exceeds view of " +
                           std::to_string(dst.size()));
  return copyHostToDevice(device, dst.ptr(), src, count * sizeof(T), stream);
}
template <typename T, typename U>
Error copyFromView(const Device &device, T *dst, DeviceView<U> src,
                   std::size_t count, const Stream *stream = nullptr) {
  static_assert(std::is_same_v<std::remove_const_t<U>, T>, "element mismatch");
  if (count > src.size())
    return Error::make(ErrorCode::InvalidValue,
                       "copy of " + std::to_string(count) +
                           " elements exceeds view of " +
                           std::to_string(src.size()));
  return copyDeviceToHost(device, dst, src.ptr(), count * sizeof(T), stream);
}

/// Untyped owned page-locked host allocation. Move-only.
class RawPinnedBuffer {
public:
  static Expected<RawPinnedBuffer> allocate(const Device &device,
                                            std::size_t bytes);
  RawPinnedBuffer() = default;
  RawPinnedBuffer(RawPinnedBuffer &&other) noexcept;
  RawPinnedBuffer &operator=(RawPinnedBuffer &&other) noexcept;
  RawPinnedBuffer(const RawPinnedBuffer &) = delete;
  RawPinnedBuffer &operator=(const RawPinnedBuffer &) = delete;
  ~RawPinnedBuffer();
  void *data() const { return data_; }
  std::size_t sizeBytes() const { return bytes_; }

private:
  void reset();
  std::shared_ptr<detail::DeviceState> state_;
  void *data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Typed page-locked host memory (uninitialized). Move-only.
template <typename T> class PinnedHostBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned buffers hold PODs");

public:
  static Expected<PinnedHostBuffer> allocate(const Device &device,
                                             std::size_t count) {
    Expected<RawPinnedBuffer> raw =
        RawPinnedBuffer::allocate(device, count * sizeof(T));
    if (!raw)
      return raw.takeError();
    return PinnedHostBuffer(std::move(*raw), count);
  }
  PinnedHostBuffer() = default;
  T *data() { return static_cast<T *>(raw_.data()); }
  const T *data() const { return static_cast<const T *>(raw_.data()); }
  std::size_t size() const { return count_; }
  T &operator[](std::size_t i) { return data()[i]; }
  const T &operator[](std::size_t i) const { return data()[i]; }
  T *begin() { return data(); }
  T *end() { return data() + count_; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + count_; }

private:
  PinnedHostBuffer(RawPinnedBuffer raw, std::size_t count)
      : raw_(std::move(raw)), count_(count) {}
  RawPinnedBuffer raw_;
  std::size_t count_ = 0;
};

/// Buffers and views are passed to kernels as typed pointers.
template <typename T> KernelArg toKernelArg(const DeviceBuffer<T> &buffer) {
  return KernelArg::pointer(buffer.ptr(), scalarTypeOf<T>(), false);
}
template <typename T> KernelArg toKernelArg(const DeviceView<T> &view) {
  return KernelArg::pointer(view.ptr(), scalarTypeOf<T>(),
                            std::is_const_v<T>);
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_MEMORY_H

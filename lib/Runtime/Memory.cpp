//===- Memory.cpp ---------------------------------------------------------===//

#include "Internal.h"

#include "Kaio/Runtime/Memory.h"
#include "Kaio/Runtime/Stream.h"

using namespace kaio::rt;
using namespace kaio::rt::detail;

static std::string bytesStr(std::size_t bytes) {
  return std::to_string(bytes) + " bytes";
}

static CUstream rawStream(const Stream *stream) {
  return stream ? stream->raw() : nullptr;
}

Error kaio::rt::detail::copyHostToDevice(DeviceState &state, CUdeviceptr dst,
                                         const void *src, std::size_t bytes,
                                         const Stream *stream) {
  if (!bytes)
    return Error::success();
  std::string doing = "copying " + bytesStr(bytes) + " host to device";
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  const DriverApi &api = *state.api;
  if (stream) {
    if (CUresult r = api.cuMemcpyHtoDAsync(dst, src, bytes, rawStream(stream)))
      return makeCudaError(api, r, "cuMemcpyHtoDAsync", doing);
  } else if (CUresult r = api.cuMemcpyHtoD(dst, src, bytes)) {
    return makeCudaError(api, r, "cuMemcpyHtoD", doing);
  }
  return Error::success();
}

Error kaio::rt::detail::copyDeviceToHost(DeviceState &state, void *dst,
                                         CUdeviceptr src, std::size_t bytes,
                                         const Stream *stream) {
  if (!bytes)
    return Error::success();
  std::string doing = "copying " + bytesStr(bytes) + " device to host";
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  const DriverApi &api = *state.api;
  if (stream) {
    if (CUresult r = api.cuMemcpyDtoHAsync(dst, src, bytes, rawStream(stream)))
      return makeCudaError(api, r, "cuMemcpyDtoHAsync", doing);
  } else if (CUresult r = api.cuMemcpyDtoH(dst, src, bytes)) {
    return makeCudaError(api, r, "cuMemcpyDtoH", doing);
  }
  return Error::success();
}

Error kaio::rt::detail::copyDeviceToDevice(DeviceState &state, CUdeviceptr dst,
                                           CUdeviceptr src, std::size_t bytes,
                                           const Stream *stream) {
  if (!bytes)
    return Error::success();
  std::string doing = "copying " + bytesStr(bytes) + " device to device";
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  const DriverApi &api = *state.api;
  if (stream) {
    if (CUresult r = api.cuMemcpyDtoDAsync(dst, src, bytes, rawStream(stream)))
      return makeCudaError(api, r, "cuMemcpyDtoDAsync", doing);
  } else if (CUresult r = api.cuMemcpyDtoD(dst, src, bytes)) {
    return makeCudaError(api, r, "cuMemcpyDtoD", doing);
  }
  return Error::success();
}

Error kaio::rt::detail::fillDevice(DeviceState &state, CUdeviceptr dst,
                                   std::uint8_t value, std::size_t bytes,
                                   const Stream *stream) {
  if (!bytes)
    return Error::success();
  std::string doing = "filling " + bytesStr(bytes) + " of device memory";
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  const DriverApi &api = *state.api;
  if (stream) {
    if (CUresult r = api.cuMemsetD8Async(dst, value, bytes, rawStream(stream)))
      return makeCudaError(api, r, "cuMemsetD8Async", doing);
  } else if (CUresult r = api.cuMemsetD8(dst, value, bytes)) {
    return makeCudaError(api, r, "cuMemsetD8", doing);
  }
  return Error::success();
}

Error kaio::rt::copyHostToDevice(const Device &device, CUdeviceptr dst,
                                 const void *src, std::size_t bytes,
                                 const Stream *stream) {
  return detail::copyHostToDevice(*device.state(), dst, src, bytes, stream);
}
Error kaio::rt::copyDeviceToHost(const Device &device, void *dst,
                                 CUdeviceptr src, std::size_t bytes,
                                 const Stream *stream) {
  return detail::copyDeviceToHost(*device.state(), dst, src, bytes, stream);
}
Error kaio::rt::copyDeviceToDevice(const Device &device, CUdeviceptr dst,
                                   CUdeviceptr src, std::size_t bytes,
                                   const Stream *stream) {
  return detail::copyDeviceToDevice(*device.state(), dst, src, bytes, stream);
}
Error kaio::rt::fillDevice(const Device &device, CUdeviceptr dst,
                           std::uint8_t value, std::size_t bytes,
                           const Stream *stream) {
  return detail::fillDevice(*device.state(), dst, value, bytes, stream);
}

//===----------------------------------------------------------------------===//
// RawDeviceBuffer
//===----------------------------------------------------------------------===//

Expected<RawDeviceBuffer> RawDeviceBuffer::allocate(const Device &device,
                                                    std::size_t bytes) {
  RawDeviceBuffer buf;
  buf.state_ = device.state();
  buf.bytes_ = bytes;
  if (!bytes) // cuMemAlloc rejects 0; an empty buffer is still useful.
    return buf;
  std::string doing = "allocating " + bytesStr(bytes) + " on device " +
                      std::to_string(device.ordinal());
  ScopedContext scope(*buf.state_);
  if (Error e = scope.enter(doing))
    return e;
  CUdeviceptr ptr = 0;
  if (CUresult r = buf.state_->api->cuMemAlloc(&ptr, bytes)) {
    buf.bytes_ = 0;
    return makeCudaError(*buf.state_->api, r, "cuMemAlloc", doing);
  }
  buf.ptr_ = ptr;
  return buf;
}

RawDeviceBuffer::RawDeviceBuffer(RawDeviceBuffer &&other) noexcept
    : state_(std::move(other.state_)), ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = 0;
  other.bytes_ = 0;
}

RawDeviceBuffer &RawDeviceBuffer::operator=(RawDeviceBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = 0;
    other.bytes_ = 0;
  }
  return *this;
}

RawDeviceBuffer::~RawDeviceBuffer() { reset(); }

void RawDeviceBuffer::reset() {
  if (ptr_) {
    ScopedContext scope(*state_);
    // Nothing useful can be done with a failure in a destructor; the memory
    // goes with the context at worst.
    scope.enterForRelease();
    forgetDevicePointers(ptr_, bytes_);
    state_->api->cuMemFree(ptr_);
  }
  ptr_ = 0;
  bytes_ = 0;
  state_.reset();
}

Error RawDeviceBuffer::checkRange(const char *what, std::size_t bytes,
                                  std::size_t offsetBytes) const {
  if (!state_ && bytes)
    return Error::make(ErrorCode::InvalidValue,
                       std::string(what) + " an unallocated device buffer");
  if (offsetBytes > bytes_ || bytes > bytes_ - offsetBytes)
    return Error::make(ErrorCode::InvalidValue,
                       std::string(what) + " " + bytesStr(bytes) +
                           " at offset " + std::to_string(offsetBytes) +
                           " exceeds the device buffer of " +
                           bytesStr(bytes_));
  return Error::success();
}

Error RawDeviceBuffer::copyFromHost(const void *src, std::size_t bytes,
                                    std::size_t offsetBytes,
                                    const Stream *stream) {
  if (Error e = checkRange("copying", bytes, offsetBytes))
    return e;
  return detail::copyHostToDevice(*state_, ptr_ + offsetBytes, src, bytes,
                                  stream);
}

Error RawDeviceBuffer::copyToHost(void *dst, std::size_t bytes,
                                  std::size_t offsetBytes,
                                  const Stream *stream) const {
  if (Error e = checkRange("copying", bytes, offsetBytes))
    return e;
  return detail::copyDeviceToHost(*state_, dst, ptr_ + offsetBytes, bytes,
                                  stream);
}

Error RawDeviceBuffer::copyFromDevice(CUdeviceptr src, std::size_t bytes,
                                      std::size_t offsetBytes,
                                      const Stream *stream) {
  if (Error e = checkRange("copying", bytes, offsetBytes))
    return e;
  return detail::copyDeviceToDevice(*state_, ptr_ + offsetBytes, src, bytes,
                                    stream);
}

Error RawDeviceBuffer::fill(std::uint8_t value, const Stream *stream) {
  if (!bytes_)
    return Error::success();
  return detail::fillDevice(*state_, ptr_, value, bytes_, stream);
}

//===----------------------------------------------------------------------===//
// RawPinnedBuffer
//===----------------------------------------------------------------------===//

Expected<RawPinnedBuffer> RawPinnedBuffer::allocate(const Device &device,
                                                    std::size_t bytes) {
  RawPinnedBuffer buf;
  buf.state_ = device.state();
  if (!bytes)
    return buf;
  std::string doing = "allocating " + bytesStr(bytes) + " of pinned host memory";
  ScopedContext scope(*buf.state_);
  if (Error e = scope.enter(doing))
    return e;
  void *data = nullptr;
  if (CUresult r = buf.state_->api->cuMemHostAlloc(&data, bytes,
                                                   CU_MEMHOSTALLOC_PORTABLE))
    return makeCudaError(*buf.state_->api, r, "cuMemHostAlloc", doing);
  buf.data_ = data;
  buf.bytes_ = bytes;
  return buf;
}

RawPinnedBuffer::RawPinnedBuffer(RawPinnedBuffer &&other) noexcept
    : state_(std::move(other.state_)), data_(other.data_),
      bytes_(other.bytes_) {
  other.data_ = nullptr;
  other.bytes_ = 0;
}

RawPinnedBuffer &RawPinnedBuffer::operator=(RawPinnedBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

RawPinnedBuffer::~RawPinnedBuffer() { reset(); }

void RawPinnedBuffer::reset() {
  if (data_) {
    ScopedContext scope(*state_);
    scope.enterForRelease();
    state_->api->cuMemFreeHost(data_);
  }
  data_ = nullptr;
  bytes_ = 0;
  state_.reset();
}

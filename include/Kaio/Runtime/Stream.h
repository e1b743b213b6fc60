//===- Stream.h - CUDA streams and events -----------------------*- C++ -*-===//

#ifndef KAIO_RUNTIME_STREAM_H
#define KAIO_RUNTIME_STREAM_H

#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"

#include <memory>

namespace kaio::rt {

class Device;
namespace detail {
struct DeviceState;
} // namespace detail

/// An owned CUDA stream. Move-only.
class Stream {
public:
  /// Non-blocking by default so KAIO work does not serialize with other
  /// libraries' legacy-default-stream work.
  static Expected<Stream> create(const Device &device, bool nonBlocking = true);
  /// A stream the caller owns (e.g. a framework's current stream, through
  /// the C API), used on `device`; never destroyed here. Null: the legacy
  /// default stream.
  static Stream borrow(const Device &device, CUstream stream);

  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  Error synchronize() const;
  /// True if all work submitted so far has completed.
  Expected<bool> query() const;
  CUstream raw() const { return stream_; }
  const std::shared_ptr<detail::DeviceState> &state() const { return state_; }

private:
  Stream(std::shared_ptr<detail::DeviceState> state, CUstream stream,
         bool owned = true)
      : state_(std::move(state)), stream_(stream), owned_(owned) {}
  void reset();
  std::shared_ptr<detail::DeviceState> state_;
  CUstream stream_ = nullptr;
  bool owned_ = true;
};

/// An owned CUDA event (with timing). Move-only.
class Event {
public:
  static Expected<Event> create(const Device &device, bool blockingSync = false);

  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// Records on `stream`, or the default stream when null.
  Error record(const Stream *stream = nullptr);
  Error synchronize() const;
  Expected<bool> query() const;
  /// Milliseconds between two recorded events (`this` is the end).
  Expected<float> elapsedMsSince(const Event &start) const;
  CUevent raw() const { return event_; }

private:
  Event(std::shared_ptr<detail::DeviceState> state, CUevent event)
      : state_(std::move(state)), event_(event) {}
  void reset();
  std::shared_ptr<detail::DeviceState> state_;
  CUevent event_ = nullptr;
};

/// Milliseconds between `start` and `end`.
inline Expected<float> elapsedMs(const Event &start, const Event &end) {
  return end.elapsedMsSince(start);
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_STREAM_H

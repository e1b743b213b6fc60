//===- Stream.cpp ---------------------------------------------------------===//

#include "Internal.h"

#include "Kaio/Runtime/Stream.h"

using namespace kaio::rt;
using namespace kaio::rt::detail;

Expected<Stream> Stream::create(const Device &device, bool nonBlocking) {
  DeviceState &state = *device.state();
  std::string doing = "creating a stream on device " +
                      std::to_string(device.ordinal());
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  CUstream stream = nullptr;
  if (CUresult r = state.api->cuStreamCreate(
          &stream, nonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT))
    return makeCudaError(*state.api, r, "cuStreamCreate", doing);
  return Stream(device.state(), stream);
}

Stream Stream::borrow(const Device &device, CUstream stream) {
  return Stream(device.state(), stream, /*owned=*/false);
}

Stream::Stream(Stream &&other) noexcept
    : state_(std::move(other.state_)), stream_(other.stream_),
      owned_(other.owned_) {
  other.stream_ = nullptr;
}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    stream_ = other.stream_;
    owned_ = other.owned_;
    other.stream_ = nullptr;
  }
  return *this;
}

Stream::~Stream() { reset(); }

void Stream::reset() {
  if (stream_ && owned_) {
    ScopedContext scope(*state_);
    scope.enterForRelease();
    state_->api->cuStreamDestroy(stream_);
  }
  stream_ = nullptr;
  state_.reset();
}

Error Stream::synchronize() const {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("synchronizing a stream"))
    return e;
  if (CUresult r = state_->api->cuStreamSynchronize(stream_))
    return makeCudaError(*state_->api, r, "cuStreamSynchronize",
                         "synchronizing a stream");
  return Error::success();
}

Expected<bool> Stream::query() const {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("querying a stream"))
    return e;
  CUresult r = state_->api->cuStreamQuery(stream_);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)
    return r == CUDA_SUCCESS;
  return makeCudaError(*state_->api, r, "cuStreamQuery", "querying a stream");
}

Expected<Event> Event::create(const Device &device, bool blockingSync) {
  DeviceState &state = *device.state();
  std::string doing = "creating an event on device " +
                      std::to_string(device.ordinal());
  ScopedContext scope(state);
  if (Error e = scope.enter(doing))
    return e;
  CUevent event = nullptr;
  if (CUresult r = state.api->cuEventCreate(
          &event, blockingSync ? CU_EVENT_BLOCKING_SYNC : CU_EVENT_DEFAULT))
    return makeCudaError(*state.api, r, "cuEventCreate", doing);
  return Event(device.state(), event);
}

Event::Event(Event &&other) noexcept
    : state_(std::move(other.state_)), event_(other.event_) {
  other.event_ = nullptr;
}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    event_ = other.event_;
    other.event_ = nullptr;
  }
  return *this;
}

Event::~Event() { reset(); }

void Event::reset() {
  if (event_) {
    ScopedContext scope(*state_);
    scope.enterForRelease();
    state_->api->cuEventDestroy(event_);
  }
  event_ = nullptr;
  state_.reset();
}

Error Event::record(const Stream *stream) {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("recording an event"))
    return e;
  if (CUresult r =
          state_->api->cuEventRecord(event_, stream ? stream->raw() : nullptr))
    return makeCudaError(*state_->api, r, "cuEventRecord",
                         "recording an event");
  return Error::success();
}

Error Event::synchronize() const {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("synchronizing an event"))
    return e;
  if (CUresult r = state_->api->cuEventSynchronize(event_))
    return makeCudaError(*state_->api, r, "cuEventSynchronize",
                         "synchronizing an event");
  return Error::success();
}

Expected<bool> Event::query() const {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("querying an event"))
    return e;
  CUresult r = state_->api->cuEventQuery(event_);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)
    return r == CUDA_SUCCESS;
  return makeCudaError(*state_->api, r, "cuEventQuery", "querying an event");
}

Expected<float> Event::elapsedMsSince(const Event &start) const {
  ScopedContext scope(*state_);
  if (Error e = scope.enter("timing events"))
    return e;
  float ms = 0;
  if (CUresult r = state_->api->cuEventElapsedTime(&ms, start.event_, event_))
    return makeCudaError(*state_->api, r, "cuEventElapsedTime",
                         "timing events");
  return ms;
}

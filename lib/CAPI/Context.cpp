//===- Context.cpp - C API: versions, errors, devices, streams, memory ----===//

#include "CAPIInternal.h"

#include <cstring>

using namespace kaio;
using namespace kaio::capi;

namespace {

struct ThreadError {
  std::string message;
  int cudaError = 0;
};

ThreadError &threadError() {
  static thread_local ThreadError error;
  return error;
}

kaio_status toStatus(rt::ErrorCode code) {
  switch (code) {
  case rt::ErrorCode::Success:
    return KAIO_SUCCESS;
  case rt::ErrorCode::Driver:
    return KAIO_ERROR_DRIVER;
  case rt::ErrorCode::NoDriver:
    return KAIO_ERROR_NO_DRIVER;
  case rt::ErrorCode::InvalidValue:
    return KAIO_ERROR_INVALID_VALUE;
  case rt::ErrorCode::InvalidConfig:
    return KAIO_ERROR_INVALID_CONFIG;
  case rt::ErrorCode::ArgumentMismatch:
    return KAIO_ERROR_ARGUMENT_MISMATCH;
  case rt::ErrorCode::NotFound:
    return KAIO_ERROR_NOT_FOUND;
  case rt::ErrorCode::Io:
    return KAIO_ERROR_IO;
  case rt::ErrorCode::Parse:
    return KAIO_ERROR_PARSE;
  case rt::ErrorCode::Unsupported:
    return KAIO_ERROR_UNSUPPORTED;
  }
  return KAIO_ERROR_INTERNAL;
}

/// "fn: ctx: null" unless there is a context.
kaio_status checkContext(const char *fn, kaio_context ctx) {
  return ctx ? KAIO_SUCCESS : failNull(fn, "ctx");
}

} // namespace

kaio_status kaio::capi::fail(kaio_status status, std::string message,
                             int cudaError) {
  ThreadError &e = threadError();
  e.message = std::move(message);
  e.cudaError = cudaError;
  return status;
}

kaio_status kaio::capi::fail(const rt::Error &error) {
  return fail(toStatus(error.code()), error.message(), error.cudaResult());
}

kaio_status kaio::capi::failNull(const char *fn, const char *name) {
  return fail(KAIO_ERROR_INVALID_VALUE,
              std::string(fn) + ": " + name + ": null");
}

rt::Expected<ops::Library *> kaio::capi::getLibrary(kaio_context ctx) {
  std::lock_guard<std::mutex> lock(ctx->mutex);
  if (!ctx->library) {
    rt::Expected<ops::Library> lib = ops::Library::load(*ctx->device);
    if (!lib)
      return lib.takeError();
    ctx->library.emplace(std::move(*lib));
  }
  return &*ctx->library;
}

//===----------------------------------------------------------------------===//
// Versions and errors
//===----------------------------------------------------------------------===//

uint32_t kaio_version(void) {
  return KAIO_VERSION_MAJOR * 10000 + KAIO_VERSION_MINOR * 100 +
         KAIO_VERSION_PATCH;
}

uint32_t kaio_abi_version(void) { return KAIO_ABI_VERSION; }

const char *kaio_version_string(void) {
#define KAIO_STR2(x) #x
#define KAIO_STR(x) KAIO_STR2(x)
  return KAIO_STR(KAIO_VERSION_MAJOR) "." KAIO_STR(
      KAIO_VERSION_MINOR) "." KAIO_STR(KAIO_VERSION_PATCH);
#undef KAIO_STR
#undef KAIO_STR2
}

const char *kaio_status_name(kaio_status status) {
  switch (status) {
  case KAIO_SUCCESS:
    return "KAIO_SUCCESS";
  case KAIO_ERROR_DRIVER:
    return "KAIO_ERROR_DRIVER";
  case KAIO_ERROR_NO_DRIVER:
    return "KAIO_ERROR_NO_DRIVER";
  case KAIO_ERROR_INVALID_VALUE:
    return "KAIO_ERROR_INVALID_VALUE";
  case KAIO_ERROR_INVALID_CONFIG:
    return "KAIO_ERROR_INVALID_CONFIG";
  case KAIO_ERROR_ARGUMENT_MISMATCH:
    return "KAIO_ERROR_ARGUMENT_MISMATCH";
  case KAIO_ERROR_NOT_FOUND:
    return "KAIO_ERROR_NOT_FOUND";
  case KAIO_ERROR_IO:
    return "KAIO_ERROR_IO";
  case KAIO_ERROR_PARSE:
    return "KAIO_ERROR_PARSE";
  case KAIO_ERROR_UNSUPPORTED:
    return "KAIO_ERROR_UNSUPPORTED";
  case KAIO_ERROR_COMPILE:
    return "KAIO_ERROR_COMPILE";
  case KAIO_ERROR_INTERNAL:
    return "KAIO_ERROR_INTERNAL";
  default:
    return "KAIO_ERROR_UNKNOWN";
  }
}

const char *kaio_last_error_message(void) {
  return threadError().message.c_str();
}

int32_t kaio_last_cuda_error(void) { return threadError().cudaError; }

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

kaio_status kaio_device_count(int32_t *count) {
  return guard("kaio_device_count", [&]() -> kaio_status {
    if (!count)
      return failNull("kaio_device_count", "count");
    rt::Expected<int> n = rt::getDeviceCount();
    if (!n)
      return fail(n.error());
    *count = *n;
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_driver_version(int32_t *version) {
  return guard("kaio_driver_version", [&]() -> kaio_status {
    if (!version)
      return failNull("kaio_driver_version", "version");
    rt::Expected<int> v = rt::getDriverVersion();
    if (!v)
      return fail(v.error());
    *version = *v;
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_context_create(int32_t device, kaio_context *out) {
  return guard("kaio_context_create", [&]() -> kaio_status {
    if (!out)
      return failNull("kaio_context_create", "out");
    *out = nullptr;
    if (device < 0)
      return fail(KAIO_ERROR_INVALID_VALUE,
                  "kaio_context_create: device: " + std::to_string(device) +
                      " is negative");
    rt::Expected<rt::Device> dev = rt::Device::open(device);
    if (!dev)
      return fail(dev.error());
    auto ctx = std::make_unique<kaio_context_st>();
    ctx->device = std::make_shared<rt::Device>(std::move(*dev));
    *out = ctx.release();
    return KAIO_SUCCESS;
  });
}

void kaio_context_destroy(kaio_context ctx) {
  // Streams first: work queued on them may still use the buffers.
  if (ctx) {
    ctx->streams.clear();
    ctx->allocations.clear();
  }
  delete ctx;
}

kaio_status kaio_context_synchronize(kaio_context ctx) {
  return guard("kaio_context_synchronize", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_context_synchronize", ctx))
      return s;
    if (rt::Error e = ctx->device->synchronize())
      return fail(e);
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_context_device_info(kaio_context ctx, kaio_device_info *out) {
  return guard("kaio_context_device_info", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_context_device_info", ctx))
      return s;
    if (!out)
      return failNull("kaio_context_device_info", "out");
    std::memset(out, 0, sizeof(*out));
    const rt::DeviceProperties &p = ctx->device->properties();
    std::strncpy(out->name, p.name.c_str(), sizeof(out->name) - 1);
    out->ordinal = p.ordinal;
    out->cc_major = p.ccMajor;
    out->cc_minor = p.ccMinor;
    out->sm_count = p.smCount;
    out->total_memory = p.totalMemory;
    out->driver_version = ctx->device->driverVersion();
    out->max_threads_per_block = p.maxThreadsPerBlock;
    out->shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
    return KAIO_SUCCESS;
  });
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

kaio_status kaio_stream_create(kaio_context ctx, kaio_stream *out) {
  return guard("kaio_stream_create", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_stream_create", ctx))
      return s;
    if (!out)
      return failNull("kaio_stream_create", "out");
    *out = nullptr;
    rt::Expected<rt::Stream> stream = rt::Stream::create(*ctx->device);
    if (!stream)
      return fail(stream.error());
    kaio_stream raw = stream->raw();
    std::lock_guard<std::mutex> lock(ctx->mutex);
    ctx->streams.emplace(raw, std::move(*stream));
    *out = raw;
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_stream_destroy(kaio_context ctx, kaio_stream stream) {
  return guard("kaio_stream_destroy", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_stream_destroy", ctx))
      return s;
    if (!stream)
      return KAIO_SUCCESS;
    std::lock_guard<std::mutex> lock(ctx->mutex);
    if (!ctx->streams.erase(stream))
      return fail(KAIO_ERROR_INVALID_VALUE,
                  "kaio_stream_destroy: stream: not created by "
                  "kaio_stream_create on this context");
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_stream_synchronize(kaio_context ctx, kaio_stream stream) {
  return guard("kaio_stream_synchronize", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_stream_synchronize", ctx))
      return s;
    rt::Stream s = rt::Stream::borrow(*ctx->device, stream);
    if (rt::Error e = s.synchronize())
      return fail(e);
    return KAIO_SUCCESS;
  });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

kaio_status kaio_malloc(kaio_context ctx, size_t bytes, kaio_devptr *out) {
  return guard("kaio_malloc", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_malloc", ctx))
      return s;
    if (!out)
      return failNull("kaio_malloc", "out");
    *out = 0;
    if (!bytes)
      return fail(KAIO_ERROR_INVALID_VALUE, "kaio_malloc: bytes: 0");
    rt::Expected<rt::RawDeviceBuffer> buf =
        rt::RawDeviceBuffer::allocate(*ctx->device, bytes);
    if (!buf)
      return fail(buf.error());
    kaio_devptr ptr = buf->ptr();
    std::lock_guard<std::mutex> lock(ctx->mutex);
    ctx->allocations.emplace(ptr, std::move(*buf));
    *out = ptr;
    return KAIO_SUCCESS;
  });
}

kaio_status kaio_free(kaio_context ctx, kaio_devptr ptr) {
  return guard("kaio_free", [&]() -> kaio_status {
    if (kaio_status s = checkContext("kaio_free", ctx))
      return s;
    if (!ptr)
      return KAIO_SUCCESS;
    std::lock_guard<std::mutex> lock(ctx->mutex);
    if (!ctx->allocations.erase(ptr))
      return fail(KAIO_ERROR_INVALID_VALUE,
                  "kaio_free: ptr: not an address kaio_malloc returned on "
                  "this context (or freed already)");
    return KAIO_SUCCESS;
  });
}

namespace {
template <typename Copy>
kaio_status copy(const char *fn, kaio_context ctx, bool hostNull, bool devNull,
                 size_t bytes, Copy &&doCopy) {
  return guard(fn, [&]() -> kaio_status {
    if (kaio_status s = checkContext(fn, ctx))
      return s;
    if (!bytes)
      return KAIO_SUCCESS;
    if (hostNull)
      return failNull(fn, "host pointer");
    if (devNull)
      return failNull(fn, "device address");
    if (rt::Error e = doCopy())
      return fail(e);
    return KAIO_SUCCESS;
  });
}
} // namespace

kaio_status kaio_memcpy_htod(kaio_context ctx, kaio_devptr dst,
                             const void *src, size_t bytes) {
  return copy("kaio_memcpy_htod", ctx, !src, !dst, bytes, [&] {
    return rt::copyHostToDevice(*ctx->device, dst, src, bytes);
  });
}

kaio_status kaio_memcpy_dtoh(kaio_context ctx, void *dst, kaio_devptr src,
                             size_t bytes) {
  return copy("kaio_memcpy_dtoh", ctx, !dst, !src, bytes, [&] {
    return rt::copyDeviceToHost(*ctx->device, dst, src, bytes);
  });
}

kaio_status kaio_memcpy_dtod(kaio_context ctx, kaio_devptr dst,
                             kaio_devptr src, size_t bytes) {
  return copy("kaio_memcpy_dtod", ctx, false, !dst || !src, bytes, [&] {
    return rt::copyDeviceToDevice(*ctx->device, dst, src, bytes);
  });
}

kaio_status kaio_memset(kaio_context ctx, kaio_devptr dst, uint8_t value,
                        size_t bytes) {
  return copy("kaio_memset", ctx, false, !dst, bytes, [&] {
    return rt::fillDevice(*ctx->device, dst, value, bytes);
  });
}

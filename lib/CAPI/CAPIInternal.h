//===- CAPIInternal.h - shared pieces of the C API's implementation -------===//
//
// The handles behind kaio.h's opaque pointers, the calling thread's error
// state, and the guard every entry point runs in: C callers never see a C++
// exception, and every failure leaves a message naming what went wrong.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_CAPI_CAPIINTERNAL_H
#define KAIO_LIB_CAPI_CAPIINTERNAL_H

#include "kaio/kaio.h"

#include "Kaio/Ops/Library.h"
#include "Kaio/Runtime/Device.h"
#include "Kaio/Runtime/Memory.h"
#include "Kaio/Runtime/Module.h"
#include "Kaio/Runtime/Stream.h"

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

struct kaio_context_st {
  /// Shared with the modules loaded through this context, which keep the
  /// device (its primary context) alive after kaio_context_destroy.
  std::shared_ptr<kaio::rt::Device> device;
  std::mutex mutex;
  /// Loaded on the first op.
  std::optional<kaio::ops::Library> library;
  std::map<kaio_devptr, kaio::rt::RawDeviceBuffer> allocations;
  std::map<kaio_stream, kaio::rt::Stream> streams;
};

struct kaio_module_st {
  std::shared_ptr<kaio::rt::Device> device;
  kaio::rt::Module module;
  std::vector<std::string> kernelNames;
  std::vector<std::string> signatures;
  std::mutex mutex;
  std::map<std::string, kaio::rt::Kernel, std::less<>> kernels;
};

namespace kaio::capi {

// Exported from libkaio.so for libkaio_compiler.so, which shares its
// per-thread error state.
#define KAIO_CAPI_INTERNAL __attribute__((visibility("default")))

/// Records `message` as the calling thread's last error; returns `status`.
KAIO_CAPI_INTERNAL kaio_status fail(kaio_status status, std::string message,
                                    int cudaError = 0);
/// The same for a runtime error (its code and CUresult mapped).
KAIO_CAPI_INTERNAL kaio_status fail(const rt::Error &error);
/// "fn: name: null" (KAIO_ERROR_INVALID_VALUE).
KAIO_CAPI_INTERNAL kaio_status failNull(const char *fn, const char *name);

/// Runs `body` (returning a kaio_status) with C++ exceptions turned into
/// KAIO_ERROR_INTERNAL.
template <typename Body> kaio_status guard(const char *fn, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(KAIO_ERROR_INTERNAL, std::string(fn) + ": out of host memory");
  } catch (...) {
    return fail(KAIO_ERROR_INTERNAL,
                std::string(fn) + ": unexpected internal exception");
  }
}

/// The context's op library, loaded on first use.
rt::Expected<ops::Library *> getLibrary(kaio_context ctx);

} // namespace kaio::capi

#endif // KAIO_LIB_CAPI_CAPIINTERNAL_H

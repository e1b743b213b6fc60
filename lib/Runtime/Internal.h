//===- Internal.h - Runtime-private state -----------------------*- C++ -*-===//

#ifndef KAIO_LIB_RUNTIME_INTERNAL_H
#define KAIO_LIB_RUNTIME_INTERNAL_H

#include "DriverAPI.h"

#include "Kaio/Runtime/Device.h"
#include "Kaio/Runtime/Module.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kaio::rt::detail {

/// Shared by a Device and everything created from it, so the primary context
/// outlives every buffer, stream and module that uses it.
struct DeviceState {
  const DriverApi *api = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  DeviceProperties props;

  DeviceState() = default;
  DeviceState(const DeviceState &) = delete;
  DeviceState &operator=(const DeviceState &) = delete;
  ~DeviceState() {
    if (context)
      api->cuDevicePrimaryCtxRelease(device);
  }
};

/// Makes a device's context current for a scope (push/pop, so callers that
/// use other contexts, e.g. another library's, are left undisturbed).
class ScopedContext {
public:
  explicit ScopedContext(DeviceState &state) : state_(state) {}
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
  Error enter(const std::string &doing) {
    return enterLazily([&] { return doing; });
  }
  /// The same, with what is being done described only on failure
  /// (`describe()` returns a std::string): the launch path builds no
  /// message when all goes well.
  template <class Describe> Error enterLazily(const Describe &describe) {
    const DriverApi &api = *state_.api;
    CUcontext current = nullptr;
    if (CUresult r = api.cuCtxGetCurrent(&current))
      return makeCudaError(api, r, "cuCtxGetCurrent", describe());
    if (current == state_.context)
      return Error::success();
    if (CUresult r = api.cuCtxPushCurrent(state_.context))
      return makeCudaError(api, r, "cuCtxPushCurrent", describe());
    pushed_ = true;
    return Error::success();
  }
  /// For destructors, which must release what they own whatever happens:
  /// makes the context current when it can; the caller releases anyway
  /// (device memory, streams and events are freed in any context, and a
  /// failure here must not turn into a leak).
  void enterForRelease() {
    const DriverApi &api = *state_.api;
    CUcontext current = nullptr;
    if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
        current == state_.context)
      return;
    pushed_ = api.cuCtxPushCurrent(state_.context) == CUDA_SUCCESS;
  }
  ~ScopedContext() {
    if (pushed_) {
      CUcontext popped = nullptr;
      state_.api->cuCtxPopCurrent(&popped);
    }
  }

private:
  DeviceState &state_;
  bool pushed_ = false;
};

/// Whether a kernel on `state`'s device may use `ptr` (PointerCheck.cpp):
/// InvalidValue "what: ..." if not. Null passes.
Error checkPointer(DeviceState &state, CUdeviceptr ptr,
                   const std::string &what);
/// Whether `ptr` is a device pointer a check found usable on device
/// `ordinal` (remembered process-wide; no driver call).
bool isKnownDevicePointer(CUdeviceptr ptr, int ordinal);
/// Forgets the pointers into [begin, begin + bytes) (KAIO is freeing it).
void forgetDevicePointers(CUdeviceptr begin, std::size_t bytes);

struct KernelState {
  std::string name;
  CUfunction function = nullptr;
  const KernelSignature *signature = nullptr; ///< Into ModuleState.
  FunctionAttributes attrs;
};

struct ModuleState {
  std::shared_ptr<DeviceState> device;
  CUmodule module = nullptr;
  std::string name;
  std::vector<KernelSignature> signatures;
  CacheStatus cacheStatus = CacheStatus::NotApplicable;
  std::string infoLog;
  std::mutex kernelsMutex;
  std::map<std::string, std::unique_ptr<KernelState>, std::less<>> kernels;

  ModuleState() = default;
  ModuleState(const ModuleState &) = delete;
  ModuleState &operator=(const ModuleState &) = delete;
  ~ModuleState() {
    if (module) {
      ScopedContext scope(*device);
      scope.enterForRelease();
      device->api->cuModuleUnload(module);
    }
  }
};

} // namespace kaio::rt::detail

#endif // KAIO_LIB_RUNTIME_INTERNAL_H

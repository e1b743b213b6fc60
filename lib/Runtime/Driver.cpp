//===- Driver.cpp - Loading libcuda at run time ---------------------------===//

#include "DriverAPI.h"

#include "Kaio/Runtime/Device.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

using namespace kaio::rt;
using namespace kaio::rt::detail;

namespace {
struct LoadedDriver {
  DriverApi api;
  Error loadError;
};

std::mutex &getRegistryMutex() {
  static std::mutex mutex;
  return mutex;
}
/// One entry per driver path ever requested; entries are never removed so
/// that function pointers held by live objects stay valid.
std::map<std::string, std::unique_ptr<LoadedDriver>> &getRegistry() {
  static auto *registry =
      new std::map<std::string, std::unique_ptr<LoadedDriver>>();
  return *registry;
}

std::unique_ptr<LoadedDriver> loadDriver(const std::string &path) {
  auto loaded = std::make_unique<LoadedDriver>();
  DriverApi &api = loaded->api;
  api.path = path;
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    std::string reason = why ? why : "unknown dlopen error";
    // dlerror usually starts with the path already; don't repeat it.
    if (reason.compare(0, path.size() + 2, path + ": ") == 0)
      reason = reason.substr(path.size() + 2);
    loaded->loadError = Error::make(
        ErrorCode::NoDriver, "no CUDA driver found (" + path + ": " + reason + ")");
    return loaded;
  }
  std::string missing;
#define KAIO_RESOLVE(member, symbol, ...)                                      \
  api.member =                                                                 \
      reinterpret_cast<std::add_pointer_t<__VA_ARGS__>>(dlsym(handle, symbol)); \
  if (!api.member)                                                             \
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
  KAIO_CUDA_DRIVER_FUNCTIONS(KAIO_RESOLVE)
#undef KAIO_RESOLVE
  using ElapsedFn = CUresult(float *, CUevent, CUevent);
  api.cuEventElapsedTime =
      reinterpret_cast<ElapsedFn *>(dlsym(handle, "cuEventElapsedTime_v2"));
  if (!api.cuEventElapsedTime)
    api.cuEventElapsedTime =
        reinterpret_cast<ElapsedFn *>(dlsym(handle, "cuEventElapsedTime"));
  if (!api.cuEventElapsedTime)
    missing += std::string(missing.empty() ? "" : ", ") + "cuEventElapsedTime";
  api.cuLaunchKernelEx = reinterpret_cast<decltype(api.cuLaunchKernelEx)>(
      dlsym(handle, "cuLaunchKernelEx"));
  api.cuOccupancyMaxActiveClusters =
      reinterpret_cast<decltype(api.cuOccupancyMaxActiveClusters)>(
          dlsym(handle, "cuOccupancyMaxActiveClusters"));
  api.cuPointerGetAttributes =
      reinterpret_cast<decltype(api.cuPointerGetAttributes)>(
          dlsym(handle, "cuPointerGetAttributes"));
  api.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(api.cuTensorMapEncodeTiled)>(
          dlsym(handle, "cuTensorMapEncodeTiled"));
  if (!missing.empty()) {
    loaded->loadError = Error::make(
        ErrorCode::NoDriver, "no usable CUDA driver found (" + path +
                                 " lacks " + missing +
                                 "; the driver is too old or not libcuda)");
    return loaded;
  }
  api.initResult = api.cuInit(0);
  if (api.initResult == CUDA_SUCCESS && api.cuDriverGetVersion(&api.version))
    api.version = 0;
  return loaded;
}
} // namespace

std::string kaio::rt::getDriverPath() {
  const char *env = std::getenv("KAIO_CUDA_DRIVER");
  return env && *env ? env : "libcuda.so.1";
}

Expected<const DriverApi *> kaio::rt::detail::getDriver(bool requireInit) {
  std::string path = getDriverPath();
  std::lock_guard<std::mutex> lock(getRegistryMutex());
  std::unique_ptr<LoadedDriver> &slot = getRegistry()[path];
  if (!slot)
    slot = loadDriver(path);
  if (slot->loadError)
    return Error(slot->loadError);
  if (requireInit && slot->api.initResult != CUDA_SUCCESS)
    return makeCudaError(slot->api, slot->api.initResult, "cuInit",
                         "initializing the CUDA driver " + path);
  return &slot->api;
}

Error kaio::rt::detail::makeCudaError(const DriverApi &api, CUresult result,
                                      const char *call,
                                      const std::string &doing,
                                      std::string details) {
  const char *name = nullptr, *description = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (api.cuGetErrorString(result, &description) != CUDA_SUCCESS ||
      !description)
    description = nullptr;
  std::string context = call;
  if (!doing.empty())
    context += " while " + doing;
  return Error::driver(result,
                       name ? name : "CUDA_ERROR_" + std::to_string(result),
                       description ? description : "unrecognized error code",
                       std::move(context), std::move(details));
}

//===- Device.cpp ---------------------------------------------------------===//

#include "Internal.h"

using namespace kaio::rt;
using namespace kaio::rt::detail;

Error kaio::rt::checkDriver() {
  Expected<const DriverApi *> api = getDriver();
  return api ? Error::success() : api.takeError();
}

Expected<int> kaio::rt::getDeviceCount() {
  // A host with a driver but no GPU fails cuInit with NO_DEVICE: that is
  // zero devices, not an error.
  Expected<const DriverApi *> api = getDriver(/*requireInit=*/false);
  if (!api)
    return api.takeError();
  if ((*api)->initResult == CUDA_ERROR_NO_DEVICE)
    return 0;
  if ((*api)->initResult != CUDA_SUCCESS)
    return makeCudaError(**api, (*api)->initResult, "cuInit",
                         "initializing the CUDA driver");
  int count = 0;
  if (CUresult r = (*api)->cuDeviceGetCount(&count))
    return makeCudaError(**api, r, "cuDeviceGetCount", "counting devices");
  return count;
}

Expected<int> kaio::rt::getDriverVersion() {
  Expected<const DriverApi *> api = getDriver(/*requireInit=*/false);
  if (!api)
    return api.takeError();
  int version = 0;
  if (CUresult r = (*api)->cuDriverGetVersion(&version))
    return makeCudaError(**api, r, "cuDriverGetVersion",
                         "querying the driver version");
  return version;
}

std::string kaio::rt::formatDriverVersion(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string((version % 1000) / 10);
}

std::string DeviceProperties::str() const {
  std::string s;
  auto line = [&](const char *key, const std::string &value) {
    s += "  ";
    s += key;
    s += ": ";
    s += value;
    s += "\n";
  };
  s += "device " + std::to_string(ordinal) + ": " + name + "\n";
  line("compute capability",
       std::to_string(ccMajor) + "." + std::to_string(ccMinor));
  line("multiprocessors", std::to_string(smCount));
  line("global memory", std::to_string(totalMemory >> 20) + " MiB");
  line("L2 cache", std::to_string(l2CacheSize >> 10) + " KiB");
  line("shared memory per block",
       std::to_string(sharedMemPerBlock) + " B (opt-in " +
           std::to_string(sharedMemPerBlockOptin) + " B)");
  line("shared memory per SM", std::to_string(sharedMemPerSm) + " B");
  line("registers per block", std::to_string(regsPerBlock));
  line("warp size", std::to_string(warpSize));
  line("max threads per block", std::to_string(maxThreadsPerBlock));
  line("max block dims", std::to_string(maxBlockDim[0]) + "x" +
                             std::to_string(maxBlockDim[1]) + "x" +
                             std::to_string(maxBlockDim[2]));
  line("max grid dims", std::to_string(maxGridDim[0]) + "x" +
                            std::to_string(maxGridDim[1]) + "x" +
                            std::to_string(maxGridDim[2]));
  line("clock", std::to_string(clockRateKHz / 1000) + " MHz (memory " +
                    std::to_string(memoryClockRateKHz / 1000) + " MHz, " +
                    std::to_string(memoryBusWidth) + "-bit)");
  return s;
}

static Error queryProperties(DeviceState &state, int ordinal) {
  const DriverApi &api = *state.api;
  DeviceProperties &p = state.props;
  p.ordinal = ordinal;
  std::string doing = "querying device " + std::to_string(ordinal);
  char name[256] = {};
  if (CUresult r = api.cuDeviceGetName(name, sizeof(name) - 1, state.device))
    return makeCudaError(api, r, "cuDeviceGetName", doing);
  p.name = name;
  if (CUresult r = api.cuDeviceTotalMem(&p.totalMemory, state.device))
    return makeCudaError(api, r, "cuDeviceTotalMem", doing);
  int pageable = 0;
  struct {
    int *field;
    CUdevice_attribute attr;
  } attrs[] = {
      {&p.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&p.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&p.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&p.sharedMemPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
      {&p.sharedMemPerBlockOptin,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
      {&p.sharedMemPerSm,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
      {&p.regsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
      {&p.regsPerSm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
      {&p.l2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
      {&p.clockRateKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
      {&p.memoryClockRateKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
      {&p.memoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
      {&p.warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
      {&p.maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {&p.maxThreadsPerSm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
      {&p.maxBlockDim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X},
      {&p.maxBlockDim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y},
      {&p.maxBlockDim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z},
      {&p.maxGridDim[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X},
      {&p.maxGridDim[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y},
      {&p.maxGridDim[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
      {&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS},
  };
  for (auto &a : attrs)
    if (CUresult r = api.cuDeviceGetAttribute(a.field, a.attr, state.device))
      return makeCudaError(api, r, "cuDeviceGetAttribute",
                           doing + " (attribute " + std::to_string(a.attr) +
                               ")");
  p.pageableMemoryAccess = pageable != 0;
  // Pre-Volta drivers may report no opt-in; the default is then the limit.
  if (p.sharedMemPerBlockOptin < p.sharedMemPerBlock)
    p.sharedMemPerBlockOptin = p.sharedMemPerBlock;
  return Error::success();
}

Expected<Device> Device::open(int ordinal) {
  Expected<int> count = getDeviceCount();
  if (!count)
    return count.takeError();
  if (ordinal < 0 || ordinal >= *count)
    return Error::make(ErrorCode::NotFound,
                       "device ordinal " + std::to_string(ordinal) +
                           " out of range: " + std::to_string(*count) +
                           " CUDA device(s) present");
  Expected<const DriverApi *> api = getDriver();
  if (!api)
    return api.takeError();
  auto state = std::make_shared<DeviceState>();
  state->api = *api;
  std::string doing = "opening device " + std::to_string(ordinal);
  if (CUresult r = state->api->cuDeviceGet(&state->device, ordinal))
    return makeCudaError(**api, r, "cuDeviceGet", doing);
  CUcontext ctx = nullptr;
  if (CUresult r = state->api->cuDevicePrimaryCtxRetain(&ctx, state->device))
    return makeCudaError(**api, r, "cuDevicePrimaryCtxRetain", doing);
  state->context = ctx;
  if (Error e = queryProperties(*state, ordinal))
    return e;
  return Device(std::move(state));
}

Device::~Device() = default;

int Device::ordinal() const { return state_->props.ordinal; }
const DeviceProperties &Device::properties() const { return state_->props; }
CUdevice Device::rawDevice() const { return state_->device; }
CUcontext Device::rawContext() const { return state_->context; }
int Device::driverVersion() const { return state_->api->version; }

Error Device::synchronize() const {
  std::string doing = "synchronizing device " + std::to_string(ordinal());
  ScopedContext scope(*state_);
  if (Error e = scope.enter(doing))
    return e;
  if (CUresult r = state_->api->cuCtxSynchronize())
    return makeCudaError(*state_->api, r, "cuCtxSynchronize", doing);
  return Error::success();
}

Error Device::getMemoryInfo(std::size_t &freeBytes,
                            std::size_t &totalBytes) const {
  std::string doing = "querying memory of device " + std::to_string(ordinal());
  ScopedContext scope(*state_);
  if (Error e = scope.enter(doing))
    return e;
  if (CUresult r = state_->api->cuMemGetInfo(&freeBytes, &totalBytes))
    return makeCudaError(*state_->api, r, "cuMemGetInfo", doing);
  return Error::success();
}

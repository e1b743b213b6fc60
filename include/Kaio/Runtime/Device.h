//===- Device.h - CUDA devices and the driver -------------------*- C++ -*-===//
//
// The driver (libcuda.so.1, or $KAIO_CUDA_DRIVER) is loaded lazily with
// dlopen the first time a device is queried; KAIO never links libcuda, so
// everything here works (returning a "no CUDA driver found" error) on
// machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_DEVICE_H
#define KAIO_RUNTIME_DEVICE_H

#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"

#include <cstddef>
#include <memory>
#include <string>

namespace kaio::rt {

namespace detail {
struct DeviceState;
} // namespace detail

/// Device limits and characteristics. A plain struct so that tests can make
/// one up and validate launch configurations without a GPU.
struct DeviceProperties {
  std::string name;
  int ordinal = 0;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  std::size_t totalMemory = 0;           ///< Bytes.
  int sharedMemPerBlock = 0;             ///< Default static+dynamic limit.
  int sharedMemPerBlockOptin = 0;        ///< Limit after opt-in.
  int sharedMemPerSm = 0;
  int regsPerBlock = 0;
  int regsPerSm = 0;
  int l2CacheSize = 0;                   ///< Bytes.
  int clockRateKHz = 0;
  int memoryClockRateKHz = 0;
  int memoryBusWidth = 0;                ///< Bits.
  int warpSize = 0;
  int maxThreadsPerBlock = 0;
  int maxThreadsPerSm = 0;
  int maxBlockDim[3] = {0, 0, 0};
  int maxGridDim[3] = {0, 0, 0};
  /// Kernels may read pageable host memory (HMM or ATS:
  /// CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS).
  bool pageableMemoryAccess = false;

  /// 75 for sm_75, 90 for sm_90.
  int computeCapability() const { return ccMajor * 10 + ccMinor; }
  /// Multi-line human-readable summary.
  std::string str() const;
};

/// One CUDA device with its retained primary context. Move-only; the
/// primary context is released when the Device and every object created from
/// it (buffers, modules, streams...) are gone.
class Device {
public:
  static Expected<Device> open(int ordinal = 0);

  Device(Device &&) noexcept = default;
  Device &operator=(Device &&) noexcept = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  int ordinal() const;
  const DeviceProperties &properties() const;
  /// Waits for all work on this device's primary context.
  Error synchronize() const;
  /// Free and total device memory in bytes.
  Error getMemoryInfo(std::size_t &freeBytes, std::size_t &totalBytes) const;
  /// The driver version (e.g. 12040) of the driver this device came from.
  int driverVersion() const;

  CUdevice rawDevice() const;
  CUcontext rawContext() const;

  /// Whether kernels on this device may use `ptr`, as every launch checks
  /// its pointer arguments (docs/runtime.md, "Launching"): memory of this
  /// device (its primary context's), another device's where peer access
  /// is possible, pinned, registered or managed memory at the address the
  /// GPU sees it, and on a device that reads
  /// pageable host memory any address the driver does not know. Otherwise
  /// InvalidValue "what: ..." saying what the address is (unknown to the
  /// driver: a host pointer?, another device's memory, ...); a failing
  /// query is a Driver error. Null passes (optional arguments), as does
  /// anything when $KAIO_CHECK_POINTERS is "0". Device pointers once found
  /// usable are remembered, so checking them again asks the driver
  /// nothing.
  Error checkPointer(CUdeviceptr ptr, const std::string &what) const;

  /// For runtime internals: shared with every object created from it.
  const std::shared_ptr<detail::DeviceState> &state() const { return state_; }

private:
  explicit Device(std::shared_ptr<detail::DeviceState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<detail::DeviceState> state_;
};

/// Loads and initializes the driver (once per driver path); success iff a
/// usable driver is present.
Error checkDriver();
/// Number of CUDA devices; 0 when the driver reports no device.
Expected<int> getDeviceCount();
/// cuDriverGetVersion, e.g. 12040.
Expected<int> getDriverVersion();
/// The driver library path currently selected ($KAIO_CUDA_DRIVER or
/// "libcuda.so.1").
std::string getDriverPath();
/// "12.4" from 12040.
std::string formatDriverVersion(int version);

} // namespace kaio::rt

#endif // KAIO_RUNTIME_DEVICE_H

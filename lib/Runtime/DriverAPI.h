//===- DriverAPI.h - Minimal CUDA driver API declarations -------*- C++ -*-===//
//
// The subset of cuda.h the runtime uses, declared by hand so that KAIO builds
// without the CUDA toolkit and never links libcuda. Numeric values match the
// driver ABI (checked against CUDA 13 cuda.h). Entry points are resolved with
// dlsym under their versioned names (cuMemAlloc_v2...), which is what cuda.h's
// #defines map the plain names to.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_RUNTIME_DRIVERAPI_H
#define KAIO_LIB_RUNTIME_DRIVERAPI_H

#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"

#include <cstddef>
#include <string>
#include <type_traits>

namespace kaio::rt::detail {

using CUresult = int;
typedef struct CUlinkState_st *CUlinkState;

enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_UNKNOWN = 999,
};

using CUdevice_attribute = int;
enum : CUdevice_attribute {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

using CUfunction_attribute = int;
enum : CUfunction_attribute {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

using CUjit_option = int;
enum : CUjit_option {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
};

using CUjitInputType = int;
enum : CUjitInputType {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
  CU_JIT_INPUT_FATBINARY = 2,
};

enum : unsigned {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_MEMHOSTALLOC_PORTABLE = 0x1,
};

// X(member, symbol, function type...). Required entry points. The type is
// variadic because function types contain commas.
#define KAIO_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName, "cuGetErrorName", CUresult(CUresult, const char **))       \
  X(cuGetErrorString, "cuGetErrorString", CUresult(CUresult, const char **))   \
  X(cuInit, "cuInit", CUresult(unsigned))                                      \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult(int *))                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult(int *))                     \
  X(cuDeviceGet, "cuDeviceGet", CUresult(CUdevice *, int))                     \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult(char *, int, CUdevice))       \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                              \
    CUresult(int *, CUdevice_attribute, CUdevice))                             \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult(size_t *, CUdevice))     \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer",                            \
    CUresult(int *, CUdevice, CUdevice))                                       \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    CUresult(CUcontext *, CUdevice))                                           \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    CUresult(CUdevice))                                                        \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", CUresult(CUcontext *))                 \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult(CUcontext))              \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult(CUcontext *))              \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult())                          \
  X(cuMemGetInfo, "cuMemGetInfo_v2", CUresult(size_t *, size_t *))             \
  X(cuModuleLoadData, "cuModuleLoadData", CUresult(CUmodule *, const void *))  \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                  \
    CUresult(CUmodule *, const void *, unsigned, CUjit_option *, void **))     \
  X(cuModuleUnload, "cuModuleUnload", CUresult(CUmodule))                      \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                \
    CUresult(CUfunction *, CUmodule, const char *))                            \
  X(cuFuncGetAttribute, "cuFuncGetAttribute",                                  \
    CUresult(int *, CUfunction_attribute, CUfunction))                         \
  X(cuFuncSetAttribute, "cuFuncSetAttribute",                                  \
    CUresult(CUfunction, CUfunction_attribute, int))                           \
  X(cuLinkCreate, "cuLinkCreate_v2",                                           \
    CUresult(unsigned, CUjit_option *, void **, CUlinkState *))                \
  X(cuLinkAddData, "cuLinkAddData_v2",                                         \
    CUresult(CUlinkState, CUjitInputType, void *, size_t, const char *,        \
             unsigned, CUjit_option *, void **))                               \
  X(cuLinkComplete, "cuLinkComplete", CUresult(CUlinkState, void **, size_t *)) \
  X(cuLinkDestroy, "cuLinkDestroy", CUresult(CUlinkState))                     \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult(CUdeviceptr *, size_t))              \
  X(cuMemFree, "cuMemFree_v2", CUresult(CUdeviceptr))                          \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult(void **, size_t, unsigned))     \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult(void *))                          \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2",                                           \
    CUresult(CUdeviceptr, const void *, size_t))                               \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult(void *, CUdeviceptr, size_t))    \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2",                                           \
    CUresult(CUdeviceptr, CUdeviceptr, size_t))                                \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                 \
    CUresult(CUdeviceptr, const void *, size_t, CUstream))                     \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                 \
    CUresult(void *, CUdeviceptr, size_t, CUstream))                           \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                 \
    CUresult(CUdeviceptr, CUdeviceptr, size_t, CUstream))                      \
  X(cuMemsetD8, "cuMemsetD8_v2", CUresult(CUdeviceptr, unsigned char, size_t)) \
  X(cuMemsetD8Async, "cuMemsetD8Async",                                        \
    CUresult(CUdeviceptr, unsigned char, size_t, CUstream))                    \
  X(cuStreamCreate, "cuStreamCreate", CUresult(CUstream *, unsigned))          \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult(CUstream))                 \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult(CUstream))            \
  X(cuStreamQuery, "cuStreamQuery", CUresult(CUstream))                        \
  X(cuEventCreate, "cuEventCreate", CUresult(CUevent *, unsigned))             \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult(CUevent))                    \
  X(cuEventRecord, "cuEventRecord", CUresult(CUevent, CUstream))               \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult(CUevent))               \
  X(cuEventQuery, "cuEventQuery", CUresult(CUevent))                           \
  X(cuLaunchKernel, "cuLaunchKernel",                                          \
    CUresult(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,     \
             unsigned, unsigned, CUstream, void **, void **))

/// A loaded driver: its function table. Never unloaded (objects may outlive
/// any scope we could pick, and drivers dislike dlclose).
struct DriverApi {
#define KAIO_DECLARE_MEMBER(member, symbol, ...)                               \
  std::add_pointer_t<__VA_ARGS__> member = nullptr;
  KAIO_CUDA_DRIVER_FUNCTIONS(KAIO_DECLARE_MEMBER)
#undef KAIO_DECLARE_MEMBER
  /// cuEventElapsedTime_v2 (CUDA >= 12.8) or the original, same signature.
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  /// Optional (CUDA >= 12): null when the driver lacks it. The
  /// configuration is a CUlaunchConfig (see LaunchExConfig in Module.cpp).
  CUresult (*cuLaunchKernelEx)(const void *, CUfunction, void **,
                               void **) = nullptr;
  /// Optional (CUDA >= 12): how many clusters of a CUlaunchConfig's
  /// cluster dimension run at once.
  CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction,
                                           const void *) = nullptr;
  /// Optional (CUDA >= 9.2 for the attributes asked): what the driver knows
  /// of an address (PointerCheck.cpp); null: pointers go unchecked.
  CUresult (*cuPointerGetAttributes)(unsigned, int *, void **,
                                     CUdeviceptr) = nullptr;
  /// Optional (CUDA >= 12): null when the driver lacks it. The enums
  /// (data type, interleave, swizzle, L2 promotion, OOB fill) are ints.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const std::uint64_t *,
                                     const std::uint64_t *,
                                     const std::uint32_t *,
                                     const std::uint32_t *, int, int, int,
                                     int) = nullptr;

  std::string path;
  int version = 0;
  /// Result of cuInit(0); CUDA_ERROR_NO_DEVICE is common on GPU-less hosts
  /// that have the driver installed.
  CUresult initResult = CUDA_SUCCESS;
};

/// The driver selected by $KAIO_CUDA_DRIVER (default "libcuda.so.1"),
/// loaded and cuInit-ed once per path. Fails with ErrorCode::NoDriver.
/// When `requireInit` is false a failed cuInit is not an error.
Expected<const DriverApi *> getDriver(bool requireInit = true);

/// A driver-call failure: "<call> while <doing>: NAME (description)".
Error makeCudaError(const DriverApi &api, CUresult result, const char *call,
                    const std::string &doing, std::string details = {});

} // namespace kaio::rt::detail

#endif // KAIO_LIB_RUNTIME_DRIVERAPI_H

//===- FakeCudaDriver.cpp - A CPU stand-in for libcuda, for tests ---------===//
//
// Loaded through KAIO_CUDA_DRIVER so the runtime's plumbing (context
// handling, RAII, JIT logs, the cubin cache, argument marshalling) is tested
// on machines without a GPU. Device memory is host memory; "PTX" is accepted
// unless it contains the word BROKEN; a few kernels (vector_add, fill2d)
// are emulated on the host so launches have checkable effects. The exported
// fakeCudaCounters() lets tests check that nothing leaks.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaCounters.h"
#include "Kaio/Runtime/TensorMapDesc.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st {
  int device;
};
struct CUfunc_st {
  std::string name;
  int maxDynamicShared = 48 * 1024;
  int staticShared = 0;
};
struct CUmod_st {
  std::string ptx;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};
struct CUstream_st {
  int device;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
};
struct CUlinkState_st {
  char *errorLog = nullptr;
  std::size_t errorLogSize = 0;
  std::string ptx;
  std::string image;
};
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUlinkState = CUlinkState_st *;


namespace {
enum {
  Success = 0,
  InvalidValue = 1,
  OutOfMemory = 2,
  NoDevice = 100,
  InvalidDevice = 101,
  InvalidImage = 200,
  InvalidContext = 201,
  InvalidPtx = 218,
  NotFound = 500,
  IllegalAddress = 700,
  LaunchFailed = 719,
  Unknown = 999,
};
constexpr int kOptinShared = 166912;
/// Opt-in shared memory per block: device 0 is A100-like, device 1
/// H100-like; FAKE_CUDA_OPTIN_SHARED (bytes) sets device 0's (an sm_86
/// has 101376), read when asked, and its SM's to 1 KiB more.
int optinShared(int device) {
  if (device != 0)
    return 232448;
  const char *env = std::getenv("FAKE_CUDA_OPTIN_SHARED");
  return env ? std::atoi(env) : kOptinShared;
}
int sharedPerSM(int device) {
  return device != 0 ? 233472 : optinShared(0) + 1024;
}

FakeCudaCounters counters;
CUctx_st contexts[2] = {{0}, {1}};
thread_local std::vector<CUcontext> contextStack;
// Every entry point holds it (recursively: some call others), so tests
// may drive the fake from many threads (ConcurrencyTest under TSan).
std::recursive_mutex mutex;
std::map<CUdeviceptr, std::pair<std::size_t, int>> allocations; // size, dev
std::map<std::uintptr_t, std::size_t> hostAllocations;            // pinned

int deviceCount() {
  const char *env = std::getenv("FAKE_CUDA_DEVICE_COUNT");
  return env ? std::atoi(env) : 2;
}
CUcontext current() {
  return contextStack.empty() ? nullptr : contextStack.back();
}
/// Compiles "PTX": fails on the word BROKEN, needs a .version directive.
CUresult compile(const std::string &ptx, char *log, std::size_t logSize) {
  std::size_t broken = ptx.find("BROKEN");
  if (broken != std::string::npos || ptx.find(".version") == std::string::npos) {
    std::string msg = broken != std::string::npos
                          ? "ptxas fatal   : fake syntax error near 'BROKEN'"
                          : "ptxas fatal   : missing .version directive";
    if (log && logSize) {
      std::strncpy(log, msg.c_str(), logSize - 1);
      log[logSize - 1] = 0;
    }
    return InvalidPtx;
  }
  return Success;
}
void parseLogOptions(unsigned n, int *keys, void **values, char *&log,
                     std::size_t &size) {
  for (unsigned i = 0; i < n; ++i) {
    if (keys[i] == 5)
      log = static_cast<char *>(values[i]);
    if (keys[i] == 6)
      size = reinterpret_cast<std::uintptr_t>(values[i]);
  }
}
CUresult makeModule(CUmodule *out, const std::string &ptx) {
  auto mod = std::make_unique<CUmod_st>();
  mod->ptx = ptx;
  std::size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    pos += 6;
    while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t'))
      ++pos;
    std::size_t end = pos;
    while (end < ptx.size() && (std::isalnum((unsigned char)ptx[end]) ||
                                ptx[end] == '_'))
      ++end;
    auto fn = std::make_unique<CUfunc_st>();
    fn->name = ptx.substr(pos, end - pos);
    if (fn->name.find("smem") != std::string::npos)
      fn->staticShared = 1024;
    mod->functions[fn->name] = std::move(fn);
  }
  *out = mod.release();
  ++counters.liveModules;
  return Success;
}
CUresult loadImage(CUmodule *out, const void *image, char *log,
                   std::size_t logSize) {
  if (!current())
    return InvalidContext;
  std::string text(static_cast<const char *>(image));
  static const std::string magic = "FAKECUBIN\n";
  if (text.compare(0, magic.size(), magic) == 0)
    return makeModule(out, text.substr(magic.size()));
  if (CUresult r = compile(text, log, logSize))
    return text.find(".version") == std::string::npos ? InvalidImage : r;
  ++counters.jitCompiles;
  return makeModule(out, text);
}
} // namespace

#define API extern "C" __attribute__((visibility("default")))

// Fault injection: fakeCudaInjectFault(n, code) (or FAKE_CUDA_FAIL_AT=n and
// FAKE_CUDA_FAIL_CODE=code in the environment; FAKE_CUDA_FAULT_LOG=file
// records the failed call) makes the n-th fallible
// driver call from then on return `code`; n = 0 disarms. Calls that release
// something (cuMemFree, cuModuleUnload, ...), cuInit, cuDriverGetVersion
// and the error-string queries never fail: KAIO cannot recover from the
// first and does the others once per process.
namespace {
std::atomic<int> faultAt{-1}; // -1: read the environment on first use
std::atomic<int> faultCalls{0};
std::atomic<int> faultCode{Unknown};

CUresult injectedFault(const char *name) {
  if (faultAt.load() < 0) {
    const char *at = std::getenv("FAKE_CUDA_FAIL_AT");
    const char *code = std::getenv("FAKE_CUDA_FAIL_CODE");
    if (code)
      faultCode = std::atoi(code);
    int expected = -1;
    faultAt.compare_exchange_strong(expected, at ? std::atoi(at) : 0);
  }
  int armed = faultAt.load();
  if (armed <= 0 || ++faultCalls != armed)
    return Success;
  std::lock_guard<std::recursive_mutex> lock(mutex);
  ++counters.faultsInjected;
  std::snprintf(counters.lastFault, sizeof(counters.lastFault), "%s", name);
  // For tools under test (which cannot read the counters): say which call
  // failed in the file FAKE_CUDA_FAULT_LOG names.
  if (const char *log = std::getenv("FAKE_CUDA_FAULT_LOG"))
    if (std::FILE *f = std::fopen(log, "a")) {
      std::fprintf(f, "%s\n", name);
      std::fclose(f);
    }
  return faultCode.load();
}
} // namespace

#define API_LOCK std::lock_guard<std::recursive_mutex> apiLock(mutex)
#define FAULT_POINT(name)                                                      \
  API_LOCK;                                                                    \
  if (CUresult injected = injectedFault(name))                                 \
  return injected

API void fakeCudaInjectFault(int nthCall, int code) {
  faultCalls = 0;
  faultCode = code;
  faultAt = nthCall;
}

API FakeCudaCounters *fakeCudaCounters() { return &counters; }

API CUresult cuGetErrorName(CUresult r, const char **s) {
  switch (r) {
  case Success: *s = "CUDA_SUCCESS"; return Success;
  case InvalidValue: *s = "CUDA_ERROR_INVALID_VALUE"; return Success;
  case OutOfMemory: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return Success;
  case NoDevice: *s = "CUDA_ERROR_NO_DEVICE"; return Success;
  case InvalidImage: *s = "CUDA_ERROR_INVALID_IMAGE"; return Success;
  case InvalidContext: *s = "CUDA_ERROR_INVALID_CONTEXT"; return Success;
  case InvalidPtx: *s = "CUDA_ERROR_INVALID_PTX"; return Success;
  case NotFound: *s = "CUDA_ERROR_NOT_FOUND"; return Success;
  case IllegalAddress: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return Success;
  case LaunchFailed: *s = "CUDA_ERROR_LAUNCH_FAILED"; return Success;
  case Unknown: *s = "CUDA_ERROR_UNKNOWN"; return Success;
  }
  *s = nullptr;
  return InvalidValue;
}
API CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case Success: *s = "no error"; return Success;
  case InvalidValue: *s = "invalid argument"; return Success;
  case OutOfMemory: *s = "out of memory"; return Success;
  case NoDevice: *s = "no CUDA-capable device is detected"; return Success;
  case InvalidImage: *s = "device kernel image is invalid"; return Success;
  case InvalidContext: *s = "invalid device context"; return Success;
  case InvalidPtx: *s = "a PTX JIT compilation failed"; return Success;
  case NotFound: *s = "named symbol not found"; return Success;
  case IllegalAddress: *s = "an illegal memory access was encountered"; return Success;
  case LaunchFailed: *s = "unspecified launch failure"; return Success;
  case Unknown: *s = "unknown error"; return Success;
  }
  *s = nullptr;
  return InvalidValue;
}
API CUresult cuInit(unsigned) { return deviceCount() ? Success : NoDevice; }
API CUresult cuDriverGetVersion(int *v) { *v = 12080; return Success; }
API CUresult cuDeviceGetCount(int *n) { FAULT_POINT("cuDeviceGetCount"); *n = deviceCount(); return Success; }
API CUresult cuDeviceGet(CUdevice *d, int ordinal) { FAULT_POINT("cuDeviceGet");
  if (ordinal < 0 || ordinal >= deviceCount())
    return InvalidDevice;
  *d = ordinal;
  return Success;
}
API CUresult cuDeviceGetName(char *name, int len, CUdevice d) { FAULT_POINT("cuDeviceGetName");
  std::snprintf(name, len, "KAIO Fake GPU %d", d);
  return Success;
}
API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) { FAULT_POINT("cuDeviceGetAttribute");
  switch (attr) {
  case 1: *v = 1024; break;
  case 2: case 3: *v = 1024; break;
  case 4: *v = 64; break;
  case 5: *v = 2147483647; break;
  case 6: case 7: *v = 65535; break;
  case 8: *v = 49152; break;
  case 10: *v = 32; break;
  case 12: case 82: *v = 65536; break;
  case 13: *v = 1410000; break;
  case 16: *v = d == 0 ? 108 : 132; break; // A100-like, H100-like
  case 36: *v = 1215000; break;
  case 37: *v = 5120; break;
  case 38: *v = 40 * 1024 * 1024; break;
  case 39: *v = 2048; break;
  case 75: *v = d == 0 ? 8 : 9; break;
  case 76: *v = 0; break;
  case 81: *v = sharedPerSM(d); break;
  case 88: *v = std::getenv("FAKE_CUDA_PAGEABLE_ACCESS") ? 1 : 0; break;
  case 97: *v = optinShared(d); break;
  default: return InvalidValue;
  }
  return Success;
}
API CUresult cuDeviceTotalMem_v2(std::size_t *bytes, CUdevice) { FAULT_POINT("cuDeviceTotalMem_v2");
  *bytes = std::size_t(40) << 30;
  return Success;
}
API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) { FAULT_POINT("cuDevicePrimaryCtxRetain");
  *ctx = &contexts[d];
  ++counters.primaryContextRefs[d];
  return Success;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { API_LOCK;
  --counters.primaryContextRefs[d];
  return Success;
}
API CUresult cuCtxGetCurrent(CUcontext *ctx) { FAULT_POINT("cuCtxGetCurrent"); *ctx = current(); return Success; }
API CUresult cuCtxPushCurrent_v2(CUcontext ctx) { FAULT_POINT("cuCtxPushCurrent_v2");
  contextStack.push_back(ctx);
  return Success;
}
API CUresult cuCtxPopCurrent_v2(CUcontext *ctx) {
  if (contextStack.empty())
    return InvalidContext;
  *ctx = contextStack.back();
  contextStack.pop_back();
  return Success;
}
API CUresult cuCtxSynchronize() { FAULT_POINT("cuCtxSynchronize"); return current() ? Success : InvalidContext; }
API CUresult cuMemGetInfo_v2(std::size_t *f, std::size_t *t) { FAULT_POINT("cuMemGetInfo_v2");
  *t = std::size_t(40) << 30;
  *f = *t / 2;
  return current() ? Success : InvalidContext;
}
API CUresult cuModuleLoadData(CUmodule *m, const void *image) { FAULT_POINT("cuModuleLoadData");
  return loadImage(m, image, nullptr, 0);
}
API CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                                int *keys, void **values) { FAULT_POINT("cuModuleLoadDataEx");
  char *log = nullptr;
  std::size_t size = 0;
  parseLogOptions(n, keys, values, log, size);
  return loadImage(m, image, log, size);
}
API CUresult cuModuleUnload(CUmodule m) { API_LOCK;
  delete m;
  --counters.liveModules;
  return Success;
}
API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) { FAULT_POINT("cuModuleGetFunction");
  auto it = m->functions.find(name);
  if (it == m->functions.end())
    return NotFound;
  *f = it->second.get();
  return Success;
}
API CUresult cuFuncGetAttribute(int *v, int attr, CUfunction f) { FAULT_POINT("cuFuncGetAttribute");
  switch (attr) {
  case 0: *v = f->name.find("heavy") != std::string::npos ? 256 : 1024; break;
  case 1: *v = f->staticShared; break;
  case 2: case 3: *v = 0; break;
  case 4: *v = 10; break;
  case 5: *v = 70; break;
  case 6: *v = 80; break;
  case 8: *v = f->maxDynamicShared; break;
  default: return InvalidValue;
  }
  return Success;
}
API CUresult cuFuncSetAttribute(CUfunction f, int attr, int v) { FAULT_POINT("cuFuncSetAttribute");
  if (attr == 14) // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    return v == 0 || v == 1 ? Success : InvalidValue;
  if (attr != 8 || v < 0 || !current() ||
      v + f->staticShared > optinShared(current()->device))
    return InvalidValue;
  f->maxDynamicShared = v;
  return Success;
}
API CUresult cuLinkCreate_v2(unsigned n, int *keys, void **values,
                             CUlinkState *out) { FAULT_POINT("cuLinkCreate_v2");
  auto *link = new CUlinkState_st();
  parseLogOptions(n, keys, values, link->errorLog, link->errorLogSize);
  *out = link;
  return Success;
}
API CUresult cuLinkAddData_v2(CUlinkState link, int type, void *data,
                              std::size_t size, const char *, unsigned, int *,
                              void **) { FAULT_POINT("cuLinkAddData_v2");
  if (type != 1 || !size)
    return InvalidValue;
  std::string ptx(static_cast<const char *>(data));
  if (CUresult r = compile(ptx, link->errorLog, link->errorLogSize))
    return r;
  ++counters.linkCompiles;
  link->ptx += ptx;
  return Success;
}
API CUresult cuLinkComplete(CUlinkState link, void **image, std::size_t *size) { FAULT_POINT("cuLinkComplete");
  link->image = "FAKECUBIN\n" + link->ptx;
  *image = link->image.data();
  *size = link->image.size() + 1; // Keep the NUL: loadImage reads a C string.
  return Success;
}
API CUresult cuLinkDestroy(CUlinkState link) { API_LOCK;
  delete link;
  return Success;
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, std::size_t bytes) { FAULT_POINT("cuMemAlloc_v2");
  if (!current())
    return InvalidContext;
  if (!bytes)
    return InvalidValue;
  if (bytes > (std::size_t(1) << 36))
    return OutOfMemory;
  // 64 bytes past the end that no allocation owns: device memory lives on
  // the host heap here, and a host block right behind a device allocation
  // must not read as its end (a real GPU's addresses never interleave).
  void *mem = std::calloc(1, bytes + 64);
  *p = reinterpret_cast<CUdeviceptr>(mem);
  std::lock_guard<std::recursive_mutex> lock(mutex);
  allocations[*p] = {bytes, current()->device};
  ++counters.liveAllocations;
  return Success;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
  // As with unified addressing: any (or no) current context will do.
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (!allocations.count(p))
    return InvalidValue;
  allocations.erase(p);
  std::free(reinterpret_cast<void *>(p));
  --counters.liveAllocations;
  return Success;
}
API CUresult cuMemHostAlloc(void **p, std::size_t bytes, unsigned) { FAULT_POINT("cuMemHostAlloc");
  if (!current())
    return InvalidContext;
  *p = std::malloc(bytes);
  hostAllocations[reinterpret_cast<std::uintptr_t>(*p)] = bytes;
  ++counters.liveHostAllocations;
  return Success;
}
API CUresult cuMemFreeHost(void *p) { API_LOCK;
  hostAllocations.erase(reinterpret_cast<std::uintptr_t>(p));
  std::free(p);
  --counters.liveHostAllocations;
  return Success;
}
/// What the driver knows of an address: device memory (allocated with
/// cuMemAlloc in its device's primary context) or pinned host memory (at
/// the same address on the GPU); anything else reads as NULL values (memory
/// type 0), as the driver's does. Only the attributes cuda.h documents for
/// cuPointerGetAttributes that KAIO asks are answered; any other is
/// CUDA_ERROR_INVALID_VALUE (e.g. ACCESS_FLAGS and MAPPING_*, which the
/// real driver need not answer there).
API CUresult cuPointerGetAttributes(unsigned n, int *attrs, void **data,
                                    CUdeviceptr p) {
  FAULT_POINT("cuPointerGetAttributes");
  ++counters.pointerQueries;
  unsigned type = 0;
  int ordinal = 0;
  CUcontext context = nullptr;
  CUdeviceptr devicePointer = 0;
  auto dev = allocations.upper_bound(p);
  auto host = hostAllocations.upper_bound(p);
  if (dev != allocations.begin() &&
      p < std::prev(dev)->first + std::prev(dev)->second.first) {
    --dev;
    type = 2, ordinal = dev->second.second, context = &contexts[ordinal];
    devicePointer = p;
  } else if (host != hostAllocations.begin() &&
             p < std::prev(host)->first + std::prev(host)->second) {
    type = 1, devicePointer = p;
  }
  for (unsigned i = 0; i < n; ++i) {
    switch (attrs[i]) {
    case 1: *static_cast<CUcontext *>(data[i]) = context; break;
    case 2: *static_cast<unsigned *>(data[i]) = type; break;
    case 3:
      if (!devicePointer)
        return InvalidValue;
      *static_cast<CUdeviceptr *>(data[i]) = devicePointer;
      break;
    case 8: *static_cast<unsigned *>(data[i]) = 0; break;
    case 9: *static_cast<int *>(data[i]) = ordinal; break;
    default: return InvalidValue;
    }
  }
  return Success;
}
/// No peer access between the fake's GPUs unless FAKE_CUDA_PEER_ACCESS.
API CUresult cuDeviceCanAccessPeer(int *can, CUdevice, CUdevice) {
  FAULT_POINT("cuDeviceCanAccessPeer");
  *can = std::getenv("FAKE_CUDA_PEER_ACCESS") ? 1 : 0;
  return Success;
}
#define DEV(p) reinterpret_cast<void *>(p)
API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, std::size_t n) { FAULT_POINT("cuMemcpyHtoD_v2");
  std::memcpy(DEV(d), s, n);
  return current() ? Success : InvalidContext;
}
API CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, std::size_t n) { FAULT_POINT("cuMemcpyDtoH_v2");
  std::memcpy(d, DEV(s), n);
  return current() ? Success : InvalidContext;
}
API CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, std::size_t n) { FAULT_POINT("cuMemcpyDtoD_v2");
  std::memmove(DEV(d), DEV(s), n);
  return current() ? Success : InvalidContext;
}
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, std::size_t n,
                                  CUstream) { FAULT_POINT("cuMemcpyHtoDAsync_v2");
  return cuMemcpyHtoD_v2(d, s, n);
}
API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, std::size_t n,
                                  CUstream) { FAULT_POINT("cuMemcpyDtoHAsync_v2");
  return cuMemcpyDtoH_v2(d, s, n);
}
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, std::size_t n,
                                  CUstream) { FAULT_POINT("cuMemcpyDtoDAsync_v2");
  return cuMemcpyDtoD_v2(d, s, n);
}
API CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, std::size_t n) { FAULT_POINT("cuMemsetD8_v2");
  std::memset(DEV(d), v, n);
  return current() ? Success : InvalidContext;
}
API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, std::size_t n,
                             CUstream) { FAULT_POINT("cuMemsetD8Async");
  return cuMemsetD8_v2(d, v, n);
}
API CUresult cuStreamCreate(CUstream *s, unsigned) { FAULT_POINT("cuStreamCreate");
  if (!current())
    return InvalidContext;
  *s = new CUstream_st{current()->device};
  ++counters.liveStreams;
  return Success;
}
API CUresult cuStreamDestroy_v2(CUstream s) { API_LOCK;
  delete s;
  --counters.liveStreams;
  return Success;
}
API CUresult cuStreamSynchronize(CUstream) { FAULT_POINT("cuStreamSynchronize"); return Success; }
API CUresult cuStreamQuery(CUstream) { FAULT_POINT("cuStreamQuery"); return Success; }
API CUresult cuEventCreate(CUevent *e, unsigned) { FAULT_POINT("cuEventCreate");
  if (!current())
    return InvalidContext;
  *e = new CUevent_st();
  ++counters.liveEvents;
  return Success;
}
API CUresult cuEventDestroy_v2(CUevent e) { API_LOCK;
  delete e;
  --counters.liveEvents;
  return Success;
}
API CUresult cuEventRecord(CUevent e, CUstream) { FAULT_POINT("cuEventRecord");
  e->when = std::chrono::steady_clock::now();
  e->recorded = true;
  return Success;
}
API CUresult cuEventSynchronize(CUevent) { FAULT_POINT("cuEventSynchronize"); return Success; }
API CUresult cuEventQuery(CUevent) { FAULT_POINT("cuEventQuery"); return Success; }
API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { FAULT_POINT("cuEventElapsedTime");
  if (!a->recorded || !b->recorded)
    return InvalidValue;
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return Success;
}
// Tensor maps: checked roughly as the driver does, written in KAIO's own
// encoding (what the interpreter reads) so tests can decode them.
API CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                    void *address, const uint64_t *dims,
                                    const uint64_t *globalStrides,
                                    const uint32_t *box,
                                    const uint32_t *elementStrides,
                                    int interleave, int swizzle, int l2,
                                    int oobFill) { FAULT_POINT("cuTensorMapEncodeTiled");
  // The real driver checks the address against the current context.
  if (!current())
    return InvalidContext;
  using kaio::rt::ScalarType;
  static const ScalarType types[] = {
      ScalarType::U8,  ScalarType::U16, ScalarType::U32,
      ScalarType::S32, ScalarType::U64, ScalarType::S64,
      ScalarType::F16, ScalarType::F32, ScalarType::F64,
      ScalarType::BF16};
  static const unsigned sizes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  if (!map || dataType < 0 || dataType > 9 || rank < 1 || rank > 5 ||
      !address || reinterpret_cast<uintptr_t>(address) % 16 ||
      interleave != 0 || swizzle < 0 || swizzle > 3 || l2 < 0 || l2 > 3 ||
      oobFill < 0 || oobFill > 1)
    return InvalidValue;
  kaio::rt::TensorMapDesc d;
  d.elem = types[dataType];
  d.rank = rank;
  d.address = reinterpret_cast<uintptr_t>(address);
  d.strides[0] = sizes[dataType];
  for (unsigned i = 0; i < rank; ++i) {
    d.dims[i] = dims[i];
    if (i > 0 && globalStrides[i - 1] % 16)
      return InvalidValue;
    if (i > 0)
      d.strides[i] = globalStrides[i - 1];
    if (box[i] < 1 || box[i] > 256 || elementStrides[i] < 1 ||
        elementStrides[i] > 8)
      return InvalidValue;
    d.box[i] = box[i];
    d.elementStrides[i] = elementStrides[i];
  }
  d.swizzle = static_cast<kaio::rt::TensorMapSwizzle>(swizzle);
  d.oobNaN = oobFill == 1;
  kaio::rt::encodeKaioTensorMap(d, map);
  ++counters.tensorMapsEncoded;
  for (unsigned i = 0; i < 5; ++i)
    counters.lastTensorMapBox[i] = i < unsigned(rank) ? box[i] : 0;
  return Success;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, CUstream, void **params, void **);

// cuda.h's CUlaunchConfig with its attributes (72 bytes each: id, pad,
// a 64-byte value); records the cluster dimension attribute (id 4).
struct FakeLaunchAttribute {
  int id;
  char pad[4];
  unsigned value[16];
};
struct FakeLaunchConfig {
  unsigned grid[3], block[3], sharedMemBytes;
  CUstream stream;
  FakeLaunchAttribute *attrs;
  unsigned numAttrs;
};
API CUresult cuLaunchKernelEx(const FakeLaunchConfig *config, CUfunction f,
                              void **params, void **extra) { FAULT_POINT("cuLaunchKernelEx");
  unsigned cluster[3] = {1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == 4)
      for (int d = 0; d < 3; ++d)
        cluster[d] = config->attrs[i].value[d];
  for (int d = 0; d < 3; ++d)
    if (!cluster[d] || config->grid[d] % cluster[d])
      return InvalidValue;
  CUresult r = cuLaunchKernel(f, config->grid[0], config->grid[1],
                              config->grid[2], config->block[0],
                              config->block[1], config->block[2],
                              config->sharedMemBytes, config->stream, params,
                              extra);
  if (r == Success)
    for (int d = 0; d < 3; ++d)
      counters.lastCluster[d] = cluster[d];
  return r;
}

/// Clusters of the configuration's dimension that run at once: as many as
/// the SMs hold (one block an SM, as the GEMM's), 0 past the opt-in.
API CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction f,
                                          const FakeLaunchConfig *config) {
  FAULT_POINT("cuOccupancyMaxActiveClusters");
  if (!current())
    return InvalidContext;
  unsigned size = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == 4)
      size = config->attrs[i].value[0] * config->attrs[i].value[1] *
             config->attrs[i].value[2];
  if (!size || size > 16)
    return InvalidValue;
  int sms = 0;
  cuDeviceGetAttribute(&sms, 16, current()->device);
  *clusters = int(config->sharedMemBytes) > f->maxDynamicShared
                  ? 0
                  : sms / int(size);
  return Success;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, CUstream, void **params, void **) { FAULT_POINT("cuLaunchKernel");
  if (!current())
    return InvalidContext;
  if (int(smem) > f->maxDynamicShared)
    return InvalidValue;
  ++counters.launches;
  std::memcpy(counters.prevKernel, counters.lastKernel,
              sizeof(counters.prevKernel));
  std::memcpy(counters.prevGrid, counters.lastGrid, sizeof(counters.prevGrid));
  counters.lastGrid[0] = gx, counters.lastGrid[1] = gy, counters.lastGrid[2] = gz;
  counters.lastBlock[0] = bx, counters.lastBlock[1] = by,
  counters.lastBlock[2] = bz;
  counters.lastSharedBytes = smem;
  counters.lastCluster[0] = counters.lastCluster[1] = counters.lastCluster[2] = 1;
  counters.lastLaunchDevice = current()->device;
  std::snprintf(counters.lastKernel, sizeof(counters.lastKernel), "%s",
                f->name.c_str());
  // The library's GEMM kernels' k (parameter 5) and k per split (after
  // the epilogue: parameter 11 of hopper_gemm_<in>_<out>_<tile>_s<stages>,
  // 13 of mma_gemm_<in>_<out>; not the examples' hopper_gemm_fp8).
  const bool hopperGemm = f->name.rfind("hopper_gemm_", 0) == 0 &&
                          f->name.find("_s4") != std::string::npos;
  if (hopperGemm || f->name.rfind("mma_gemm_", 0) == 0) {
    counters.lastGemmK = *static_cast<unsigned *>(params[5]);
    counters.lastGemmKPerSplit =
        *static_cast<unsigned *>(params[hopperGemm ? 11 : 13]);
  }
  if (f->name == "tmap_probe") {
    std::memcpy(counters.lastTensorMapParam, params[0], 128);
  } else if (f->name == "vector_add") {
    auto *a = *static_cast<float **>(params[0]);
    auto *b = *static_cast<float **>(params[1]);
    auto *c = *static_cast<float **>(params[2]);
    unsigned n = *static_cast<unsigned *>(params[3]);
    for (unsigned blk = 0; blk < gx; ++blk)
      for (unsigned t = 0; t < bx; ++t) {
        unsigned i = blk * bx + t;
        if (i < n)
          c[i] = a[i] + b[i];
      }
  } else if (f->name == "fill2d") {
    auto *out = *static_cast<float **>(params[0]);
    unsigned w = *static_cast<unsigned *>(params[1]);
    unsigned h = *static_cast<unsigned *>(params[2]);
    for (unsigned byi = 0; byi < gy; ++byi)
      for (unsigned bxi = 0; bxi < gx; ++bxi)
        for (unsigned ty = 0; ty < by; ++ty)
          for (unsigned tx = 0; tx < bx; ++tx) {
            unsigned x = bxi * bx + tx, y = byi * by + ty;
            if (x < w && y < h)
              out[y * w + x] = float(y * 1000 + x);
          }
  } else if (f->name == "smem_reverse") {
    auto *data = *static_cast<float **>(params[0]);
    unsigned n = *static_cast<unsigned *>(params[1]);
    if (std::size_t(n) * 4 > smem)
      return 719; // CUDA_ERROR_LAUNCH_FAILED: would have read out of bounds.
    std::vector<float> tmp(data, data + n);
    for (unsigned i = 0; i < n; ++i)
      data[i] = tmp[n - 1 - i];
  }
  return Success;
}

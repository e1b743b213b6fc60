//===- PointerCheck.cpp - whether a kernel may use an address -------------===//
//
// A kernel handed an address its GPU cannot reach faults while it runs
// (CUDA_ERROR_ILLEGAL_ADDRESS), and that error is sticky: the context, and
// with it every later call of the process on that device, is lost. So a
// launch checks its pointer arguments first and refuses, with a typed
// error, what the driver says the kernel's context cannot use:
//
//  - memory the driver does not know (a malloc'ed or stack address, a freed
//    buffer, a made-up value), unless the device reads pageable host memory
//    (HMM, ATS). The end of this device's allocation passes (a view of no
//    elements), so a freed buffer right behind a live one goes unnoticed;
//  - device memory of another GPU this one cannot reach (peer access
//    impossible between the two: cuDeviceCanAccessPeer);
//  - memory of another context on the same GPU;
//  - host memory the GPU reaches at another address than the host's
//    (registered or write-combined memory: pass its device address).
//
// Managed memory passes. Only the attributes cuPointerGetAttributes
// documents are asked (type, managed, ordinal, context, device pointer).
// A pointer into this device's memory, once checked, is remembered
// process-wide with its device (the exact address: a launch over the same
// buffers or views asks the driver nothing; up to 4096, then the table
// starts over); KAIO's own frees forget the addresses in the freed range.
// Memory another library frees stays remembered (a stale pointer into it
// passes, as without the check).
//
// Every driver call that fails is a driver error like any other (the
// launch does not happen).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace kaio::rt;
using namespace kaio::rt::detail;

namespace {
// CUpointer_attribute and CUmemorytype values (cuda.h).
constexpr int kContext = 1, kMemoryType = 2, kDevicePointer = 3,
              kIsManaged = 8, kDeviceOrdinal = 9;
constexpr unsigned kHostMemory = 1, kDeviceMemory = 2;
/// Pointers remembered (the table is cleared when full).
constexpr std::size_t kKnownPointers = 4096;

/// Device pointers found usable, with their device's ordinal.
struct KnownPointers {
  std::mutex mutex;
  std::map<CUdeviceptr, int> ordinals;
};
KnownPointers &knownPointers() {
  static KnownPointers *table = new KnownPointers; // never destroyed
  return *table;
}

/// Up to four attributes of an address in one call. Each lands in a zeroed
/// 8-byte slot, whatever its size (4-byte enum, int or bool; 8-byte
/// address, size or handle), read back from the low bytes (the driver runs
/// on little-endian hosts only).
struct Attributes {
  std::uint64_t values[4] = {};
  std::uint32_t u32(unsigned i) const { return std::uint32_t(values[i]); }
};
CUresult query(const DriverApi &api, CUdeviceptr ptr,
               std::initializer_list<int> attrs, Attributes &out) {
  int ids[4];
  void *data[4];
  unsigned n = 0;
  for (int attr : attrs) {
    ids[n] = attr;
    data[n] = &out.values[n];
    ++n;
  }
  return api.cuPointerGetAttributes(n, ids, data, ptr);
}

std::string hex(CUdeviceptr ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)ptr);
  return text;
}

bool checksEnabled() {
  const char *env = std::getenv("KAIO_CHECK_POINTERS");
  return !(env && std::strcmp(env, "0") == 0);
}
} // namespace

bool detail::isKnownDevicePointer(CUdeviceptr ptr, int ordinal) {
  KnownPointers &known = knownPointers();
  std::lock_guard<std::mutex> lock(known.mutex);
  auto it = known.ordinals.find(ptr);
  return it != known.ordinals.end() && it->second == ordinal;
}

void detail::forgetDevicePointers(CUdeviceptr begin, std::size_t bytes) {
  KnownPointers &known = knownPointers();
  std::lock_guard<std::mutex> lock(known.mutex);
  known.ordinals.erase(known.ordinals.lower_bound(begin),
                       known.ordinals.lower_bound(begin + bytes));
}

static void rememberPointer(CUdeviceptr ptr, int ordinal) {
  KnownPointers &known = knownPointers();
  std::lock_guard<std::mutex> lock(known.mutex);
  if (known.ordinals.size() >= kKnownPointers)
    known.ordinals.clear();
  known.ordinals[ptr] = ordinal;
}

Error detail::checkPointer(DeviceState &state, CUdeviceptr ptr,
                           const std::string &what) {
  const DriverApi &api = *state.api;
  const int ordinal = state.props.ordinal;
  if (!ptr || !api.cuPointerGetAttributes ||
      isKnownDevicePointer(ptr, ordinal) || !checksEnabled())
    return Error::success();
  auto doing = [&] { return "checking " + what + " (" + hex(ptr) + ")"; };
  auto failed = [&](CUresult r, const char *call = "cuPointerGetAttributes") {
    return makeCudaError(api, r, call, doing());
  };
  auto refuse = [&](const std::string &why) {
    return Error::make(ErrorCode::InvalidValue,
                       what + ": " + hex(ptr) + " is " + why);
  };
  // The driver answers for the current context (the device address of host
  // memory): the kernel's.
  ScopedContext scope(state);
  if (Error e = scope.enterLazily(doing))
    return e;
  // Memory type, managed, device ordinal, context.
  Attributes facts;
  if (CUresult r = query(api, ptr,
                         {kMemoryType, kIsManaged, kDeviceOrdinal, kContext},
                         facts))
    return failed(r);
  const unsigned type = facts.u32(0);
  const bool managed = facts.u32(1) != 0;
  const int owner = int(facts.u32(2));
  CUcontext context = reinterpret_cast<CUcontext>(facts.values[3]);
  if (managed)
    return Error::success();
  if (type == kHostMemory) {
    // Pinned or registered: usable where the GPU sees it at this address.
    Attributes mapped;
    if (CUresult r = query(api, ptr, {kDevicePointer}, mapped))
      return failed(r);
    if (mapped.values[0] == ptr)
      return Error::success();
    return refuse("host memory the GPU reaches at " + hex(mapped.values[0]) +
                  " (pass that address)");
  }
  if (type == kDeviceMemory && owner != ordinal) {
    // Another GPU's: usable through peer access where the two GPUs can
    // have it (whether the caller enabled it the driver does not say).
    CUdevice ownerDevice = 0;
    int canAccess = 0;
    if (CUresult r = api.cuDeviceGet(&ownerDevice, owner))
      return failed(r, "cuDeviceGet");
    if (CUresult r = api.cuDeviceCanAccessPeer(&canAccess, state.device,
                                               ownerDevice))
      return failed(r, "cuDeviceCanAccessPeer");
    if (canAccess)
      return Error::success();
    return refuse("memory of device " + std::to_string(owner) +
                  ", not of device " + std::to_string(ordinal) +
                  " where the kernel runs (which cannot reach it: no peer "
                  "access between the two)");
  }
  if (type == kDeviceMemory) {
    if (context && context != state.context)
      return refuse("memory of another CUDA context on device " +
                    std::to_string(ordinal) +
                    " (KAIO runs in the device's primary context)");
    rememberPointer(ptr, ordinal);
    return Error::success();
  }
  // Unknown to the driver.
  if (state.props.pageableMemoryAccess)
    return Error::success();
  Attributes before;
  if (CUresult r = query(api, ptr - 1,
                         {kMemoryType, kIsManaged, kDeviceOrdinal, kContext},
                         before))
    return failed(r);
  CUcontext beforeContext = reinterpret_cast<CUcontext>(before.values[3]);
  if (before.u32(0) == kDeviceMemory && int(before.u32(2)) == ordinal &&
      (!beforeContext || beforeContext == state.context))
    return Error::success(); // the end of an allocation: no elements
  return refuse("not memory the GPU can use (neither allocated nor "
                "registered through CUDA: a host pointer? freed memory?)");
}

Error Device::checkPointer(CUdeviceptr ptr, const std::string &what) const {
  return detail::checkPointer(*state_, ptr, what);
}

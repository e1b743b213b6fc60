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
//  - device memory of another GPU the context has no access to (peer
//    access, or VMM and pool memory granted with cuMemSetAccess, pass);
//  - memory of another context on the same GPU;
//  - host memory the GPU reaches at another address than the host's.
//
// Managed memory passes. A usable device allocation's mapping (its extent
// as mapped, not the VMM reservation around it) is remembered process-wide
// with its device, so launches over buffers already seen ask the driver
// nothing; KAIO's own frees forget theirs. A mapping another library frees
// stays remembered (a stale pointer into it passes, as without the check)
// until the table fills and is cleared.
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
              kIsManaged = 8, kDeviceOrdinal = 9, kAccessFlags = 16,
              kMappingSize = 18, kMappingBase = 19;
constexpr unsigned kHostMemory = 1, kDeviceMemory = 2;
/// Mappings remembered (the table is cleared when full).
constexpr std::size_t kKnownMappings = 4096;

/// Device mappings found usable: begin -> (end, device ordinal).
struct KnownMappings {
  std::mutex mutex;
  std::map<CUdeviceptr, std::pair<CUdeviceptr, int>> byBegin;
};
KnownMappings &knownMappings() {
  static KnownMappings *table = new KnownMappings; // never destroyed
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
  KnownMappings &known = knownMappings();
  std::lock_guard<std::mutex> lock(known.mutex);
  auto it = known.byBegin.upper_bound(ptr);
  if (it == known.byBegin.begin())
    return false;
  --it;
  return ptr < it->second.first && it->second.second == ordinal;
}

void detail::forgetDevicePointer(CUdeviceptr ptr) {
  KnownMappings &known = knownMappings();
  std::lock_guard<std::mutex> lock(known.mutex);
  auto it = known.byBegin.upper_bound(ptr);
  if (it != known.byBegin.begin() && ptr < std::prev(it)->second.first)
    known.byBegin.erase(std::prev(it));
}

static void rememberMapping(CUdeviceptr begin, CUdeviceptr end, int ordinal) {
  KnownMappings &known = knownMappings();
  std::lock_guard<std::mutex> lock(known.mutex);
  if (known.byBegin.size() >= kKnownMappings)
    known.byBegin.clear();
  known.byBegin[begin] = {end, ordinal};
}

Error detail::checkPointer(DeviceState &state, CUdeviceptr ptr,
                           const std::string &what) {
  const DriverApi &api = *state.api;
  const int ordinal = state.props.ordinal;
  if (!ptr || !api.cuPointerGetAttributes ||
      isKnownDevicePointer(ptr, ordinal) || !checksEnabled())
    return Error::success();
  auto doing = [&] { return "checking " + what + " (" + hex(ptr) + ")"; };
  auto failed = [&](CUresult r) {
    return makeCudaError(api, r, "cuPointerGetAttributes", doing());
  };
  auto refuse = [&](const std::string &why) {
    return Error::make(ErrorCode::InvalidValue,
                       what + ": " + hex(ptr) + " is " + why);
  };
  // The driver answers for the current context (access flags, the device
  // address of host memory): the kernel's.
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
    // Another GPU's: usable with peer access or granted access.
    Attributes access;
    if (CUresult r = query(api, ptr, {kAccessFlags}, access))
      return failed(r);
    if (access.u32(0) != 0)
      return Error::success();
    return refuse("memory of device " + std::to_string(owner) +
                  ", not of device " + std::to_string(ordinal) +
                  " where the kernel runs (and it has no access to it)");
  }
  if (type == kDeviceMemory) {
    if (context && context != state.context)
      return refuse("memory of another CUDA context on device " +
                    std::to_string(ordinal) +
                    " (KAIO runs in the device's primary context)");
    Attributes mapping;
    if (CUresult r = query(api, ptr, {kMappingBase, kMappingSize}, mapping))
      return failed(r);
    CUdeviceptr begin = mapping.values[0], size = mapping.values[1];
    if (size && begin <= ptr && ptr - begin < size)
      rememberMapping(begin, begin + size, ordinal);
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

//===- Cache.h - On-disk cache of JIT-compiled cubins -----------*- C++ -*-===//
//
// JIT-compiling PTX takes from milliseconds to seconds; the driver's own
// cache (~/.nv/ComputeCache) is opaque and can be disabled by the admin, so
// KAIO keeps cubins it linked itself, keyed by
//   sha256(PTX, device name, compute capability, driver version, JIT options).
// Directory: $KAIO_CACHE_DIR, else $XDG_CACHE_HOME/kaio, else ~/.cache/kaio.
// KAIO_CACHE=0 disables it.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_CACHE_H
#define KAIO_RUNTIME_CACHE_H

#include "Kaio/Runtime/Error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace kaio::rt {

/// How a module's code was obtained.
enum class CacheStatus {
  NotApplicable, ///< Loaded from a cubin/fatbin: nothing to JIT.
  Disabled,      ///< PTX JIT-compiled by cuModuleLoadDataEx, cache off.
  Miss,          ///< PTX linked to a cubin now (and stored if possible).
  Hit,           ///< Cubin found in the cache; no JIT.
};
const char *getCacheStatusName(CacheStatus status);

struct CacheKeyInputs {
  std::string deviceName;
  int ccMajor = 0, ccMinor = 0;
  int driverVersion = 0;
  std::string jitOptions; ///< Canonical text of the JIT options used.
};

/// 64 hex digits.
std::string computeCacheKey(std::string_view ptx, const CacheKeyInputs &in);
std::string sha256Hex(std::string_view data);

/// The cache directory from explicit environment values (null = unset);
/// empty when none can be derived. Pure, for tests.
std::string resolveCacheDirectory(const char *kaioCacheDir,
                                  const char *xdgCacheHome, const char *home);
/// The cache directory from the process environment.
std::string getCacheDirectory();
/// False when KAIO_CACHE is "0" (or "off"/"false"/"no").
bool isCacheEnabled();

/// A cache file is untrusted input (another process may be writing it, a
/// disk may truncate it, anyone may edit it) and the driver reads a cubin
/// without knowing its size, so entries are framed: a magic line, the
/// payload size and its SHA-256, then the payload. encodeCacheEntry frames
/// a cubin; decodeCacheEntry returns it only if every check passes (empty
/// otherwise: the caller recompiles).
std::string encodeCacheEntry(std::string_view cubin);
std::string decodeCacheEntry(std::string_view file);

/// Files in the cache directory (cubins, the GEMM tuning table): the whole
/// file (ErrorCode::NotFound when it does not exist); mkdir -p (true if the
/// directory exists afterwards); a write through a unique temporary and a
/// rename, so that concurrent processes never see a partial file.
Expected<std::string> readWholeFile(const std::string &path);
bool makeDirectories(const std::string &dir);
bool writeFileAtomically(const std::string &path, std::string_view data);

/// Process-wide counters, for tests and diagnostics.
struct CacheStats {
  std::uint64_t hits = 0, misses = 0, writes = 0, writeFailures = 0;
};
CacheStats getCacheStats();
void resetCacheStats();

} // namespace kaio::rt

#endif // KAIO_RUNTIME_CACHE_H

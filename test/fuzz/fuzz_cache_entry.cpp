//===- fuzz_cache_entry.cpp - the cubin cache's entry reader --------------===//
//
// Input: a cache file (untrusted: truncated, edited, written concurrently).
// decodeCacheEntry accepts exactly the files encodeCacheEntry writes.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Runtime/Cache.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace kaio::rt;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  std::string_view file(reinterpret_cast<const char *>(data), size);
  std::string payload = decodeCacheEntry(file);
  if (!payload.empty() && encodeCacheEntry(payload) != file)
    std::abort(); // accepted something the writer would not have written
  // Whatever the input, its own encoding decodes back to it.
  if (size && decodeCacheEntry(encodeCacheEntry(file)) != file)
    std::abort();
  return 0;
}

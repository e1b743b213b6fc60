//===- Cache.cpp - Cubin cache keys, location and counters ----------------===//

#include "Kaio/Runtime/Cache.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace kaio::rt;

const char *kaio::rt::getCacheStatusName(CacheStatus status) {
  switch (status) {
  case CacheStatus::NotApplicable:
    return "not-applicable";
  case CacheStatus::Disabled:
    return "disabled";
  case CacheStatus::Miss:
    return "miss";
  case CacheStatus::Hit:
    return "hit";
  }
  return "?";
}

namespace {
/// FIPS 180-4 SHA-256: collisions must be out of the question for a
/// content-addressed cache, which rules out FNV/std::hash.
class Sha256 {
public:
  void update(const void *data, std::size_t len) {
    auto *p = static_cast<const unsigned char *>(data);
    total_ += len;
    while (len) {
      std::size_t n = std::min(len, std::size_t(64) - used_);
      std::memcpy(block_ + used_, p, n);
      used_ += n;
      p += n;
      len -= n;
      if (used_ == 64) {
        compress();
        used_ = 0;
      }
    }
  }
  std::string hexDigest() {
    std::uint64_t bits = total_ * 8;
    unsigned char pad = 0x80;
    update(&pad, 1);
    unsigned char zero = 0;
    while (used_ != 56)
      update(&zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i)
      len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    update(len, 8);
    static const char *hex = "0123456789abcdef";
    std::string out;
    for (std::uint32_t word : h_)
      for (int shift = 28; shift >= 0; shift -= 4)
        out += hex[(word >> shift) & 0xf];
    return out;
  }

private:
  static std::uint32_t rotr(std::uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
  }
  void compress() {
    static const std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
        0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
        0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(block_[4 * i]) << 24 |
             std::uint32_t(block_[4 * i + 1]) << 16 |
             std::uint32_t(block_[4 * i + 2]) << 8 | block_[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^
                         (w[i - 15] >> 3);
      std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^
                         (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4],
                  f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      std::uint32_t ch = (e & f) ^ (~e & g);
      std::uint32_t t1 = h + s1 + ch + k[i] + w[i];
      std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      std::uint32_t t2 = s0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  std::uint32_t h_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64] = {};
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

std::atomic<std::uint64_t> hits{0}, misses{0}, writes{0}, writeFailures{0};
} // namespace

std::string kaio::rt::sha256Hex(std::string_view data) {
  Sha256 sha;
  sha.update(data.data(), data.size());
  return sha.hexDigest();
}

// "KAIOCUBIN1\n" <16 hex digits: payload bytes> "\n" <64 hex: sha256> "\n"
static constexpr std::string_view kEntryMagic = "KAIOCUBIN1\n";
static constexpr std::size_t kEntryHeader = 11 + 17 + 65;

std::string kaio::rt::encodeCacheEntry(std::string_view cubin) {
  char size[18];
  std::snprintf(size, sizeof(size), "%016llx\n",
                static_cast<unsigned long long>(cubin.size()));
  std::string entry(kEntryMagic);
  entry += size;
  entry += sha256Hex(cubin);
  entry += '\n';
  entry.append(cubin.data(), cubin.size());
  return entry;
}

std::string kaio::rt::decodeCacheEntry(std::string_view file) {
  if (file.size() < kEntryHeader || file.substr(0, 11) != kEntryMagic ||
      file[27] != '\n' || file[kEntryHeader - 1] != '\n')
    return {};
  std::uint64_t size = 0;
  for (char c : file.substr(11, 16)) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : -1;
    if (digit < 0)
      return {};
    size = size * 16 + unsigned(digit);
  }
  std::string_view payload = file.substr(kEntryHeader);
  if (size == 0 || payload.size() != size ||
      sha256Hex(payload) != file.substr(28, 64))
    return {};
  return std::string(payload);
}

std::string kaio::rt::computeCacheKey(std::string_view ptx,
                                      const CacheKeyInputs &in) {
  // Fields are length-prefixed so no two input tuples serialize alike.
  Sha256 sha;
  auto field = [&](std::string_view s) {
    std::uint64_t n = s.size();
    sha.update(&n, sizeof(n));
    sha.update(s.data(), s.size());
  };
  field("kaio-cubin-cache-v1");
  field(ptx);
  field(in.deviceName);
  field(std::to_string(in.ccMajor) + "." + std::to_string(in.ccMinor));
  field(std::to_string(in.driverVersion));
  field(in.jitOptions);
  return sha.hexDigest();
}

std::string kaio::rt::resolveCacheDirectory(const char *kaioCacheDir,
                                            const char *xdgCacheHome,
                                            const char *home) {
  if (kaioCacheDir && *kaioCacheDir)
    return kaioCacheDir;
  // XDG says relative values are invalid and must be ignored.
  if (xdgCacheHome && *xdgCacheHome == '/')
    return std::string(xdgCacheHome) + "/kaio";
  if (home && *home)
    return std::string(home) + "/.cache/kaio";
  return {};
}

std::string kaio::rt::getCacheDirectory() {
  return resolveCacheDirectory(std::getenv("KAIO_CACHE_DIR"),
                               std::getenv("XDG_CACHE_HOME"),
                               std::getenv("HOME"));
}

bool kaio::rt::isCacheEnabled() {
  const char *env = std::getenv("KAIO_CACHE");
  if (!env)
    return true;
  std::string v = env;
  return !(v == "0" || v == "off" || v == "OFF" || v == "false" ||
           v == "no");
}

CacheStats kaio::rt::getCacheStats() {
  CacheStats s;
  s.hits = hits;
  s.misses = misses;
  s.writes = writes;
  s.writeFailures = writeFailures;
  return s;
}

void kaio::rt::resetCacheStats() {
  hits = misses = writes = writeFailures = 0;
}

namespace kaio::rt::detail {
void noteCacheHit() { ++hits; }
void noteCacheMiss() { ++misses; }
void noteCacheWrite(bool ok) { ++(ok ? writes : writeFailures); }
} // namespace kaio::rt::detail

Expected<std::string> kaio::rt::readWholeFile(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Error::make(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Io,
                       "cannot open '" + path + "': " + std::strerror(errno));
  std::string data;
  char chunk[65536];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0)
    data.append(chunk, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed)
    return Error::make(ErrorCode::Io, "error reading '" + path + "'");
  return data;
}

bool kaio::rt::makeDirectories(const std::string &dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/')
      continue;
    std::string prefix = dir.substr(0, i);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool kaio::rt::writeFileAtomically(const std::string &path,
                                   std::string_view data) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(counter++);
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = (std::fclose(f) == 0) && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0)
    return true;
  std::remove(tmp.c_str());
  return false;
}

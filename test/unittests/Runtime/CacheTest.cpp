//===- CacheTest.cpp - Cache keys, location and switches ------------------===//

#include "TestUtils.h"

#include "Kaio/Runtime/Cache.h"

#include <gtest/gtest.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

TEST(CacheTest, Sha256KnownAnswers) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CacheTest, KeyDependsOnEveryInput) {
  CacheKeyInputs base;
  base.deviceName = "NVIDIA H100 80GB HBM3";
  base.ccMajor = 9;
  base.driverVersion = 12040;
  base.jitOptions = "v1";
  std::string key = computeCacheKey("ptx", base);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, computeCacheKey("ptx", base)); // Deterministic.
  EXPECT_NE(key, computeCacheKey("ptx ", base));
  CacheKeyInputs other = base;
  other.deviceName = "NVIDIA A100";
  EXPECT_NE(key, computeCacheKey("ptx", other));
  other = base;
  other.ccMinor = 1;
  EXPECT_NE(key, computeCacheKey("ptx", other));
  other = base;
  other.driverVersion = 12050;
  EXPECT_NE(key, computeCacheKey("ptx", other));
  other = base;
  other.jitOptions = "v1;O0";
  EXPECT_NE(key, computeCacheKey("ptx", other));
  // Length prefixes keep field boundaries unambiguous.
  CacheKeyInputs shifted = base;
  shifted.deviceName = "xNVIDIA H100 80GB HBM3";
  EXPECT_NE(computeCacheKey("ptx", base), computeCacheKey("ptxx", shifted));
}

TEST(CacheTest, DirectoryResolution) {
  EXPECT_EQ(resolveCacheDirectory("/c", "/x", "/h"), "/c");
  EXPECT_EQ(resolveCacheDirectory(nullptr, "/x", "/h"), "/x/kaio");
  EXPECT_EQ(resolveCacheDirectory("", "/x", "/h"), "/x/kaio");
  EXPECT_EQ(resolveCacheDirectory(nullptr, "relative", "/h"), "/h/.cache/kaio");
  EXPECT_EQ(resolveCacheDirectory(nullptr, nullptr, "/h"), "/h/.cache/kaio");
  EXPECT_EQ(resolveCacheDirectory(nullptr, nullptr, nullptr), "");
  ScopedEnv dir("KAIO_CACHE_DIR", "/tmp/somewhere");
  EXPECT_EQ(getCacheDirectory(), "/tmp/somewhere");
}

TEST(CacheTest, EnableSwitch) {
  {
    ScopedEnv unset("KAIO_CACHE", nullptr);
    EXPECT_TRUE(isCacheEnabled());
  }
  {
    ScopedEnv off("KAIO_CACHE", "0");
    EXPECT_FALSE(isCacheEnabled());
  }
  {
    ScopedEnv on("KAIO_CACHE", "1");
    EXPECT_TRUE(isCacheEnabled());
  }
  EXPECT_STREQ(getCacheStatusName(CacheStatus::Hit), "hit");
}

TEST(CacheTest, EntriesRoundTrip) {
  std::string cubin("\x7f" "ELF\0\1\2 some cubin bytes", 25);
  std::string entry = encodeCacheEntry(cubin);
  EXPECT_EQ(entry.compare(0, 11, "KAIOCUBIN1\n"), 0);
  EXPECT_EQ(decodeCacheEntry(entry), cubin);
}

TEST(CacheTest, DamagedEntriesAreRejected) {
  std::string cubin = "a cubin of forty-two bytes, give or take..";
  std::string entry = encodeCacheEntry(cubin);
  // Every truncation (a writer that died, a full disk).
  for (std::size_t n = 0; n < entry.size(); ++n)
    EXPECT_EQ(decodeCacheEntry(entry.substr(0, n)), "") << n;
  // Every single changed byte, in the header or the payload.
  for (std::size_t i = 0; i < entry.size(); ++i) {
    std::string bad = entry;
    bad[i] ^= 0x20;
    EXPECT_EQ(decodeCacheEntry(bad), "") << i;
  }
  // Trailing bytes, a raw cubin from an older KAIO, an empty payload.
  EXPECT_EQ(decodeCacheEntry(entry + "x"), "");
  EXPECT_EQ(decodeCacheEntry(cubin), "");
  EXPECT_EQ(decodeCacheEntry(encodeCacheEntry("")), "");
}

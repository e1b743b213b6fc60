//===- FakeDriverTest.cpp - Runtime plumbing checked with the fake driver -===//
//
// Things only the fake driver can observe: leaked handles, the caller's
// context stack, JIT counts behind the cache, a corrupt cache entry.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "TestKernels.h"

#include "Kaio/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

namespace {
/// The one entry of a cache directory.
std::string onlyEntry(const TempDir &dir) {
  std::string entry;
  DIR *d = ::opendir(dir.path().c_str());
  while (dirent *e = ::readdir(d))
    if (e->d_name[0] != '.')
      entry = dir.path() + "/" + e->d_name;
  ::closedir(d);
  return entry;
}

class FakeDriverTest : public FakeDriverFixture {
protected:
  /// The fake's current context, as seen by the calling thread.
  void *currentContext() {
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto fn = reinterpret_cast<int (*)(void **)>(
        ::dlsym(handle, "cuCtxGetCurrent"));
    void *ctx = nullptr;
    fn(&ctx);
    return ctx;
  }
};
} // namespace

TEST_F(FakeDriverTest, NothingLeaks) {
  FakeCudaCounters before = *counters;
  {
    Device dev = *Device::open(0);
    EXPECT_EQ(counters->primaryContextRefs[0],
              before.primaryContextRefs[0] + 1);
    auto buf = *DeviceBuffer<float>::allocate(dev, 100);
    auto pinned = *PinnedHostBuffer<float>::allocate(dev, 100);
    Stream stream = *Stream::create(dev);
    Event event = *Event::create(dev);
    Module mod = *Module::loadPtx(dev, kVectorAddPtx);
    Kernel kernel = *mod.getKernel("vector_add");
    EXPECT_EQ(counters->liveAllocations, before.liveAllocations + 1);
    EXPECT_EQ(counters->liveHostAllocations, before.liveHostAllocations + 1);
    EXPECT_EQ(counters->liveStreams, before.liveStreams + 1);
    EXPECT_EQ(counters->liveEvents, before.liveEvents + 1);
    EXPECT_EQ(counters->liveModules, before.liveModules + 1);
    // Move-assignment frees the overwritten allocation.
    buf = *DeviceBuffer<float>::allocate(dev, 10);
    EXPECT_EQ(counters->liveAllocations, before.liveAllocations + 1);
    // Children keep the context alive after the Device is gone.
    Device gone = std::move(dev);
    { Device drop = std::move(gone); }
    EXPECT_EQ(counters->primaryContextRefs[0],
              before.primaryContextRefs[0] + 1);
    (void)kernel;
  }
  EXPECT_EQ(counters->liveAllocations, before.liveAllocations);
  EXPECT_EQ(counters->liveHostAllocations, before.liveHostAllocations);
  EXPECT_EQ(counters->liveStreams, before.liveStreams);
  EXPECT_EQ(counters->liveEvents, before.liveEvents);
  EXPECT_EQ(counters->liveModules, before.liveModules);
  EXPECT_EQ(counters->primaryContextRefs[0], before.primaryContextRefs[0]);
}

TEST_F(FakeDriverTest, KernelKeepsItsModuleAlive) {
  int modules = counters->liveModules;
  Device dev = *Device::open(0);
  std::optional<Kernel> kernel;
  {
    Module mod = *Module::loadPtx(dev, kVectorAddPtx);
    kernel.emplace(*mod.getKernel("vector_add"));
  }
  EXPECT_EQ(counters->liveModules, modules + 1);
  auto buf = *DeviceBuffer<float>::allocate(dev, 8);
  LaunchConfig cfg;
  cfg.block = Dim3(8);
  EXPECT_FALSE(kernel->launch(cfg, buf, buf, buf, 8u));
  kernel.reset();
  EXPECT_EQ(counters->liveModules, modules);
}

TEST_F(FakeDriverTest, LeavesTheCallersContextAlone) {
  ASSERT_EQ(currentContext(), nullptr);
  Device dev = *Device::open(0);
  auto buf = *DeviceBuffer<float>::allocate(dev, 4);
  EXPECT_FALSE(buf.zero());
  Module mod = *Module::loadPtx(dev, kVectorAddPtx);
  EXPECT_EQ(currentContext(), nullptr);
}

TEST_F(FakeDriverTest, LaunchPassesTheConfiguration) {
  Device dev = *Device::open(1);
  Module mod = *Module::loadPtx(dev, kFill2dPtx);
  Kernel k = *mod.getKernel("fill2d");
  auto out = *DeviceBuffer<float>::allocate(dev, 64);
  LaunchConfig cfg;
  cfg.grid = Dim3(2, 3, 1);
  cfg.block = Dim3(4, 2, 1);
  cfg.dynamicSharedBytes = 128;
  int launches = counters->launches;
  ASSERT_FALSE(k.launch(cfg, out, 8u, 8u));
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_EQ(counters->lastGrid[1], 3u);
  EXPECT_EQ(counters->lastBlock[0], 4u);
  EXPECT_EQ(counters->lastSharedBytes, 128u);
  EXPECT_EQ(counters->lastLaunchDevice, 1);
}

TEST_F(FakeDriverTest, LaunchTakesAnyNumberOfArguments) {
  // Past the parameters launchArgs keeps on the stack (32), the array
  // comes from the heap: both launch, with every argument checked.
  for (unsigned count : {32u, 33u, 40u}) {
    std::string sig = "// kaio.kernel many(", params;
    for (unsigned i = 0; i < count; ++i) {
      sig += i ? ",u32" : "u32";
      params += (i ? ",\n    .param .u32 p" : "    .param .u32 p") +
                std::to_string(i);
    }
    std::string ptx = sig + ")\n.version 7.0\n.target sm_75\n"
                            ".address_size 64\n\n.visible .entry many(\n" +
                      params + ")\n{\n    ret;\n}\n";
    Device dev = *Device::open(0);
    Expected<Module> mod = Module::loadPtx(dev, ptx);
    ASSERT_TRUE(mod) << mod.error().message();
    Expected<Kernel> k = mod->getKernel("many");
    ASSERT_TRUE(k) << k.error().message();
    std::vector<KernelArg> args;
    for (unsigned i = 0; i < count; ++i)
      args.push_back(KernelArg::scalar(i));
    LaunchConfig cfg;
    int launches = counters->launches;
    Error e = k->launchArgs(cfg, args);
    ASSERT_FALSE(e) << count << ": " << e.message();
    EXPECT_EQ(counters->launches, launches + 1);
    // One argument short: refused before the driver.
    args.pop_back();
    EXPECT_TRUE(k->launchArgs(cfg, args));
    EXPECT_EQ(counters->launches, launches + 1);
  }
}

TEST_F(FakeDriverTest, KernelsWithDynamicTilesGetTheirSharedMemory) {
  // A kernel whose signature says it keeps 96 KiB of tiles in dynamic
  // shared memory: launched with at least that, opted in beyond 48 KiB.
  std::string ptx = kFill2dPtx;
  std::string sig = "// kaio.kernel fill2d(ptr<f32>,u32,u32)";
  ptx.replace(ptx.find(sig), sig.size(), sig + " smem=98304");
  Device dev = *Device::open(0);
  Module mod = *Module::loadPtx(dev, ptx);
  Kernel k = *mod.getKernel("fill2d");
  ASSERT_TRUE(k.signature());
  EXPECT_EQ(k.signature()->dynamicSharedBytes, 98304u);
  auto out = *DeviceBuffer<float>::allocate(dev, 64);
  LaunchConfig cfg;
  cfg.grid = Dim3(1, 1, 1);
  cfg.block = Dim3(8, 8, 1);
  ASSERT_FALSE(k.launch(cfg, out, 8u, 8u));
  EXPECT_EQ(counters->lastSharedBytes, 98304u);
  EXPECT_EQ(k.attributes().maxDynamicSharedBytes, 98304);
  // A larger request wins (an explicit request opts in explicitly, as
  // before).
  cfg.dynamicSharedBytes = 100000;
  ASSERT_TRUE(k.launch(cfg, out, 8u, 8u));
  ASSERT_FALSE(k.setMaxDynamicSharedMemory(100000));
  ASSERT_FALSE(k.launch(cfg, out, 8u, 8u));
  EXPECT_EQ(counters->lastSharedBytes, 100000u);
  // More than the device allows: a typed error, no launch.
  std::string huge = kFill2dPtx;
  huge.replace(huge.find(sig), sig.size(), sig + " smem=200000");
  Module big = *Module::loadPtx(dev, huge);
  Kernel kb = *big.getKernel("fill2d");
  int launches = counters->launches;
  LaunchConfig plain;
  plain.grid = cfg.grid;
  plain.block = cfg.block;
  Error e = kb.launch(plain, out, 8u, 8u);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("needs 200000 bytes of dynamic shared memory"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(counters->launches, launches);
}

TEST_F(FakeDriverTest, LaunchesKeepToTheCompiledBlock) {
  // A kernel compiled for a 1-D block of at most 64 threads (maxntid=64)
  // and one for exactly 8 x 4 (reqntid=8x4): launches outside them are
  // InvalidConfig errors naming the kernel, and nothing reaches the driver.
  std::string sig = "// kaio.kernel fill2d(ptr<f32>,u32,u32)";
  Device dev = *Device::open(0);
  auto out = *DeviceBuffer<float>::allocate(dev, 64);
  struct Case {
    const char *compiled;
    Dim3 block;
    const char *error; ///< Empty: launches.
  };
  const Case cases[] = {
      {" maxntid=64", Dim3(64, 1, 1), ""},
      {" maxntid=64", Dim3(48, 1, 1), ""},
      {" maxntid=64", Dim3(32, 2, 1),
       "block 32x2 has 2 dimensions, more than the kernel's compiled block "
       "64 (.maxntid)"},
      {" maxntid=64", Dim3(128, 1, 1),
       "block 128 has more threads than the kernel's compiled block 64 "
       "(.maxntid)"},
      {" maxntid=8x8", Dim3(16, 4, 1), ""},
      {" reqntid=8x4", Dim3(8, 4, 1), ""},
      {" reqntid=8x4", Dim3(4, 8, 1),
       "block 4x8 differs from the kernel's compiled block 8x4 (.reqntid)"},
  };
  for (const Case &c : cases) {
    std::string ptx = kFill2dPtx;
    ptx.replace(ptx.find(sig), sig.size(), sig + c.compiled);
    Module mod = *Module::loadPtx(dev, ptx);
    Kernel k = *mod.getKernel("fill2d");
    LaunchConfig cfg;
    cfg.block = c.block;
    int launches = counters->launches;
    Error e = k.launch(cfg, out, 8u, 8u);
    std::string what = std::string(c.compiled) + " " + c.block.str();
    if (!*c.error) {
      EXPECT_FALSE(e) << what << ": " << e.message();
      EXPECT_EQ(counters->launches, launches + 1) << what;
      continue;
    }
    ASSERT_TRUE(e) << what;
    EXPECT_EQ(e.code(), ErrorCode::InvalidConfig) << what;
    EXPECT_EQ(e.message(), "launching kernel 'fill2d': " + std::string(c.error))
        << what;
    EXPECT_EQ(counters->launches, launches) << what;
    EXPECT_TRUE(k.validate(cfg)) << what;
  }
}

TEST_F(FakeDriverTest, CacheHitSkipsTheJit) {
  Device dev = *Device::open(0);
  int links = counters->linkCompiles, jits = counters->jitCompiles;
  Module first = *Module::loadPtx(dev, kVectorAddPtx);
  EXPECT_EQ(counters->linkCompiles, links + 1);
  Module second = *Module::loadPtx(dev, kVectorAddPtx);
  EXPECT_EQ(second.cacheStatus(), CacheStatus::Hit);
  EXPECT_EQ(counters->linkCompiles, links + 1);
  EXPECT_EQ(counters->jitCompiles, jits);
  // A different device (name and compute capability) is a different key.
  Device other = *Device::open(1);
  Module third = *Module::loadPtx(other, kVectorAddPtx);
  EXPECT_EQ(third.cacheStatus(), CacheStatus::Miss);
  EXPECT_EQ(cacheDir.countFiles(), 2);
}

TEST_F(FakeDriverTest, CorruptCacheEntryIsReplaced) {
  Device dev = *Device::open(0);
  { Module first = *Module::loadPtx(dev, kVectorAddPtx); }
  ASSERT_EQ(cacheDir.countFiles(), 1);
  std::string entry = onlyEntry(cacheDir);
  std::FILE *f = std::fopen(entry.c_str(), "wb");
  std::fputs("garbage", f);
  std::fclose(f);
  Expected<Module> again = Module::loadPtx(dev, kVectorAddPtx);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(again->cacheStatus(), CacheStatus::Miss);
  Module third = *Module::loadPtx(dev, kVectorAddPtx);
  EXPECT_EQ(third.cacheStatus(), CacheStatus::Hit);
}

TEST_F(FakeDriverTest, UnwritableCacheIsNotAnError) {
  ScopedEnv dir("KAIO_CACHE_DIR", "/proc/kaio-cannot-create-this");
  Device dev = *Device::open(0);
  CacheStats before = getCacheStats();
  Expected<Module> mod = Module::loadPtx(dev, kVectorAddPtx);
  ASSERT_TRUE(mod) << mod.error().message();
  EXPECT_EQ(mod->cacheStatus(), CacheStatus::Miss);
  EXPECT_EQ(getCacheStats().writeFailures, before.writeFailures + 1);
}

TEST_F(FakeDriverTest, DriverWithoutDevices) {
  // A second path to the same library is a separately initialized driver.
  TempDir dir;
  std::string link = dir.path() + "/libcuda.so.1";
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  ScopedEnv noDevices("FAKE_CUDA_DEVICE_COUNT", "0");
  ScopedEnv driver("KAIO_CUDA_DRIVER", link.c_str());
  Expected<int> count = getDeviceCount();
  ASSERT_TRUE(count) << count.error().message();
  EXPECT_EQ(*count, 0);
  Expected<Device> dev = Device::open(0);
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().message(),
            "device ordinal 0 out of range: 0 CUDA device(s) present");
  Error e = checkDriver();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.name(), "CUDA_ERROR_NO_DEVICE");
  EXPECT_NE(e.message().find("cuInit while initializing the CUDA driver"),
            std::string::npos);
}

TEST_F(FakeDriverTest, LoadFileAndBinary) {
  Device dev = *Device::open(0);
  TempDir dir;
  std::string ptxPath = dir.path() + "/k.ptx";
  std::FILE *f = std::fopen(ptxPath.c_str(), "w");
  std::fputs(kVectorAddPtx, f);
  std::fclose(f);
  Expected<Module> mod = Module::loadFile(dev, ptxPath);
  ASSERT_TRUE(mod) << mod.error().message();
  EXPECT_EQ(mod->name(), ptxPath);
  EXPECT_EQ(mod->signatures().size(), 1u);
  Expected<Module> missing = Module::loadFile(dev, dir.path() + "/nope.cubin");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
  EXPECT_NE(missing.error().message().find("No such file"), std::string::npos);
  std::string image = std::string("FAKECUBIN\n") + kVectorAddPtx;
  Expected<Module> bin =
      Module::loadBinary(dev, image.c_str(), image.size() + 1);
  ASSERT_TRUE(bin) << bin.error().message();
  EXPECT_EQ(bin->cacheStatus(), CacheStatus::NotApplicable);
  EXPECT_TRUE(bin->getKernel("vector_add"));
  Expected<Module> bad = Module::loadBinary(dev, "junk", 5);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().name(), "CUDA_ERROR_INVALID_IMAGE");
}


TEST_F(FakeDriverTest, TruncatedCacheEntryNeverReachesTheDriver) {
  Device dev = *Device::open(0);
  { Module first = *Module::loadPtx(dev, kVectorAddPtx); }
  std::string entry = onlyEntry(cacheDir);
  ASSERT_FALSE(entry.empty());
  std::ifstream in(entry, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), {});
  in.close();
  // Truncated in the payload: without the frame the fake driver would
  // accept the text (it needs only ".version").
  std::ofstream(entry, std::ios::binary | std::ios::trunc)
      << data.substr(0, data.size() - 8);
  int jits = counters->linkCompiles;
  Expected<Module> again = Module::loadPtx(dev, kVectorAddPtx);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(again->cacheStatus(), CacheStatus::Miss);
  EXPECT_EQ(counters->linkCompiles, jits + 1);
  Module third = *Module::loadPtx(dev, kVectorAddPtx);
  EXPECT_EQ(third.cacheStatus(), CacheStatus::Hit);
}

TEST_F(FakeDriverTest, ReadOnlyCacheDirectoryStillLoads) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "running as root: permissions do not make a directory "
                    "read-only (UnwritableCacheIsNotAnError covers failed "
                    "writes)";
  Device dev = *Device::open(0);
  { Module first = *Module::loadPtx(dev, kVectorAddPtx); }
  ASSERT_EQ(::chmod(cacheDir.path().c_str(), 0555), 0);
  std::string variant = std::string(kVectorAddPtx) + "\n// another entry\n";
  Expected<Module> miss = Module::loadPtx(dev, variant);
  Expected<Module> hit = Module::loadPtx(dev, kVectorAddPtx);
  ::chmod(cacheDir.path().c_str(), 0755);
  ASSERT_TRUE(miss) << miss.error().message();
  ASSERT_TRUE(hit) << hit.error().message();
  EXPECT_EQ(hit->cacheStatus(), CacheStatus::Hit);
}

TEST_F(FakeDriverTest, ProcessesFillingOneCacheConcurrently) {
  // Two processes load the same 8 modules 25 times each into one cache
  // directory; then every entry is whole and a hit.
  constexpr int kVariants = 8;
  auto variant = [](int i) {
    return std::string(kVectorAddPtx) + "\n// variant " + std::to_string(i) +
           "\n";
  };
  pid_t children[2];
  for (pid_t &child : children) {
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      Expected<Device> dev = Device::open(0);
      bool ok = bool(dev);
      for (int round = 0; ok && round < 25; ++round)
        for (int i = 0; ok && i < kVariants; ++i)
          ok = bool(Module::loadPtx(*dev, variant(i)));
      ::_exit(ok ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(cacheDir.countFiles(), kVariants); // no stray temporaries
  Device dev = *Device::open(0);
  for (int i = 0; i < kVariants; ++i) {
    Expected<Module> mod = Module::loadPtx(dev, variant(i));
    ASSERT_TRUE(mod) << mod.error().message();
    EXPECT_EQ(mod->cacheStatus(), CacheStatus::Hit) << i;
  }
}

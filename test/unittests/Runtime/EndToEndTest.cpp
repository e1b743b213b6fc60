//===- EndToEndTest.cpp - Kernels through the whole runtime ---------------===//
//
// Each test runs twice: on the real GPU (skipped without one) and on the fake
// driver, which emulates the test kernels on the host.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "TestKernels.h"

#include "Kaio/Runtime/Runtime.h"

#include <gtest/gtest.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    Error kaioErr_ = (expr);                                                   \
    ASSERT_FALSE(kaioErr_) << kaioErr_.message();                              \
  } while (0)

template <typename T> static T unwrap(Expected<T> value) {
  EXPECT_TRUE(value) << value.error().message();
  return std::move(*value);
}

namespace {
class EndToEndTest : public BackendTest {
protected:
  Module loadVectorAdd() {
    ModuleLoadOptions opts;
    opts.name = "vector_add.ptx";
    return unwrap(Module::loadPtx(*device, kVectorAddPtx, opts));
  }
  static LaunchConfig cover(std::size_t n, unsigned block) {
    LaunchConfig cfg;
    cfg.block = Dim3(block);
    cfg.grid = Dim3(unsigned((n + block - 1) / block));
    return cfg;
  }
};
} // namespace

TEST_P(EndToEndTest, DeviceProperties) {
  const DeviceProperties &p = device->properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.computeCapability(), 50);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_GE(p.maxThreadsPerBlock, 512);
  EXPECT_GT(p.smCount, 0);
  EXPECT_GT(p.totalMemory, std::size_t(1) << 28);
  EXPECT_GE(p.sharedMemPerBlock, 16384);
  EXPECT_GE(p.sharedMemPerBlockOptin, p.sharedMemPerBlock);
  EXPECT_GT(p.regsPerBlock, 0);
  EXPECT_GT(p.l2CacheSize, 0);
  EXPECT_GT(p.clockRateKHz, 0);
  EXPECT_GE(p.maxGridDim[0], 65535);
  EXPECT_NE(p.str().find(p.name), std::string::npos);
  EXPECT_GT(device->driverVersion(), 0);
  std::size_t freeBytes = 0, totalBytes = 0;
  ASSERT_OK(device->getMemoryInfo(freeBytes, totalBytes));
  EXPECT_GT(totalBytes, 0u);
  EXPECT_LE(freeBytes, totalBytes);
}

TEST_P(EndToEndTest, VectorAddMultiBlock) {
  Module mod = loadVectorAdd();
  ASSERT_EQ(mod.signatures().size(), 1u);
  Kernel k = unwrap(mod.getKernel("vector_add"));
  ASSERT_NE(k.signature(), nullptr);
  EXPECT_EQ(k.signature()->str(),
            "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)");
  EXPECT_GT(k.attributes().numRegs, 0);
  EXPECT_GT(k.attributes().maxThreadsPerBlock, 0);

  const std::size_t n = 100003; // Not a multiple of the block size.
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = float(i) * 0.5f;
    b[i] = 3.0f - float(i % 97);
  }
  auto da = unwrap(DeviceBuffer<float>::fromHost(*device, a));
  auto db = unwrap(DeviceBuffer<float>::fromHost(*device, b));
  auto dc = unwrap(DeviceBuffer<float>::allocate(*device, n));
  ASSERT_OK(dc.fillBytes(0xff)); // NaNs: every element must be written.
  ASSERT_OK(k.launch(cover(n, 256), da, db, dc, std::uint32_t(n)));
  ASSERT_OK(device->synchronize());
  std::vector<float> c = unwrap(dc.toHost());
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST_P(EndToEndTest, TypedLaunchRejectsMismatchesBeforeLaunching) {
  Module mod = loadVectorAdd();
  Kernel k = unwrap(mod.getKernel("vector_add"));
  auto da = unwrap(DeviceBuffer<float>::allocate(*device, 16));
  auto dd = unwrap(DeviceBuffer<double>::allocate(*device, 16));
  ASSERT_OK(da.zero());
  Error e = k.launch(cover(16, 16), da, da, da, 16.0f);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "argument 4 of vector_add: expected u32, got f32 (no "
                         "implicit conversions; cast the argument)");
  e = k.launch(cover(16, 16), dd, da, da, 16u);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "argument 1 of vector_add: expected ptr<const f32>, "
                         "got ptr<f64>");
  e = k.launch(cover(16, 16), da, da, da);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::ArgumentMismatch);
  LaunchConfig tooBig;
  tooBig.block = Dim3(2048);
  e = k.launch(tooBig, da, da, da, 16u);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "launching kernel 'vector_add': block size 2048 "
                         "exceeds max threads per block 1024");
}

TEST_P(EndToEndTest, ViewsAndUntypedLaunch) {
  Module mod = loadVectorAdd();
  Kernel k = unwrap(mod.getKernel("vector_add"));
  const std::size_t n = 1000;
  std::vector<float> ones(n, 1.0f);
  auto owner = unwrap(DeviceBuffer<float>::fromHost(*device, ones));
  auto out = unwrap(DeviceBuffer<float>::allocate(*device, n));
  // Views stand for memory owned by someone else.
  DeviceView<const float> in(owner.ptr(), n);
  DeviceView<float> outView(out.ptr(), n);
  ASSERT_OK(k.launch(cover(n, 128), in, in, outView, std::uint32_t(n)));
  std::vector<float> host(n);
  ASSERT_OK(copyFromView(*device, host.data(), outView, n));
  for (float v : host)
    ASSERT_EQ(v, 2.0f);

  CUdeviceptr pa = owner.ptr(), pc = out.ptr();
  unsigned count = n / 2;
  void *params[] = {&pa, &pc, &pc, &count};
  ASSERT_OK(k.launchRaw(cover(count, 64), params)); // c = 1 + 2 on half.
  ASSERT_OK(copyFromView(*device, host.data(), outView, n));
  EXPECT_EQ(host[0], 3.0f);
  EXPECT_EQ(host[count - 1], 3.0f);
  EXPECT_EQ(host[count], 2.0f);
  ASSERT_OK(copyToView(*device, outView, ones.data(), n));
  ASSERT_OK(copyFromView(*device, host.data(), outView, n));
  EXPECT_EQ(host[0], 1.0f);
  EXPECT_TRUE(copyToView(*device, outView, ones.data(), n + 1));
}

TEST_P(EndToEndTest, TwoDimensionalGrid) {
  Module mod = unwrap(Module::loadPtx(*device, kFill2dPtx));
  Kernel k = unwrap(mod.getKernel("fill2d"));
  const unsigned w = 100, h = 37;
  auto out = unwrap(DeviceBuffer<float>::allocate(*device, w * h));
  ASSERT_OK(out.fillBytes(0xff));
  LaunchConfig cfg;
  cfg.block = Dim3(16, 8);
  cfg.grid = Dim3((w + 15) / 16, (h + 7) / 8);
  ASSERT_OK(k.launch(cfg, out, w, h));
  std::vector<float> host = unwrap(out.toHost());
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x)
      ASSERT_EQ(host[y * w + x], float(y * 1000 + x)) << x << "," << y;
}

TEST_P(EndToEndTest, AsyncCopiesOnAStream) {
  Module mod = loadVectorAdd();
  Kernel k = unwrap(mod.getKernel("vector_add"));
  Stream stream = unwrap(Stream::create(*device));
  Event start = unwrap(Event::create(*device));
  Event stop = unwrap(Event::create(*device));
  const std::size_t n = 1 << 20;
  auto ha = unwrap(PinnedHostBuffer<float>::allocate(*device, n));
  auto hc = unwrap(PinnedHostBuffer<float>::allocate(*device, n));
  for (std::size_t i = 0; i < n; ++i)
    ha[i] = float(i % 1000);
  auto da = unwrap(DeviceBuffer<float>::allocate(*device, n));
  auto db = unwrap(DeviceBuffer<float>::allocate(*device, n));
  auto dc = unwrap(DeviceBuffer<float>::allocate(*device, n));
  ASSERT_OK(start.record(&stream));
  ASSERT_OK(da.copyFromHostAsync(ha.data(), n, stream));
  ASSERT_OK(db.copyFromAsync(da.view(), stream));
  LaunchConfig cfg = cover(n, 256);
  cfg.stream = &stream;
  ASSERT_OK(k.launch(cfg, da, db, dc, std::uint32_t(n)));
  ASSERT_OK(dc.copyToHostAsync(hc.data(), n, stream));
  ASSERT_OK(stop.record(&stream));
  ASSERT_OK(stream.synchronize());
  EXPECT_TRUE(unwrap(stream.query()));
  EXPECT_TRUE(unwrap(stop.query()));
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(hc[i], 2.0f * float(i % 1000)) << "at " << i;
  float ms = unwrap(elapsedMs(start, stop));
  EXPECT_GE(ms, 0.0f);

  ASSERT_OK(dc.fillBytesAsync(0, stream));
  ASSERT_OK(dc.copyToHostAsync(hc.data(), n, stream));
  ASSERT_OK(stream.synchronize());
  EXPECT_EQ(hc[n - 1], 0.0f);
}

TEST_P(EndToEndTest, SynchronousCopiesAndBounds) {
  std::vector<std::int32_t> src(64);
  for (int i = 0; i < 64; ++i)
    src[i] = i * 3 - 7;
  auto a = unwrap(DeviceBuffer<std::int32_t>::fromHost(*device, src));
  auto b = unwrap(DeviceBuffer<std::int32_t>::allocate(*device, 64));
  ASSERT_OK(b.fillBytes(0xab));
  std::vector<std::int32_t> host = unwrap(b.toHost());
  EXPECT_EQ(std::uint32_t(host[5]), 0xababababu);
  ASSERT_OK(b.copyFrom(a));
  EXPECT_EQ(unwrap(b.toHost()), src);
  std::int32_t two[2] = {100, 200};
  ASSERT_OK(b.copyFromHost(two, 2, 62));
  host = unwrap(b.toHost());
  EXPECT_EQ(host[62], 100);
  EXPECT_EQ(host[63], 200);
  Error e = b.copyFromHost(two, 2, 63);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::InvalidValue);
  EXPECT_EQ(e.message(), "copying 8 bytes at offset 252 exceeds the device "
                         "buffer of 256 bytes");
  auto empty = unwrap(DeviceBuffer<float>::allocate(*device, 0));
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_FALSE(empty.zero());
  // Moving transfers ownership; the moved-from buffer is empty.
  DeviceBuffer<std::int32_t> moved = std::move(a);
  EXPECT_EQ(moved.size(), 64u);
  EXPECT_EQ(unwrap(moved.toHost()), src);
}

TEST_P(EndToEndTest, JitErrorLogForBrokenPtx) {
  std::string broken = kVectorAddPtx;
  std::size_t pos = broken.find("add.f32 %f3, %f1, %f2;");
  ASSERT_NE(pos, std::string::npos);
  broken.replace(pos, 22, "add.f32 %f3, %f1, %fBROKEN;");
  ModuleLoadOptions opts;
  opts.name = "broken.ptx";
  for (const char *cache : {"0", "1"}) {
    ScopedEnv cacheSwitch("KAIO_CACHE", cache);
    Expected<Module> mod = Module::loadPtx(*device, broken, opts);
    ASSERT_FALSE(mod);
    const Error &e = mod.error();
    EXPECT_EQ(e.code(), ErrorCode::Driver);
    EXPECT_EQ(e.name(), "CUDA_ERROR_INVALID_PTX");
    EXPECT_EQ(e.cudaResult(), 218);
    EXPECT_NE(e.description().find("PTX"), std::string::npos);
    std::string call = *cache == '0' ? "cuModuleLoadDataEx" : "cuLinkAddData";
    EXPECT_EQ(e.context(), call + " while loading module 'broken.ptx'");
    EXPECT_NE(e.details().find("ptxas"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("JIT error log:\nptxas"), std::string::npos)
        << e.message();
  }
}

TEST_P(EndToEndTest, CacheHitOnSecondLoad) {
  resetCacheStats();
  Module first = loadVectorAdd();
  EXPECT_EQ(first.cacheStatus(), CacheStatus::Miss);
  EXPECT_EQ(cacheDir.countFiles(), 1);
  Module second = loadVectorAdd();
  EXPECT_EQ(second.cacheStatus(), CacheStatus::Hit);
  CacheStats stats = getCacheStats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.writes, 1u);

  // The cached cubin works.
  Kernel k = unwrap(second.getKernel("vector_add"));
  ASSERT_NE(k.signature(), nullptr); // Signatures come from the PTX text.
  std::vector<float> a(300, 1.5f);
  auto da = unwrap(DeviceBuffer<float>::fromHost(*device, a));
  auto dc = unwrap(DeviceBuffer<float>::allocate(*device, 300));
  ASSERT_OK(k.launch(cover(300, 128), da, da, dc, 300u));
  EXPECT_EQ(unwrap(dc.toHost())[299], 3.0f);

  // Different JIT options are a different entry; KAIO_CACHE=0 bypasses.
  ModuleLoadOptions o1;
  o1.optimizationLevel = 1;
  Module third = unwrap(Module::loadPtx(*device, kVectorAddPtx, o1));
  EXPECT_EQ(third.cacheStatus(), CacheStatus::Miss);
  EXPECT_EQ(cacheDir.countFiles(), 2);
  ScopedEnv off("KAIO_CACHE", "0");
  Module fourth = loadVectorAdd();
  EXPECT_EQ(fourth.cacheStatus(), CacheStatus::Disabled);
  EXPECT_EQ(cacheDir.countFiles(), 2);
  EXPECT_EQ(getCacheStats().hits, 1u);
}

TEST_P(EndToEndTest, LargeDynamicSharedMemory) {
  const DeviceProperties &p = device->properties();
  const unsigned n = 16384; // 64 KiB of floats: beyond the 48 KiB default.
  const unsigned bytes = n * 4;
  if (unsigned(p.sharedMemPerBlockOptin) < bytes)
    GTEST_SKIP() << "device opt-in shared memory " << p.sharedMemPerBlockOptin
                 << " < " << bytes;
  Module mod = unwrap(Module::loadPtx(*device, kSmemReversePtx));
  Kernel k = unwrap(mod.getKernel("smem_reverse"));
  std::vector<float> host(n);
  for (unsigned i = 0; i < n; ++i)
    host[i] = float(i);
  auto data = unwrap(DeviceBuffer<float>::fromHost(*device, host));
  LaunchConfig cfg;
  cfg.block = Dim3(1024);
  cfg.dynamicSharedBytes = bytes;
  Error e = k.launch(cfg, data, n);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::InvalidConfig);
  EXPECT_NE(e.message().find("setMaxDynamicSharedMemory"), std::string::npos)
      << e.message();

  Error tooMuch = k.setMaxDynamicSharedMemory(p.sharedMemPerBlockOptin + 1);
  ASSERT_TRUE(tooMuch);
  EXPECT_NE(tooMuch.message().find("exceeds max shared memory per block "
                                   "(opt-in)"),
            std::string::npos);

  ASSERT_OK(k.setMaxDynamicSharedMemory(bytes));
  EXPECT_EQ(k.attributes().maxDynamicSharedBytes, int(bytes));
  ASSERT_OK(k.launch(cfg, data, n));
  std::vector<float> out = unwrap(data.toHost());
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(out[i], float(n - 1 - i)) << "at " << i;
}

TEST_P(EndToEndTest, MissingKernelAndDevice) {
  Module mod = loadVectorAdd();
  Expected<Kernel> k = mod.getKernel("vector_sub");
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().code(), ErrorCode::NotFound);
  EXPECT_EQ(k.error().message(), "kernel 'vector_sub' not found in module "
                                 "'vector_add.ptx' (it has: vector_add)");
  Expected<Device> dev = Device::open(999);
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().code(), ErrorCode::NotFound);
  EXPECT_NE(dev.error().message().find("device ordinal 999 out of range"),
            std::string::npos);
}

TEST_P(EndToEndTest, SeveralDevices) {
  int count = unwrap(getDeviceCount());
  if (count < 2)
    GTEST_SKIP() << "needs two devices, found " << count;
  Device other = unwrap(Device::open(1));
  EXPECT_EQ(other.ordinal(), 1);
  Module m0 = loadVectorAdd();
  Module m1 = unwrap(Module::loadPtx(other, kVectorAddPtx));
  Kernel k0 = unwrap(m0.getKernel("vector_add"));
  Kernel k1 = unwrap(m1.getKernel("vector_add"));
  std::vector<float> ones(64, 1.0f);
  auto a0 = unwrap(DeviceBuffer<float>::fromHost(*device, ones));
  auto a1 = unwrap(DeviceBuffer<float>::fromHost(other, ones));
  ASSERT_OK(k1.launch(cover(64, 64), a1, a1, a1, 64u));
  ASSERT_OK(k0.launch(cover(64, 64), a0, a0, a0, 64u));
  ASSERT_OK(k1.launch(cover(64, 64), a1, a1, a1, 64u));
  EXPECT_EQ(unwrap(a0.toHost())[63], 2.0f);
  EXPECT_EQ(unwrap(a1.toHost())[63], 4.0f);
  Stream s1 = unwrap(Stream::create(other));
  LaunchConfig cfg = cover(64, 64);
  cfg.stream = &s1;
  Error e = k0.launch(cfg, a0, a0, a0, 64u);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("the stream belongs to device 1 but the kernel "
                             "was loaded on device 0"),
            std::string::npos);
}

// A kernel given an address its GPU cannot use would fault and lose the
// context: every launch checks its pointers first.
TEST_P(EndToEndTest, LaunchRefusesPointersTheGpuCannotUse) {
  Module mod = loadVectorAdd();
  Kernel k = unwrap(mod.getKernel("vector_add"));
  const std::uint32_t n = 256;
  std::vector<float> host(n, 1.0f);
  auto a = unwrap(DeviceBuffer<float>::fromHost(*device, host));
  auto c = unwrap(DeviceBuffer<float>::allocate(*device, n));
  ASSERT_OK(k.launch(cover(n, 128), a, a, c, n));
  FakeCudaCounters *counters = isFake() ? getFakeCounters() : nullptr;
  // Pointers already checked are remembered: launching over them again
  // asks the driver nothing; a view at a new address is checked once.
  int queries = counters ? counters->pointerQueries : 0;
  ASSERT_OK(k.launch(cover(n, 128), a, a, c, n));
  if (counters)
    EXPECT_EQ(counters->pointerQueries, queries);
  DeviceView<const float> view(a.ptr() + 4, n - 1);
  ASSERT_OK(k.launch(cover(n, 128), a, view, c, n - 1));
  ASSERT_OK(k.launch(cover(n, 128), a, view, c, n - 1));
  if (counters)
    EXPECT_EQ(counters->pointerQueries, queries + 1);
  EXPECT_EQ(unwrap(c.toHost())[n - 2], 2.0f);
  // A view of nothing past the end of an allocation passes.
  DeviceView<const float> tail = DeviceView<const float>(a.ptr(), n).subview(n, 0);
  ASSERT_OK(k.launch(cover(1, 128), tail, tail, c, 0u));

  // Host memory: pinned is the GPU's to read; malloc'ed is not (unless the
  // GPU reads pageable memory, as with HMM or ATS).
  auto pinned = unwrap(PinnedHostBuffer<float>::allocate(*device, n));
  std::fill(pinned.begin(), pinned.end(), 3.0f);
  DeviceView<const float> pinnedView(
      CUdeviceptr(reinterpret_cast<std::uintptr_t>(pinned.data())), n);
  ASSERT_OK(k.launch(cover(n, 128), a, pinnedView, c, n));
  ASSERT_OK(device->synchronize());
  EXPECT_EQ(unwrap(c.toHost())[n - 1], 4.0f);
  int launches = counters ? counters->launches : 0;
  DeviceView<const float> hostView(
      CUdeviceptr(reinterpret_cast<std::uintptr_t>(host.data())), n);
  Error e = k.launch(cover(n, 128), a, hostView, c, n);
  if (device->properties().pageableMemoryAccess) {
    EXPECT_FALSE(e) << e.message();
  } else {
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), ErrorCode::InvalidValue);
    EXPECT_NE(e.message().find("launching kernel 'vector_add': argument 2 "
                               "(ptr<const f32>): 0x"),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("is not memory the GPU can use"),
              std::string::npos)
        << e.message();
    if (counters)
      EXPECT_EQ(counters->launches, launches);
  }
  // A freed buffer is forgotten: its address is no longer the GPU's.
  CUdeviceptr stale;
  {
    auto gone = unwrap(DeviceBuffer<float>::allocate(*device, 1 << 20));
    stale = gone.ptr();
    ASSERT_OK(k.launch(cover(1, 32), gone, gone, gone, 1u));
    ASSERT_OK(device->synchronize());
  }
  if (counters) {
    Error freed = k.launch(cover(1, 32), a, a,
                           DeviceView<float>(stale + 64, 1), 1u);
    ASSERT_TRUE(freed);
    EXPECT_NE(freed.message().find("argument 3 (ptr<f32>)"), std::string::npos)
        << freed.message();
  }
  // Another device's memory.
  if (unwrap(getDeviceCount()) >= 2) {
    Device other = unwrap(Device::open(1));
    auto theirs = unwrap(DeviceBuffer<float>::allocate(other, n));
    Error foreign = k.launch(cover(n, 128), a, a, theirs, n);
    ASSERT_TRUE(foreign);
    EXPECT_NE(foreign.message().find("argument 3 (ptr<f32>): 0x"),
              std::string::npos)
        << foreign.message();
    EXPECT_NE(foreign.message().find("is memory of device 1, not of device 0 "
                                     "where the kernel runs (which cannot "
                                     "reach it: no peer access between the "
                                     "two)"),
              std::string::npos)
        << foreign.message();
    if (counters) {
      // GPUs that can reach each other's memory (peer access) pass.
      ScopedEnv peers("FAKE_CUDA_PEER_ACCESS", "1");
      ASSERT_OK(k.launch(cover(n, 128), a, a, theirs, n));
    }
    // Checked through the Device too, naming what the caller says.
    Error direct = device->checkPointer(theirs.ptr(), "out");
    ASSERT_TRUE(direct);
    EXPECT_EQ(direct.message().rfind("out: 0x", 0), 0u) << direct.message();
  }
  EXPECT_FALSE(device->checkPointer(0, "absent"));
  // The device still works.
  ASSERT_OK(k.launch(cover(n, 128), a, a, c, n));
  EXPECT_EQ(unwrap(c.toHost())[0], 2.0f);
}

INSTANTIATE_TEST_SUITE_P(Backends, EndToEndTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

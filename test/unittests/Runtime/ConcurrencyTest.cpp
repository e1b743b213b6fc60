//===- ConcurrencyTest.cpp - the runtime from many threads at once --------===//
//
// Eight threads share two devices and a stream and, for a bounded number of
// rounds, load modules (through the shared cubin cache), launch typed
// kernels on the shared and on their own streams, allocate, copy and free.
// Everything must succeed, give the right results and leave nothing behind;
// under ThreadSanitizer (scripts/test.sh --sanitize=thread) no race either.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "TestKernels.h"
#include "TestUtils.h"

#include "Kaio/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace kaio::rt;
using namespace kaio::rt::test;

TEST(ConcurrencyTest, ThreadsShareDevicesStreamsAndTheCache) {
  std::string path = findFakeDriver();
  if (path.empty())
    GTEST_SKIP() << "fake CUDA driver library not found";
  ScopedEnv driver("KAIO_CUDA_DRIVER", path.c_str());
  TempDir cache;
  ScopedEnv cacheDir("KAIO_CACHE_DIR", cache.path().c_str());
  ScopedEnv cacheOn("KAIO_CACHE", nullptr);
  FakeCudaCounters *counters = getFakeCounters();
  ASSERT_NE(counters, nullptr);
  const FakeCudaCounters before = *counters;
  {
    Device devices[2] = {*Device::open(0), *Device::open(1)};
    Stream shared = *Stream::create(devices[0]);
    constexpr int kThreads = 8, kRounds = 40;
    constexpr unsigned n = 513;
    std::atomic<int> failures{0};
    std::vector<std::string> messages(kThreads);
    auto work = [&](int t) {
      auto fail = [&](const Error &e) {
        ++failures;
        messages[t] = e.message();
      };
      const Device &dev = devices[t % 2];
      Expected<Stream> own = Stream::create(dev);
      if (!own)
        return fail(own.error());
      std::vector<float> a(n, float(t)), b(n, 1.0f), c(n);
      for (int round = 0; round < kRounds; ++round) {
        // A few distinct modules, so threads race to fill the same entries.
        std::string ptx = std::string(kVectorAddPtx) + "\n// module " +
                          std::to_string(round % 4) + "\n";
        Expected<Module> mod = Module::loadPtx(dev, ptx);
        if (!mod)
          return fail(mod.error());
        Expected<Kernel> kernel = mod->getKernel("vector_add");
        if (!kernel)
          return fail(kernel.error());
        auto da = DeviceBuffer<float>::fromHost(dev, a);
        auto db = DeviceBuffer<float>::fromHost(dev, b);
        auto dc = DeviceBuffer<float>::allocate(dev, n);
        if (!da || !db || !dc)
          return fail(!da ? da.error() : !db ? db.error() : dc.error());
        LaunchConfig config;
        config.grid = Dim3((n + 127) / 128);
        config.block = Dim3(128);
        config.stream = (t % 2 == 0 && round % 2) ? &shared : &*own;
        if (Error e = kernel->launch(config, da->view(), db->view(),
                                     dc->view(), n))
          return fail(e);
        if (Error e = config.stream->synchronize())
          return fail(e);
        if (Error e = dc->copyToHost(c.data(), n))
          return fail(e);
        if (c[n - 1] != float(t) + 1.0f)
          return fail(Error::make(ErrorCode::InvalidValue, "wrong result"));
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back(work, t);
    for (std::thread &thread : threads)
      thread.join();
    EXPECT_EQ(failures.load(), 0);
    for (const std::string &m : messages)
      EXPECT_EQ(m, "");
    EXPECT_EQ(cache.countFiles(), 8); // 4 modules x 2 devices, no temporaries
  }
  EXPECT_EQ(counters->liveAllocations, before.liveAllocations);
  EXPECT_EQ(counters->liveStreams, before.liveStreams);
  EXPECT_EQ(counters->liveModules, before.liveModules);
  EXPECT_EQ(counters->primaryContextRefs[0], before.primaryContextRefs[0]);
  EXPECT_EQ(counters->primaryContextRefs[1], before.primaryContextRefs[1]);
}

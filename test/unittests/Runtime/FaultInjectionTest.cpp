//===- FaultInjectionTest.cpp - the runtime when driver calls fail --------===//
//
// A whole workflow (device, buffers, copies, a JIT-loaded module, a stream,
// events, a typed launch, read-back) runs once per fallible driver call it
// makes, with the fake driver failing exactly that call, for several CUDA
// error codes. Every injected failure must surface as a typed driver Error
// naming the failed call and the CUDA error; nothing may leak; and the next
// run, on the same healthy driver, must work.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "TestKernels.h"
#include "TestUtils.h"

#include "Kaio/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

namespace {

class FaultInjectionTest : public FakeDriverFixture {
protected:
  void SetUp() override {
    FakeDriverFixture::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    cacheEnv.emplace("KAIO_CACHE", "0"); // every run JIT-compiles
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    inject = reinterpret_cast<void (*)(int, int)>(
        ::dlsym(handle, "fakeCudaInjectFault"));
    ASSERT_NE(inject, nullptr);
  }
  void TearDown() override {
    if (inject)
      inject(0, 0);
  }

  /// The workflow; the first error, or success with `out` = a + b.
  /// `faultsBeforeCleanup` is the fake's fault count at the moment the
  /// workflow returns, before its objects are destroyed: destructors cannot
  /// report a failure (they must not leak instead).
  Error workflow(std::vector<float> &out, int &faultsBeforeCleanup) {
    auto done = [&](Error e) {
      faultsBeforeCleanup = counters->faultsInjected;
      return e;
    };
    constexpr unsigned n = 1000;
    std::vector<float> a(n), b(n, 1.0f);
    for (unsigned i = 0; i < n; ++i)
      a[i] = float(i);
    Expected<Device> dev = Device::open(0);
    if (!dev)
      return done(dev.takeError());
    Expected<DeviceBuffer<float>> da = DeviceBuffer<float>::fromHost(*dev, a);
    if (!da)
      return done(da.takeError());
    Expected<DeviceBuffer<float>> db = DeviceBuffer<float>::fromHost(*dev, b);
    if (!db)
      return done(db.takeError());
    Expected<DeviceBuffer<float>> dc = DeviceBuffer<float>::allocate(*dev, n);
    if (!dc)
      return done(dc.takeError());
    if (Error e = dc->fillBytes(0))
      return done(std::move(e));
    Expected<Module> mod = Module::loadPtx(*dev, kVectorAddPtx);
    if (!mod)
      return done(mod.takeError());
    Expected<Kernel> kernel = mod->getKernel("vector_add");
    if (!kernel)
      return done(kernel.takeError());
    Expected<Stream> stream = Stream::create(*dev);
    if (!stream)
      return done(stream.takeError());
    Expected<Event> start = Event::create(*dev);
    if (!start)
      return done(start.takeError());
    Expected<Event> stop = Event::create(*dev);
    if (!stop)
      return done(stop.takeError());
    if (Error e = start->record(&*stream))
      return done(std::move(e));
    LaunchConfig config;
    config.grid = Dim3((n + 255) / 256);
    config.block = Dim3(256);
    config.stream = &*stream;
    if (Error e = kernel->launch(config, da->view(), db->view(), dc->view(), n))
      return done(std::move(e));
    if (Error e = stop->record(&*stream))
      return done(std::move(e));
    if (Error e = stream->synchronize())
      return done(std::move(e));
    if (Expected<float> ms = elapsedMs(*start, *stop); !ms)
      return done(ms.takeError());
    out.assign(n, -1.0f);
    return done(dc->copyToHost(out.data(), n));
  }

  void (*inject)(int, int) = nullptr;
};

/// "cuMemAlloc_v2" -> "cuMemAlloc": how KAIO names the call.
std::string baseName(const char *call) {
  std::string name = call;
  if (std::size_t v = name.rfind("_v"); v != std::string::npos)
    name.resize(v);
  return name;
}

} // namespace

TEST_F(FaultInjectionTest, EveryFailedCallIsATypedErrorAndNothingLeaks) {
  const FakeCudaCounters baseline = *counters;
  struct Code {
    int value;
    const char *name;
  } codes[] = {{2, "CUDA_ERROR_OUT_OF_MEMORY"},
               {1, "CUDA_ERROR_INVALID_VALUE"},
               {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
               {999, "CUDA_ERROR_UNKNOWN"},
               // What module loads, launches and context calls return.
               {218, "CUDA_ERROR_INVALID_PTX"},
               {200, "CUDA_ERROR_INVALID_IMAGE"},
               {719, "CUDA_ERROR_LAUNCH_FAILED"},
               {201, "CUDA_ERROR_INVALID_CONTEXT"},
               {500, "CUDA_ERROR_NOT_FOUND"},
               {100, "CUDA_ERROR_NO_DEVICE"}};
  for (const Code &code : codes) {
    int n = 1, cleanupFaults = 0;
    for (;; ++n) {
      ASSERT_LT(n, 500) << "the workflow never finished";
      int injectedBefore = counters->faultsInjected, beforeCleanup = 0;
      std::vector<float> out;
      inject(n, code.value);
      Error e = workflow(out, beforeCleanup);
      inject(0, 0);
      // Everything the workflow made is gone again.
      EXPECT_EQ(counters->liveAllocations, baseline.liveAllocations);
      EXPECT_EQ(counters->liveStreams, baseline.liveStreams);
      EXPECT_EQ(counters->liveEvents, baseline.liveEvents);
      EXPECT_EQ(counters->liveModules, baseline.liveModules);
      EXPECT_EQ(counters->primaryContextRefs[0],
                baseline.primaryContextRefs[0]);
      if (counters->faultsInjected == injectedBefore) {
        // Past the last call: the healthy run works.
        ASSERT_FALSE(e) << e.message();
        ASSERT_EQ(out.size(), 1000u);
        EXPECT_EQ(out[999], 1000.0f);
        break;
      }
      std::string call = baseName(counters->lastFault);
      if (counters->faultsInjected > beforeCleanup) {
        // The failed call released something (checked above: no leak).
        EXPECT_FALSE(e) << e.message();
        ++cleanupFaults;
        continue;
      }
      ASSERT_TRUE(e) << "failing call " << n << " (" << call
                     << ") went unnoticed";
      EXPECT_EQ(e.code(), ErrorCode::Driver) << e.message();
      EXPECT_EQ(e.cudaResult(), code.value) << e.message();
      EXPECT_EQ(e.name(), code.name);
      EXPECT_NE(e.message().find(call), std::string::npos)
          << "the message does not name " << call << ": " << e.message();
    }
    // The workflow makes a known set of calls; every one was failed once.
    EXPECT_GT(n, 20) << code.name;
    EXPECT_GT(cleanupFaults, 0) << "no fault hit a destructor";
  }
}

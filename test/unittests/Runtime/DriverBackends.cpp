//===- DriverBackends.cpp -------------------------------------------------===//

#include "DriverBackends.h"

#include <dlfcn.h>
#include <unistd.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

static bool fileExists(const std::string &path) {
  return !path.empty() && ::access(path.c_str(), R_OK) == 0;
}

std::string kaio::rt::test::findFakeDriver() {
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    std::string dir(exe, n);
    dir = dir.substr(0, dir.rfind('/'));
    std::string nextToExe = dir + "/libKaioFakeCudaDriver.so";
    if (fileExists(nextToExe))
      return nextToExe;
  }
#ifdef KAIO_FAKE_CUDA_DRIVER
  if (fileExists(KAIO_FAKE_CUDA_DRIVER))
    return KAIO_FAKE_CUDA_DRIVER;
#endif
  return {};
}

FakeCudaCounters *kaio::rt::test::getFakeCounters() {
  std::string path = findFakeDriver();
  if (path.empty())
    return nullptr;
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return nullptr;
  auto fn = reinterpret_cast<FakeCudaCounters *(*)()>(
      ::dlsym(handle, "fakeCudaCounters"));
  return fn ? fn() : nullptr;
}

void FakeDriverFixture::SetUp() {
  path = findFakeDriver();
  if (path.empty())
    GTEST_SKIP() << "fake CUDA driver library not found";
  driverEnv.emplace("KAIO_CUDA_DRIVER", path.c_str());
  cacheDirEnv.emplace("KAIO_CACHE_DIR", cacheDir.path().c_str());
  cacheEnv.emplace("KAIO_CACHE", nullptr);
  ASSERT_FALSE(checkDriver());
  counters = getFakeCounters();
  ASSERT_NE(counters, nullptr);
}

void BackendTest::SetUp() {
  if (isFake()) {
    std::string path = findFakeDriver();
    if (path.empty())
      GTEST_SKIP() << "fake CUDA driver library not found";
    driverEnv.emplace("KAIO_CUDA_DRIVER", path.c_str());
  } else {
    std::string why = whyNoRealGpu();
    if (!why.empty())
      GTEST_SKIP() << "no GPU: " << why;
    driverEnv.emplace("KAIO_CUDA_DRIVER", nullptr);
  }
  cacheDirEnv.emplace("KAIO_CACHE_DIR", cacheDir.path().c_str());
  cacheEnv.emplace("KAIO_CACHE", nullptr);
  Expected<Device> dev = Device::open(0);
  ASSERT_TRUE(dev) << dev.error().message();
  device.emplace(std::move(*dev));
}

std::string
kaio::rt::test::backendName(const ::testing::TestParamInfo<Backend> &info) {
  return info.param == Backend::Real ? "RealGpu" : "FakeDriver";
}

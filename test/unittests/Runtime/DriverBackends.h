//===- DriverBackends.h - Run a test on the real and the fake driver -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_RUNTIME_DRIVERBACKENDS_H
#define KAIO_TEST_UNITTESTS_RUNTIME_DRIVERBACKENDS_H

#include "TestUtils.h"

#include "Kaio/Runtime/Device.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace kaio::rt::test {

enum class Backend { Real, Fake };

/// The fake driver library: next to the test executable, else where the
/// build put it. Empty if neither exists (e.g. only the test binary was
/// copied to a GPU host).
std::string findFakeDriver();

/// Counters exported by the fake driver (see FakeCudaDriver.cpp).
struct FakeCudaCounters {
  int liveAllocations;
  int liveHostAllocations;
  int liveStreams;
  int liveEvents;
  int liveModules;
  int primaryContextRefs[2];
  int jitCompiles;
  int linkCompiles;
  int launches;
  unsigned lastGrid[3], lastBlock[3], lastSharedBytes;
  int lastLaunchDevice;
  char lastKernel[64]; ///< Name of the last launched kernel.
  int faultsInjected;   ///< Calls failed by fakeCudaInjectFault.
  char lastFault[64];   ///< The driver call that failed last.
};
FakeCudaCounters *getFakeCounters();

/// Selects the driver for a test and opens device 0; skips (with the reason)
/// when the backend is unavailable. Each test gets a private cubin cache.
class BackendTest : public ::testing::TestWithParam<Backend> {
protected:
  void SetUp() override;
  void TearDown() override { device.reset(); }
  bool isFake() const { return GetParam() == Backend::Fake; }

  std::optional<ScopedEnv> driverEnv, cacheDirEnv, cacheEnv;
  TempDir cacheDir;
  std::optional<Device> device;
};

std::string backendName(const ::testing::TestParamInfo<Backend> &info);

} // namespace kaio::rt::test

#endif // KAIO_TEST_UNITTESTS_RUNTIME_DRIVERBACKENDS_H

//===- DriverBackends.h - Run a test on the real and the fake driver -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_RUNTIME_DRIVERBACKENDS_H
#define KAIO_TEST_UNITTESTS_RUNTIME_DRIVERBACKENDS_H

#include "FakeCudaCounters.h"
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
FakeCudaCounters *getFakeCounters();

/// A test on the fake driver (skipped, with the reason, when it is not
/// built): KAIO_CUDA_DRIVER points at it, the cubin cache is private, and
/// `counters` are the fake's.
class FakeDriverFixture : public ::testing::Test {
protected:
  void SetUp() override;
  std::string path;
  std::optional<ScopedEnv> driverEnv, cacheDirEnv, cacheEnv;
  TempDir cacheDir;
  FakeCudaCounters *counters = nullptr;
};

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

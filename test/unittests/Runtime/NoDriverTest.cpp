//===- NoDriverTest.cpp - Every entry point fails cleanly without libcuda -===//

#include "TestUtils.h"

#include "Kaio/Runtime/Device.h"

#include <gtest/gtest.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

static const char *const kMissing = "/nonexistent/kaio/libcuda.so.1";

TEST(NoDriverTest, ReportsMissingDriver) {
  ScopedEnv driver("KAIO_CUDA_DRIVER", kMissing);
  EXPECT_EQ(getDriverPath(), kMissing);
  Expected<int> count = getDeviceCount();
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code(), ErrorCode::NoDriver);
  EXPECT_EQ(count.error().message(),
            std::string("no CUDA driver found (") + kMissing +
                ": cannot open shared object file: No such file or "
                "directory)");
}

TEST(NoDriverTest, EveryEntryPointFails) {
  ScopedEnv driver("KAIO_CUDA_DRIVER", kMissing);
  Error e = checkDriver();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::NoDriver);
  Expected<Device> dev = Device::open(0);
  ASSERT_FALSE(dev);
  EXPECT_NE(dev.error().message().find("no CUDA driver found ("),
            std::string::npos);
  Expected<int> version = getDriverVersion();
  ASSERT_FALSE(version);
  EXPECT_EQ(version.error().code(), ErrorCode::NoDriver);
}

TEST(NoDriverTest, RejectsALibraryThatIsNotADriver) {
  ScopedEnv driver("KAIO_CUDA_DRIVER", "libm.so.6");
  Error e = checkDriver();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::NoDriver);
  EXPECT_NE(e.message().find("no usable CUDA driver found (libm.so.6 lacks "
                             "cuGetErrorName"),
            std::string::npos)
      << e.message();
}

TEST(NoDriverTest, DefaultPath) {
  ScopedEnv driver("KAIO_CUDA_DRIVER", nullptr);
  EXPECT_EQ(getDriverPath(), "libcuda.so.1");
}

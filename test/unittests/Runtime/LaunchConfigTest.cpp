//===- LaunchConfigTest.cpp - Validation against made-up devices ----------===//

#include "Kaio/Runtime/Device.h"
#include "Kaio/Runtime/Module.h"

#include <gtest/gtest.h>

using namespace kaio::rt;

namespace {
class LaunchConfigTest : public ::testing::Test {
protected:
  void SetUp() override {
    props.name = "Made-up A100";
    props.ccMajor = 8;
    props.maxThreadsPerBlock = 1024;
    props.maxBlockDim[0] = props.maxBlockDim[1] = 1024;
    props.maxBlockDim[2] = 64;
    props.maxGridDim[0] = 2147483647;
    props.maxGridDim[1] = props.maxGridDim[2] = 65535;
    props.sharedMemPerBlock = 49152;
    props.sharedMemPerBlockOptin = 166912;
    attrs.maxThreadsPerBlock = 1024;
    attrs.numRegs = 32;
    attrs.maxDynamicSharedBytes = 49152;
  }
  static LaunchConfig config(Dim3 grid, Dim3 block, unsigned smem = 0) {
    LaunchConfig c;
    c.grid = grid;
    c.block = block;
    c.dynamicSharedBytes = smem;
    return c;
  }
  std::string errorOf(const LaunchConfig &c, const FunctionAttributes *a) {
    Error e = validateLaunchConfig(c, props, a);
    EXPECT_TRUE(e);
    if (!e)
      return {};
    EXPECT_EQ(e.code(), ErrorCode::InvalidConfig);
    return e.message();
  }
  DeviceProperties props;
  FunctionAttributes attrs;
};
} // namespace

TEST_F(LaunchConfigTest, AcceptsValidConfigs) {
  EXPECT_FALSE(validateLaunchConfig(config(4, 256), props));
  EXPECT_FALSE(validateLaunchConfig(config({65535, 65535, 65535}, {8, 8, 16}),
                                    props, &attrs));
  EXPECT_FALSE(validateLaunchConfig(config(1, 1, 49152), props, &attrs));
}

TEST_F(LaunchConfigTest, NamesTheExceededLimit) {
  EXPECT_EQ(errorOf(config(1, 2048), nullptr),
            "block size 2048 exceeds max threads per block 1024");
  EXPECT_EQ(errorOf(config(1, {1, 1, 128}), nullptr),
            "block dimension z 128 exceeds max block dimension z 64");
  EXPECT_EQ(errorOf(config({1, 70000}, 32), nullptr),
            "grid dimension y 70000 exceeds max grid dimension y 65535");
  EXPECT_EQ(errorOf(config({1, 0}, 32), nullptr), "grid dimension y is 0");
  EXPECT_EQ(errorOf(config(1, {32, 0}), nullptr), "block dimension y is 0");
  EXPECT_EQ(errorOf(config(1, 32, 200000), nullptr),
            "shared memory 200000 bytes (dynamic 200000 + static 0) exceeds "
            "max shared memory per block (opt-in) 166912");
}

TEST_F(LaunchConfigTest, ChecksKernelAttributes) {
  attrs.maxThreadsPerBlock = 256;
  attrs.numRegs = 128;
  EXPECT_EQ(errorOf(config(1, 512), &attrs),
            "block size 512 exceeds the kernel's max threads per block 256 "
            "(it uses 128 registers per thread)");
  attrs.maxThreadsPerBlock = 1024;
  attrs.staticSharedBytes = 100000;
  EXPECT_NE(errorOf(config(1, 32, 100000), &attrs)
                .find("(dynamic 100000 + static 100000) exceeds max shared "
                      "memory per block (opt-in) 166912"),
            std::string::npos);
  attrs.staticSharedBytes = 0;
  std::string msg = errorOf(config(1, 32, 65536), &attrs);
  EXPECT_NE(msg.find("dynamic shared memory 65536 bytes exceeds the kernel's "
                     "current limit of 49152 bytes; opt in with "
                     "Kernel::setMaxDynamicSharedMemory"),
            std::string::npos)
      << msg;
  attrs.maxDynamicSharedBytes = 65536; // After opting in.
  EXPECT_FALSE(validateLaunchConfig(config(1, 32, 65536), props, &attrs));
}

TEST_F(LaunchConfigTest, KernelNameInContext) {
  Error e = validateLaunchConfig(config(1, 4096), props, nullptr, "gemm");
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "launching kernel 'gemm': block size 4096 exceeds max "
                         "threads per block 1024");
}

TEST(Dim3Test, CountAndString) {
  EXPECT_EQ(Dim3(4, 3, 2).count(), 24u);
  EXPECT_EQ(Dim3(128).str(), "128");
  EXPECT_EQ(Dim3(16, 16).str(), "16x16");
  EXPECT_EQ(Dim3(4, 1, 2).str(), "4x1x2");
}

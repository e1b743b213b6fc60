//===- ErrorTest.cpp ------------------------------------------------------===//

#include "Kaio/Runtime/Error.h"

#include <gtest/gtest.h>

#include <memory>

using namespace kaio::rt;

TEST(ErrorTest, SuccessIsFalsy) {
  Error e;
  EXPECT_FALSE(e);
  EXPECT_TRUE(e.isSuccess());
  EXPECT_EQ(e.message(), "success");
}

TEST(ErrorTest, DriverErrorMessage) {
  Error e = Error::driver(218, "CUDA_ERROR_INVALID_PTX",
                          "a PTX JIT compilation failed",
                          "cuModuleLoadDataEx while loading module 'x.ptx'",
                          "JIT error log:\nptxas fatal: oops\n");
  EXPECT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::Driver);
  EXPECT_EQ(e.cudaResult(), 218);
  EXPECT_EQ(e.message(),
            "cuModuleLoadDataEx while loading module 'x.ptx': "
            "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n"
            "JIT error log:\nptxas fatal: oops");
  e.addContext("running kaio-run");
  EXPECT_EQ(e.context(), "running kaio-run: cuModuleLoadDataEx while loading "
                         "module 'x.ptx'");
}

TEST(ErrorTest, KaioErrorMessage) {
  Error e = Error::make(ErrorCode::InvalidConfig, "block size 2048 exceeds");
  EXPECT_EQ(e.name(), "KAIO_ERROR_INVALID_CONFIG");
  EXPECT_EQ(e.cudaResult(), 0);
  EXPECT_EQ(e.message(), "block size 2048 exceeds");
  e.addContext("launching kernel 'k'");
  EXPECT_EQ(e.message(), "launching kernel 'k': block size 2048 exceeds");
}

TEST(ErrorTest, ExpectedHoldsMoveOnlyValues) {
  Expected<std::unique_ptr<int>> ok(std::make_unique<int>(7));
  ASSERT_TRUE(ok);
  EXPECT_EQ(**ok, 7);
  std::unique_ptr<int> taken = std::move(*ok);
  EXPECT_EQ(*taken, 7);

  Expected<int> bad(Error::make(ErrorCode::NotFound, "nope"));
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.valueOr(3), 3);
  Error e = bad.takeError();
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
}

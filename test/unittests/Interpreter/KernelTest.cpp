//===- KernelTest.cpp - whole kernels against CPU references --------------===//

#include "TestKernels.h"
#include "TestUtils.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <random>

using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class KernelTest : public InterpreterTest {};

TEST_F(KernelTest, VectorAddExampleRaggedGrid) {
  llvm::SourceMgr sm;
  std::string path = std::string(KAIO_SOURCE_DIR) + "/examples/ptx/vector_add.mlir";
  auto parsed = mlir::parseSourceFile<mlir::ModuleOp>(
      path, sm, mlir::ParserConfig(&context));
  ASSERT_TRUE(parsed) << "cannot parse " << path;
  Interpreter in(*parsed);
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = 0.5f * float(i) + 0.1f;
    b[i] = 1.0f / float(i + 1);
  }
  uint64_t da = in.allocGlobal(n * 4), db = in.allocGlobal(n * 4),
           dc = in.allocGlobal(n * 4);
  ASSERT_TRUE(in.write(da, a));
  ASSERT_TRUE(in.write(db, b));
  ASSERT_TRUE(in.write(dc, c));
  // 4 blocks of 256 threads: the last 24 threads fall off the end.
  LaunchResult r = in.launch("vector_add", {(n + 255) / 256}, {256},
                             {da, db, dc, n});
  ASSERT_TRUE(r.success) << r.message();
  ASSERT_TRUE(in.read(dc, c));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
  EXPECT_GT(r.instructions, 1000u * 20);
  EXPECT_EQ(r.warpInstructions * 32 >= r.instructions, true);
}

TEST_F(KernelTest, TiledMatmulMatchesCpu) {
  Interpreter &in = load(kTiledMatmul);
  const uint32_t n = 48;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n), b(n * n), c(n * n, 0);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  uint64_t da = in.allocGlobal(n * n * 4), db = in.allocGlobal(n * n * 4),
           dc = in.allocGlobal(n * n * 4);
  in.write(da, a);
  in.write(db, b);
  LaunchResult r = in.launch("matmul", {n / 16, n / 16}, {16, 16},
                             {da, db, dc, n});
  ASSERT_TRUE(r.success) << r.message();
  in.read(dc, c);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      // The same fma chain on the host gives the same bits.
      float acc = 0;
      for (uint32_t k = 0; k < n; ++k)
        acc = std::fma(a[i * n + k], b[k * n + j], acc);
      ASSERT_EQ(c[i * n + j], acc) << i << "," << j;
    }
}

TEST_F(KernelTest, ReportsWrongArgumentCountAndUnknownKernel) {
  Interpreter &in = load(kTiledMatmul);
  LaunchResult r = in.launch("matmul", {1}, {16, 16}, {0, 0});
  EXPECT_FALSE(r.success);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("expected 4 arguments"), std::string::npos);
  r = in.launch("nope", {1}, {1}, {});
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message().find("no ptx.entry"), std::string::npos);
}

TEST_F(KernelTest, TheCompiledBlockIsEnforced) {
  Interpreter &in = load(R"(
ptx.entry @k() attributes {maxntid = array<i32: 64>} {
  ptx.ret
})");
  EXPECT_TRUE(in.launch("k", {1}, {64}, {}).success);
  EXPECT_TRUE(in.launch("k", {1}, {40}, {}).success);
  // The runtime's contract and words (rt::describeBlockMismatch): at most
  // the compiled threads, no dimension past its rank, and a .reqntid shape
  // exactly.
  LaunchResult r = in.launch("k", {1}, {65}, {});
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message().find("block 65 has more threads than the kernel's "
                             "compiled block 64 (.maxntid)"),
            std::string::npos)
      << r.message();
  r = in.launch("k", {1}, {32, 2}, {});
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message().find("block 32x2 has 2 dimensions, more than the "
                             "kernel's compiled block 64 (.maxntid)"),
            std::string::npos)
      << r.message();
  Interpreter &exact = load(R"(
ptx.entry @k() attributes {reqntid = array<i32: 8, 4>} {
  ptx.ret
})");
  EXPECT_TRUE(exact.launch("k", {1}, {8, 4}, {}).success);
  r = exact.launch("k", {1}, {4, 8}, {});
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message().find("block 4x8 differs from the kernel's compiled "
                             "block 8x4 (.reqntid)"),
            std::string::npos)
      << r.message();
}

TEST_F(KernelTest, GlobalVariablesAndDynamicShared) {
  // Each block copies its slice through dynamic shared memory and adds a
  // module-scope .global counter.
  Interpreter &in = load(R"(
ptx.var global @counter : u32 [1] align 4
ptx.var shared @dyn : b8 extern align 16
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %dyn = ptx.addressof @dyn : i32
  %c4 = ptx.constant 4 : i32
  %off = ptx.mul lo s32 %tid, %c4 : i32
  %s = ptx.add s32 %dyn, %off : i32
  ptx.st shared b32 [%s], %tid : i32, i32
  ptx.bar_sync 0
  %c31 = ptx.constant 31 : i32
  %rev = ptx.sub s32 %c31, %tid : i32
  %roff = ptx.mul lo s32 %rev, %c4 : i32
  %rs = ptx.add s32 %dyn, %roff : i32
  %v = ptx.ld shared b32 [%rs] : i32 -> i32
  %cnt = ptx.addressof @counter : i64
  %one = ptx.constant 1 : i32
  %old = ptx.atom global add u32 [%cnt], %one : i64, i32 -> i32
  %bid = ptx.sreg ctaid.x : i32
  %c32 = ptx.constant 32 : i32
  %slot = ptx.mad lo u32 %bid, %c32, %tid : i32
  %w = ptx.mul wide u32 %slot, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %w : i64
  ptx.st global b32 [%p], %v : i64, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(3 * 32 * 4);
  LaunchResult r = in.launch("k", {3}, {32}, {out}, /*dynamicShared=*/128);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> v(3 * 32);
  in.read(out, v);
  for (uint32_t i = 0; i < 3 * 32; ++i)
    EXPECT_EQ(v[i], 31 - i % 32);
  std::optional<uint64_t> counter = in.getVariableAddress("counter");
  ASSERT_TRUE(counter);
  uint32_t count = 0;
  in.read(*counter, &count, 4);
  EXPECT_EQ(count, 96u);
  // Without the dynamic shared memory the same kernel is out of bounds.
  r = in.launch("k", {1}, {32}, {out}, /*dynamicShared=*/64);
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message().find("out-of-bounds shared store"), std::string::npos)
      << r.message();
}

} // namespace

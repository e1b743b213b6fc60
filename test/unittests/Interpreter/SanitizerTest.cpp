//===- SanitizerTest.cpp - planted bugs and the errors they raise ---------===//
//
// Each test plants one bug in an otherwise correct kernel, checks the error
// names the failure, the op's location, the block, the thread and the
// address, and checks the fixed kernel runs clean.
//
//===----------------------------------------------------------------------===//

#include "TestKernels.h"
#include "TestUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class SanitizerTest : public InterpreterTest {};

TEST_F(SanitizerTest, OffByOneStoreIsOutOfBounds) {
  const uint32_t n = 1000;
  auto run = [&](llvm::StringRef cmp, bool readsFirst) {
    std::string body = test::vectorAdd(cmp.str());
    Interpreter &in = load(body);
    uint64_t a = in.allocGlobal(n * 4), b = in.allocGlobal(n * 4),
             c = in.allocGlobal(n * 4);
    if (!readsFirst) {
      // Inputs one element longer: only the store overruns.
      a = in.allocGlobal((n + 1) * 4);
      b = in.allocGlobal((n + 1) * 4);
    }
    return std::make_pair(body, in.launch("vadd", {4}, {256}, {a, b, c, n}));
  };
  auto [good, ok] = run("ge", true);
  EXPECT_TRUE(ok.success) << ok.message();

  auto [body, r] = run("gt", false);
  ASSERT_FALSE(r.success);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_HAS(r, "out-of-bounds global store of 4 bytes");
  EXPECT_HAS(r, "0 bytes past the end of the 4000-byte allocation");
  EXPECT_HAS(r, where(body, "ptx.st global"));
  EXPECT_HAS(r, "kernel 'vadd'");
  // Thread 1000 = block 3, thread 232.
  EXPECT_HAS(r, "block (3,0,0)");
  EXPECT_HAS(r, "thread (232,0,0)");
}

TEST_F(SanitizerTest, OffByOneLoadIsOutOfBounds) {
  std::string body = test::vectorAdd("gt");
  Interpreter &in = load(body);
  uint64_t a = in.allocGlobal(4000), b = in.allocGlobal(4000),
           c = in.allocGlobal(4004);
  LaunchResult r = in.launch("vadd", {4}, {256}, {a, b, c, 1000});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "out-of-bounds global load of 4 bytes at address");
  EXPECT_HAS(r, where(body, "ptx.ld global f32 [%pa]"));
}

TEST_F(SanitizerTest, MisalignedLoad) {
  const char *body = R"(
ptx.entry @k(%p: i64, %off: i64) {
  %q = ptx.add s64 %p, %off : i64
  %v:2 = ptx.ld global f32 [%q] : i64 -> f32, f32
  ptx.st global f32 [%p], %v#0 : i64, f32
  ptx.ret
})";
  Interpreter &in = load(body);
  uint64_t p = in.allocGlobal(64);
  EXPECT_TRUE(in.launch("k", {1}, {1}, {p, 8}).success);
  // A v2.f32 load needs 8-byte alignment; p + 4 only has 4.
  LaunchResult r = in.launch("k", {1}, {1}, {p, 4});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "misaligned global load of 8 bytes at address " +
                    llvm::utohexstr(p + 4, /*LowerCase=*/true)
                        .insert(0, "0x"));
  EXPECT_HAS(r, "not a multiple of 8");
  EXPECT_HAS(r, where(body, "ptx.ld global"));
}

// Every thread writes s[tid]; then thread t reads s[t % 32]: threads of the
// second warp read what the first warp wrote.
const char *kNeighbour = R"(
ptx.var shared @s : b32 [64] align 4
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %base = ptx.addressof @s : i32
  %c4 = ptx.constant 4 : i32
  %c31 = ptx.constant 31 : i32
  %off = ptx.mul lo s32 %tid, %c4 : i32
  %mine = ptx.add s32 %base, %off : i32
  ptx.st shared b32 [%mine], %tid : i32, i32
  BARRIER
  %j = ptx.and b32 %tid, %c31 : i32
  %joff = ptx.mul lo s32 %j, %c4 : i32
  %theirs = ptx.add s32 %base, %joff : i32
  %v = ptx.ld shared b32 [%theirs] : i32 -> i32
  %w = ptx.mul wide u32 %tid, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %w : i64
  ptx.st global b32 [%p], %v : i64, i32
  ptx.ret
})";

TEST_F(SanitizerTest, MissingBarrierIsARace) {
  {
    Interpreter &in = load(replace(kNeighbour, "BARRIER", "ptx.bar_sync 0"));
    uint64_t out = in.allocGlobal(64 * 4);
    LaunchResult r = in.launch("k", {1}, {64}, {out});
    ASSERT_TRUE(r.success) << r.message();
    std::vector<uint32_t> v(64);
    in.read(out, v);
    for (uint32_t t = 0; t < 64; ++t)
      EXPECT_EQ(v[t], t % 32);
  }
  std::string body = replace(kNeighbour, "BARRIER", "");
  Interpreter &in = load(body);
  LaunchResult r = in.launch("k", {2}, {64}, {in.allocGlobal(256)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "shared-memory race");
  EXPECT_HAS(r, "reads a value written by thread (0,0,0)");
  EXPECT_HAS(r, "thread (32,0,0)");
  EXPECT_HAS(r, "shared address 0x0");
  EXPECT_HAS(r, where(body, "ptx.ld shared"));
}

TEST_F(SanitizerTest, MissingSecondBarrierInTiledMatmulIsAWriteAfterRead) {
  // Without the barrier after the inner loop, a fast thread overwrites its
  // tile element while slower threads still read the previous tile.
  std::string body = kTiledMatmul;
  size_t second = body.find("ptx.bar_sync 0", body.find("^next"));
  body.replace(second, strlen("ptx.bar_sync 0"), "");
  Interpreter &in = load(body);
  const uint32_t n = 32;
  uint64_t a = in.allocGlobal(n * n * 4), b = in.allocGlobal(n * n * 4),
           c = in.allocGlobal(n * n * 4);
  LaunchResult r = in.launch("matmul", {2, 2}, {16, 16}, {a, b, c, n});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "shared-memory race: store");
  EXPECT_HAS(r, "overwrites a value");
  // Sanity: the intact kernel is clean.
  Interpreter &ok = load(kTiledMatmul);
  a = ok.allocGlobal(n * n * 4);
  b = ok.allocGlobal(n * n * 4);
  c = ok.allocGlobal(n * n * 4);
  LaunchResult good = ok.launch("matmul", {2, 2}, {16, 16}, {a, b, c, n});
  EXPECT_TRUE(good.success) << good.message();
}

TEST_F(SanitizerTest, AtomicsAreNotRaces) {
  Interpreter &in = load(R"(
ptx.var shared @count : u32 [1] align 4
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %s = ptx.addressof @count : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.st if %first shared b32 [%s], %zero : i32, i32
  ptx.bar_sync 0
  %old = ptx.atom shared add u32 [%s], %one : i32, i32 -> i32
  ptx.bar_sync 0
  %v = ptx.ld shared b32 [%s] : i32 -> i32
  ptx.st if %first global b32 [%out], %v : i64, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(4);
  LaunchResult r = in.launch("k", {1}, {256}, {out});
  ASSERT_TRUE(r.success) << r.message();
  uint32_t v = 0;
  in.read(out, &v, 4);
  EXPECT_EQ(v, 256u);
}

// Thread 0 of each block publishes a value in global memory (its block's
// slot) that every thread of the block then reads: BARRIER orders them.
const char *kPublish = R"(
ptx.entry @k(%slots: i64, %out: i64) {
  %tid = ptx.sreg tid.x : i32
  %bid = ptx.sreg ctaid.x : i32
  %ntid = ptx.sreg ntid.x : i32
  %c4 = ptx.constant 4 : i32
  %zero = ptx.constant 0 : i32
  %boff = ptx.mul wide u32 %bid, %c4 : (i32, i32) -> i64
  %slot = ptx.add s64 %slots, %boff : i64
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.st if %first global b32 [%slot], %bid : i64, i32
  BARRIER
  %v = ptx.ld global b32 [%slot] : i64 -> i32
  %i = ptx.mad lo u32 %bid, %ntid, %tid : i32
  %w = ptx.mul wide u32 %i, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %w : i64
  ptx.st global b32 [%p], %v : i64, i32
  ptx.ret
})";

TEST_F(SanitizerTest, GlobalMemoryRaces) {
  {
    Interpreter &in = load(replace(kPublish, "BARRIER", "ptx.bar_sync 0"));
    uint64_t slots = in.allocGlobal(8), out = in.allocGlobal(2 * 64 * 4);
    LaunchResult r = in.launch("k", {2}, {64}, {slots, out});
    ASSERT_TRUE(r.success) << r.message();
    std::vector<uint32_t> v(128);
    in.read(out, v);
    for (uint32_t t = 0; t < 128; ++t)
      EXPECT_EQ(v[t], t / 64);
  }
  // Without the barrier the other threads read thread 0's store unordered
  // (compute-sanitizer's racecheck looks at shared memory only).
  std::string body = replace(kPublish, "BARRIER", "");
  {
    Interpreter &in = load(body);
    LaunchResult r = in.launch("k", {1}, {64},
                               {in.allocGlobal(8), in.allocGlobal(256)});
    ASSERT_FALSE(r.success);
    EXPECT_HAS(r, "global-memory race: load of address");
    EXPECT_HAS(r, "reads a value written by thread (0,0,0) with no barrier");
    EXPECT_HAS(r, where(body, "ptx.ld global"));
    // The check can be turned off.
    LaunchOptions opts;
    opts.checkGlobalRaces = false;
    EXPECT_TRUE(in.launch("k", {1}, {64},
                          {in.allocGlobal(8), in.allocGlobal(256)}, opts)
                    .success);
  }
  // Blocks are unordered: two of them writing one slot race.
  Interpreter &same = load(replace(
      replace(kPublish, "BARRIER", "ptx.bar_sync 0"),
      "%boff = ptx.mul wide u32 %bid, %c4 : (i32, i32) -> i64",
      "%boff = ptx.mul wide u32 %zero, %c4 : (i32, i32) -> i64"));
  LaunchResult r =
      same.launch("k", {2}, {64}, {same.allocGlobal(8), same.allocGlobal(512)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "global-memory race: store");
  EXPECT_HAS(r, "overwrites a value written by thread (0,0,0) of block "
                "(0,0,0) (the blocks of a launch are unordered)");
  // Reads too: the second block's threads read the slot the first wrote.
  std::string reader = replace(
      replace(replace(kPublish, "BARRIER", "ptx.bar_sync 0"),
              "%boff = ptx.mul wide u32 %bid, %c4 : (i32, i32) -> i64",
              "%boff = ptx.mul wide u32 %zero, %c4 : (i32, i32) -> i64"),
      "%first = ptx.setp eq u32 %tid, %zero : i32",
      "%first0 = ptx.setp eq u32 %tid, %zero : i32\n"
      "  %block0 = ptx.setp eq u32 %bid, %zero : i32\n"
      "  %first = ptx.and pred %first0, %block0 : i1");
  Interpreter &readers = load(reader);
  r = readers.launch("k", {2}, {64},
                     {readers.allocGlobal(8), readers.allocGlobal(512)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "global-memory race: load");
  EXPECT_HAS(r, "reads a value written by thread (0,0,0) of block (0,0,0)");
  // A kernel with a fence may order its blocks (fences and atomics are not
  // modelled): only the within-block check applies.
  Interpreter &fenced = load(replace(reader, "ptx.bar_sync 0",
                                     "ptx.bar_sync 0\n  ptx.membar gl"));
  r = fenced.launch("k", {2}, {64},
                    {fenced.allocGlobal(8), fenced.allocGlobal(512)});
  EXPECT_TRUE(r.success) << r.message();
}

// ld.global.nc takes the read-only path, which is not coherent with this
// launch's own stores: reading back what the kernel wrote that way is an
// error even for the thread that wrote it; a plain ld.global is not.
TEST_F(SanitizerTest, NonCoherentLoadOfWhatTheLaunchWrote) {
  const char *kernel = R"(
ptx.entry @k(%buf: i64) {
  %tid = ptx.sreg tid.x : i32
  %c4 = ptx.constant 4 : i32
  %w = ptx.mul wide u32 %tid, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %buf, %w : i64
  ptx.st global b32 [%p], %tid : i64, i32
  %v = ptx.ld global NC b32 [%p] : i64 -> i32
  ptx.st global b32 [%p], %v : i64, i32
  ptx.ret
})";
  Interpreter &plain = load(replace(kernel, "NC ", ""));
  LaunchResult r = plain.launch("k", {1}, {32}, {plain.allocGlobal(128)});
  EXPECT_TRUE(r.success) << r.message();
  Interpreter &nc = load(replace(kernel, "NC ", "nc "));
  r = nc.launch("k", {1}, {32}, {nc.allocGlobal(128)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "ld.global.nc of address");
  EXPECT_HAS(r, "which this launch wrote (thread (0,0,0))");
}

TEST_F(SanitizerTest, UninitialisedSharedRead) {
  const char *body = R"(
ptx.var shared @s : f32 [32] align 4
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %base = ptx.addressof @s : i32
  %c4 = ptx.constant 4 : i32
  %off = ptx.mul lo s32 %tid, %c4 : i32
  %p = ptx.add s32 %base, %off : i32
  %v = ptx.ld shared f32 [%p] : i32 -> f32
  ptx.st global f32 [%out], %v : i64, f32
  ptx.ret
})";
  Interpreter &in = load(body);
  LaunchResult r = in.launch("k", {1}, {32}, {in.allocGlobal(4)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "read of uninitialised shared memory");
  EXPECT_HAS(r, "thread (0,0,0)");
  EXPECT_HAS(r, where(body, "ptx.ld shared"));
  LaunchOptions opts;
  opts.checkUninitialized = false;
  EXPECT_TRUE(in.launch("k", {1}, {1}, {in.allocGlobal(4)}, opts).success);
}

// Each thread copies 16 bytes global → shared with cp.async, then reads the
// destination. WAIT is where the wait belongs.
const char *kCpAsync = R"(
ptx.var shared @s : b32 [128] align 16
ptx.entry @k(%src: i64, %out: i64) {
  %tid = ptx.sreg tid.x : i32
  %base = ptx.addressof @s : i32
  %c16 = ptx.constant 16 : i32
  %off = ptx.mul lo s32 %tid, %c16 : i32
  %dst = ptx.add s32 %base, %off : i32
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %g = ptx.add s64 %src, %goff : i64
  ptx.cp_async cg 16 [%dst], [%g] : i32
  ptx.cp_async_commit_group
  WAIT
  %v:4 = ptx.ld shared b32 [%dst] : i32 -> i32, i32, i32, i32
  %o = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%o], %v#0, %v#1, %v#2, %v#3 : i64, i32, i32, i32, i32
  ptx.ret
})";

TEST_F(SanitizerTest, CpAsyncDestinationReadBeforeWait) {
  std::vector<uint32_t> data(128);
  for (uint32_t i = 0; i < 128; ++i)
    data[i] = i * 7 + 1;
  {
    Interpreter &in = load(replace(kCpAsync, "WAIT", "ptx.cp_async_wait_group 0"), "sm_80");
    uint64_t src = in.allocGlobal(512), out = in.allocGlobal(512);
    in.write(src, data);
    LaunchResult r = in.launch("k", {1}, {32}, {src, out});
    ASSERT_TRUE(r.success) << r.message();
    std::vector<uint32_t> got(128);
    in.read(out, got);
    EXPECT_EQ(got, data);
  }
  std::string body = replace(kCpAsync, "WAIT", "");
  Interpreter &in = load(body, "sm_80");
  uint64_t src = in.allocGlobal(512), out = in.allocGlobal(512);
  LaunchResult r = in.launch("k", {1}, {32}, {src, out});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "reads the destination of a cp.async that has not been "
                "waited for");
  EXPECT_HAS(r, where(body, "ptx.ld shared"));
  EXPECT_HAS(r, "thread (0,0,0)");
}

TEST_F(SanitizerTest, CpAsyncWaitGroupRespectsCommitGroups) {
  // Two groups; wait_group 1 lands only the first, so reading the second
  // destination is still an error.
  const char *body = R"(
ptx.var shared @s : b32 [8] align 16
ptx.entry @k(%src: i64, %out: i64) {
  %base = ptx.addressof @s : i32
  %c16 = ptx.constant 16 : i32
  %second = ptx.add s32 %base, %c16 : i32
  %c16w = ptx.constant 16 : i64
  %src2 = ptx.add s64 %src, %c16w : i64
  ptx.cp_async ca 16 [%base], [%src] : i32
  ptx.cp_async_commit_group
  ptx.cp_async ca 16 [%second], [%src2] : i32
  ptx.cp_async_commit_group
  ptx.cp_async_wait_group 1
  %a = ptx.ld shared b32 [%base] : i32 -> i32
  ptx.st global b32 [%out], %a : i64, i32
  %b = ptx.ld shared b32 [%second] : i32 -> i32
  ptx.st global b32 [%out], %b : i64, i32
  ptx.ret
})";
  Interpreter &in = load(body, "sm_80");
  uint64_t src = in.allocGlobal(32), out = in.allocGlobal(4);
  LaunchResult r = in.launch("k", {1}, {1}, {src, out});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, where(body, "%b = ptx.ld shared"));
  EXPECT_HAS(r, "cp.async");
}

TEST_F(SanitizerTest, BarrierInThreadDependentBranch) {
  // Threads below 16 wait at the barrier; the others exit.
  const char *body = R"(
ptx.entry @k() {
  %tid = ptx.sreg tid.x : i32
  %c16 = ptx.constant 16 : i32
  %low = ptx.setp lt u32 %tid, %c16 : i32
  ptx.cond_bra %low, ^sync, ^exit
^sync:
  ptx.bar_sync 0
  ptx.bra ^exit
^exit:
  ptx.ret
})";
  Interpreter &in = load(body);
  LaunchResult r = in.launch("k", {1}, {64}, {});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "barrier divergence");
  EXPECT_HAS(r, "16 thread(s) wait at bar.sync 0 while 48 thread(s) of the "
                "block have exited");
  EXPECT_HAS(r, where(body, "ptx.bar_sync"));
  // With 16 threads the branch is uniform: fine.
  EXPECT_TRUE(in.launch("k", {1}, {16}, {}).success);
}

TEST_F(SanitizerTest, BarrierDivergenceAcrossDifferentBarrierOps) {
  const char *body = R"(
ptx.entry @k() {
  %tid = ptx.sreg tid.x : i32
  %c32 = ptx.constant 32 : i32
  %low = ptx.setp lt u32 %tid, %c32 : i32
  ptx.cond_bra %low, ^a, ^b
^a:
  ptx.bar_sync 0
  ptx.bra ^exit
^b:
  ptx.bar_sync 0
  ptx.bra ^exit
^exit:
  ptx.ret
})";
  Interpreter &in = load(body);
  LaunchResult r = in.launch("k", {1}, {64}, {});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "barrier divergence: threads wait at different barrier ops");
}

TEST_F(SanitizerTest, ErrorsDoNotStopLaterLaunches) {
  std::string body = test::vectorAdd("gt");
  Interpreter &in = load(body);
  uint64_t a = in.allocGlobal(400), b = in.allocGlobal(400),
           c = in.allocGlobal(400);
  EXPECT_FALSE(in.launch("vadd", {1}, {128}, {a, b, c, 100}).success);
  EXPECT_TRUE(in.launch("vadd", {1}, {128}, {a, b, c, 99}).success);
}

TEST_F(SanitizerTest, InstructionLimitStopsEndlessLoops) {
  Interpreter &in = load(R"(
ptx.entry @k() {
  ptx.bra ^loop
^loop:
  ptx.bra ^loop
})");
  LaunchOptions opts;
  opts.maxInstructions = 10000;
  LaunchResult r = in.launch("k", {1}, {32}, {}, opts);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "instruction limit");
}

} // namespace

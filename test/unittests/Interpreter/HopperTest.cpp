//===- HopperTest.cpp - mbarriers, TMA copies and wgmma in the interpreter ===//
//
// The sm_90 asynchronous path against CPU models: a TMA box lands swizzled
// (and zero-filled out of bounds) only once its mbarrier phase completes;
// wgmma reads K-major and MN-major swizzled tiles through descriptors and
// matches an f64 matmul in the accumulator layout; planted bugs (a read
// before the wait, a phase that never completes) are reported.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Dialect/PTX/IR/Swizzle.h"
#include "Kaio/Interpreter/FloatSemantics.h"
#include "Kaio/Runtime/TensorMapDesc.h"

#include <random>

using namespace kaio;
using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class HopperTest : public InterpreterTest {
protected:
  /// A tensor map over a row-major rows x cols f16 matrix at `address`.
  uint64_t makeMap(Interpreter &in, uint64_t address, uint64_t rows,
                   uint64_t cols, uint32_t boxRows, uint32_t boxCols,
                   rt::TensorMapSwizzle swizzle) {
    return makeTensorMap2D(in, address, rows, cols, boxRows, boxCols, swizzle);
  }
};

// One thread initialises the barrier and issues the box load; every thread
// waits for phase 0, then dumps 16 bytes of the tile. WAIT is the wait.
const char *kTmaLoad = R"(
ptx.var shared @tile : b8 [2048] align 1024
ptx.var shared @bar : b64 [1] align 8
ptx.entry @tma_load(%map: i64 {ptx.tensor_map}, %out: i64, %x: i32, %y: i32) {
  %tid = ptx.sreg tid.x : i32
  %t = ptx.addressof @tile : i32
  %b = ptx.addressof @bar : i32
  %zero = ptx.constant 0 : i32
  %count = ptx.constant INIT : i32
  %c16 = ptx.constant 16 : i32
  %bytes = ptx.constant 2048 : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.mbarrier_init if %first [%b], %count : i32
  ptx.fence_mbarrier_init
  ptx.bar_sync 0
  %s = ptx.mbarrier_arrive if %first expect_tx shared [%b], %bytes : i32 -> i64
  ptx.cp_async_bulk_tensor_load if %first 2d [%t], [%map, {%x, %y}], [%b] : i32, i32
  WAIT
^done:
  %off = ptx.mul lo s32 %tid, %c16 : i32
  %src = ptx.add s32 %t, %off : i32
  %v:4 = ptx.ld shared b32 [%src] : i32 -> i32, i32, i32, i32
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %o = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%o], %v#0, %v#1, %v#2, %v#3 : i64, i32, i32, i32, i32
  ptx.ret
})";

const char *kWaitLoop = R"(ptx.bra ^wait
^wait:
  %ready = ptx.mbarrier_try_wait parity [%b], %zero : i32, i32
  ptx.cond_bra %ready, ^done, ^wait)";

std::vector<uint16_t> iota16(size_t n) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint16_t(i * 3 + 1);
  return v;
}

TEST_F(HopperTest, TmaLoadSwizzlesAndZeroFillsTheBox) {
  // A 100 x 72 f16 matrix; the 16 x 64 box at (x=32, y=90) runs past both
  // edges: columns 72..95 and rows 100..105 read as zero.
  const uint64_t rows = 100, cols = 72;
  std::vector<uint16_t> host = iota16(rows * cols);
  std::string body = replace(replace(kTmaLoad, "WAIT", kWaitLoop), "INIT", "1");
  for (auto swizzle : {rt::TensorMapSwizzle::None, rt::TensorMapSwizzle::B32,
                       rt::TensorMapSwizzle::B64, rt::TensorMapSwizzle::B128}) {
    // The box row must fit the swizzle span: 64 columns for 128 bytes.
    const uint32_t boxCols = swizzle == rt::TensorMapSwizzle::B32   ? 16
                             : swizzle == rt::TensorMapSwizzle::B64 ? 32
                                                                   : 64;
    const uint32_t boxRows = 1024 / boxCols;
    Interpreter &in = load(body);
    uint64_t a = in.allocGlobal(host.size() * 2);
    in.write(a, host);
    uint64_t map = makeMap(in, a, rows, cols, boxRows, boxCols, swizzle);
    uint64_t out = in.allocGlobal(2048);
    const uint32_t x = 32, y = 90;
    LaunchResult r = in.launch("tma_load", {1}, {128}, {map, out, x, y});
    ASSERT_TRUE(r.success) << r.message();
    std::vector<uint16_t> got(1024);
    in.read(out, got);
    ptx::Swizzle sw{unsigned(swizzle), 4, 3};
    for (uint32_t i = 0; i < boxRows; ++i)
      for (uint32_t j = 0; j < boxCols; ++j) {
        uint64_t row = y + i, col = x + j;
        uint16_t want = row < rows && col < cols ? host[row * cols + col] : 0;
        uint64_t at = sw.apply((i * boxCols + j) * 2) / 2;
        ASSERT_EQ(got[at], want) << "swizzle " << unsigned(swizzle) << " box ("
                                 << i << ", " << j << ")";
      }
  }
}

TEST_F(HopperTest, ReadingATmaDestinationBeforeTheWaitIsReported) {
  std::string body =
      replace(replace(kTmaLoad, "WAIT", "ptx.bra ^done"), "INIT", "1");
  Interpreter &in = load(body);
  uint64_t a = in.allocGlobal(100 * 72 * 2);
  uint64_t map = makeMap(in, a, 100, 72, 16, 64, rt::TensorMapSwizzle::B128);
  LaunchResult r =
      in.launch("tma_load", {1}, {128}, {map, in.allocGlobal(2048), 0, 0});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "reads the destination of a bulk (TMA) copy before its "
                "mbarrier phase completed");
  EXPECT_HAS(r, where(body, "ptx.ld shared"));
}

TEST_F(HopperTest, APhaseThatCanNeverCompleteIsADeadlock) {
  // Two arrivals expected, one made: the waiters would spin forever.
  std::string body = replace(replace(kTmaLoad, "WAIT", kWaitLoop), "INIT", "2");
  Interpreter &in = load(body);
  uint64_t a = in.allocGlobal(100 * 72 * 2);
  uint64_t map = makeMap(in, a, 100, 72, 16, 64, rt::TensorMapSwizzle::B128);
  LaunchResult r =
      in.launch("tma_load", {1}, {128}, {map, in.allocGlobal(2048), 0, 0});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "mbarrier deadlock: 128 thread(s) wait");
  EXPECT_HAS(r, "1 of 2 arrivals and 0 transaction bytes missing");
  EXPECT_HAS(r, where(body, "ptx.mbarrier_try_wait"));
}

TEST_F(HopperTest, TensorMapOperandMustBeATensorMap) {
  std::string body = replace(replace(kTmaLoad, "WAIT", kWaitLoop), "INIT", "1");
  Interpreter &in = load(body);
  uint64_t junk = in.allocGlobal(rt::kTensorMapBytes, 64);
  LaunchResult r =
      in.launch("tma_load", {1}, {128}, {junk, in.allocGlobal(2048), 0, 0});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "are not a tensor map the interpreter knows");
}

TEST_F(HopperTest, TmaStoreWritesOnlyTheInBoundsPartOfTheBox) {
  // Load a box from `a`, store it to the same place in `b`: the in-bounds
  // part arrives, nothing outside the matrix is touched.
  std::string body = replace(replace(kTmaLoad, "WAIT", kWaitLoop), "INIT", "1");
  body = replace(body, "%out: i64,", "%out: i64 {ptx.tensor_map},");
  body = replace(body, R"(  %off = ptx.mul lo s32 %tid, %c16 : i32
  %src = ptx.add s32 %t, %off : i32
  %v:4 = ptx.ld shared b32 [%src] : i32 -> i32, i32, i32, i32
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %o = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%o], %v#0, %v#1, %v#2, %v#3 : i64, i32, i32, i32, i32
)",
                 R"(  ptx.fence_proxy_async shared
  ptx.cp_async_bulk_tensor_store if %first 2d [%out, {%x, %y}], [%t] : i32
  ptx.cp_async_bulk_commit_group if %first
  ptx.cp_async_bulk_wait_group if %first 0
)");
  const uint64_t rows = 100, cols = 72;
  std::vector<uint16_t> host = iota16(rows * cols);
  Interpreter &in = load(body);
  uint64_t a = in.allocGlobal(host.size() * 2), b = in.allocGlobal(host.size() * 2);
  in.write(a, host);
  uint64_t mapA = makeMap(in, a, rows, cols, 16, 64, rt::TensorMapSwizzle::B128);
  uint64_t mapB = makeMap(in, b, rows, cols, 16, 64, rt::TensorMapSwizzle::B128);
  const uint32_t x = 32, y = 90;
  LaunchResult r = in.launch("tma_load", {1}, {128}, {mapA, mapB, x, y});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint16_t> got(host.size());
  in.read(b, got);
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j) {
      bool inBox = i >= y && i < y + 16 && j >= x && j < x + 64;
      ASSERT_EQ(got[i * cols + j], inBox ? host[i * cols + j] : 0)
          << i << ", " << j;
    }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// A 128-thread kernel: TMA loads A (64 x 64, K-major) and B (N x 64 when
/// K-major, 64 x N when N-major) with 128-byte swizzle, four k16 wgmmas
/// accumulate A * B into f32, every thread stores its N/2 accumulators in
/// the fragment layout to out[tid * N/2 + e].
std::string wgmmaKernel(unsigned n, bool transB) {
  const unsigned accs = n / 2;
  std::string s = R"(
ptx.var shared @a : b8 [8192] align 1024
ptx.var shared @b : b8 [BBYTES] align 1024
ptx.var shared @bar : b64 [1] align 8
ptx.entry @wgmma(%ma: i64 {ptx.tensor_map}, %mb: i64 {ptx.tensor_map}, %out: i64) {
  %tid = ptx.sreg tid.x : i32
  %ta = ptx.addressof @a : i32
  %tb = ptx.addressof @b : i32
  %bar = ptx.addressof @bar : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %bytes = ptx.constant TOTAL : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.mbarrier_init if %first [%bar], %one : i32
  ptx.fence_mbarrier_init
  ptx.bar_sync 0
  %s = ptx.mbarrier_arrive if %first expect_tx shared [%bar], %bytes : i32 -> i64
  ptx.cp_async_bulk_tensor_load if %first 2d [%ta], [%ma, {%zero, %zero}], [%bar] : i32, i32
LOADB
  ptx.bra ^wait
^wait:
  %ready = ptx.mbarrier_try_wait parity [%bar], %zero : i32, i32
  ptx.cond_bra %ready, ^compute, ^wait
^compute:
  %fz = ptx.constant 0.000000e+00 : f32
  %a64 = ptx.cvt u64 u32 %ta : i32 -> i64
  %b64 = ptx.cvt u64 u32 %tb : i32 -> i64
  %c4 = ptx.constant 4 : i32
  %a4 = ptx.shr u64 %a64, %c4 : (i64, i32) -> i64
  %b4 = ptx.shr u64 %b64, %c4 : (i64, i32) -> i64
  %mode = ptx.constant 4611686018427387904 : i64
  %sbo = ptx.constant 274877906944 : i64
  %lbo = ptx.constant LBO : i64
  %ahi = ptx.or b64 %mode, %sbo : i64
  %bhi0 = ptx.or b64 %mode, BSBO : i64
  %bhi = ptx.or b64 %bhi0, %lbo : i64
  %da = ptx.or b64 %ahi, %a4 : i64
  %db = ptx.or b64 %bhi, %b4 : i64
  ptx.wgmma_fence
)";
  std::string zeros, prev;
  for (unsigned i = 0; i < accs; ++i)
    zeros += (i ? ", %fz" : "%fz");
  prev = zeros;
  for (unsigned k = 0; k < 4; ++k) {
    // A advances 32 bytes along its 128-byte rows; B 32 bytes (K-major) or
    // two 8-row groups of 128 bytes (N-major).
    std::string ks = std::to_string(k);
    s += "  %ka" + ks + " = ptx.constant " + std::to_string(2 * k) + " : i64\n";
    s += "  %kb" + ks + " = ptx.constant " +
         std::to_string(transB ? k * 2048 / 16 : 2 * k) + " : i64\n";
    s += "  %da" + ks + " = ptx.add s64 %da, %ka" + ks + " : i64\n";
    s += "  %db" + ks + " = ptx.add s64 %db, %kb" + ks + " : i64\n";
    s += "  %d" + ks + ":" + std::to_string(accs) +
         " = ptx.wgmma_mma_async m64n" + std::to_string(n) +
         "k16 f32 f16 f16 {" + prev + "}, %da" + ks + ", %db" + ks +
         (transB ? " trans_b" : "") + " : f32\n";
    prev.clear();
    for (unsigned i = 0; i < accs; ++i)
      prev += (i ? ", %d" : "%d") + ks + "#" + std::to_string(i);
  }
  s += "  ptx.wgmma_commit_group\n  ptx.wgmma_wait_group 0\n";
  s += "  %stride = ptx.constant " + std::to_string(accs * 4) + " : i32\n";
  s += "  %rowoff = ptx.mul wide u32 %tid, %stride : (i32, i32) -> i64\n";
  s += "  %o = ptx.add s64 %out, %rowoff : i64\n";
  for (unsigned i = 0; i < accs; ++i)
    s += "  ptx.st global f32 [%o + " + std::to_string(i * 4) + "], %d3#" +
         std::to_string(i) + " : i64, f32\n";
  s += "  ptx.ret\n}\n";
  const unsigned bBytes = n * 64 * 2;
  s = replace(s, "BBYTES", std::to_string(bBytes));
  s = replace(s, "TOTAL", std::to_string(8192 + bBytes));
  // K-major B: 8-row groups of 128-byte rows are 1024 bytes apart (SBO);
  // N-major B: 8 K-rows of 128 bytes (SBO 1024), 64-column atoms 8192
  // bytes apart (LBO, 64 K-rows of 128 bytes).
  s = replace(s, "LBO", std::to_string(transB ? (8192ull >> 4) << 16 : 0));
  s = replace(s, "BSBO", "%sbo");
  std::string loadB;
  if (!transB) {
    loadB = "  ptx.cp_async_bulk_tensor_load if %first 2d [%tb], [%mb, "
            "{%zero, %zero}], [%bar] : i32, i32";
  } else {
    // 64 x N row-major B in boxes of 64 columns.
    for (unsigned c = 0; c < n / 64; ++c) {
      std::string cs = std::to_string(c);
      loadB += "  %bx" + cs + " = ptx.constant " + std::to_string(64 * c) +
               " : i32\n  %bo" + cs + " = ptx.constant " +
               std::to_string(8192 * c) + " : i32\n  %bd" + cs +
               " = ptx.add s32 %tb, %bo" + cs +
               " : i32\n  ptx.cp_async_bulk_tensor_load if %first 2d [%bd" +
               cs + "], [%mb, {%bx" + cs + ", %zero}], [%bar] : i32, i32\n";
    }
  }
  return replace(s, "LOADB", loadB);
}

class WgmmaTest : public HopperTest,
                  public ::testing::WithParamInterface<std::tuple<unsigned, bool>> {};

TEST_P(WgmmaTest, SwizzledTilesThroughDescriptorsMatchF64) {
  const auto [n, transB] = GetParam();
  std::mt19937 rng(n + transB);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> a(64 * 64), b(64 * n);
  for (auto &v : a)
    v = interp::f32ToF16(dist(rng));
  for (auto &v : b)
    v = interp::f32ToF16(dist(rng));
  Interpreter &in = load(wgmmaKernel(n, transB), "sm_90a");
  uint64_t ga = in.allocGlobal(a.size() * 2), gb = in.allocGlobal(b.size() * 2);
  in.write(ga, a);
  in.write(gb, b);
  // B is n x 64 (K contiguous) when K-major, 64 x n when N-major.
  uint64_t ma = makeMap(in, ga, 64, 64, 64, 64, rt::TensorMapSwizzle::B128);
  uint64_t mb = transB ? makeMap(in, gb, 64, n, 64, 64, rt::TensorMapSwizzle::B128)
                       : makeMap(in, gb, n, 64, n, 64, rt::TensorMapSwizzle::B128);
  uint64_t out = in.allocGlobal(128 * n / 2 * 4);
  LaunchResult r = in.launch("wgmma", {1}, {128}, {ma, mb, out});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> got(128 * n / 2);
  in.read(out, got);
  auto bAt = [&](unsigned k, unsigned c) {
    return interp::f16ToF32(transB ? b[k * n + c] : b[c * 64 + k]);
  };
  for (unsigned t = 0; t < 128; ++t)
    for (unsigned e = 0; e < n / 2; ++e) {
      unsigned row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((e / 2) % 2);
      unsigned col = 8 * (e / 4) + 2 * (t % 4) + (e % 2);
      double want = 0;
      for (unsigned k = 0; k < 64; ++k)
        want += double(interp::f16ToF32(a[row * 64 + k])) * bAt(k, col);
      ASSERT_NEAR(got[t * n / 2 + e], want, 1e-4)
          << "thread " << t << " element " << e << " (" << row << ", " << col
          << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, WgmmaTest,
                         ::testing::Values(std::make_tuple(64u, false),
                                           std::make_tuple(128u, false),
                                           std::make_tuple(64u, true),
                                           std::make_tuple(128u, true)));

TEST_F(HopperTest, WgmmaNeedsWholeWarpgroups) {
  Interpreter &in = load(wgmmaKernel(64, false), "sm_90a");
  uint64_t g = in.allocGlobal(64 * 64 * 2);
  uint64_t ma = makeMap(in, g, 64, 64, 64, 64, rt::TensorMapSwizzle::B128);
  LaunchResult r = in.launch("wgmma", {1}, {96}, {ma, ma, in.allocGlobal(96 * 128)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "wgmma.mma_async needs whole warpgroups");
}

TEST_F(HopperTest, OverwritingTilesAnInFlightWgmmaReadsIsReported) {
  // Thread 0 stores into A's tile after committing the wgmmas but before
  // waiting for them.
  std::string body = replace(wgmmaKernel(64, false),
                             "  ptx.wgmma_commit_group\n",
                             "  ptx.wgmma_commit_group\n"
                             "  ptx.st if %first shared b32 [%ta], %zero : i32, i32\n");
  Interpreter &in = load(body, "sm_90a");
  uint64_t g = in.allocGlobal(64 * 64 * 2);
  uint64_t ma = makeMap(in, g, 64, 64, 64, 64, rt::TensorMapSwizzle::B128);
  LaunchResult r =
      in.launch("wgmma", {1}, {128}, {ma, ma, in.allocGlobal(128 * 128)});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "store overwrites shared memory [");
  EXPECT_HAS(r, "still reads: wait for its group (wgmma.wait_group)");
  EXPECT_HAS(r, where(body, "ptx.st if %first shared"));
}

TEST_F(HopperTest, ElectSyncPicksTheLowestParticipatingLane) {
  // Lanes 0-2 are predicated off: lane 3 leads, and everyone who ran
  // learns its id.
  Interpreter &in = load(R"(
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c3 = ptx.constant 3 : i32
  %hi = ptx.setp ge u32 %tid, %c3 : i32
  %m = ptx.constant 4294967295 : i32
  %lane, %is = ptx.elect_sync if %hi %m
  %c1 = ptx.constant 1 : i32
  %c0 = ptx.constant 0 : i32
  %v = ptx.selp b32 %c1, %c0, %is : i32
  %c8 = ptx.constant 8 : i32
  %off = ptx.mul wide u32 %tid, %c8 : (i32, i32) -> i64
  %o = ptx.add s64 %out, %off : i64
  ptx.st global b32 [%o], %lane : i64, i32
  ptx.st global b32 [%o + 4], %v : i64, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(32 * 8);
  LaunchResult r = in.launch("k", {1}, {32}, {out});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(64);
  in.read(out, got);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(got[2 * l], l < 3 ? 0u : 3u) << l;
    EXPECT_EQ(got[2 * l + 1], l == 3 ? 1u : 0u) << l;
  }
}

} // namespace

//===- ProfileTest.cpp - the interpreter's profile on planted kernels -----===//
//
// Kernels whose counts are known exactly: shared accesses at known strides
// (the stride-1/2/32/33 numbers are what Nsight Compute measured on an H100,
// 2026-11-22), 8- and 16-byte shared accesses, ldmatrix on padded and
// unpadded tiles, coalesced/strided/scattered global loads, a divergent
// branch, an mma, and a kernel that faults.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "Kaio/Interpreter/Profile.h"
#include "llvm/Support/JSON.h"

using namespace kaio;
using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class ProfileTest : public InterpreterTest {
protected:
  /// Runs kernel `k` of `body` with `args` and returns its profile.
  const KernelProfile &run(llvm::StringRef body, Dim3 grid, Dim3 block,
                           llvm::ArrayRef<uint64_t> args = {},
                           bool expectSuccess = true) {
    Interpreter &in = load(body);
    if (args.empty()) {
      out = in.allocGlobal(1 << 16);
      ownArgs = {out};
      args = ownArgs;
    }
    LaunchOptions opts;
    opts.profile = &profile;
    result = in.launch("k", grid, block, args, opts);
    EXPECT_EQ(result.success, expectSuccess) << result.message();
    const KernelProfile *k = profile.find("k");
    EXPECT_TRUE(k);
    static const KernelProfile empty;
    return k ? *k : empty;
  }

  /// The location whose mix has `cls`.
  static const LocationProfile *locationWith(const KernelProfile &k,
                                             llvm::StringRef cls) {
    for (const LocationProfile &l : k.locations)
      if (l.mix.count(cls.str()))
        return &l;
    return nullptr;
  }

  Profile profile;
  LaunchResult result;
  uint64_t out = 0;
  std::vector<uint64_t> ownArgs;
};

//===----------------------------------------------------------------------===//
// Shared memory: the ncu ground truth
//===----------------------------------------------------------------------===//

struct StrideCase {
  uint32_t stride;
  uint64_t wavefronts, conflicts;
};

class SharedStrideTest : public ProfileTest,
                         public ::testing::WithParamInterface<StrideCase> {};

// One warp stores f32 to shared index lane * stride, then loads it back.
// Nsight Compute on an H100 (2026-11-22), per shared store and per shared
// load: wavefronts 1, 2, 32, 1 and bank conflicts 0, 1, 31, 0 for strides
// 1, 2, 32 and 33.
TEST_P(SharedStrideTest, MatchesNsightCompute) {
  StrideCase c = GetParam();
  std::string body = R"(
ptx.var shared @s : b32 [1056] align 16
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %stride = ptx.constant )" + std::to_string(c.stride * 4) +
                     R"( : i32
  %base = ptx.addressof @s : i32
  %off = ptx.mul lo u32 %tid, %stride : i32
  %p = ptx.add s32 %base, %off : i32
  ptx.st shared b32 [%p], %tid : i32, i32
  %v = ptx.ld shared b32 [%p] : i32 -> i32
  ptx.ret
})";
  const KernelProfile &k = run(body, {1}, {32});
  ASSERT_EQ(k.shared.count("st.shared"), 1u);
  ASSERT_EQ(k.shared.count("ld.shared"), 1u);
  for (const char *kind : {"st.shared", "ld.shared"}) {
    const SharedStats &s = k.shared.at(kind);
    EXPECT_EQ(s.requests, 1u) << kind;
    EXPECT_EQ(s.wavefronts, c.wavefronts) << kind;
    EXPECT_EQ(s.idealWavefronts, 1u) << kind;
    EXPECT_EQ(s.bankConflicts(), c.conflicts) << kind;
  }
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 2 * c.conflicts);
  EXPECT_EQ(k.mix.at("st.shared.4B"), 1u);
  EXPECT_EQ(k.mix.at("ld.shared.4B"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Strides, SharedStrideTest,
                         ::testing::Values(StrideCase{1, 1, 0},
                                           StrideCase{2, 2, 1},
                                           StrideCase{32, 32, 31},
                                           StrideCase{33, 1, 0}));

TEST_F(ProfileTest, WideSharedAccessesRunInPhases) {
  // v4 (16 B) at lane*16: 4 phases of 8 lanes, each 128 contiguous bytes.
  // v4 at lane*32: a phase's 8 lanes cover 256 bytes, two words per bank:
  // 2 wavefronts per phase, 8 in all against the ideal 4.
  // v2 (8 B) at lane*8: 2 phases of 16 lanes, conflict-free.
  // One lane reading the same word as all others (broadcast): 1 wavefront.
  std::string body = R"(
ptx.var shared @s : b32 [2048] align 16
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c8 = ptx.constant 8 : i32
  %c16 = ptx.constant 16 : i32
  %c32 = ptx.constant 32 : i32
  %base = ptx.addressof @s : i32
  %o16 = ptx.mul lo u32 %tid, %c16 : i32
  %p16 = ptx.add s32 %base, %o16 : i32
  ptx.st shared b32 [%p16], %tid, %tid, %tid, %tid : i32, i32, i32, i32, i32
  %o32 = ptx.mul lo u32 %tid, %c32 : i32
  %p32 = ptx.add s32 %base, %o32 : i32
  %a:4 = ptx.ld shared b32 [%p32] : i32 -> i32, i32, i32, i32
  %o8 = ptx.mul lo u32 %tid, %c8 : i32
  %p8 = ptx.add s32 %base, %o8 : i32
  %b:2 = ptx.ld shared b32 [%p8] : i32 -> i32, i32
  %w = ptx.ld shared b32 [%base] : i32 -> i32
  ptx.ret
})";
  LaunchOptions opts;
  const KernelProfile &k = [&]() -> const KernelProfile & {
    Interpreter &in = load(body);
    opts.profile = &profile;
    opts.checkUninitialized = false;
    opts.checkRaces = false; // lanes read each other's stores
    result = in.launch("k", {1}, {32}, {0}, opts);
    EXPECT_TRUE(result.success) << result.message();
    return *profile.find("k");
  }();
  const SharedStats &st = k.shared.at("st.shared");
  EXPECT_EQ(st.requests, 1u);
  EXPECT_EQ(st.wavefronts, 4u);
  EXPECT_EQ(st.bankConflicts(), 0u);
  const SharedStats &ld = k.shared.at("ld.shared");
  EXPECT_EQ(ld.requests, 3u);
  // 8 (v4, stride 32 B) + 2 (v2) + 1 (broadcast).
  EXPECT_EQ(ld.wavefronts, 8u + 2u + 1u);
  EXPECT_EQ(ld.idealWavefronts, 4u + 2u + 1u);
  EXPECT_EQ(ld.bankConflicts(), 4u);
  EXPECT_EQ(k.mix.at("st.shared.16B"), 1u);
  EXPECT_EQ(k.mix.at("ld.shared.16B"), 1u);
  EXPECT_EQ(k.mix.at("ld.shared.8B"), 1u);
  EXPECT_EQ(k.mix.at("ld.shared.4B"), 1u);
}

/// ldmatrix.x4 of the A fragment of a 16x16 block of a 16x64 f16 tile whose
/// rows are `rowBytes` apart: lane l gives row l % 16, column 8 * (l / 16).
std::string ldmatrixKernel(unsigned rowBytes) {
  return R"(
ptx.var shared @s : b16 [1280] align 16
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c15 = ptx.constant 15 : i32
  %c4 = ptx.constant 4 : i32
  %c16 = ptx.constant 16 : i32
  %pitch = ptx.constant )" +
         std::to_string(rowBytes) + R"( : i32
  %base = ptx.addressof @s : i32
  %row = ptx.and b32 %tid, %c15 : i32
  %half = ptx.shr u32 %tid, %c4 : i32
  %colb = ptx.mul lo u32 %half, %c16 : i32
  %roff = ptx.mad lo u32 %row, %pitch, %colb : i32
  %p = ptx.add s32 %base, %roff : i32
  %f:4 = ptx.ldmatrix [%p] : i32 -> i32, i32, i32, i32
  ptx.ret
})";
}

TEST_F(ProfileTest, LdmatrixOnAnUnpaddedTileConflicts) {
  // Rows 128 bytes apart all start in bank 0: the 8 rows of each matrix
  // take 8 wavefronts (32 for .x4, ideal 4).
  Interpreter &in = load(ldmatrixKernel(128));
  LaunchOptions opts;
  opts.profile = &profile;
  opts.checkUninitialized = false;
  ASSERT_TRUE(in.launch("k", {1}, {32}, {0}, opts).success);
  const KernelProfile &k = *profile.find("k");
  const SharedStats &s = k.shared.at("ldmatrix");
  EXPECT_EQ(s.requests, 1u);
  EXPECT_EQ(s.wavefronts, 32u);
  EXPECT_EQ(s.idealWavefronts, 4u);
  EXPECT_EQ(s.bankConflicts(), 28u);
  EXPECT_EQ(k.mix.at("ldmatrix.x4"), 1u);
  const LocationProfile *l = locationWith(k, "ldmatrix.x4");
  ASSERT_TRUE(l);
  // Line 16 of the parsed text (the module line and a blank line precede
  // the kernel source).
  EXPECT_EQ(l->location, "test.mlir:16");
  EXPECT_EQ(l->sharedTotal().bankConflicts(), 28u);
}

TEST_F(ProfileTest, LdmatrixOnAPaddedTileIsConflictFree) {
  // Padding each 64-element row by 8 halves (144 bytes) moves row r to
  // bank 4r: one wavefront per matrix.
  Interpreter &in = load(ldmatrixKernel(144));
  LaunchOptions opts;
  opts.profile = &profile;
  opts.checkUninitialized = false;
  ASSERT_TRUE(in.launch("k", {1}, {32}, {0}, opts).success);
  const SharedStats &s = profile.find("k")->shared.at("ldmatrix");
  EXPECT_EQ(s.wavefronts, 4u);
  EXPECT_EQ(s.bankConflicts(), 0u);
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

/// One warp loads f32 at byte offset (lane * mul % mod) * scale + bias.
std::string globalKernel(unsigned mul, unsigned mod, unsigned scale,
                         unsigned bias) {
  return R"(
ptx.entry @k(%in: i64) {
  %tid = ptx.sreg tid.x : i32
  %mul = ptx.constant )" +
         std::to_string(mul) + R"( : i32
  %mod = ptx.constant )" +
         std::to_string(mod) + R"( : i32
  %scale = ptx.constant )" +
         std::to_string(scale) + R"( : i32
  %bias = ptx.constant )" +
         std::to_string(bias) + R"( : i32
  %t = ptx.mul lo u32 %tid, %mul : i32
  %i = ptx.rem u32 %t, %mod : i32
  %o = ptx.mad lo u32 %i, %scale, %bias : i32
  %o64 = ptx.cvt u64 u32 %o : i32 -> i64
  %p = ptx.add s64 %in, %o64 : i64
  %v = ptx.ld global f32 [%p] : i64 -> f32
  ptx.ret
})";
}

struct GlobalCase {
  const char *name;
  unsigned mul, mod, scale, bias;
  uint64_t sectors, ideal;
};

class GlobalSectorTest : public ProfileTest,
                         public ::testing::WithParamInterface<GlobalCase> {};

TEST_P(GlobalSectorTest, SectorsPerRequest) {
  GlobalCase c = GetParam();
  Interpreter &in = load(globalKernel(c.mul, c.mod, c.scale, c.bias));
  uint64_t buf = in.allocGlobal(1 << 14);
  LaunchOptions opts;
  opts.profile = &profile;
  ASSERT_TRUE(in.launch("k", {1}, {32}, {buf}, opts).success);
  const KernelProfile &k = *profile.find("k");
  const GlobalStats &g = k.global.at("ld.global");
  EXPECT_EQ(g.requests, 1u);
  EXPECT_EQ(g.sectors, c.sectors);
  EXPECT_EQ(g.idealSectors, c.ideal);
  EXPECT_EQ(g.bytes, 128u);
  EXPECT_EQ(k.globalBytesRead, 128u);
  EXPECT_EQ(k.compulsoryBytesRead, 32 * c.sectors);
  EXPECT_EQ(k.mix.at("ld.global.4B"), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, GlobalSectorTest,
    ::testing::Values(
        // lane * 4: 128 contiguous bytes, 4 sectors.
        GlobalCase{"coalesced", 1, 64, 4, 0, 4, 4},
        // lane * 4 + 16: straddles 5 sectors.
        GlobalCase{"offset", 1, 64, 4, 16, 5, 4},
        // lane * 128: a sector per lane.
        GlobalCase{"strided", 1, 64, 128, 0, 32, 4},
        // (lane * 37 % 64) * 64: distinct, scattered sectors.
        GlobalCase{"scattered", 37, 64, 64, 0, 32, 4},
        // every lane the same word: one sector.
        GlobalCase{"broadcast", 0, 64, 4, 8, 1, 1}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Control flow, mix and FLOPs
//===----------------------------------------------------------------------===//

TEST_F(ProfileTest, DivergentBranch) {
  // Lanes 0-9 take the branch and run two more adds.
  std::string body = R"(
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c10 = ptx.constant 10 : i32
  %x = ptx.constant 1.0 : f32
  %p = ptx.setp lt u32 %tid, %c10 : i32
  ptx.cond_bra %p, ^then, ^join
^then:
  %a = ptx.add f32 %x, %x : f32
  %b = ptx.fma rn f32 %a, %a, %a : f32
  ptx.bra ^join
^join:
  ptx.ret
}
)";
  const KernelProfile &k = run(body, {1}, {32}, {0});
  EXPECT_EQ(k.divergentBranches, 1u);
  EXPECT_EQ(k.mix.at("branch"), 2u);
  EXPECT_EQ(k.mix.at("fp32"), 2u);
  // add: 1 FLOP, fma: 2, on 10 lanes.
  EXPECT_EQ(k.scalarFlops.at("fp32"), 30u);
  // sreg, 2 constants, setp, cond_bra on 32 lanes; add, fma, bra on 10;
  // the lanes meet again at ^join and return together.
  EXPECT_EQ(k.warpInstructions, 5u + 3u + 1u);
  EXPECT_EQ(k.threadInstructions, 5u * 32 + 3u * 10 + 32u);
}

TEST_F(ProfileTest, MmaFlopsAndMix) {
  // One m16n8k16 f16 mma per warp, two warps: 2 * 16*8*16 * 2 FLOPs.
  std::string body = R"(
ptx.entry @k(%out: i64) {
  %z = ptx.constant 0 : i32
  %f = ptx.constant 0.0 : f32
  %d:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%z, %z, %z, %z}, {%z, %z}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
})";
  const KernelProfile &k = run(body, {1}, {64}, {0});
  EXPECT_EQ(k.mix.at("mma.m16n8k16.f32.f16.f16.f32"), 2u);
  EXPECT_EQ(k.mmaFlops.at("f16"), 2u * 2 * 16 * 8 * 16);
  EXPECT_EQ(k.flops(), 8192u);
}

TEST_F(ProfileTest, LaunchesAccumulateAndJsonIsWellFormed) {
  Interpreter &in = load(globalKernel(1, 64, 4, 0));
  uint64_t buf = in.allocGlobal(1 << 12);
  LaunchOptions opts;
  opts.profile = &profile;
  ASSERT_TRUE(in.launch("k", {2}, {32}, {buf}, opts).success);
  ASSERT_TRUE(in.launch("k", {3}, {32}, {buf}, opts).success);
  const KernelProfile &k = *profile.find("k");
  EXPECT_EQ(k.launches, 2u);
  EXPECT_EQ(k.grid[0], 3u);
  EXPECT_EQ(k.global.at("ld.global").requests, 5u);
  // Each launch reads the same 128 bytes: compulsory traffic counts them
  // once per launch.
  EXPECT_EQ(k.compulsoryBytesRead, 2u * 128);

  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(profile.json());
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getInteger("version"), 1);
  const llvm::json::Array *kernels = root->getArray("kernels");
  ASSERT_TRUE(kernels && kernels->size() == 1);
  const llvm::json::Object *kj = (*kernels)[0].getAsObject();
  EXPECT_EQ(kj->getString("name"), "k");
  EXPECT_EQ(kj->getObject("global")->getObject("ld.global")->getInteger(
                "sectors"),
            20);
  EXPECT_EQ(kj->getObject("bytes")->getInteger("global_read"), 5 * 128);
  EXPECT_TRUE(kj->getArray("locations") && !kj->getArray("locations")->empty());

  std::string text = profile.str();
  EXPECT_NE(text.find("profile of kernel 'k' (2 launches, grid 3x1x1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hot spots"), std::string::npos) << text;
}

TEST_F(ProfileTest, AFaultingKernelKeepsItsErrorAndAPartialProfile) {
  // Lane 31 loads one word past the end of a 124-byte allocation.
  Interpreter &in = load(globalKernel(1, 64, 4, 0));
  uint64_t buf = in.allocGlobal(124);
  LaunchOptions opts;
  opts.profile = &profile;
  LaunchResult r = in.launch("k", {1}, {32}, {buf}, opts);
  ASSERT_FALSE(r.success);
  EXPECT_NE(r.message().find("out-of-bounds global load of 4 bytes"),
            std::string::npos)
      << r.message();
  const KernelProfile *k = profile.find("k");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->launches, 1u);
  EXPECT_EQ(k->mix.at("ld.global.4B"), 1u);
}

} // namespace

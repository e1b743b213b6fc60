//===- ResourceUsageTest.cpp - reading ptxas -v and scanning PTX ----------===//

#include "Kaio/Compiler/ResourceUsage.h"

#include "Kaio/Compiler/Compile.h"

#include <gtest/gtest.h>

using namespace kaio;

namespace {

// ptxas 13.0 on examples/tensor_core_matmul.mlir for sm_80 with `.maxnreg 32`
// added, so that it spills.
constexpr const char *kSpilling = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'tensor_core_matmul' for 'sm_80'
ptxas info    : Function properties for tensor_core_matmul
    144 bytes stack frame, 196 bytes spill stores, 204 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 144 bytes cumulative stack size, 5376 bytes smem, 388 bytes cmem[0]
ptxas info    : Compile time = 41.806 ms
)";

TEST(PtxasInfo, Spills) {
  std::vector<PtxasFunctionInfo> fns = parsePtxasInfo(kSpilling);
  ASSERT_EQ(fns.size(), 1u);
  const PtxasFunctionInfo &f = fns[0];
  EXPECT_EQ(f.name, "tensor_core_matmul");
  EXPECT_TRUE(f.isEntry);
  EXPECT_EQ(f.arch, "sm_80");
  EXPECT_EQ(f.registers, 32u);
  EXPECT_EQ(f.barriers, 1u);
  EXPECT_EQ(f.stackFrame, 144u);
  EXPECT_EQ(f.spillStores, 196u);
  EXPECT_EQ(f.spillLoads, 204u);
  EXPECT_EQ(f.cumulativeStack, 144u);
  EXPECT_EQ(f.sharedBytes, 5376u);
  EXPECT_EQ(f.localBytes, 0u);
}

TEST(PtxasInfo, SeveralFunctionsAndMissingFields) {
  // ptxas 13.0 on sm_90 leaves out cmem and zero sizes; a called function's
  // properties come after its caller's "Used" line.
  constexpr const char *log = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 64 bytes cumulative stack size
ptxas info    : Compile time = 1.994 ms
ptxas info    : Function properties for helper
    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function 'other' for 'sm_90'
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 55 registers, used 1 barriers, 5376 bytes smem
)";
  std::vector<PtxasFunctionInfo> fns = parsePtxasInfo(log);
  ASSERT_EQ(fns.size(), 3u);
  const PtxasFunctionInfo *k = findPtxasFunction(fns, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->registers, 8u);
  EXPECT_EQ(k->stackFrame, 64u);
  EXPECT_EQ(k->sharedBytes, 0u); // left out: zero
  const PtxasFunctionInfo *helper = findPtxasFunction(fns, "helper");
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->isEntry);
  EXPECT_FALSE(helper->registers);
  EXPECT_EQ(helper->stackFrame, 16u);
  EXPECT_EQ(helper->spillStores, 4u);
  EXPECT_EQ(helper->spillLoads, 8u);
  const PtxasFunctionInfo *other = findPtxasFunction(fns, "other");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->registers, 55u);
  EXPECT_EQ(other->sharedBytes, 5376u);
  EXPECT_EQ(findPtxasFunction(fns, "missing"), nullptr);
}

TEST(PtxasInfo, OlderFormats) {
  // Before barriers were reported, with lmem, "N+M bytes smem" (static plus
  // system shared memory) and a warning between the lines.
  constexpr const char *log =
      R"(ptxas info    : Compiling entry function '_Z4fillPf' for 'sm_52'
ptxas info    : Function properties for _Z4fillPf
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas warning : Registers are spilled to local memory in function '_Z4fillPf', 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, 16 bytes lmem, 8192+16 bytes smem, 380 bytes cmem[0], 4 bytes cmem[2]
)";
  std::vector<PtxasFunctionInfo> fns = parsePtxasInfo(log);
  ASSERT_EQ(fns.size(), 1u);
  const PtxasFunctionInfo &f = fns[0];
  EXPECT_EQ(f.registers, 40u);
  EXPECT_FALSE(f.barriers);
  EXPECT_EQ(f.localBytes, 16u);
  EXPECT_EQ(f.sharedBytes, 8208u);
  EXPECT_EQ(f.spillStores, 4u);
}

TEST(PtxasInfo, NothingToRead) {
  EXPECT_TRUE(parsePtxasInfo("").empty());
  EXPECT_TRUE(parsePtxasInfo("ptxas fatal   : Unresolved extern function 'f'\n"
                             "Used 12 registers\n")
                  .empty());
  // A "Used" line with unknown and malformed fields keeps what it can.
  std::vector<PtxasFunctionInfo> fns =
      parsePtxasInfo("ptxas info : Compiling entry function 'k' for 'sm_100'\n"
                     "ptxas info : Used x registers, used 3 barriers, "
                     "12 bytes shiny new memory\n");
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_FALSE(fns[0].registers);
  EXPECT_EQ(fns[0].barriers, 3u);
}

TEST(PtxasInfo, FromAssemblePTX) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not found (PATH, /usr/local/cuda/bin)";
  PTXResult ptx = compileFileToPTX(std::string(KAIO_SOURCE_DIR) +
                                       "/examples/tiled_matmul.mlir",
                                   CompileOptions());
  ASSERT_TRUE(ptx) << ptx.diagnostics;
  CubinResult cubin = assemblePTX(ptx.ptx, ptx.chip, "", {"-v"});
  ASSERT_TRUE(cubin) << cubin.diagnostics;
  std::vector<PtxasFunctionInfo> fns = parsePtxasInfo(cubin.diagnostics);
  const PtxasFunctionInfo *f = findPtxasFunction(fns, "tiled_matmul");
  ASSERT_NE(f, nullptr) << cubin.diagnostics;
  EXPECT_TRUE(f->isEntry);
  EXPECT_EQ(f->arch, ptx.chip);
  EXPECT_GT(f->registers.value_or(0), 0u);
  EXPECT_EQ(f->barriers, 1u);
  // Two 16 x 16 f32 tiles (and any padding the lowering adds), as the scan
  // of the PTX text finds too.
  EXPECT_GE(f->sharedBytes.value_or(0), 2u * 16 * 16 * 4);
  PTXModuleSummary scan = scanPTX(ptx.ptx);
  ASSERT_EQ(scan.entries.size(), 1u);
  EXPECT_EQ(f->sharedBytes, scan.entries[0].staticShared);
}

TEST(ScanPTX, EntriesBlocksAndShared) {
  constexpr const char *ptx = R"(
// a comment with .entry fake( and .shared .b8 nope[99];
.version 8.0
.target sm_90a, debug
.address_size 64
.shared .align 16 .b8 tile[3072];
.shared .align 4 .f32 unused[64];
.extern .shared .align 16 .b8 dyn[];
.shared .v4 .f32 quads[8], pair[2][3];

.func (.param .b32 r) helper(.param .b32 a) {
  .shared .u16 scratch[10];
  mov.u32 %r1, quads;
  ret;
}
.func helper2();

.visible .entry first(.param .u64 p) .reqntid 128, 2
{
  mov.u32 %r1, tile;   /* .shared .b8 block comment[5]; */
  call.uni helper, ();
  @%p1 bra $L__end;
$L__end:
  ret;
}
.visible .entry second() .maxntid 256
{
  .shared .b64 own[4];
  ld.shared.u32 %r1, [dyn+4];
  mov.u32 %r2, pair;
  ret;
}
.entry third { ret; }
)";
  PTXModuleSummary m = scanPTX(ptx);
  EXPECT_EQ(m.target, "sm_90a");
  ASSERT_EQ(m.entries.size(), 3u);

  const PTXEntrySummary &first = m.entries[0];
  EXPECT_EQ(first.name, "first");
  EXPECT_EQ(first.reqntid, (std::vector<unsigned>{128, 2}));
  EXPECT_TRUE(first.maxntid.empty());
  // tile (3072) + through helper: scratch (20) and quads (8 x 16).
  EXPECT_EQ(first.staticShared, 3072u + 20 + 128);
  EXPECT_FALSE(first.usesDynamicShared);

  const PTXEntrySummary &second = m.entries[1];
  EXPECT_EQ(second.maxntid, (std::vector<unsigned>{256}));
  // own (32) + pair (2 x 3 x 16).
  EXPECT_EQ(second.staticShared, 32u + 96);
  EXPECT_TRUE(second.usesDynamicShared);

  EXPECT_EQ(m.entries[2].name, "third");
  EXPECT_EQ(m.entries[2].staticShared, 0u);
}

TEST(ScanPTX, UnknownSizesAndJunk) {
  PTXModuleSummary m = scanPTX(".target sm_80\n"
                               ".shared .e4m3x2 odd[4];\n"
                               ".entry k() { mov.u32 %r1, odd; }\n");
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_FALSE(m.entries[0].staticShared);
  // Truncated or meaningless text gives what it can, without failing.
  EXPECT_TRUE(scanPTX("").entries.empty());
  EXPECT_TRUE(scanPTX(".entry").entries.empty());
  EXPECT_EQ(scanPTX(".entry k(.param .u32 a) .reqntid { {").entries.size(), 1u);
  EXPECT_TRUE(scanPTX("garbage ( { ] ; .shared [").entries.empty());
}

} // namespace

//===- SignatureTest.cpp - kaio.kernel parsing and argument checks --------===//

#include "Kaio/Runtime/Signature.h"
#include "Kaio/Runtime/BlockBounds.h"
#include "Kaio/Runtime/Memory.h"

#include <gtest/gtest.h>

using namespace kaio::rt;

static KernelSignature parseOne(const char *text) {
  Expected<KernelSignature> sig = parseKernelSignature(text);
  EXPECT_TRUE(sig) << sig.error().message();
  return sig ? *sig : KernelSignature();
}

TEST(SignatureTest, ParsesThePrinterFormat) {
  KernelSignature sig = parseOne(
      "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)");
  EXPECT_EQ(sig.name, "vector_add");
  ASSERT_EQ(sig.params.size(), 4u);
  EXPECT_EQ(sig.params[0], ParamType::pointer(ScalarType::F32, true));
  EXPECT_EQ(sig.params[2], ParamType::pointer(ScalarType::F32, false));
  EXPECT_EQ(sig.params[3], ParamType::scalar(ScalarType::U32));
  EXPECT_EQ(sig.str(),
            "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)");
}

TEST(SignatureTest, ZeroParamsSpacesAndAllTypes) {
  EXPECT_TRUE(parseOne("noop()").params.empty());
  KernelSignature sig = parseOne(
      "  k ( u8, s8 ,u16,s16,u32,s32,u64,s64,f16,bf16,f32,f64, ptr< b8 >,"
      "ptr<const   bf16>) ");
  ASSERT_EQ(sig.params.size(), 14u);
  EXPECT_EQ(sig.params[9], ParamType::scalar(ScalarType::BF16));
  EXPECT_EQ(sig.params[12], ParamType::pointer(ScalarType::B8));
  EXPECT_EQ(sig.params[13], ParamType::pointer(ScalarType::BF16, true));
}

TEST(SignatureTest, DynamicSharedMemoryRequirement) {
  KernelSignature sig = parseOne("gemm(ptr<const f16>,u32) smem=98304");
  EXPECT_EQ(sig.dynamicSharedBytes, 98304u);
  ASSERT_EQ(sig.params.size(), 2u);
  EXPECT_EQ(sig.str(), "gemm(ptr<const f16>,u32) smem=98304");
  EXPECT_EQ(parseOne("k()").dynamicSharedBytes, 0u);
  for (const char *bad : {"k() smem=", "k() smem=0", "k() smem=12x",
                          "k() shared=4", "k() smem=99999999999"}) {
    Expected<KernelSignature> s = parseKernelSignature(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().message().find("expected ' smem=BYTES'"),
              std::string::npos)
        << s.error().message();
  }
}

TEST(SignatureTest, CompiledBlock) {
  KernelSignature sig = parseOne("k(u32) maxntid=256");
  EXPECT_TRUE(sig.hasBlock());
  EXPECT_EQ(sig.blockRank, 1u);
  EXPECT_FALSE(sig.exactBlock);
  EXPECT_EQ(sig.block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(sig.str(), "k(u32) maxntid=256");
  KernelSignature req = parseOne("k() reqntid=16x8 smem=8 cluster=2");
  EXPECT_TRUE(req.exactBlock);
  EXPECT_EQ(req.blockRank, 2u);
  EXPECT_EQ(req.block, (std::array<unsigned, 3>{16, 8, 1}));
  EXPECT_EQ(req.str(), "k() smem=8 cluster=2x1x1 reqntid=16x8");
  EXPECT_EQ(parseOne("k() maxntid=8x8x16").str(), "k() maxntid=8x8x16");
  EXPECT_FALSE(parseOne("k()").hasBlock());
  for (const char *bad :
       {"k() maxntid=", "k() maxntid=0", "k() reqntid=1025", "k() maxntid=2x",
        "k() maxntid=32x33", "k() reqntid=2x2x2x2", "k() maxntid=4 reqntid=4",
        "k() maxntid=4 maxntid=4", "k() maxntid=4y4"}) {
    Expected<KernelSignature> s = parseKernelSignature(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().message().find(
                  "expected ' maxntid=X[xY[xZ]]' or ' reqntid=X[xY[xZ]]' (one "
                  "of them once, at most 1024 threads)"),
              std::string::npos)
        << s.error().message();
  }
}

TEST(SignatureTest, LaunchedBlockAgainstTheCompiledOne) {
  using Dims = std::array<unsigned, 3>;
  // .maxntid: at most its threads, no more dimensions.
  EXPECT_EQ(describeBlockMismatch({256, 1, 1}, {256, 1, 1}, 1, false), "");
  EXPECT_EQ(describeBlockMismatch({96, 1, 1}, {256, 1, 1}, 1, false), "");
  EXPECT_EQ(describeBlockMismatch({512, 1, 1}, {256, 1, 1}, 1, false),
            "block 512 has more threads than the kernel's compiled block 256 "
            "(.maxntid)");
  EXPECT_EQ(describeBlockMismatch({32, 4, 1}, {256, 1, 1}, 1, false),
            "block 32x4 has 2 dimensions, more than the kernel's compiled "
            "block 256 (.maxntid)");
  EXPECT_EQ(describeBlockMismatch({8, 1, 2}, Dims{16, 16, 1}, 2, false),
            "block 8x1x2 has 3 dimensions, more than the kernel's compiled "
            "block 16x16 (.maxntid)");
  // Within the rank the shape is free: 32 x 8 threads fit 16 x 16.
  EXPECT_EQ(describeBlockMismatch({32, 8, 1}, {16, 16, 1}, 2, false), "");
  EXPECT_EQ(describeBlockMismatch({16, 1, 1}, {16, 16, 1}, 2, false), "");
  // .reqntid: exactly its shape.
  EXPECT_EQ(describeBlockMismatch({16, 8, 1}, {16, 8, 1}, 2, true), "");
  EXPECT_EQ(describeBlockMismatch({8, 16, 1}, {16, 8, 1}, 2, true),
            "block 8x16 differs from the kernel's compiled block 16x8 "
            "(.reqntid)");
  EXPECT_EQ(describeBlockMismatch({64, 1, 1}, {128, 1, 1}, 1, true),
            "block 64 differs from the kernel's compiled block 128 "
            "(.reqntid)");
  // Extents whose product overflows 64 bits: too many threads; a zero
  // extent is left to the launch's own checks (which name it).
  EXPECT_EQ(describeBlockMismatch({1u << 22, 1u << 21, 1u << 21}, {256, 4, 1},
                                  3, false),
            "block 4194304x2097152x2097152 has more threads than the "
            "kernel's compiled block 256x4x1 (.maxntid)");
  EXPECT_EQ(describeBlockMismatch({32, 0, 1}, {256, 1, 1}, 1, false), "");
  // No compiled block: anything goes (foreign PTX).
  EXPECT_EQ(describeBlockMismatch({32, 32, 1}, {1, 1, 1}, 0, false), "");
}

TEST(SignatureTest, CompiledClusterRequirement) {
  KernelSignature sig = parseOne("gemm(u32) smem=1024 cluster=2x1x1");
  EXPECT_EQ(sig.cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_TRUE(sig.hasCluster());
  EXPECT_EQ(sig.dynamicSharedBytes, 1024u);
  EXPECT_EQ(sig.str(), "gemm(u32) smem=1024 cluster=2x1x1");
  // Either order, fewer dimensions, no shared memory.
  EXPECT_EQ(parseOne("k() cluster=2x4 smem=8").cluster,
            (std::array<unsigned, 3>{2, 4, 1}));
  EXPECT_EQ(parseOne("k() cluster=16").str(), "k() cluster=16x1x1");
  EXPECT_FALSE(parseOne("k()").hasCluster());
  EXPECT_FALSE(parseOne("k() cluster=1x1x1").hasCluster());
  for (const char *bad :
       {"k() cluster=", "k() cluster=0", "k() cluster=2x", "k() cluster=x2",
        "k() cluster=17", "k() cluster=4x4x2", "k() cluster=2x1x1x1",
        "k() cluster=2 cluster=2", "k() cluster=2y1"}) {
    Expected<KernelSignature> s = parseKernelSignature(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().message().find(
                  "expected ' cluster=X[xY[xZ]]' (once, at most 16 blocks)"),
              std::string::npos)
        << s.error().message();
  }
  Expected<KernelSignature> s = parseKernelSignature("k() smem=8 smem=8");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("expected ' smem=BYTES' (once, BYTES > 0)"),
            std::string::npos)
      << s.error().message();
}

TEST(SignatureTest, RejectsMalformedSignatures) {
  auto errorOf = [](const char *text) {
    Expected<KernelSignature> sig = parseKernelSignature(text);
    EXPECT_FALSE(sig) << text;
    return sig ? std::string() : sig.error().message();
  };
  EXPECT_NE(errorOf("k(u32,f31)").find("parameter 2: unknown parameter type "
                                       "'f31'"),
            std::string::npos);
  EXPECT_NE(errorOf("k(b8)").find("unknown parameter type 'b8'"),
            std::string::npos);
  EXPECT_NE(errorOf("k u32").find("expected '('"), std::string::npos);
  EXPECT_NE(errorOf("k(u32").find("expected ')'"), std::string::npos);
  EXPECT_NE(errorOf("k(u32,)").find("empty parameter 2"), std::string::npos);
  EXPECT_NE(errorOf("(u32)").find("missing kernel name"), std::string::npos);
  EXPECT_NE(errorOf("k(ptr<f32)").find("expected '>'"), std::string::npos);
  EXPECT_NE(errorOf("k(ptr<i32>)").find("unknown pointer element type 'i32'"),
            std::string::npos);
  EXPECT_NE(errorOf("a-b(u32)").find("invalid kernel name"), std::string::npos);
}

TEST(SignatureTest, FindsCommentsAnywhereInPtx) {
  const char *ptx = "// Generated by KAIO\n"
                    ".version 7.0\n"
                    "// kaio.kernel first(ptr<f32>,u32)\n"
                    ".visible .entry first(.param .u64 a, .param .u32 n) {}\n"
                    "    //   kaio.kernel second()\n"
                    "// kaio.kernelish(u32) is not a marker\n"
                    "ret; // kaio.kernel third(s64)\n";
  Expected<std::vector<KernelSignature>> sigs = parseKernelSignatures(ptx);
  ASSERT_TRUE(sigs) << sigs.error().message();
  ASSERT_EQ(sigs->size(), 3u);
  EXPECT_EQ((*sigs)[0].str(), "first(ptr<f32>,u32)");
  EXPECT_EQ((*sigs)[1].str(), "second()");
  EXPECT_EQ((*sigs)[2].str(), "third(s64)");
  EXPECT_EQ(findSignature(*sigs, "second"), &(*sigs)[1]);
  EXPECT_EQ(findSignature(*sigs, "fourth"), nullptr);
}

TEST(SignatureTest, ReportsBadCommentLines) {
  Expected<std::vector<KernelSignature>> bad =
      parseKernelSignatures("x\n\n// kaio.kernel k(u33)\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::Parse);
  EXPECT_NE(bad.error().message().find("line 3: malformed kaio.kernel comment"),
            std::string::npos)
      << bad.error().message();

  Expected<std::vector<KernelSignature>> dup = parseKernelSignatures(
      "// kaio.kernel k(u32)\n// kaio.kernel j()\n// kaio.kernel k(u32)\n");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message().find(
                "line 3: duplicate kaio.kernel signature for 'k' (first on "
                "line 1)"),
            std::string::npos)
      << dup.error().message();
}

namespace {
class ArgCheckTest : public ::testing::Test {
protected:
  KernelSignature sig =
      parseOne("vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)");
  DeviceView<float> a{0x1000, 4}, c{0x3000, 4};
  DeviceView<const float> b{0x2000, 4};

  Error check(std::vector<KernelArg> args) { return checkKernelArgs(sig, args); }
};
} // namespace

TEST_F(ArgCheckTest, AcceptsMatchingArguments) {
  EXPECT_FALSE(check({toKernelArg(a), toKernelArg(b), toKernelArg(c),
                      toKernelArg(std::uint32_t(4))}));
  // Untyped pointers match any ptr<>.
  EXPECT_FALSE(check({KernelArg::untypedPointer(1), toKernelArg(b),
                      KernelArg::untypedPointer(2), toKernelArg(4u)}));
}

TEST_F(ArgCheckTest, RejectsWrongScalarType) {
  Error e = check({toKernelArg(a), toKernelArg(b), toKernelArg(c),
                   toKernelArg(4.0f)});
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::ArgumentMismatch);
  EXPECT_EQ(e.message(), "argument 4 of vector_add: expected u32, got f32 (no "
                         "implicit conversions; cast the argument)");
  // An int literal is s32: no silent reinterpretation.
  e = check({toKernelArg(a), toKernelArg(b), toKernelArg(c), toKernelArg(4)});
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("expected u32, got s32"), std::string::npos);
}

TEST_F(ArgCheckTest, RejectsWrongCountAndKinds) {
  Error e = check({toKernelArg(a), toKernelArg(b), toKernelArg(c)});
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(),
            "vector_add expects 4 arguments, got 3 (signature "
            "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32))");
  e = check({toKernelArg(a), toKernelArg(b), toKernelArg(std::uint64_t(1)),
             toKernelArg(4u)});
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("argument 3 of vector_add: expected ptr<f32>, "
                             "got u64 (pass raw device pointers"),
            std::string::npos);
  e = check({toKernelArg(a), toKernelArg(b), toKernelArg(c), toKernelArg(c)});
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("argument 4 of vector_add: expected u32, got "
                             "ptr<f32>"),
            std::string::npos);
}

TEST_F(ArgCheckTest, RejectsWrongElementTypeAndDroppedConst) {
  DeviceView<double> d{0x4000, 4};
  Error e = check({toKernelArg(d), toKernelArg(b), toKernelArg(c),
                   toKernelArg(4u)});
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "argument 1 of vector_add: expected ptr<const f32>, "
                         "got ptr<f64>");
  e = check({toKernelArg(a), toKernelArg(b), toKernelArg(b), toKernelArg(4u)});
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "argument 3 of vector_add: expected ptr<f32>, got "
                         "ptr<const f32> (the kernel may write through it)");
}

TEST_F(ArgCheckTest, BytePointersAcceptAnyElement) {
  KernelSignature bytes = parseOne("memset_like(ptr<b8>,u64)");
  DeviceView<Half> h{0x5000, 2};
  EXPECT_FALSE(checkKernelArgs(
      bytes, {toKernelArg(h), toKernelArg(std::uint64_t(4))}));
  DeviceView<const Half> ch{0x5000, 2};
  EXPECT_TRUE(checkKernelArgs(
      bytes, {toKernelArg(ch), toKernelArg(std::uint64_t(4))}));
}

TEST_F(ArgCheckTest, ScalarBitsMarshalLowBytes) {
  KernelArg arg = KernelArg::scalarBits(ScalarType::U16, 0xabcd1234);
  EXPECT_EQ(arg.size, 2);
  std::uint16_t v;
  std::memcpy(&v, arg.storage, 2);
  EXPECT_EQ(v, 0x1234);
  EXPECT_EQ(arg.typeStr(), "u16");
  EXPECT_EQ(KernelArg::untypedPointer(5).typeStr(), "ptr<?>");
}

//===- RunToolTest.cpp - kaio-run's support library -----------------------===//

#include "DriverBackends.h"
#include "TestKernels.h"
#include "TestUtils.h"

#include "RunSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace kaio;
using namespace kaio::run;
using namespace kaio::rt::test;

static ArgSpec parse(const char *text) {
  Expected<ArgSpec> spec = parseArgSpec(text);
  EXPECT_TRUE(spec) << spec.error().message();
  return spec ? *spec : ArgSpec();
}

static std::string parseErrorOf(const char *text) {
  Expected<ArgSpec> spec = parseArgSpec(text);
  EXPECT_FALSE(spec) << text;
  return spec ? std::string() : spec.error().message();
}

TEST(ArgSpecTest, Scalars) {
  ArgSpec n = parse("n=u32:1024");
  EXPECT_EQ(n.name, "n");
  EXPECT_FALSE(n.isBuffer);
  EXPECT_EQ(n.type, ScalarType::U32);
  EXPECT_EQ(n.bits, 1024u);
  EXPECT_EQ(parse("x=i32:-1").bits, 0xffffffffu);
  EXPECT_EQ(parse("x=s8:-128").bits, 0x80u);
  EXPECT_EQ(parse("x=u64:0xffffffffffffffff").bits, ~0ull);
  EXPECT_EQ(parse("x=s64:-9223372036854775808").bits, 1ull << 63);
  EXPECT_EQ(parse("x=f32:1.5").bits, 0x3fc00000u);
  EXPECT_EQ(parse("x=f16:1").bits, 0x3c00u);
  EXPECT_EQ(parse("x=bf16:-1").bits, 0xbf80u);
  EXPECT_EQ(parse("x=f64:2").bits, 0x4000000000000000ull);
}

TEST(ArgSpecTest, Buffers) {
  ArgSpec a = parse("a=f32[1024]:rand");
  EXPECT_TRUE(a.isBuffer);
  EXPECT_EQ(a.count, 1024u);
  EXPECT_EQ(a.init, ArgSpec::Init::Rand);
  EXPECT_EQ(parse("b=u8[3]:zeros").init, ArgSpec::Init::Zeros);
  EXPECT_EQ(parse("b=i64[3]:ones").type, ScalarType::S64);
  EXPECT_EQ(parse("b=bf16[3]:iota").init, ArgSpec::Init::Iota);
  ArgSpec c = parse("c=f64[0x10]:-2.5");
  EXPECT_EQ(c.count, 16u);
  EXPECT_EQ(c.init, ArgSpec::Init::Constant);
  EXPECT_EQ(c.constant, -2.5);
  ArgSpec f = parse("f=u16[4]:@/tmp/x.bin");
  EXPECT_EQ(f.init, ArgSpec::Init::File);
  EXPECT_EQ(f.file, "/tmp/x.bin");
}

TEST(ArgSpecTest, Errors) {
  EXPECT_NE(parseErrorOf("n").find("expected name=type:value"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("n=u32").find("missing ':'"), std::string::npos);
  EXPECT_NE(parseErrorOf("n=u31:1").find("unknown type 'u31'"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("n=u8:256").find("'256' as u8 is out of range"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("n=s8:-129").find("out of range"), std::string::npos);
  EXPECT_NE(parseErrorOf("n=u32:-1").find("out of range"), std::string::npos);
  EXPECT_NE(parseErrorOf("n=f32:abc").find("cannot parse 'abc' as f32"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("a=f32[x]:rand").find("bad element count"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("a=f32[4:rand").find("expected ']'"),
            std::string::npos);
  // Sizes that overflowed count x 4 into a small allocation (a crash).
  EXPECT_NE(parseErrorOf("a=f32[4611686018427387904]:ones")
                .find("more than the 128 GiB a buffer may hold"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("a=f64[17179869185]:ones").find("128 GiB"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("a=f32[4]:random").find("bad initializer 'random'"),
            std::string::npos);
  EXPECT_NE(parseErrorOf("a-b=f32:1").find("bad argument name"),
            std::string::npos);
}

TEST(ArgSpecTest, Dims) {
  Expected<rt::Dim3> d = parseDim3("4,3,2");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->count(), 24u);
  EXPECT_EQ(parseDim3("7")->y, 1u);
  EXPECT_FALSE(parseDim3("0"));
  EXPECT_FALSE(parseDim3("1,2,3,4"));
  EXPECT_FALSE(parseDim3("1,,2"));
  EXPECT_FALSE(parseDim3("x"));
  EXPECT_FALSE(parseDim3("4294967296"));
}

TEST(HostArrayTest, Initializers) {
  HostArray iota = *initHostArray(parse("a=s32[5]:iota"), 0);
  EXPECT_EQ(iota.get(4), 4.0);
  HostArray ones = *initHostArray(parse("a=f16[3]:ones"), 0);
  EXPECT_EQ(ones.bytes.size(), 6u);
  EXPECT_EQ(ones.get(2), 1.0);
  HostArray zeros = *initHostArray(parse("a=f64[3]:zeros"), 0);
  EXPECT_EQ(zeros.get(1), 0.0);
  HostArray k = *initHostArray(parse("a=bf16[3]:0.5"), 0);
  EXPECT_EQ(k.get(0), 0.5);
}

TEST(HostArrayTest, RandIsSeededAndInRange) {
  ArgSpec a = parse("a=f32[4096]:rand");
  HostArray r1 = *initHostArray(a, 42), r2 = *initHostArray(a, 42);
  HostArray r3 = *initHostArray(a, 43);
  EXPECT_EQ(r1.bytes, r2.bytes);
  EXPECT_NE(r1.bytes, r3.bytes);
  ArgSpec b = parse("b=f32[4096]:rand"); // Same seed, other name: differs.
  EXPECT_NE(r1.bytes, initHostArray(b, 42)->bytes);
  Summary s = summarize(r1);
  EXPECT_GE(s.min, -1.0);
  EXPECT_LT(s.max, 1.0);
  EXPECT_LT(s.min, -0.9);
  EXPECT_GT(s.max, 0.9);
  EXPECT_NEAR(s.mean, 0.0, 0.1);
  HostArray ints = *initHostArray(parse("i=s8[1000]:rand"), 1);
  Summary si = summarize(ints);
  EXPECT_GE(si.min, -8);
  EXPECT_LE(si.max, 7);
  HostArray uints = *initHostArray(parse("u=u32[1000]:rand"), 1);
  EXPECT_GE(summarize(uints).min, 0);
  EXPECT_LE(summarize(uints).max, 15);
}

TEST(HostArrayTest, FileInit) {
  TempDir dir;
  std::string path = dir.path() + "/in.bin";
  std::uint16_t data[3] = {1, 2, 65535};
  std::FILE *f = std::fopen(path.c_str(), "wb");
  std::fwrite(data, 2, 3, f);
  std::fclose(f);
  ArgSpec ok = *parseArgSpec(("x=u16[3]:@" + path).c_str());
  HostArray a = *initHostArray(ok, 0);
  EXPECT_EQ(a.get(2), 65535.0);
  ArgSpec tooMany = *parseArgSpec(("x=u16[4]:@" + path).c_str());
  Expected<HostArray> bad = initHostArray(tooMany, 0);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("must hold exactly 8 bytes (4 x u16)"),
            std::string::npos);
  ArgSpec tooFew = *parseArgSpec(("x=u16[2]:@" + path).c_str());
  EXPECT_FALSE(initHostArray(tooFew, 0));
  ArgSpec missing = *parseArgSpec("x=u16[2]:@/nonexistent/file");
  EXPECT_FALSE(initHostArray(missing, 0));
}

TEST(PrintTest, SummaryCountsNaNs) {
  HostArray a(ScalarType::F32, 5);
  a.set(0, 1);
  a.set(1, NAN);
  a.set(2, -3);
  a.set(3, 5);
  a.set(4, NAN);
  Summary s = summarize(a);
  EXPECT_EQ(s.nanCount, 2u);
  EXPECT_EQ(s.min, -3);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.mean, 1);
}

TEST(PrintTest, HeadTailAndSummary) {
  HostArray a = *initHostArray(parse("c=s32[100]:iota"), 0);
  std::string text = formatArray("c", a, 3);
  EXPECT_EQ(text, "c: s32[100]\n"
                  "  [0] 0\n  [1] 1\n  [2] 2\n"
                  "  ... (94 more)\n"
                  "  [97] 97\n  [98] 98\n  [99] 99\n"
                  "  min 0  max 99  mean 49.5  NaN 0\n");
  HostArray small = *initHostArray(parse("d=f32[2]:0.25"), 0);
  EXPECT_EQ(formatArray("d", small), "d: f32[2]\n  [0] 0.25\n  [1] 0.25\n"
                                     "  min 0.25  max 0.25  mean 0.25  NaN 0\n");
  HostArray big(ScalarType::U64, 1);
  std::uint64_t v = ~0ull;
  std::memcpy(big.bytes.data(), &v, 8);
  EXPECT_EQ(big.format(0), "18446744073709551615");
}

TEST(PrintTest, NpyAndRawFiles) {
  TempDir dir;
  HostArray a = *initHostArray(parse("c=f32[3]:iota"), 0);
  std::string npy = dir.path() + "/c.npy";
  ASSERT_FALSE(writeNpy(npy, a));
  std::ifstream in(npy, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), {});
  // The dict (58 chars) plus the 10-byte preamble pads to 128.
  ASSERT_EQ(data.size(), 128u + 12u);
  EXPECT_EQ(data.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  std::size_t headerLen = std::uint8_t(data[8]) | std::uint8_t(data[9]) << 8;
  EXPECT_EQ(10 + headerLen, 128u);
  EXPECT_NE(data.find("{'descr': '<f4', 'fortran_order': False, 'shape': "
                      "(3,), }"),
            std::string::npos);
  EXPECT_EQ(data[127], '\n');
  float last;
  std::memcpy(&last, data.data() + 128 + 8, 4);
  EXPECT_EQ(last, 2.0f);
  std::string raw = dir.path() + "/c.bin";
  ASSERT_FALSE(writeRaw(raw, a));
  std::ifstream rin(raw, std::ios::binary | std::ios::ate);
  EXPECT_EQ(rin.tellg(), 12);
  EXPECT_TRUE(writeRaw("/nonexistent/dir/x", a));
}

static Expected<RunOptions> parseLine(std::vector<const char *> args) {
  args.insert(args.begin(), "kaio-run");
  return parseCommandLine(int(args.size()), args.data());
}

TEST(CommandLineTest, FullExample) {
  Expected<RunOptions> o = parseLine(
      {"k.ptx", "--kernel", "vector_add", "--grid", "4", "--block=256,1,1",
       "--smem", "1024", "--arg", "a=f32[1024]:rand", "--arg",
       "n=u32:1024", "--print", "a", "--out", "a=a.npy", "--time", "--reps",
       "7", "--seed", "9", "--device", "1", "--verbose"});
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->input, "k.ptx");
  EXPECT_EQ(o->kernel, "vector_add");
  EXPECT_EQ(o->grid.x, 4u);
  EXPECT_EQ(o->block.x, 256u);
  EXPECT_EQ(o->sharedBytes, 1024u);
  ASSERT_EQ(o->args.size(), 2u);
  EXPECT_EQ(o->args[1].name, "n");
  EXPECT_EQ(o->prints, std::vector<std::string>{"a"});
  EXPECT_EQ(o->outs[0].second, "a.npy");
  EXPECT_TRUE(o->time);
  EXPECT_EQ(o->reps, 7);
  EXPECT_EQ(o->seed, 9u);
  EXPECT_EQ(o->device, 1);
  EXPECT_TRUE(o->verbose);
}

TEST(CommandLineTest, Errors) {
  auto errorOf = [](std::vector<const char *> args) {
    Expected<RunOptions> o = parseLine(args);
    EXPECT_FALSE(o);
    return o ? std::string() : o.error().message();
  };
  EXPECT_EQ(errorOf({"--kernel", "k"}), "no input file");
  EXPECT_EQ(errorOf({"k.ptx", "--grid", "1", "--block", "1"}),
            "missing --kernel NAME");
  EXPECT_EQ(errorOf({"k.ptx", "--kernel", "k", "--grid", "1"}),
            "missing --block");
  EXPECT_EQ(errorOf({"k.ptx", "--frobnicate"}),
            "unknown option '--frobnicate'");
  EXPECT_EQ(errorOf({"k.ptx", "--kernel"}), "--kernel expects a value");
  EXPECT_EQ(errorOf({"k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
                     "--arg", "a=f32:1", "--arg", "a=f32:2"}),
            "--arg: duplicate argument name 'a'");
  EXPECT_EQ(errorOf({"k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
                     "--arg", "n=u32:1", "--print", "n"}),
            "--print n: no buffer argument named 'n'");
  EXPECT_EQ(errorOf({"k.ptx", "--reps", "0"}),
            "--reps expects an integer >= 1, got '0'");
  EXPECT_NE(errorOf({"k.ptx", "--grid", "0"}).find("--grid"),
            std::string::npos);
}

namespace {
struct ToolResult {
  int code;
  std::string out, err;
};
ToolResult runWith(std::vector<const char *> args,
                   const RunHooks &hooks = RunHooks()) {
  args.insert(args.begin(), "kaio-run");
  std::ostringstream out, err;
  int code = runTool(int(args.size()), args.data(), hooks, out, err);
  return {code, out.str(), err.str()};
}
} // namespace

TEST(RunToolTest, UnsupportedInputsAndModes) {
  ToolResult mlir = runWith({"k.mlir", "--kernel", "k", "--grid", "1",
                             "--block", "1"});
  EXPECT_EQ(mlir.code, ExitUnsupported);
  EXPECT_NE(mlir.err.find("supports only .ptx"), std::string::npos);
  ToolResult interp = runWith({"k.ptx", "--kernel", "k", "--grid", "1",
                               "--block", "1", "--interpret"});
  EXPECT_EQ(interp.code, ExitUnsupported);
  EXPECT_NE(interp.err.find("--interpret is not available in this build"),
            std::string::npos);
  ToolResult help = runWith({"--help"});
  EXPECT_EQ(help.code, ExitOk);
  EXPECT_NE(help.out.find("usage: kaio-run"), std::string::npos);
  ToolResult bad = runWith({"k.ptx"});
  EXPECT_EQ(bad.code, ExitFailure);
}

TEST(RunToolTest, NoDriverSuggestsInterpret) {
  ScopedEnv driver("KAIO_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
  ToolResult r = runWith({"k.ptx", "--kernel", "k", "--grid", "1", "--block",
                          "1"});
  EXPECT_EQ(r.code, ExitNoGpu);
  EXPECT_NE(r.err.find("no GPU/driver available: no CUDA driver found"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--interpret"), std::string::npos);
}

TEST(RunToolTest, HooksArePluggable) {
  RunHooks hooks;
  bool interpreted = false;
  hooks.interpret = [&](const RunOptions &opts, std::vector<HostArg> &args) {
    interpreted = true;
    EXPECT_EQ(opts.kernel, "k");
    EXPECT_EQ(args.size(), 2u);
    args[0].data.set(0, 42); // Pretend the kernel wrote its output.
    return Error::success();
  };
  hooks.compileToPtx = [](const RunOptions &) -> Expected<std::string> {
    return Error::make(ErrorCode::Unsupported, "compiler says no");
  };
  ToolResult r = runWith({"k.mlir", "--kernel", "k", "--grid", "1", "--block",
                          "1", "--arg", "c=s32[4]:zeros", "--arg", "n=u32:4",
                          "--print", "c", "--interpret"},
                         hooks);
  EXPECT_EQ(r.code, ExitOk) << r.err;
  EXPECT_TRUE(interpreted);
  EXPECT_NE(r.out.find("[0] 42"), std::string::npos) << r.out;
  ScopedEnv driver("KAIO_CUDA_DRIVER", findFakeDriver().c_str());
  if (findFakeDriver().empty())
    return;
  ToolResult compiled = runWith({"k.mlir", "--kernel", "k", "--grid", "1",
                                 "--block", "1"},
                                hooks);
  EXPECT_EQ(compiled.code, ExitFailure);
  EXPECT_NE(compiled.err.find("compiler says no"), std::string::npos);
}

namespace {
class RunToolBackendTest : public BackendTest {
protected:
  std::string writePtx(const char *text) {
    std::string path = cacheDir.path() + "/kernel.ptx";
    std::ofstream(path) << text;
    return path;
  }
};
} // namespace

TEST_P(RunToolBackendTest, VectorAddEndToEnd) {
  std::string ptx = writePtx(kVectorAddPtx);
  std::string npy = cacheDir.path() + "/c.npy";
  std::string outArg = "c=" + npy;
  ToolResult r = runWith({ptx.c_str(), "--kernel", "vector_add", "--grid",
                          "4", "--block", "256", "--arg", "a=f32[1000]:iota",
                          "--arg", "b=f32[1000]:2", "--arg",
                          "c=f32[1000]:zeros", "--arg", "n=u32:1000",
                          "--print", "c", "--out", outArg.c_str(), "--time",
                          "--reps", "3"});
  ASSERT_EQ(r.code, ExitOk) << r.err;
  EXPECT_NE(r.out.find("c: f32[1000]\n  [0] 2\n  [1] 3\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  [999] 1001\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("min 2  max 1001  mean 501.5  NaN 0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("time vector_add: median "), std::string::npos);
  std::ifstream in(npy, std::ios::binary | std::ios::ate);
  EXPECT_EQ(in.tellg(), 128 + 4000);
}

TEST_P(RunToolBackendTest, SignatureMismatchAndBadConfig) {
  std::string ptx = writePtx(kVectorAddPtx);
  ToolResult r = runWith({ptx.c_str(), "--kernel", "vector_add", "--grid",
                          "1", "--block", "32", "--arg", "a=f32[32]:iota",
                          "--arg", "b=f32[32]:iota", "--arg", "c=f64[32]:zeros",
                          "--arg", "n=u32:32"});
  EXPECT_EQ(r.code, ExitFailure);
  EXPECT_NE(r.err.find("argument 3 (c) of vector_add: expected ptr<f32>, got "
                       "ptr<f64>"),
            std::string::npos)
      << r.err;
  r = runWith({ptx.c_str(), "--kernel", "vector_add", "--grid", "1",
               "--block", "2048", "--arg", "a=f32[32]:iota", "--arg",
               "b=f32[32]:iota", "--arg", "c=f32[32]:zeros", "--arg",
               "n=u32:32"});
  EXPECT_EQ(r.code, ExitFailure);
  EXPECT_NE(r.err.find("block size 2048 exceeds max threads per block"),
            std::string::npos)
      << r.err;
}

TEST_P(RunToolBackendTest, LargeSharedMemoryOptsIn) {
  if (device->properties().sharedMemPerBlockOptin < 65536)
    GTEST_SKIP() << "needs 64 KiB of shared memory per block";
  std::string ptx = writePtx(kSmemReversePtx);
  ToolResult r = runWith({ptx.c_str(), "--kernel", "smem_reverse", "--grid",
                          "1", "--block", "1024", "--smem", "65536", "--arg",
                          "d=s32[16384]:iota", "--arg", "n=u32:16384",
                          "--print", "d"});
  // iota of s32 reversed through shared memory, but the kernel moves f32
  // bit patterns: it is type-agnostic, yet the signature says ptr<f32>.
  EXPECT_EQ(r.code, ExitFailure);
  EXPECT_NE(r.err.find("expected ptr<f32>, got ptr<s32>"), std::string::npos);
  r = runWith({ptx.c_str(), "--kernel", "smem_reverse", "--grid", "1",
               "--block", "1024", "--smem", "65536", "--arg",
               "d=f32[16384]:iota", "--arg", "n=u32:16384", "--print", "d"});
  ASSERT_EQ(r.code, ExitOk) << r.err;
  EXPECT_NE(r.out.find("  [0] 16383\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  [16383] 0\n"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Backends, RunToolBackendTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

//===- BuilderTest.cpp - each builder construct yields the expected IR ----===//

#include "Kaio/Builder/Builder.h"
#include "Kaio/Builder/Hopper.h"

#include "Kaio/Compiler/Compile.h"
#include "llvm/Support/raw_ostream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

using namespace kaio;
using namespace kaio::builder;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

/// Builds one kernel `k` (block 128) and returns the module text (custom
/// form, no locations), or the diagnostics prefixed with "FAILED".
std::string build(const std::function<void(KernelBuilder &)> &body,
                  const char *target = nullptr) {
  ModuleBuilder mb;
  if (target)
    mb.setTarget(target);
  mb.kernel("k", {128}, body);
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  if (!module)
    return "FAILED\n" + mb.diagnostics();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// The diagnostics of a build expected to fail.
std::string diagnostics(const std::function<void(KernelBuilder &)> &body) {
  ModuleBuilder mb;
  mb.kernel("k", {128}, body);
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  EXPECT_FALSE(module) << "the build was expected to fail";
  return mb.diagnostics();
}

std::string at(int line) {
  return std::string(__FILE__) + ":" + std::to_string(line) + ":";
}

TEST(Builder, Parameters) {
  std::string ir = build([](KernelBuilder &k) {
    k.param<Ptr<const float>>("x");
    k.param<Ptr<int32_t>>("y");
    k.param<uint32_t>("n");
    k.param<double>("alpha");
  });
  EXPECT_THAT(ir, HasSubstr("kaio.kernel @k(%arg0: !kaio.ptr<f32> "
                            "{kaio.readonly}, %arg1: !kaio.ptr<i32>, "
                            "%arg2: i32, %arg3: f64)"));
  EXPECT_THAT(ir, HasSubstr("block_size = array<i32: 128>"));
  EXPECT_THAT(ir, HasSubstr("kaio.return"));
}

TEST(Builder, Ids) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<uint32_t>>("p");
    U32 v = k.threadId(Dim::y) + k.blockId(Dim::z) + k.blockDim() +
            k.gridDim(Dim::x) + k.laneId() + k.warpId();
    p[0] = v;
  });
  EXPECT_THAT(ir, HasSubstr("kaio.thread_id y : i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.block_id z : i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.block_dim x : i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.grid_dim x : i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.lane_id : i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.warp_id : i32"));
}

TEST(Builder, SignednessPicksIntegerOps) {
  std::string ir = build([](KernelBuilder &k) {
    auto ps = k.param<Ptr<int32_t>>("ps");
    auto pu = k.param<Ptr<uint32_t>>("pu");
    auto pb = k.param<Ptr<uint8_t>>("pb");
    I32 s = ps[0];
    U32 u = pu[0];
    ps[1] = s / 3 + s % 5 + (s >> 1) + (s << 2);
    pu[1] = u / 3u + u % 5u + (u >> 1) + (u & 7u) + (u | 1u) + (u ^ 2u);
    pb[0] = cast<uint8_t>(select(s < 0, s, -s).as<uint32_t>());
    pb[1] = cast<uint8_t>(select(u < 9u, min(u, 4u), max(u, 2u)));
  });
  for (const char *op :
       {"arith.divsi", "arith.remsi", "arith.shrsi", "arith.shli",
        "arith.divui", "arith.remui", "arith.shrui", "arith.andi",
        "arith.ori", "arith.xori", "arith.cmpi slt", "arith.cmpi ult",
        "arith.select", "arith.minui", "arith.maxui", "arith.subi",
        "arith.trunci"})
    EXPECT_THAT(ir, HasSubstr(op));
}

TEST(Builder, FloatOpsAndComparisons) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto q = k.param<Ptr<uint8_t>>("q");
    F32 x = p[0];
    F32 y = 2.0f * x - x / 3.0f + (1 - x);
    p[1] = y;
    Pred lt = x < y, le = x <= y, gt = x > y, ge = x >= y, eq = x == y,
         ne = x != y;
    q[0] = cast<uint8_t>((lt || le) && (gt || ge) && (eq || !ne));
  });
  for (const char *op :
       {"arith.mulf", "arith.subf", "arith.divf", "arith.cmpf olt",
        "arith.cmpf ole", "arith.cmpf ogt", "arith.cmpf oge",
        "arith.cmpf oeq", "arith.cmpf une", "arith.extui"})
    EXPECT_THAT(ir, HasSubstr(op));
  EXPECT_THAT(ir, Not(HasSubstr("arith.divsi")));
}

TEST(Builder, MathAndCasts) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto d = k.param<Ptr<double>>("d");
    auto h = k.param<Ptr<f16>>("h");
    auto i = k.param<Ptr<int64_t>>("i");
    F32 x = p[0];
    F32 m = exp(x) + exp2(x) + log(x) + log2(x) + tanh(x) + sqrt(x) +
            rsqrt(x) + sin(x) + cos(x) + erf(x) + abs(x) + floor(x) +
            ceil(x) + fma(x, x, 1.0f) + min(x, 0.0f) + max(x, 1.0f);
    p[1] = m;
    d[0] = cast<double>(m);
    h[0] = cast<f16>(m);
    i[0] = cast<int64_t>(m) + cast<int64_t>(k.threadId()) +
           cast<int64_t>(k.threadId().as<int32_t>());
    p[2] = cast<float>(k.threadId()) + cast<float>(k.laneId().as<int32_t>());
    p[3] = k.threadId().as<float>();
  });
  for (const char *op :
       {"math.exp ", "math.exp2", "math.log ", "math.log2", "math.tanh",
        "math.sqrt", "math.rsqrt", "math.sin", "math.cos", "math.erf",
        "math.absf", "math.floor", "math.ceil", "math.fma", "arith.minnumf",
        "arith.maxnumf", "arith.extf", "arith.truncf", "arith.fptosi",
        "arith.extui", "arith.extsi", "arith.uitofp", "arith.sitofp",
        "arith.bitcast"})
    EXPECT_THAT(ir, HasSubstr(op)) << op;
}

// fastExp2 and fastDiv carry their licence as fastmath flags (afn, arcp),
// which the lowering turns into ex2.approx.ftz and div.full; exp2 and /
// carry none.
TEST(Builder, FastMathFunctionsCarryTheirFlags) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    F32 x = p[0];
    p[1] = fastExp2(x) + fastDiv(x, p[2]) + fastDiv(1.0f, x);
    p[3] = exp2(x) + x / p[4];
  });
  EXPECT_THAT(ir, HasSubstr("math.exp2 %"));
  EXPECT_THAT(ir, HasSubstr("fastmath<afn>"));
  EXPECT_THAT(ir, HasSubstr("fastmath<arcp>"));
  size_t arcp = 0;
  for (size_t at = ir.find("fastmath<arcp>"); at != std::string::npos;
       at = ir.find("fastmath<arcp>", at + 1))
    ++arcp;
  EXPECT_EQ(arcp, 2u);
}

TEST(Builder, IfElseYieldsValues) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    U32 t = k.threadId();
    F32 v = k.if_(
        t < 64u, [&] { return k.constant(1.0f); },
        [&] { return k.constant(2.0f); });
    auto [a, b] = k.if_(
        t == 0u, [&] { return carry(v, t); }, [&] { return carry(-v, t + 1u); });
    k.if_(t > 3u, [&] { p[b] = a; });
    k.if_(
        t > 4u, [&] { p[0] = v; }, [&] { p[1] = v; });
    // An array of Vals (a chunk of a row, loaded one way or another).
    std::array<F32, 3> chunk = k.if_(
        t < 8u, [&] { return std::array<F32, 3>{v, -v, v * 2.0f}; },
        [&] { return std::array<F32, 3>{p[4], p[5], p[6]}; });
    p[t] = chunk[0] + chunk[1] + chunk[2];
  });
  EXPECT_THAT(ir, HasSubstr("scf.if %"));
  EXPECT_THAT(ir, HasSubstr("-> (f32) {"));
  EXPECT_THAT(ir, HasSubstr("-> (f32, i32) {"));
  EXPECT_THAT(ir, HasSubstr("-> (f32, f32, f32) {"));
  EXPECT_THAT(ir, HasSubstr("} else {"));
  EXPECT_THAT(ir, HasSubstr("arith.negf"));
}

TEST(Builder, Loops) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto n = k.param<int32_t>("n");
    auto m = k.param<uint32_t>("m");
    k.for_(0, n, 1, [&](I32 i) { p[i] = 0.0f; });
    F32 sum = k.for_(0, n, 2, k.constant(0.0f),
                     [&](I32 i, F32 s) { return s + p[i]; });
    auto [s2, c2] = k.for_(0u, m, 1u, carry(sum, k.constant(0u)),
                           [&](U32 i, F32 s, U32 c) {
                             return carry(s * 2.0f, c + i);
                           });
    U32 last = k.while_(
        c2, [&](U32 x) { return x < 100u; }, [&](U32 x) { return x * 2u; });
    p[last] = s2;
  });
  EXPECT_THAT(ir, HasSubstr("scf.for %"));
  EXPECT_THAT(ir, HasSubstr("iter_args("));
  EXPECT_THAT(ir, HasSubstr("-> (f32)"));
  EXPECT_THAT(ir, HasSubstr("scf.for unsigned"));
  EXPECT_THAT(ir, HasSubstr("-> (f32, i32)"));
  EXPECT_THAT(ir, HasSubstr("scf.while"));
  EXPECT_THAT(ir, HasSubstr("scf.condition"));
}

TEST(Builder, LoopCarryingAnArray) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto n = k.param<uint32_t>("n");
    std::array<F32, 3> init = {k.constant(0.0f), k.constant(1.0f),
                               k.constant(2.0f)};
    std::array<F32, 3> out =
        k.for_(0u, n, 1u, init, [&](U32 i, std::array<F32, 3> a) {
          return std::array<F32, 3>{a[1] + p[i], a[2], a[0]};
        });
    p[0u] = out[0] + out[1] + out[2];
  });
  EXPECT_THAT(ir, HasSubstr("-> (f32, f32, f32)"));
  // The body rotates the array: a computed value, then two block arguments.
  EXPECT_THAT(ir, ::testing::ContainsRegex(
                      "scf.yield %[0-9]+, %arg[0-9]+, %arg[0-9]+ : f32, f32, f32"))
      << ir;
}

TEST(Builder, UnrollMarksOnlyTheNextLoop) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto n = k.param<uint32_t>("n");
    F32 sum = k.unroll(4).for_(0u, n, 1u, k.constant(0.0f), [&](U32 i, F32 s) {
      // A loop in the body is not marked.
      return k.for_(0u, i, 1u, s, [&](U32 j, F32 t) { return t + p[j]; });
    });
    k.for_(0u, n, 1u, [&](U32 i) { p[i] = sum; });
  });
  EXPECT_THAT(ir, HasSubstr("{kaio.unroll = 4 : i32}"));
  std::size_t first = ir.find("kaio.unroll");
  EXPECT_EQ(ir.find("kaio.unroll", first + 1), std::string::npos) << ir;

  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.unroll(33);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("unroll factor 33 is outside 1 to 32"));

  // A mark no loop takes is an error, not a mark on some later loop.
  diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.unroll(4);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("unroll(4) is not followed by a for_"));
}

TEST(Builder, PipelineMarksOnlyTheNextLoop) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<const f16>>("p");
    auto n = k.param<uint32_t>("n");
    auto tile = k.shared<f16>({16, 16});
    k.pipeline(3).for_(0u, n, 16u, [&](U32 i) {
      Token t = k.asyncCopy(p, 0u, i, 16u, n, n, tile);
      k.asyncWait({t});
      k.for_(0u, i, 1u, [&](U32) { k.barrier(); });
    });
  });
  EXPECT_THAT(ir, HasSubstr("{kaio.pipeline_stages = 3 : i32}"));
  std::size_t first = ir.find("kaio.pipeline_stages");
  EXPECT_EQ(ir.find("kaio.pipeline_stages", first + 1), std::string::npos)
      << ir;

  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.pipeline(9);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("pipeline stages 9 are outside 2 to 8"));

  diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.pipeline(2);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("pipeline(2) is not followed by a for_"));
}

TEST(Builder, AsyncCopyIntoRowsOfATile) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<const f16>>("p");
    auto n = k.param<uint32_t>("n");
    auto tile = k.shared<f16>({64, 16});
    Token t = k.asyncCopy(p, 0u, 0u, n, 16u, 16u, tile, TileRows{48, 16},
                          CopyAlignment::Promised);
    k.asyncWait({t});
  });
  EXPECT_THAT(ir, HasSubstr("rows [48, 16] aligned"));

  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    auto p = k.param<Ptr<const f16>>("p");
    auto tile = k.shared<f16>({64, 16});
    line = __LINE__ + 1;
    k.asyncCopy(p, 0u, 0u, 16u, 16u, 16u, tile, TileRows{56, 16});
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("async copy into rows 56 .. 72 (exclusive) of "
                              "a tile of 64 rows"));
}

TEST(Builder, PipelinePrefetchMarksTheLoop) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<const f16>>("p");
    auto n = k.param<uint32_t>("n");
    auto tile = k.shared<f16>({16, 16});
    k.pipeline(3, PipelineReads::Prefetch).for_(0u, n, 16u, [&](U32 i) {
      Token t = k.asyncCopy(p, 0u, i, 16u, n, n, tile);
      k.asyncWait({t});
      k.barrier();
    });
    k.pipeline(3).for_(0u, n, 16u, [&](U32 i) {
      Token t = k.asyncCopy(p, 0u, i, 16u, n, n, tile);
      k.asyncWait({t});
      k.barrier();
    });
  });
  EXPECT_THAT(ir, HasSubstr("{kaio.pipeline_prefetch, "
                            "kaio.pipeline_stages = 3 : i32}"));
  std::size_t first = ir.find("kaio.pipeline_prefetch");
  EXPECT_EQ(ir.find("kaio.pipeline_prefetch", first + 1), std::string::npos)
      << ir;

  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.pipeline(2, PipelineReads::Prefetch);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("a pipeline that prefetches its reads needs 3 "
                              "stages or more, not 2"));
}

TEST(Builder, GlobalMemory) {
  std::string ir = build([](KernelBuilder &k) {
    auto in = k.param<Ptr<const float>>("in");
    auto out = k.param<Ptr<float>>("out");
    auto cnt = k.param<Ptr<int32_t>>("cnt");
    auto n = k.param<uint32_t>("n");
    U32 i = k.threadId();
    Pred ok = i < n;
    F32 x = in.load(i, ok, -1.0f);
    out.store(i, x, ok);
    out[i + 1u] = out[i];
    I32 old = cnt.atomic(AtomicKind::add, 0, 1);
    auto shifted = out + 4;
    shifted[cast<uint64_t>(i)] = cast<float>(old);
  });
  EXPECT_THAT(ir, HasSubstr("kaio.load %arg0[%"));
  EXPECT_THAT(ir, HasSubstr("-> f32 mask %"));
  EXPECT_THAT(ir, HasSubstr(" mask %"));
  EXPECT_THAT(ir, HasSubstr("kaio.atomic add %arg2[%"));
  EXPECT_THAT(ir, HasSubstr("kaio.ptr_add %arg1"));
  EXPECT_THAT(ir, HasSubstr(": f32, <f32>, i64"));
}

TEST(Builder, SharedMemoryAndReductions) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto tile = k.shared<float>({8, 8});
    auto padded = k.shared<float>({4, 4}, TileLayout{MatrixOrder::row_major, 1});
    U32 t = k.threadId();
    tile(t, 0) = 1.0f;
    padded.store({t, 1}, 2.0f);
    k.barrier();
    F32 v = tile(0, t);
    F32 w = padded.load({1, t});
    F32 s = k.warpReduce(ReduceKind::sum, v + w);
    F32 b = k.blockReduce(ReduceKind::max, s);
    F32 d = k.shuffle(ShuffleMode::down, b, 1u, 16);
    p[t] = d;
    p[0] = cast<float>(tile.address({0, 1}));
    std::array<F32, 4> chunk = tile.loadVector<4>({t, 4u});
    p[1] = chunk[0] + chunk[3];
  });
  EXPECT_THAT(ir, HasSubstr("kaio.shared_alloc : <8x8xf32>"));
  EXPECT_THAT(ir, HasSubstr("<4x4xf32, <row_major, pad = 1>>"));
  EXPECT_THAT(ir, HasSubstr("kaio.shared_store"));
  EXPECT_THAT(ir, HasSubstr("kaio.shared_load"));
  EXPECT_THAT(ir, HasSubstr("kaio.barrier"));
  EXPECT_THAT(ir, HasSubstr("kaio.warp_reduce sum"));
  EXPECT_THAT(ir, HasSubstr("kaio.block_reduce max"));
  EXPECT_THAT(ir, HasSubstr("kaio.shuffle down"));
  EXPECT_THAT(ir, HasSubstr("width = 16"));
  EXPECT_THAT(ir, HasSubstr("kaio.shared_address"));
  EXPECT_THAT(ir, HasSubstr("kaio.shared_load_vector %0[%"));
  EXPECT_THAT(ir, HasSubstr(": <8x8xf32> -> f32, f32, f32, f32"));
}

/// One warp computes a 16x8 tile of C = A x B with f16 tensor cores:
/// async copies into shared tiles, ldmatrix fragments, mma, a fused
/// epilogue and a masked store; it must lower to PTX.
void buildMmaKernel(KernelBuilder &k) {
  auto a = k.param<Ptr<const f16>>("a");
  auto b = k.param<Ptr<const f16>>("b");
  auto c = k.param<Ptr<float>>("c");
  auto alpha = k.param<float>("alpha");
  auto As = k.shared<f16>({16, 16});
  auto Bs = k.shared<f16>({16, 8});
  Token ta = k.asyncCopy(a, 0, 0, 16, 16, 16, As);
  Token tb = k.asyncCopy(b, 0, 0, 16, 8, 8, Bs, CopyAlignment::Promised);
  k.asyncWait({ta, tb});
  k.barrier();
  Frag fa = As.loadFragment(FragRole::a, ptx::MMAShape::m16n8k16, 0, 0);
  Frag fb = Bs.loadFragment(FragRole::b, ptx::MMAShape::m16n8k16, 0, 0);
  Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16, 0.0f);
  acc = k.mma(fa, fb, acc);
  Frag scaled = acc.map<float, float>([&](F32 x) { return x * alpha; });
  scaled.store(c, 0, 0, 16, 8, 8);
}

TEST(Builder, TilesFragmentsAndMma) {
  std::string ir = build(buildMmaKernel);
  EXPECT_THAT(ir, HasSubstr("kaio.async_copy %arg0[%"));
  // The second copy promises alignment; the first keeps the run-time test.
  EXPECT_THAT(ir, HasSubstr(" aligned : <f16>"));
  EXPECT_THAT(ir, HasSubstr("kaio.async_wait"));
  EXPECT_THAT(ir, HasSubstr("kaio.load_fragment"));
  EXPECT_THAT(ir, HasSubstr("-> <a, m16n8k16, f16>"));
  EXPECT_THAT(ir, HasSubstr("kaio.frag_fill"));
  EXPECT_THAT(ir, HasSubstr("kaio.mma"));
  EXPECT_THAT(ir, HasSubstr("kaio.frag_map"));
  EXPECT_THAT(ir, HasSubstr("kaio.yield"));
  EXPECT_THAT(ir, HasSubstr("kaio.store_fragment"));

  ModuleBuilder mb;
  mb.kernel("mma16x8", {32}, buildMmaKernel);
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  CompileOptions options;
  options.chip = "sm_80";
  PTXResult ptx = compileToPTX(*module, options);
  ASSERT_TRUE(ptx) << ptx.diagnostics;
  EXPECT_THAT(ptx.ptx, HasSubstr("mma.sync.aligned.m16n8k16"));
  EXPECT_THAT(ptx.ptx, HasSubstr("ldmatrix"));
  EXPECT_THAT(ptx.ptx, HasSubstr("cp.async"));
}

TEST(Builder, KernelAttributesAndTarget) {
  std::string ir = build(
      [](KernelBuilder &k) {
        k.setMaxRegisters(64);
        k.setMinBlocksPerSM(2);
      },
      "sm_90");
  EXPECT_THAT(ir, HasSubstr("kaio.target = \"sm_90\""));
  EXPECT_THAT(ir, HasSubstr("max_registers = 64"));
  EXPECT_THAT(ir, HasSubstr("min_blocks_per_sm = 2"));
}

TEST(Builder, SeveralKernelsInOneModule) {
  ModuleBuilder mb;
  mb.kernel("first", {32}, [](KernelBuilder &k) { k.param<uint32_t>("n"); });
  mb.kernel("second", {64, 2}, [](KernelBuilder &k) { k.barrier(); });
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_THAT(text, HasSubstr("kaio.kernel @first(%arg0: i32)"));
  EXPECT_THAT(text, HasSubstr("kaio.kernel @second()"));
  EXPECT_THAT(text, HasSubstr("array<i32: 64, 2>"));
}

TEST(Builder, LocationsAreCallSites) {
  ModuleBuilder mb;
  int line = 0;
  mb.kernel("k", {32}, [&](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    line = __LINE__ + 1;
    p[0] = cast<float>(k.threadId());
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  EXPECT_THAT(text, HasSubstr("BuilderTest.cpp\":" + std::to_string(line)));

  // With line info, the PTX maps instructions back to the C++ lines.
  CompileOptions options;
  options.lineInfo = true;
  PTXResult ptx = compileToPTX(*module, options);
  ASSERT_TRUE(ptx) << ptx.diagnostics;
  EXPECT_THAT(ptx.ptx, HasSubstr("BuilderTest.cpp\""));
  EXPECT_THAT(ptx.ptx, HasSubstr(" " + std::to_string(line) + " "));
}

TEST(Builder, VerifierErrorsPointAtTheCall) {
  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    auto tile = k.shared<float>({4});
    I64 i = cast<int64_t>(k.threadId());
    // shared tiles take i32 indices: the verifier rejects this load.
    line = __LINE__ + 1;
    F32 v = tile.load({i});
    p[0] = v;
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("error:"));
}

TEST(Builder, BarrierUnderThreadDependentControlFlow) {
  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    k.if_(k.threadId() < 16u, [&] {
      line = __LINE__ + 1;
      k.barrier();
    });
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
}

TEST(Builder, BuilderErrorsPointAtTheCall) {
  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    F32 x = p[0];
    line = __LINE__ + 1;
    p[1] = x & x;
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("bitwise operation on a floating-point value"));

  diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.shared<float>({0, 4});
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("invalid shared tile type"));

  diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16, 0.0f, {0, 4});
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("invalid fragment tile: a fragment tile has 1 "
                              "to 256 atoms, not 0x4"));
}

TEST(Builder, HopperOps) {
  std::string ir = build(
      [](KernelBuilder &k) {
        auto map = tensorMapParam<f16>(k, {64, 64}, 128, "map");
        auto out = k.param<Ptr<float>>("out");
        auto tile = k.shared<f16>({128, 64}, swizzle128());
        MBarriers bars = mbarriers(k, 2);
        bars.init(0, 1);
        bars.arriveExpectTx(0, 8192);
        tmaLoad(map, {0, 64}, tile, 64, bars, 0);
        bars.wait(0, 0);
        setMaxNReg(k, RegisterAction::inc, 232);
        Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16,
                                     0.0f, {1, 8});
        Frag d = warpgroupMma(tile, 0, tile, 64, acc, BMajor::K);
        warpgroupWait(k, 1);
        Frag r = warpgroupWait(d);
        r.store(out, 0, 0, 64, 64, 64);
        r.store(tile, 0, 0);
        fenceProxyAsync(k);
        k.barrier(1, 128);
        tmaStore(tile, 0, map, {0, 0});
        tmaStoreWait(k, 0);
      },
      "sm_90a");
  EXPECT_THAT(ir, HasSubstr("kaio.shared_store_fragment %4, %0["));
  EXPECT_THAT(ir, HasSubstr("kaio.fence_proxy_async\n    kaio.barrier id 1, threads 128"));
  EXPECT_THAT(ir, HasSubstr("kaio.tma_store %0["));
  EXPECT_THAT(ir, HasSubstr("kaio.tma_store_wait pending 0"));
  EXPECT_THAT(ir, HasSubstr("%arg0: !kaio.tensor_map<64x64xf16, swizzle = "
                            "128>, %arg1: !kaio.ptr<f32>"));
  EXPECT_THAT(ir, HasSubstr("kaio.shared_alloc : <2xi64>"));
  EXPECT_THAT(ir, HasSubstr("] expect_tx %c8192_i32 : <2xi64>"));
  EXPECT_THAT(ir, HasSubstr("kaio.tma_load %arg0[%c0_i32"));
  EXPECT_THAT(ir, HasSubstr("kaio.mbarrier_wait %1["));
  EXPECT_THAT(ir, HasSubstr("kaio.setmaxnreg inc 232"));
  EXPECT_THAT(ir, HasSubstr("transpose, %"));
  EXPECT_THAT(ir, HasSubstr("kaio.warpgroup_wait pending 1"));
  EXPECT_THAT(ir, Not(HasSubstr("{k = ")));
}

TEST(Builder, WarpgroupMmaReadsATransposed) {
  std::string ir = build(
      [](KernelBuilder &k) {
        auto out = k.param<Ptr<float>>("out");
        auto tile = k.shared<f16>({128, 64}, swizzle128());
        Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16,
                                     0.0f, {1, 8});
        Frag d = warpgroupMmaTransposedA(tile, 0, 64, tile, 64, acc);
        warpgroupWait(d).store(out, 0, 0, 64, 64, 64);
      },
      "sm_90a");
  EXPECT_THAT(ir, HasSubstr("] transpose, %"));
  EXPECT_THAT(ir, HasSubstr("{k = 64 : i64}"));
  // A K the tile cannot hold is the verifier's error, at the call.
  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    auto tile = k.shared<f16>({128, 64}, swizzle128());
    Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16, 0.0f,
                                 {1, 8});
    line = __LINE__ + 1;
    warpgroupWait(warpgroupMmaTransposedA(tile, 0, 256, tile, 0, acc));
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("A needs 256 rows (64 / 64 blocks of K = 256), "
                              "the tile has 128"));
  EXPECT_THAT(ir, HasSubstr("pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>"));
}

TEST(Builder, HopperErrorsPointAtTheCall) {
  int line = 0;
  std::string diag = diagnostics([&](KernelBuilder &k) {
    line = __LINE__ + 1;
    tensorMapParam<f16>(k, {64, 64}, 16, "map");
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("invalid tensor map type: tensor map swizzle "
                              "is 0, 32, 64 or 128 bytes, got 16"));

  // A verifier rule, at the call that broke it: the accumulator is read
  // before warpgroupWait.
  diag = diagnostics([&](KernelBuilder &k) {
    auto out = k.param<Ptr<float>>("out");
    auto tile = k.shared<f16>({128, 64}, swizzle128());
    Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16, 0.0f,
                                 {1, 8});
    line = __LINE__ + 1;
    Frag d = warpgroupMma(tile, 0, tile, 64, acc);
    d.store(out, 0, 0, 64, 64, 64);
  });
  EXPECT_THAT(diag, HasSubstr(at(line)));
  EXPECT_THAT(diag, HasSubstr("result is read before kaio.warpgroup_wait"));
}

/// A warp tile in the builder: a 32 x 32 accumulator (2 x 4 atoms) from a
/// 2 x 1 tile of A atoms and a 1 x 4 tile of B atoms.
void buildWarpTileKernel(KernelBuilder &k) {
  auto a = k.param<Ptr<const f16>>("a");
  auto b = k.param<Ptr<const f16>>("b");
  auto c = k.param<Ptr<float>>("c");
  auto As = k.shared<f16>({32, 16});
  auto Bs = k.shared<f16>({16, 32});
  Token ta = k.asyncCopy(a, 0, 0, 32, 16, 16, As);
  Token tb = k.asyncCopy(b, 0, 0, 16, 32, 32, Bs);
  k.asyncWait({ta, tb});
  k.barrier();
  Frag fa = As.loadFragment(FragRole::a, ptx::MMAShape::m16n8k16, 0, 0, {2, 1});
  Frag fb = Bs.loadFragment(FragRole::b, ptx::MMAShape::m16n8k16, 0, 0, {1, 4});
  Frag acc = k.fragFill<float>(FragRole::acc, ptx::MMAShape::m16n8k16, 0.0f,
                               {2, 4});
  acc = k.mma(fa, fb, acc);
  acc.store(c, 0, 0, 32, 32, 32);
}

TEST(Builder, WarpTiles) {
  std::string ir = build(buildWarpTileKernel);
  EXPECT_THAT(ir, HasSubstr("-> <a, m16n8k16, f16, 2x1>"));
  EXPECT_THAT(ir, HasSubstr("-> <b, m16n8k16, f16, 1x4>"));
  EXPECT_THAT(ir, HasSubstr("<acc, m16n8k16, f32, 2x4>"));

  ModuleBuilder mb;
  mb.kernel("warp_tile", {32}, buildWarpTileKernel);
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  CompileOptions options;
  options.chip = "sm_80";
  PTXResult ptx = compileToPTX(*module, options);
  ASSERT_TRUE(ptx) << ptx.diagnostics;
  // 2 A atoms (x4 each), 4 B atoms in 2 pairs (x4.trans), 8 mma.
  size_t mmas = 0, pos = 0;
  while ((pos = ptx.ptx.find("mma.sync.aligned.m16n8k16", pos)) !=
         std::string::npos)
    ++mmas, ++pos;
  EXPECT_EQ(mmas, 8u);
  EXPECT_THAT(ptx.ptx, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.trans"));
}

TEST(Builder, GeneratorMainWritesTheModule) {
  std::string path = ::testing::TempDir() + "kaio-builder-gen.mlir";
  std::string arg0 = "gen";
  std::vector<char *> argv = {arg0.data(), path.data()};
  int rc = generatorMain(2, argv.data(), [](ModuleBuilder &mb) {
    mb.kernel("gen", {32}, [](KernelBuilder &k) { k.param<uint32_t>("n"); });
  });
  ASSERT_EQ(rc, 0);
  PTXResult ptx = compileFileToPTX(path, CompileOptions());
  ASSERT_TRUE(ptx) << ptx.diagnostics;
  EXPECT_EQ(ptx.kernels.at(0).signature, "gen(u32) maxntid=32");
}

} // namespace

//===- InterpreterBench.cpp - interpreter throughput ----------------------===//
//
// Dynamic instructions per second of the CPU interpreter on realistic
// kernels: a 16x16-tiled shared-memory f32 matmul (loops, barriers, shared
// loads, fma), vector_add, and examples/tensor_core_matmul.mlir at 256^3
// (cp.async, ldmatrix, mma.sync), each with and without the profile.
// Counters: `instr/s` counts per thread (a full warp instruction is 32),
// `warp_instr/s` per warp instruction. Each iteration checks the result, so
// a broken interpreter cannot look fast.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Interpreter/Profile.h"
#include "TestKernels.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"

#include <benchmark/benchmark.h>
#include <cmath>
#include <random>
#include <string>

using namespace kaio::interp;

namespace {


std::string kernels() {
  return std::string("module attributes {ptx.target = \"sm_80\"} {\n") +
         test::kTiledMatmul + test::vectorAdd("ge") + "}\n";
}

struct Setup {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Setup() {
    context.loadDialect<kaio::ptx::PTXDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(kernels(), &context);
  }
};

void report(benchmark::State &state, uint64_t instrs, uint64_t warpInstrs) {
  state.counters["instr/s"] = benchmark::Counter(
      double(instrs), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["warp_instr/s"] = benchmark::Counter(
      double(warpInstrs), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_TiledMatmul(benchmark::State &state) {
  const uint32_t n = uint32_t(state.range(0));
  const bool sanitize = state.range(1) != 0;
  const bool profile = state.range(2) != 0;
  Setup s;
  if (!s.module) {
    state.SkipWithError("cannot parse the kernels");
    return;
  }
  Interpreter in(*s.module);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  uint64_t da = in.allocGlobal(n * n * 4), db = in.allocGlobal(n * n * 4),
           dc = in.allocGlobal(n * n * 4);
  in.write(da, a);
  in.write(db, b);
  LaunchOptions opts;
  opts.checkRaces = sanitize;
  opts.checkUninitialized = sanitize;
  opts.checkGlobalRaces = sanitize;
  Profile prof;
  if (profile)
    opts.profile = &prof;
  LaunchResult r;
  for (auto _ : state) {
    r = in.launch("matmul", {n / 16, n / 16}, {16, 16}, {da, db, dc, n}, opts);
    if (!r.success) {
      state.SkipWithError(r.message().c_str());
      return;
    }
  }
  in.read(dc, c);
  for (uint32_t i = 0; i < n; i += 7)
    for (uint32_t j = 0; j < n; j += 5) {
      float acc = 0;
      for (uint32_t k = 0; k < n; ++k)
        acc = std::fma(a[i * n + k], b[k * n + j], acc);
      if (acc != c[i * n + j]) {
        state.SkipWithError("wrong matmul result");
        return;
      }
    }
  report(state, r.instructions, r.warpInstructions);
}
BENCHMARK(BM_TiledMatmul)
    ->ArgsProduct({{64, 128}, {1, 0}, {0, 1}})
    ->ArgNames({"n", "sanitize", "profile"})
    ->Unit(benchmark::kMillisecond);

void BM_VectorAdd(benchmark::State &state) {
  const uint32_t n = uint32_t(state.range(0));
  Setup s;
  Interpreter in(*s.module);
  std::vector<float> a(n, 1.5f), b(n, 2.25f), c(n);
  uint64_t da = in.allocGlobal(n * 4), db = in.allocGlobal(n * 4),
           dc = in.allocGlobal(n * 4);
  in.write(da, a);
  in.write(db, b);
  LaunchResult r;
  for (auto _ : state) {
    r = in.launch("vadd", {(n + 255) / 256}, {256}, {da, db, dc, n});
    if (!r.success) {
      state.SkipWithError(r.message().c_str());
      return;
    }
  }
  in.read(dc, c);
  for (float x : c)
    if (x != 3.75f) {
      state.SkipWithError("wrong vector_add result");
      return;
    }
  report(state, r.instructions, r.warpInstructions);
}
BENCHMARK(BM_VectorAdd)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

uint16_t toHalf(float f) {
  bool lost;
  llvm::APFloat v(f);
  v.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return uint16_t(v.bitcastToAPInt().getZExtValue());
}

/// examples/tensor_core_matmul.mlir at n x n x n, the yardstick for
/// the profile's cost (at most 2x).
void BM_TensorCoreMatmul(benchmark::State &state) {
  const uint32_t n = uint32_t(state.range(0));
  const bool profile = state.range(1) != 0;
  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  kaio::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(
      KAIO_SOURCE_DIR "/examples/tensor_core_matmul.mlir", &context);
  kaio::CompileOptions options;
  options.chip = "sm_80";
  if (!module || failed(kaio::lowerToPTXDialect(*module, options))) {
    state.SkipWithError("cannot compile examples/tensor_core_matmul.mlir");
    return;
  }
  Interpreter in(*module);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> a(n * n), b(n * n);
  for (uint16_t &x : a)
    x = toHalf(dist(rng));
  for (uint16_t &x : b)
    x = toHalf(dist(rng));
  uint64_t da = in.allocGlobal(n * n * 2), db = in.allocGlobal(n * n * 2),
           dc = in.allocGlobal(n * n * 4);
  in.write(da, a);
  in.write(db, b);
  LaunchOptions opts;
  Profile prof;
  if (profile)
    opts.profile = &prof;
  LaunchResult r;
  for (auto _ : state) {
    r = in.launch("tensor_core_matmul", {n / 64, n / 64}, {256},
                  {da, db, dc, n, n, n}, opts);
    if (!r.success) {
      state.SkipWithError(r.message().c_str());
      return;
    }
  }
  if (profile && prof.find("tensor_core_matmul")->mix.at(
                     "mma.m16n8k16.f32.f16.f16.f32") !=
                     state.iterations() * (n / 16) * (n / 8) * (n / 16)) {
    state.SkipWithError("wrong mma count in the profile");
    return;
  }
  report(state, r.instructions, r.warpInstructions);
}
BENCHMARK(BM_TensorCoreMatmul)
    ->ArgsProduct({{256}, {0, 1}})
    ->ArgNames({"n", "profile"})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();

//===- ExamplesTest.cpp - every example kernel against a CPU reference ----===//
//
// Each examples/*.mlir kernel goes through the kaio-to-ptx pipeline and the
// PTX printer, then runs in the interpreter (with its sanitizer) at shapes
// that are not multiples of the block or tile size, against an f64 CPU
// reference.
//
//===----------------------------------------------------------------------===//

#include "Kaio/InitAll.h"
#include "Lowering.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "Kaio/Target/PTX/PTXEmitter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <tuple>

using namespace mlir;
using kaio::interp::Dim3;
using kaio::interp::Interpreter;
using kaio::interp::LaunchResult;

namespace {

class ExamplesTest : public ::testing::Test {
protected:
  ExamplesTest() {
    DialectRegistry registry;
    kaio::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses examples/<name>.mlir and lowers it to the ptx dialect; also
  /// checks that it prints as PTX. `kernelAttr`: a unit attribute set on
  /// every kernel first (a variant, as kaio-embed --variant makes one).
  OwningOpRef<ModuleOp> compile(StringRef name, StringRef chip = "sm_80",
                                StringRef kernelAttr = "") {
    return compilePath(
        (KAIO_SOURCE_DIR "/examples/" + name + ".mlir").str(), chip,
        kernelAttr);
  }
  /// compile() of the file at `path`.
  OwningOpRef<ModuleOp> compilePath(const std::string &path,
                                    StringRef chip = "sm_80",
                                    StringRef kernelAttr = "") {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(path, &context);
    EXPECT_TRUE(module) << "cannot parse " << path;
    if (!module)
      return {};
    kaio::test::setKernelAttr(*module, kernelAttr);
    PassManager pm(&context);
    kaio::KaioToPTXOptions options;
    options.chip = chip.str();
    kaio::buildKaioToPTXPipeline(pm, options);
    EXPECT_TRUE(succeeded(pm.run(*module))) << "pipeline failed on " << path;
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    EXPECT_TRUE(succeeded(kaio::ptx::translateModuleToPTX(*module, os)));
    EXPECT_NE(ptx.find(".entry"), std::string::npos);
    return module;
  }

  /// A hand-written ptx-dialect kernel from test/Target/PTX.
  OwningOpRef<ModuleOp> parsePTX(StringRef name) {
    std::string path =
        (KAIO_SOURCE_DIR "/test/Target/PTX/" + name + ".mlir").str();
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
    EXPECT_TRUE(module) << "cannot parse " << path;
    return module;
  }

  std::vector<float> random(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float &x : v)
      x = dist(rng);
    return v;
  }

  template <typename T>
  uint64_t upload(Interpreter &interp, const std::vector<T> &data) {
    uint64_t addr = interp.allocGlobal(std::max<size_t>(1, data.size()) *
                                       sizeof(T));
    EXPECT_TRUE(interp.write(addr, data));
    return addr;
  }

  template <typename T>
  std::vector<T> download(Interpreter &interp, uint64_t addr, size_t n) {
    std::vector<T> out(n);
    EXPECT_TRUE(interp.read(addr, out));
    return out;
  }

  static void expectLaunched(const LaunchResult &r) {
    ASSERT_TRUE(r.success) << r.message();
  }

  MLIRContext context;
  std::mt19937 rng{1234};
};

void expectClose(ArrayRef<float> got, ArrayRef<double> want, double rel,
                 double abs) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double tol = abs + rel * std::fabs(want[i]);
    ASSERT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

TEST_F(ExamplesTest, VectorAdd) {
  auto module = compile("vector_add");
  ASSERT_TRUE(module);
  const uint32_t n = 1000; // 4 blocks of 256, the last one ragged
  auto a = random(n), b = random(n);
  Interpreter interp(*module);
  uint64_t da = upload(interp, a), db = upload(interp, b),
           dc = upload(interp, std::vector<float>(n + 24, -7.0f));
  expectLaunched(interp.launch("vector_add", {4}, {256}, {da, db, dc, n}));
  auto c = download<float>(interp, dc, n + 24);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;
  for (uint32_t i = n; i < n + 24; ++i)
    ASSERT_EQ(c[i], -7.0f) << "wrote past n at " << i;
}

TEST_F(ExamplesTest, Saxpy) {
  auto module = compile("saxpy");
  ASSERT_TRUE(module);
  const uint32_t n = 1234; // grid-stride over 3 blocks
  auto x = random(n), y = random(n);
  float alpha = 1.75f;
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x), dy = upload(interp, y);
  expectLaunched(interp.launch("saxpy", {3}, {256},
                               {Interpreter::argF32(alpha), dx, dy, n}));
  auto out = download<float>(interp, dy, n);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], std::fma(alpha, x[i], y[i])) << i;
}

TEST_F(ExamplesTest, VectorScaleV4) {
  auto module = compile("vector_scale_v4");
  ASSERT_TRUE(module);
  const uint32_t n = 1003; // 250 full float4s and a tail of 3
  auto x = random(n);
  float alpha = -0.625f;
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x),
           dy = upload(interp, std::vector<float>(n + 5, 9.0f));
  expectLaunched(interp.launch("vector_scale_v4", {1}, {256},
                               {Interpreter::argF32(alpha), dx, dy, n}));
  auto y = download<float>(interp, dy, n + 5);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], alpha * x[i]) << i;
  for (uint32_t i = n; i < n + 5; ++i)
    ASSERT_EQ(y[i], 9.0f) << "wrote past n at " << i;
}

TEST_F(ExamplesTest, FusedSiluGate) {
  auto module = compile("fused_silu_gate");
  ASSERT_TRUE(module);
  const uint32_t n = 777;
  auto x = random(n, -12.0f, 12.0f), g = random(n, -3.0f, 3.0f);
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x), dg = upload(interp, g),
           dout = upload(interp, std::vector<float>(n));
  expectLaunched(
      interp.launch("fused_silu_gate", {4}, {256}, {dx, dg, dout, n}));
  std::vector<double> want(n);
  for (uint32_t i = 0; i < n; ++i)
    want[i] = x[i] / (1.0 + std::exp(-double(x[i]))) * g[i];
  expectClose(download<float>(interp, dout, n), want, 4e-7, 1e-30);
}

TEST_F(ExamplesTest, WarpReduceSum) {
  auto module = compile("warp_reduce_sum");
  ASSERT_TRUE(module);
  const uint32_t n = 5003;
  auto x = random(n);
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x), dout = upload(interp, std::vector<float>(1));
  expectLaunched(interp.launch("warp_reduce_sum", {3}, {256}, {dx, dout, n}));
  double want = 0;
  for (float v : x)
    want += v;
  EXPECT_NEAR(download<float>(interp, dout, 1)[0], want, 1e-3);
}

TEST_F(ExamplesTest, BlockReduceSum) {
  auto module = compile("block_reduce_sum");
  ASSERT_TRUE(module);
  const uint32_t n = 4099;
  auto x = random(n);
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x), dout = upload(interp, std::vector<float>(1));
  // Fewer threads than block_size: the reduction must use %ntid.
  expectLaunched(interp.launch("block_reduce_sum", {5}, {160}, {dx, dout, n}));
  double want = 0;
  for (float v : x)
    want += v;
  EXPECT_NEAR(download<float>(interp, dout, 1)[0], want, 1e-3);
}

TEST_F(ExamplesTest, RowSoftmax) {
  auto module = compile("row_softmax");
  ASSERT_TRUE(module);
  const uint32_t rows = 5, n = 333;
  auto x = random(rows * n, -20.0f, 20.0f);
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x),
           dout = upload(interp, std::vector<float>(rows * n));
  expectLaunched(
      interp.launch("row_softmax", {rows}, {256}, {dx, dout, rows, n}));
  std::vector<double> want(rows * n);
  for (uint32_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (uint32_t i = 0; i < n; ++i)
      mx = std::max(mx, double(x[r * n + i]));
    for (uint32_t i = 0; i < n; ++i)
      sum += std::exp(x[r * n + i] - mx);
    for (uint32_t i = 0; i < n; ++i)
      want[r * n + i] = std::exp(x[r * n + i] - mx) / sum;
  }
  expectClose(download<float>(interp, dout, rows * n), want, 2e-6, 1e-9);
}

std::vector<double> matmulRef(ArrayRef<float> a, ArrayRef<float> b,
                              uint32_t m, uint32_t n, uint32_t k) {
  std::vector<double> c(size_t(m) * n, 0.0);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      double s = 0;
      for (uint32_t p = 0; p < k; ++p)
        s += double(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}

TEST_F(ExamplesTest, TiledMatmul) {
  auto module = compile("tiled_matmul");
  ASSERT_TRUE(module);
  const uint32_t m = 37, n = 29, k = 45;
  auto a = random(m * k), b = random(k * n);
  Interpreter interp(*module);
  uint64_t da = upload(interp, a), db = upload(interp, b),
           dc = upload(interp, std::vector<float>(m * n));
  expectLaunched(interp.launch("tiled_matmul", {2, 3}, {16, 16},
                               {da, db, dc, m, n, k}));
  expectClose(download<float>(interp, dc, m * n), matmulRef(a, b, m, n, k),
              1e-5, 1e-5);
}

uint16_t toHalf(float f) {
  bool lost;
  llvm::APFloat v(f);
  v.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
}

float fromHalf(uint16_t h) {
  bool lost;
  llvm::APFloat v(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return v.convertToFloat();
}

/// alpha and beta of kernels whose epilogue takes them (C = alpha A B +
/// beta C; C starts random).
struct Epilogue {
  float alpha = 1.0f, beta = 0.0f;
};

void runTensorCoreMatmul(ExamplesTest *, Interpreter &interp, uint32_t m,
                         uint32_t n, uint32_t k, std::mt19937 &rng,
                         StringRef kernel = "tensor_core_matmul",
                         uint32_t blockTile = 64,
                         std::optional<Epilogue> epilogue = std::nullopt) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> af(m * k), bf(k * n);
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = fromHalf(a[i] = toHalf(dist(rng)));
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = fromHalf(b[i] = toHalf(dist(rng)));
  uint64_t da = interp.allocGlobal(a.size() * 2);
  uint64_t db = interp.allocGlobal(b.size() * 2);
  uint64_t dc = interp.allocGlobal(size_t(m) * n * 4);
  ASSERT_TRUE(interp.write(da, a));
  ASSERT_TRUE(interp.write(db, b));
  std::vector<float> c0(size_t(m) * n);
  for (float &x : c0)
    x = dist(rng);
  ASSERT_TRUE(interp.write(dc, c0));
  Dim3 grid((n + blockTile - 1) / blockTile, (m + blockTile - 1) / blockTile);
  std::vector<uint64_t> args = {da, db, dc, m, n, k};
  if (epilogue) {
    args.push_back(Interpreter::argF32(epilogue->alpha));
    args.push_back(Interpreter::argF32(epilogue->beta));
  }
  LaunchResult r = interp.launch(kernel, grid, {256}, args);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> c(size_t(m) * n);
  ASSERT_TRUE(interp.read(dc, c));
  std::vector<double> want = matmulRef(af, bf, m, n, k);
  if (epilogue)
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = double(epilogue->alpha) * want[i] +
                double(epilogue->beta) * double(c0[i]);
  expectClose(c, want, 1e-5, 1e-5);
}

TEST_F(ExamplesTest, TensorCoreMatmulAligned) {
  // K and N multiples of 8: the cp.async fast path; M, N not multiples of
  // the 64 x 64 block tile.
  auto module = compile("tensor_core_matmul");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 70, 72, 48, rng);
}

TEST_F(ExamplesTest, TensorCoreMatmulRagged) {
  // K and N not multiples of 8: rows are not 16-byte aligned, so the copy
  // takes the element-wise path; everything is ragged.
  auto module = compile("tensor_core_matmul");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 45, 67, 37, rng);
}

TEST_F(ExamplesTest, TensorCoreMatmulPipelined) {
  // Two shared stages; K = 48 is an odd number of 16-steps, so the last
  // unrolled iteration computes a zero-filled stage.
  auto module = compile("tensor_core_matmul_pipelined");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 70, 72, 48, rng,
                      "tensor_core_matmul_pipelined");
}

TEST_F(ExamplesTest, TensorCoreMatmulPipelinedRagged) {
  auto module = compile("tensor_core_matmul_pipelined");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 45, 67, 77, rng,
                      "tensor_core_matmul_pipelined");
}

// Warp tiles (4 x 4 accumulator atoms per warp, ldmatrix.x4 and paired
// x4.trans loads) and two stages rotating through the loop's iter_args, at
// shapes that leave partial 128 x 128 block tiles and 32-wide K steps.
TEST_F(ExamplesTest, TensorCoreMatmulTiled) {
  auto module = compile("tensor_core_matmul_tiled");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 130, 72, 96, rng,
                      "tensor_core_matmul_tiled", 128, Epilogue{});
  // C = alpha A B + beta C, interior and edge tiles.
  runTensorCoreMatmul(this, interp, 130, 72, 96, rng,
                      "tensor_core_matmul_tiled", 128, Epilogue{0.5f, -2.0f});
}

// The library's variant for 16-byte aligned rows (kaio.aligned_copies: no
// run-time alignment test, no element-wise copy path), at shapes whose K
// and N are multiples of 8 but whose tiles are partial.
TEST_F(ExamplesTest, TensorCoreMatmulTiledAlignedVariant) {
  auto module = compile("tensor_core_matmul_tiled", "sm_80",
                        kaio::KaioDialect::kAlignedCopiesAttrName);
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  for (auto [m, n, k] : {std::tuple{130u, 72u, 96u}, std::tuple{45u, 64u, 40u},
                         std::tuple{1u, 8u, 8u}})
    runTensorCoreMatmul(this, interp, m, n, k, rng,
                        "tensor_core_matmul_tiled", 128,
                        Epilogue{0.5f, -2.0f});
}

TEST_F(ExamplesTest, TensorCoreMatmulTiledRagged) {
  auto module = compile("tensor_core_matmul_tiled");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  for (auto [m, n, k] : {std::tuple{1u, 1u, 16u}, std::tuple{17u, 33u, 40u},
                         std::tuple{45u, 67u, 77u}})
    runTensorCoreMatmul(this, interp, m, n, k, rng,
                        "tensor_core_matmul_tiled", 128, Epilogue{1.5f, 0.25f});
}

// The same kernel written as one "copy, wait, compute" loop marked
// {kaio.pipeline_stages = 3}: kaio-pipeline-copies builds the three-stage
// pipeline. K values below, at and past the stage count, ragged edges.
TEST_F(ExamplesTest, TensorCoreMatmulStaged) {
  auto module = compile("tensor_core_matmul_staged");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  for (auto [m, n, k] : {std::tuple{1u, 1u, 16u}, std::tuple{17u, 33u, 40u},
                         std::tuple{45u, 67u, 77u}, std::tuple{130u, 72u, 96u},
                         std::tuple{64u, 64u, 160u}})
    runTensorCoreMatmul(this, interp, m, n, k, rng,
                        "tensor_core_matmul_staged", 128);
}

TEST_F(ExamplesTest, TensorCoreMatmulTiled256) {
  auto module = compile("tensor_core_matmul_tiled");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  runTensorCoreMatmul(this, interp, 256, 256, 256, rng,
                      "tensor_core_matmul_tiled", 128, Epilogue{1.0f, 1.0f});
}

// tf32 and int8 mma from kaio tiles (test/Pipeline/mma-tf32-int8.mlir):
// K-major operands load with ldmatrix, the others element by element; one
// warp, checked against f64 / exact references.

/// f32 rounded to tf32 as cvt.rna does: nearest, ties away from zero.
float roundTF32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x1000u) & ~0x1FFFu;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// The row-major [cols][rows] transpose of a row-major rows x cols matrix.
template <class T>
std::vector<T> transposeOf(const std::vector<T> &m, int rows, int cols) {
  std::vector<T> t(m.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      t[size_t(c) * rows + r] = m[size_t(r) * cols + c];
  return t;
}

TEST_F(ExamplesTest, Tf32MmaFromTiles) {
  auto module =
      compilePath(KAIO_SOURCE_DIR "/test/Pipeline/mma-tf32-int8.mlir");
  ASSERT_TRUE(module);
  // (kernel, N, whether A and B go in as A^T [k][m] and B^T [n][k]); M 16,
  // K 8.
  for (auto [name, n, transposed] :
       {std::tuple<const char *, int, bool>{"tf32_tile", 8, false},
        {"tf32_kmajor_b", 16, true}}) {
    SCOPED_TRACE(name);
    const int m = 16, k = 8;
    auto a = random(size_t(m) * k), b = random(size_t(k) * n);
    Interpreter interp(*module);
    uint64_t da = upload(interp, transposed ? transposeOf(a, m, k) : a);
    uint64_t db = upload(interp, transposed ? transposeOf(b, k, n) : b);
    uint64_t dc = upload(interp, std::vector<float>(size_t(m) * n));
    expectLaunched(interp.launch(name, {1}, {32}, {da, db, dc}));
    std::vector<float> at(a.size()), bt(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      at[i] = roundTF32(a[i]);
    for (size_t i = 0; i < b.size(); ++i)
      bt[i] = roundTF32(b[i]);
    expectClose(download<float>(interp, dc, size_t(m) * n),
                matmulRef(at, bt, m, n, k), 1e-6, 1e-6);
  }
}

TEST_F(ExamplesTest, Int8MmaFromTiles) {
  auto module =
      compilePath(KAIO_SOURCE_DIR "/test/Pipeline/mma-tf32-int8.mlir");
  ASSERT_TRUE(module);
  // (kernel, whether B goes in as B^T [n][k]); 16 x 8 x 32.
  for (auto [name, kMajorB] : {std::pair<const char *, bool>{"s8_tile", false},
                               {"s8_kmajor", true}}) {
    SCOPED_TRACE(name);
    const int m = 16, n = 8, k = 32;
    std::uniform_int_distribution<int> dist(-128, 127);
    std::vector<int8_t> a(size_t(m) * k), b(size_t(k) * n);
    for (int8_t &v : a)
      v = static_cast<int8_t>(dist(rng));
    for (int8_t &v : b)
      v = static_cast<int8_t>(dist(rng));
    Interpreter interp(*module);
    uint64_t da = upload(interp, a),
             db = upload(interp, kMajorB ? transposeOf(b, k, n) : b),
             dc = upload(interp, std::vector<int32_t>(size_t(m) * n));
    expectLaunched(interp.launch(name, {1}, {32}, {da, db, dc}));
    auto c = download<int32_t>(interp, dc, size_t(m) * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        int32_t want = 0;
        for (int x = 0; x < k; ++x)
          want += int32_t(a[size_t(i) * k + x]) * int32_t(b[size_t(x) * n + j]);
        ASSERT_EQ(c[size_t(i) * n + j], want) << i << ", " << j;
      }
  }
}

// The hand-written ptx kernels of test/Target/PTX, run as well as printed.

TEST_F(ExamplesTest, PTXKernelVectorAdd) {
  auto module = parsePTX("kernel-vector-add");
  ASSERT_TRUE(module);
  const uint32_t n = 999;
  auto a = random(n), b = random(n);
  Interpreter interp(*module);
  uint64_t da = upload(interp, a), db = upload(interp, b),
           dc = upload(interp, std::vector<float>(n));
  expectLaunched(interp.launch("vector_add", {4}, {256}, {da, db, dc, n}));
  auto c = download<float>(interp, dc, n);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(ExamplesTest, PTXKernelWarpShuffleSum) {
  auto module = parsePTX("kernel-warp-shuffle-sum");
  ASSERT_TRUE(module);
  const uint32_t n = 1000, block = 128, grid = (n + block - 1) / block;
  const uint32_t warps = grid * block / 32;
  auto x = random(n);
  Interpreter interp(*module);
  uint64_t dx = upload(interp, x),
           dout = upload(interp, std::vector<float>(warps, -1.0f));
  expectLaunched(interp.launch("warp_sum", {grid}, {block}, {dx, dout, n}));
  auto out = download<float>(interp, dout, warps);
  for (uint32_t w = 0; w < warps; ++w) {
    double want = 0;
    for (uint32_t i = w * 32; i < std::min(n, (w + 1) * 32); ++i)
      want += x[i];
    ASSERT_NEAR(out[w], want, 1e-5) << "warp " << w;
  }
}

/// A 2-D f16 tensor map with 128-byte swizzle.
uint64_t makeTensorMap16(Interpreter &interp, uint64_t address, uint64_t rows,
                         uint64_t cols, uint32_t boxRows, uint32_t boxCols) {
  return kaio::test::makeTensorMap2D(interp, address, rows, cols, boxRows,
                                     boxCols, kaio::rt::TensorMapSwizzle::B128);
}

// examples/hopper_gemm.mlir: TMA into a 4-stage mbarrier ring, wgmma from
// swizzled tiles, a producer warpgroup and two consumers, persistent over
// the tiles. 200 x 296 is 2 x 2 tiles of 128 x 256, ragged in M and N, and
// K = 200 is 4 K tiles, the last one partial (TMA zero-fills the rest);
// three blocks leave block 0 two tiles, so the ring runs on across tiles.
TEST_F(ExamplesTest, HopperGemm) {
  auto module = compile("hopper_gemm", "sm_90a");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  const uint32_t m = 200, n = 296, k = 200;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = fromHalf(a[i] = toHalf(dist(rng)));
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = fromHalf(b[i] = toHalf(dist(rng)));
  uint64_t da = upload(interp, a), db = upload(interp, b);
  uint64_t dc = upload(interp, std::vector<float>(size_t(m) * n, 7.0f));
  uint64_t ma = makeTensorMap16(interp, da, m, k, 128, 64);
  uint64_t mb = makeTensorMap16(interp, db, k, n, 64, 64);
  expectLaunched(
      interp.launch("hopper_gemm", {3}, {384}, {ma, mb, dc, m, n, k}, 196672));
  expectClose(download<float>(interp, dc, size_t(m) * n),
              matmulRef(af, bf, m, n, k), 1e-5, 1e-5);
}

// examples/hopper_gemm_fp8.mlir: the same pipeline on E4M3 bytes, B given
// as B^T (N x K), 128-element K tiles of k32 wgmmas whose sums are added
// into f32 tile by tile, the scale applied in the epilogue. K = 208 is two
// K tiles, the second partial; 200 x 296 is 2 x 3 ragged 128 x 128 tiles
// over three blocks. Inputs are E4M3 codes of magnitude 1/8..2 (and
// zeros), decoded here for the f64 reference.
TEST_F(ExamplesTest, HopperGemmFp8) {
  auto module = compile("hopper_gemm_fp8", "sm_90a");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  const uint32_t m = 200, n = 296, k = 208;
  std::uniform_int_distribution<int> mant(0, 7), exp(4, 7), sign(0, 1),
      zero(0, 15);
  auto sample = [&](size_t count, std::vector<float> &values) {
    std::vector<uint8_t> codes(count);
    values.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (!zero(rng)) {
        codes[i] = 0;
        values[i] = 0;
        continue;
      }
      int e = exp(rng), mt = mant(rng), sg = sign(rng);
      codes[i] = uint8_t(sg << 7 | e << 3 | mt);
      values[i] = (sg ? -1.0f : 1.0f) * std::ldexp(1.0f + mt / 8.0f, e - 7);
    }
    return codes;
  };
  std::vector<float> af, btf;
  std::vector<uint8_t> a = sample(size_t(m) * k, af),
                       bt = sample(size_t(n) * k, btf);
  std::vector<float> bf(size_t(k) * n); // B = (B^T)^T for the reference
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t p = 0; p < k; ++p)
      bf[size_t(p) * n + j] = btf[size_t(j) * k + p];
  uint64_t da = upload(interp, a), db = upload(interp, bt);
  uint64_t dc = upload(interp, std::vector<float>(size_t(m) * n, 7.0f));
  auto map8 = [&](uint64_t at, uint64_t rows, uint32_t boxRows) {
    return kaio::test::makeTensorMap2D(interp, at, rows, k, boxRows, 128,
                                       kaio::rt::TensorMapSwizzle::B128,
                                       kaio::rt::ScalarType::U8);
  };
  const float scale = 0.25f;
  expectLaunched(interp.launch("hopper_gemm_fp8", {3}, {384},
                               {map8(da, m, 128), map8(db, n, 128), dc, m, n,
                                k, Interpreter::argF32(scale)},
                               131136));
  std::vector<double> want = matmulRef(af, bf, m, n, k);
  for (double &w : want)
    w *= scale;
  expectClose(download<float>(interp, dc, size_t(m) * n), want, 1e-5, 1e-5);
}

// examples/hopper_attention.mlir: S = Q K^T with K read K-major, online
// softmax on the wgmma accumulators, P V with P from registers. Sq = 200
// leaves a partial second block of 128 queries; Sk = 150 is three key
// blocks of 64, the last masked, and wraps the 2-stage ring.
TEST_F(ExamplesTest, HopperAttention) {
  auto module = compile("hopper_attention", "sm_90a");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  const uint32_t sq = 200, sk = 150, d = 64;
  const float scale = 0.125f;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto halves = [&](size_t n, std::vector<float> &f) {
    std::vector<uint16_t> h(n);
    f.resize(n);
    for (size_t i = 0; i < n; ++i)
      f[i] = fromHalf(h[i] = toHalf(dist(rng)));
    return h;
  };
  std::vector<float> qf, kf, vf;
  std::vector<uint16_t> q = halves(sq * d, qf), k = halves(sk * d, kf),
                        v = halves(sk * d, vf);
  uint64_t dq = upload(interp, q), dk = upload(interp, k),
           dv = upload(interp, v);
  uint64_t dout = upload(interp, std::vector<float>(size_t(sq) * d, 7.0f));
  uint64_t mq = makeTensorMap16(interp, dq, sq, d, 128, 64);
  uint64_t mk = makeTensorMap16(interp, dk, sk, d, 64, 64);
  uint64_t mv = makeTensorMap16(interp, dv, sk, d, 64, 64);
  expectLaunched(interp.launch("hopper_attention", {(sq + 127) / 128}, {384},
                               {mq, mk, mv, dout, sq, sk,
                                Interpreter::argF32(scale)}));
  std::vector<double> want(size_t(sq) * d);
  for (uint32_t i = 0; i < sq; ++i) {
    std::vector<double> p(sk);
    double mx = -INFINITY, sum = 0;
    for (uint32_t j = 0; j < sk; ++j) {
      double s = 0;
      for (uint32_t e = 0; e < d; ++e)
        s += double(qf[i * d + e]) * kf[j * d + e];
      p[j] = s * scale;
      mx = std::max(mx, p[j]);
    }
    for (double &x : p)
      sum += (x = std::exp(x - mx));
    for (uint32_t e = 0; e < d; ++e) {
      double o = 0;
      for (uint32_t j = 0; j < sk; ++j)
        o += p[j] * vf[j * d + e];
      want[i * d + e] = o / sum;
    }
  }
  // P is rounded to f16 before P V (as in FlashAttention).
  expectClose(download<float>(interp, dout, size_t(sq) * d), want, 1e-2,
              2e-3);
}

TEST_F(ExamplesTest, PTXKernelMmaTile) {
  // cp.async -> ldmatrix (.x4, .x2.trans) -> mma.sync m16n8k16 on one warp.
  auto module = parsePTX("kernel-mma-tile");
  ASSERT_TRUE(module);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(16 * 16), b(16 * 8);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = fromHalf(a[i] = toHalf(dist(rng)));
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = fromHalf(b[i] = toHalf(dist(rng)));
  Interpreter interp(*module);
  uint64_t da = upload(interp, a), db = upload(interp, b),
           dc = upload(interp, std::vector<float>(16 * 8));
  expectLaunched(interp.launch("mma_tile", {1}, {32}, {da, db, dc}));
  expectClose(download<float>(interp, dc, 16 * 8),
              matmulRef(af, bf, 16, 8, 16), 1e-6, 1e-6);
}

} // namespace

//===- TrainingOpsTest.cpp - softmax backward, cross-entropy, reductions ---===//
//
// Validation (no device) and dispatch through the fake driver; the kernels
// are checked in the interpreter by TrainingKernelsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"
#include "TestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;
using kaio::test::fakeMatrix;
using kaio::test::messageOf;

namespace {

TEST(TrainingValidation, NamesTheOpAndTheArgument) {
  Matrix logits = fakeMatrix(DType::BF16, 4, 1000, 0x100000);
  Matrix targets = fakeMatrix(DType::S32, 1, 4, 0x200000);
  Matrix loss = fakeMatrix(DType::F32, 1, 4, 0x300000);
  EXPECT_EQ(messageOf(validateCrossEntropy(logits, targets, loss)), "");
  EXPECT_EQ(messageOf(validateCrossEntropy(
                logits, fakeMatrix(DType::F32, 1, 4, 0x200000), loss)),
            "cross_entropy: targets: dtype f32 but must be s32");
  // int64 class indices (torch's) as well.
  EXPECT_EQ(messageOf(validateCrossEntropy(
                logits, fakeMatrix(DType::S64, 1, 4, 0x200000), loss)),
            "");
  EXPECT_EQ(messageOf(validateCrossEntropy(
                logits, fakeMatrix(DType::S64, 1, 3, 0x200000), loss)),
            "cross_entropy: targets: is 1x3 but must be a contiguous vector "
            "of 4 elements (one class index per row of logits)");
  EXPECT_EQ(messageOf(validateCrossEntropy(logits, targets,
                                           fakeMatrix(DType::F32, 1, 3))),
            "cross_entropy: loss: is 1x3 but must be a contiguous vector of 4 "
            "elements (one per row of logits)");
  EXPECT_EQ(messageOf(validateCrossEntropy(fakeMatrix(DType::BF16, 4, 0),
                                           targets, loss)),
            "cross_entropy: logits: rows of length 0 have no cross-entropy");
  Matrix lse = fakeMatrix(DType::F32, 1, 4, 0x400000);
  EXPECT_EQ(messageOf(validateCrossEntropyBackward(
                logits, targets, lse, loss,
                fakeMatrix(DType::F16, 4, 1000, 0x500000))),
            "cross_entropy_bwd: dlogits: dtype f16 differs from logits's "
            "bf16");

  Matrix y = fakeMatrix(DType::F32, 3, 50, 0x100000);
  Matrix dy = fakeMatrix(DType::F32, 3, 50, 0x200000);
  EXPECT_EQ(messageOf(validateSoftmaxBackward(y, dy, dy)), "") << "dx = dy";
  EXPECT_EQ(messageOf(validateSoftmaxBackward(y, dy, y)),
            "softmax_bwd: dx: overlaps y");

  Matrix x = fakeMatrix(DType::F16, 6, 10, 0x100000);
  Matrix out = fakeMatrix(DType::F32, 6, 1, 0x200000);
  EXPECT_EQ(messageOf(validateReduceRows(x, out, Reduction::Max)), "");
  EXPECT_EQ(messageOf(validateReduceRows(fakeMatrix(DType::F16, 6, 0), out,
                                         Reduction::Min)),
            "reduce_rows: x: rows of length 0 have no min");
  EXPECT_EQ(messageOf(validateArgmaxRows(x, out)),
            "argmax_rows: out: dtype f32 but must be s32");
  EXPECT_EQ(messageOf(validateReduceAll(x, fakeMatrix(DType::F32, 1, 1),
                                        Reduction::Sum)),
            "reduce_all: workspace: leading dimension 0 is less than the 0 "
            "columns of a 0x0 matrix");
  ReduceOptions o;
  o.workspace = fakeMatrix(DType::F32, 1, 5, 0x300000);
  EXPECT_EQ(messageOf(validateReduceAll(x, fakeMatrix(DType::F32, 1, 1), 
                                        Reduction::Sum, o)),
            "reduce_all: workspace: must be a contiguous f32 vector of at "
            "least 6 elements (one per row of x)");

  // argmaxAll: an s32 index, a workspace for the rows' maxima and argmaxes.
  Matrix index = fakeMatrix(DType::S32, 1, 1, 0x200000);
  EXPECT_EQ(argmaxAllWorkspaceElements(6), 13);
  o.workspace = fakeMatrix(DType::F32, 1, 13, 0x300000);
  EXPECT_EQ(messageOf(validateArgmaxAll(x, index, o)), "");
  EXPECT_EQ(messageOf(validateArgmaxAll(fakeMatrix(DType::F16, 0, 4), index,
                                        o)),
            "argmax_all: x: an empty matrix has no maximum");
  // 2^32 elements: an s64 index (with the workspace for 65536 rows).
  Matrix huge = fakeMatrix(DType::F16, 1 << 16, 1 << 16, 0x100000000);
  ReduceOptions big;
  big.workspace = fakeMatrix(DType::F32, 1, 2 * 65536 + 1, 0x300000);
  EXPECT_EQ(messageOf(validateArgmaxAll(huge, index, big)),
            "argmax_all: out: an s32 index cannot address 65536x65536 (2^31 "
            "elements or more): pass an s64 out");
  EXPECT_EQ(messageOf(validateArgmaxAll(
                huge, fakeMatrix(DType::S64, 1, 1, 0x200000), big)),
            "");
  EXPECT_EQ(messageOf(validateArgmaxAll(
                fakeMatrix(DType::F16, 1, (1 << 24) + 1, 0x100000), index, o)),
            "argmax_all: x: is 1x16777217 (rows and columns up to 2^24)");
  o.workspace = fakeMatrix(DType::F32, 1, 12, 0x300000);
  EXPECT_EQ(messageOf(validateArgmaxAll(x, index, o)),
            "argmax_all: workspace: must be a contiguous f32 vector of at "
            "least 13 elements (argmaxAllWorkspaceElements)");

  // reduceCols: one result per column, a workspace of row slices.
  Matrix cols = fakeMatrix(DType::F32, 1, 10, 0x200000);
  EXPECT_EQ(reduceColsWorkspaceElements(6, 10), 10);
  EXPECT_EQ(reduceColsWorkspaceElements(100000, 10), 256 * 10);
  o.workspace = fakeMatrix(DType::F32, 1, 9, 0x300000);
  EXPECT_EQ(messageOf(validateReduceCols(x, cols, Reduction::Sum, o)),
            "reduce_cols: workspace: must be a contiguous f32 vector of at "
            "least 10 elements (reduceColsWorkspaceElements)");
  o.workspace = fakeMatrix(DType::F32, 1, 10, 0x300000);
  EXPECT_EQ(messageOf(validateReduceCols(x, cols, Reduction::Max, o)), "");
  EXPECT_EQ(messageOf(validateReduceCols(x, out, Reduction::Max, o)),
            "reduce_cols: out: is 6x1 but must be a contiguous vector of 10 "
            "elements (one per column of x)");
  EXPECT_EQ(messageOf(validateReduceCols(fakeMatrix(DType::F16, 0, 10), cols,
                                         Reduction::Min, o)),
            "reduce_cols: x: columns of length 0 have no min");
}

TEST(NormBackwardValidation, NamesTheArgument) {
  Matrix x = fakeMatrix(DType::BF16, 100, 64, 0x100000);
  Matrix dy = fakeMatrix(DType::BF16, 100, 64, 0x200000);
  NormBackwardOptions o;
  o.rstd = fakeMatrix(DType::F32, 1, 100, 0x300000);
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, dy, o)), "");
  EXPECT_EQ(messageOf(validateLayerNormBackward(x, dy, dy, o)),
            "layer_norm_bwd: mean: leading dimension 0 is less than the 0 "
            "columns of a 0x0 matrix");
  o.dbias = fakeMatrix(DType::BF16, 1, 64, 0x400000);
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, dy, o)),
            "rms_norm_bwd: dbias: RMSNorm has no bias");
  o.dbias = Matrix();
  o.dweight = fakeMatrix(DType::BF16, 1, 64, 0x400000);
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, dy, o)),
            "rms_norm_bwd: workspace: leading dimension 0 is less than the 0 "
            "columns of a 0x0 matrix");
  // 100 rows: 7 slices of at most 16 rows, dw and db each.
  EXPECT_EQ(normBackwardWorkspaceElements(100, 64), 2 * 7 * 64);
  o.workspace = fakeMatrix(DType::F32, 1, 895, 0x500000);
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, dy, o)),
            "rms_norm_bwd: workspace: must be a contiguous f32 vector of at "
            "least 896 elements (normBackwardWorkspaceElements)");
  o.workspace = fakeMatrix(DType::F32, 1, 896, 0x500000);
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, dy, o)), "");
  EXPECT_EQ(messageOf(validateRmsNormBackward(x, dy, x, o)),
            "rms_norm_bwd: dx: overlaps x");
}

class TrainingOpsTest : public BackendTest {};

TEST_P(TrainingOpsTest, LaunchesABlockPerRow) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<float>::allocate(*device, 1 << 16);
  auto ints = rt::DeviceBuffer<std::int32_t>::allocate(*device, 64);
  ASSERT_TRUE(buf && ints);
  Matrix logits = Matrix::rowMajor(buf->view().subview(0, 20000), 16, 1000);
  Matrix targets = Matrix::vector(ints->view().subview(0, 16), 16);
  Matrix loss = Matrix::vector(buf->view().subview(30000, 16), 16);
  CrossEntropyOptions ce;
  ce.lse = Matrix::vector(buf->view().subview(30100, 16), 16);
  rt::Error err = lib->crossEntropy(logits, targets, loss, ce);
  ASSERT_FALSE(err) << err.message();
  EXPECT_STREQ(counters->lastKernel, "cross_entropy_f32_v4");
  EXPECT_EQ(counters->lastGrid[0], 16u);
  Matrix dlogits = Matrix::rowMajor(buf->view().subview(40000, 20000), 16, 1000);
  ASSERT_FALSE(lib->crossEntropyBackward(logits, targets, ce.lse, loss,
                                         dlogits));
  EXPECT_STREQ(counters->lastKernel, "cross_entropy_bwd_f32_v4");
  // int64 targets: the _t64 kernels.
  auto longs = rt::DeviceBuffer<std::int64_t>::allocate(*device, 16);
  ASSERT_TRUE(longs);
  Matrix targets64 = Matrix::vector(longs->view(), 16);
  err = lib->crossEntropy(logits, targets64, loss, ce);
  ASSERT_FALSE(err) << err.message();
  EXPECT_STREQ(counters->lastKernel, "cross_entropy_t64_f32_v4");
  ASSERT_FALSE(lib->crossEntropyBackward(logits, targets64, ce.lse, loss,
                                         dlogits));
  EXPECT_STREQ(counters->lastKernel, "cross_entropy_bwd_t64_f32_v4");
  // Rows of up to 8192 elements: y and dy held in registers, in the fewest
  // 16-byte chunks a thread that hold them.
  ASSERT_FALSE(lib->softmaxBackward(logits, dlogits, dlogits));
  EXPECT_STREQ(counters->lastKernel, "softmax_bwd_regs1_f32_v4");
  EXPECT_EQ(counters->lastBlock[0], 256u);
  // 8192 columns: eight chunks' worth, as 512 threads of four.
  Matrix longY = Matrix::rowMajor(buf->view().subview(0, 16384), 2, 8192);
  Matrix longD =
      Matrix::rowMajor(buf->view().subview(40000, 16384), 2, 8192);
  ASSERT_FALSE(lib->softmaxBackward(longY, longD, longD));
  EXPECT_STREQ(counters->lastKernel, "softmax_bwd_regs8_f32_v4");
  EXPECT_EQ(counters->lastBlock[0], 512u);
  // Longer rows are walked (each read twice).
  Matrix wideY = Matrix::rowMajor(buf->view().subview(0, 20000), 2, 8193, 8196);
  Matrix wideD =
      Matrix::rowMajor(buf->view().subview(40000, 20000), 2, 8193, 8196);
  ASSERT_FALSE(lib->softmaxBackward(wideY, wideD, wideD));
  EXPECT_STREQ(counters->lastKernel, "softmax_bwd_f32_v4");
  ASSERT_FALSE(lib->argmaxRows(logits, targets));
  EXPECT_STREQ(counters->lastKernel, "argmax_f32_v4");
  // reduceAll: the rows, then the 16 row results as one row.
  ReduceOptions ro;
  ro.workspace = Matrix::vector(buf->view().subview(30200, 16), 16);
  int launches = counters->launches;
  ASSERT_FALSE(lib->reduceAll(logits,
                              Matrix::vector(buf->view().subview(30300, 1), 1),
                              Reduction::Sum, ro));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "reduce_sum_f32_v4");
  EXPECT_EQ(counters->lastGrid[0], 1u);
  EXPECT_TRUE(lib->reduceRows(logits, targets, Reduction::Sum));
  EXPECT_EQ(counters->launches, launches + 2);
  // reduceCols: 1000 columns in f32 chunks of 4 (one block across), 16
  // rows in one slice, then the slices' maxima in order.
  ro.workspace = Matrix::vector(buf->view().subview(44000, 1000), 1000);
  ASSERT_FALSE(lib->reduceCols(logits,
                               Matrix::vector(buf->view().subview(46000, 1000),
                                              1000),
                               Reduction::Max, ro));
  EXPECT_EQ(counters->launches, launches + 4);
  EXPECT_STREQ(counters->lastKernel, "reduce_cols_finish_max");
  EXPECT_EQ(counters->lastGrid[0], 4u);
  launches += 2;
  // argmaxAll: the rows' maxima and argmaxes, the argmax of the maxima,
  // then the index.
  ro.workspace = Matrix::vector(buf->view().subview(44000, 33), 33);
  ASSERT_FALSE(lib->argmaxAll(logits, Matrix::vector(ints->view().subview(32, 1), 1),
                              ro));
  EXPECT_EQ(counters->launches, launches + 2 + 4);
  EXPECT_STREQ(counters->lastKernel, "argmax_all_finish");
  launches += 4;
  // LayerNorm backward with parameter gradients: dx and the row slices'
  // partials in one kernel (1000 f32 columns in 16-byte chunks fit a
  // block; 16 rows: one slice), then their sum.
  NormBackwardOptions nb;
  nb.mean = Matrix::vector(buf->view().subview(30400, 16), 16);
  nb.rstd = Matrix::vector(buf->view().subview(30500, 16), 16);
  nb.dweight = Matrix::vector(buf->view().subview(61000, 1000), 1000);
  nb.dbias = Matrix::vector(buf->view().subview(62000, 1000), 1000);
  nb.workspace = Matrix::vector(buf->view().subview(20000, 2000), 2000);
  ASSERT_FALSE(lib->layerNormBackward(logits, dlogits, dlogits, nb));
  EXPECT_EQ(counters->launches, launches + 4);
  EXPECT_STREQ(counters->lastKernel, "norm_bwd_reduce_f32");
  EXPECT_EQ(counters->lastGrid[0], 4u);
  // Rows longer than the register variants hold (5000 f32 columns): the
  // wide fused kernel (512 threads, accumulators in shared memory), then
  // the sum (20 blocks across).
  Matrix wide = Matrix::rowMajor(buf->view().subview(0, 10000), 2, 5000);
  Matrix dwide = Matrix::rowMajor(buf->view().subview(40000, 10000), 2, 5000);
  nb.mean = Matrix::vector(buf->view().subview(30400, 2), 2);
  nb.rstd = Matrix::vector(buf->view().subview(30500, 2), 2);
  nb.dweight = Matrix::vector(buf->view().subview(50000, 5000), 5000);
  nb.dbias = Matrix::vector(buf->view().subview(55000, 5000), 5000);
  nb.workspace = Matrix::vector(buf->view().subview(20000, 10000), 10000);
  launches = counters->launches;
  ASSERT_FALSE(lib->layerNormBackward(wide, dwide, dwide, nb));
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->prevKernel, "layer_norm_bwd_fused_b512r4_f32_v4");
  EXPECT_STREQ(counters->lastKernel, "norm_bwd_reduce_f32");
  EXPECT_EQ(counters->lastGrid[0], 20u);
  // Longer still (8196 aligned columns: 2049 chunks, past the wide
  // kernel's 2048): the slices, then dx, then their sum — the slices
  // before dx, which may be dy (in place here).
  Matrix wider = Matrix::rowMajor(buf->view().subview(0, 16392), 2, 8196);
  Matrix dwider =
      Matrix::rowMajor(buf->view().subview(41000, 16392), 2, 8196);
  nb.mean = Matrix::vector(buf->view().subview(57400, 2), 2);
  nb.rstd = Matrix::vector(buf->view().subview(57500, 2), 2);
  nb.dweight = Matrix::vector(buf->view().subview(16400, 8196), 8196);
  nb.dbias = Matrix();
  nb.workspace = Matrix::vector(buf->view().subview(24600, 16392), 16392);
  launches = counters->launches;
  ASSERT_FALSE(lib->layerNormBackward(wider, dwider, dwider, nb));
  EXPECT_EQ(counters->launches, launches + 3);
  EXPECT_STREQ(counters->prevKernel, "layer_norm_bwd_f32_v4");
  EXPECT_STREQ(counters->lastKernel, "norm_bwd_reduce_f32");
}

TEST_P(TrainingOpsTest, WideNormBackwardNeedsItsSharedMemory) {
  if (!isFake())
    GTEST_SKIP() << "a fake GPU with less opt-in shared memory";
  // The wide kernel stages two rows of x and dy and the weight in shared
  // memory: 160 KiB for bf16 rows of 16000 columns as for f32 rows of 8000.
  // A GPU with 99 KiB of opt-in shared memory a block (as sm_86/89) takes
  // the two-kernel path for both (the slices, then dx); one with 163 KiB
  // (sm_80) the wide kernel.
  for (int optinBytes : {101376, 166912}) {
    ScopedEnv optin("FAKE_CUDA_OPTIN_SHARED",
                    std::to_string(optinBytes).c_str());
    rt::Expected<rt::Device> device = rt::Device::open(0);
    ASSERT_TRUE(device) << device.error().message();
    ASSERT_EQ(device->properties().sharedMemPerBlockOptin, optinBytes);
    rt::Expected<Library> lib = Library::load(*device);
    ASSERT_TRUE(lib) << lib.error().message();
    FakeCudaCounters *counters = getFakeCounters();
    const bool fits = optinBytes > 101376;
    for (DType type : {DType::BF16, DType::F32}) {
      SCOPED_TRACE(std::string(getDTypeName(type)) + ", " +
                   std::to_string(optinBytes) + " bytes");
      const std::int64_t rows = 4, cols = type == DType::BF16 ? 16000 : 8000;
      // Made-up addresses (the fake never dereferences them): pointer
      // checks off.
      ScopedEnv unchecked("KAIO_CHECK_POINTERS", "0");
      Matrix x = fakeMatrix(type, rows, cols, 0x1000000);
      Matrix dy = fakeMatrix(type, rows, cols, 0x2000000);
      Matrix dx = fakeMatrix(type, rows, cols, 0x3000000);
      NormBackwardOptions o;
      o.rstd = fakeMatrix(DType::F32, 1, rows, 0x4000000);
      o.dweight = fakeMatrix(type, 1, cols, 0x5000000);
      o.workspace = fakeMatrix(DType::F32, 1,
                               normBackwardWorkspaceElements(rows, cols),
                               0x6000000);
      int launches = counters->launches;
      rt::Error e = lib->rmsNormBackward(x, dy, dx, o);
      ASSERT_FALSE(e) << e.message();
      std::string v = type == DType::BF16 ? "bf16_v8" : "f32_v4";
      EXPECT_EQ(counters->launches, launches + (fits ? 2 : 3));
      EXPECT_EQ(std::string(counters->prevKernel),
                fits ? "rms_norm_bwd_fused_b512r4_" + v : "rms_norm_bwd_" + v);
    }
  }
}

// On a GPU: softmax and log-softmax backward against the closed form in
// f64, on the register-row kernels of one to eight chunks' worth (8192: 512
// threads of four) and the walking kernels (8193; an unaligned stride), dx
// written over dy.
TEST_P(TrainingOpsTest, SoftmaxBackwardMatchesF64OnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (std::int64_t n : {1000, 4096, 5000, 8192, 8193})
    for (std::int64_t ld : {n, n + 1})
      for (bool log : {false, true}) {
        const std::int64_t rows = 7;
        std::vector<float> hy(rows * ld), hdy(rows * ld);
        for (float &v : hdy)
          v = dist(rng);
        // A softmax's outputs (log-softmax: their logarithms).
        for (std::int64_t r = 0; r < rows; ++r) {
          double sum = 0;
          for (std::int64_t c = 0; c < n; ++c)
            sum += std::exp(hy[r * ld + c] = 3 * dist(rng));
          for (std::int64_t c = 0; c < n; ++c) {
            double p = std::exp(hy[r * ld + c]) / sum;
            hy[r * ld + c] = float(log ? std::log(p) : p);
          }
        }
        auto y = rt::DeviceBuffer<float>::fromHost(*device, hy);
        auto dy = rt::DeviceBuffer<float>::fromHost(*device, hdy);
        ASSERT_TRUE(y && dy);
        Matrix my = Matrix::rowMajor(y->view(), rows, n, ld);
        Matrix mdy = Matrix::rowMajor(dy->view(), rows, n, ld);
        SoftmaxOptions o;
        o.scale = 0.5f;
        rt::Error e = log ? lib->logSoftmaxBackward(my, mdy, mdy, o)
                          : lib->softmaxBackward(my, mdy, mdy, o);
        ASSERT_FALSE(e) << e.message();
        std::vector<float> got(rows * ld);
        ASSERT_FALSE(dy->copyToHost(got.data(), got.size()));
        for (std::int64_t r = 0; r < rows; ++r) {
          double total = 0;
          for (std::int64_t c = 0; c < n; ++c)
            total += log ? double(hdy[r * ld + c])
                         : double(hdy[r * ld + c]) * hy[r * ld + c];
          for (std::int64_t c = 0; c < n; ++c) {
            double yv = hy[r * ld + c], g = hdy[r * ld + c];
            double want = log ? 0.5 * (g - std::exp(yv) * total)
                              : 0.5 * yv * (g - total);
            double size = log ? std::fabs(g) + std::exp(yv) * std::fabs(total)
                              : std::fabs(yv) * (std::fabs(g) + std::fabs(total));
            ASSERT_NEAR(got[r * ld + c], want, 1e-5 * size + 1e-9)
                << (log ? "log_" : "") << "softmax_bwd n=" << n
                << " ld=" << ld << " row " << r << " col " << c;
          }
        }
      }
}

// On a GPU: RMSNorm and LayerNorm backward (dx, dweight, dbias) against
// the closed form in f64, on every path: the register fused kernels (7 to
// 4096 columns, 128 to 512 threads), the wide one (5000, 8192 and 8193:
// shared accumulators, the last with a tail), the two-kernel path (8196
// columns, one chunk too many; and a row stride that is not 16-byte
// aligned), with enough rows for several slices. LayerNorm's dx is written
// over dy (in place).
TEST_P(TrainingOpsTest, NormBackwardMatchesF64OnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2, 2);
  struct Shape {
    std::int64_t n, ld;
  };
  for (Shape sh : {Shape{7, 8}, Shape{300, 300}, Shape{1000, 1000},
                   Shape{4096, 4096}, Shape{5000, 5000}, Shape{8192, 8192},
                   Shape{8193, 8196}, Shape{8196, 8196},
                   Shape{4096, 4097}})
    for (bool layer : {false, true}) {
      const std::int64_t n = sh.n, ld = sh.ld, rows = n > 2000 ? 40 : 100;
      std::vector<float> hx(rows * ld), hdy(rows * ld), hw(n), hmean(rows),
          hrstd(rows);
      for (float &v : hx)
        v = dist(rng);
      for (float &v : hdy)
        v = dist(rng) / 2;
      for (float &v : hw)
        v = 1 + dist(rng) / 4;
      for (std::int64_t r = 0; r < rows; ++r) {
        double mu = 0, ss = 0;
        for (std::int64_t c = 0; c < n; ++c)
          mu += hx[r * ld + c];
        mu = layer ? mu / n : 0;
        for (std::int64_t c = 0; c < n; ++c)
          ss += (hx[r * ld + c] - mu) * (hx[r * ld + c] - mu);
        hmean[r] = float(mu);
        hrstd[r] = float(1 / std::sqrt(ss / n + 1e-5));
      }
      auto x = rt::DeviceBuffer<float>::fromHost(*device, hx);
      auto dy = rt::DeviceBuffer<float>::fromHost(*device, hdy);
      auto w = rt::DeviceBuffer<float>::fromHost(*device, hw);
      auto mean = rt::DeviceBuffer<float>::fromHost(*device, hmean);
      auto rstd = rt::DeviceBuffer<float>::fromHost(*device, hrstd);
      auto dx = rt::DeviceBuffer<float>::allocate(*device, rows * ld);
      auto dw = rt::DeviceBuffer<float>::allocate(*device, n);
      auto db = rt::DeviceBuffer<float>::allocate(*device, n);
      auto ws = rt::DeviceBuffer<float>::allocate(
          *device, normBackwardWorkspaceElements(rows, n));
      ASSERT_TRUE(x && dy && w && mean && rstd && dx && dw && db && ws);
      NormBackwardOptions o;
      o.weight = Matrix::vector(w->view(), n);
      o.rstd = Matrix::vector(rstd->view(), rows);
      if (layer) {
        o.mean = Matrix::vector(mean->view(), rows);
        o.dbias = Matrix::vector(db->view(), n);
      }
      o.dweight = Matrix::vector(dw->view(), n);
      o.workspace = Matrix::vector(ws->view(), ws->size());
      Matrix mx = Matrix::rowMajor(x->view(), rows, n, ld);
      Matrix mdy = Matrix::rowMajor(dy->view(), rows, n, ld);
      Matrix mdx = layer ? mdy : Matrix::rowMajor(dx->view(), rows, n, ld);
      rt::Error e = layer ? lib->layerNormBackward(mx, mdy, mdx, o)
                          : lib->rmsNormBackward(mx, mdy, mdx, o);
      ASSERT_FALSE(e) << e.message();
      std::vector<float> gx(rows * ld), gw(n), gb(n);
      ASSERT_FALSE((layer ? *dy : *dx).copyToHost(gx.data(), gx.size()));
      ASSERT_FALSE(dw->copyToHost(gw.data(), gw.size()));
      ASSERT_FALSE(db->copyToHost(gb.data(), gb.size()));
      std::vector<double> wantW(n), wantB(n);
      const std::string at = std::string(layer ? "layer" : "rms") +
                             "_norm_bwd n=" + std::to_string(n) +
                             " ld=" + std::to_string(ld);
      for (std::int64_t r = 0; r < rows; ++r) {
        double mu = hmean[r], rs = hrstd[r], sg = 0, sgx = 0;
        for (std::int64_t c = 0; c < n; ++c) {
          double g = double(hdy[r * ld + c]) * hw[c],
                 xhat = (hx[r * ld + c] - mu) * rs;
          sg += g;
          sgx += g * xhat;
          wantW[c] += hdy[r * ld + c] * xhat;
          wantB[c] += hdy[r * ld + c];
        }
        for (std::int64_t c = 0; c < n; ++c) {
          double xhat = (hx[r * ld + c] - mu) * rs;
          double want = rs * (double(hdy[r * ld + c]) * hw[c] -
                              (layer ? sg / n : 0) - xhat * sgx / n);
          ASSERT_NEAR(gx[r * ld + c], want, 1e-4 * (std::fabs(want) + 0.1))
              << at << " dx row " << r << " col " << c;
        }
      }
      for (std::int64_t c = 0; c < n; ++c) {
        ASSERT_NEAR(gw[c], wantW[c], 1e-4 * (std::fabs(wantW[c]) + 1))
            << at << " dweight " << c;
        if (layer)
          ASSERT_NEAR(gb[c], wantB[c], 1e-4 * (std::fabs(wantB[c]) + 1))
              << at << " dbias " << c;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainingOpsTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

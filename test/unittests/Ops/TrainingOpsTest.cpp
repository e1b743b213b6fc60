//===- TrainingOpsTest.cpp - softmax backward, cross-entropy, reductions ---===//
//
// Validation (no device) and dispatch through the fake driver; the kernels
// are checked in the interpreter by TrainingKernelsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include <gtest/gtest.h>

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
  // Rows wider than a block holds (5000 f32 columns): dx, the slices (20
  // blocks across), their sum.
  Matrix wide = Matrix::rowMajor(buf->view().subview(0, 10000), 2, 5000);
  Matrix dwide = Matrix::rowMajor(buf->view().subview(40000, 10000), 2, 5000);
  nb.mean = Matrix::vector(buf->view().subview(30400, 2), 2);
  nb.rstd = Matrix::vector(buf->view().subview(30500, 2), 2);
  nb.dweight = Matrix::vector(buf->view().subview(50000, 5000), 5000);
  nb.dbias = Matrix::vector(buf->view().subview(55000, 5000), 5000);
  nb.workspace = Matrix::vector(buf->view().subview(20000, 10000), 10000);
  launches = counters->launches;
  ASSERT_FALSE(lib->layerNormBackward(wide, dwide, dwide, nb));
  EXPECT_EQ(counters->launches, launches + 3);
  EXPECT_STREQ(counters->lastKernel, "norm_bwd_reduce_f32");
  EXPECT_EQ(counters->lastGrid[0], 20u);
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainingOpsTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

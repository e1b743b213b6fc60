//===- AttentionTest.cpp - kaio::ops::flashAttention: validation, dispatch -===//
//
// Every argument rule with the message it gives, what is launched (kernel,
// grid, nothing on bad input) through the fake driver, and on a GPU the
// result against an f64 reference (the interpreter tests in
// AttentionKernelsTest.cpp cover the kernels' numerics without one).
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"
#include "OpsTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::rt::test;
using kaio::test::fakeMatrix;
using kaio::test::messageOf;

namespace {

/// A contiguous [b, s, h, d] tensor at a device address nothing reads.
AttentionTensor fakeTensor(DType type, std::int64_t b, std::int64_t s,
                           std::int64_t h, std::int64_t d, CUdeviceptr at) {
  AttentionTensor t;
  t.data = at;
  t.dtype = type;
  t.batch = b;
  t.seq = s;
  t.heads = h;
  t.dim = d;
  t.batchStride = s * h * d;
  t.seqStride = h * d;
  t.headStride = d;
  return t;
}

struct Args {
  AttentionTensor q = fakeTensor(DType::F16, 2, 100, 8, 128, 0x1000000);
  AttentionTensor k = fakeTensor(DType::F16, 2, 300, 2, 128, 0x2000000);
  AttentionTensor v = fakeTensor(DType::F16, 2, 300, 2, 128, 0x3000000);
  AttentionTensor o = fakeTensor(DType::F16, 2, 100, 8, 128, 0x4000000);
  AttentionOptions opt;
  std::string check() const {
    return messageOf(validateFlashAttention(q, k, v, o, opt));
  }
};

TEST(FlashAttentionValidation, NamesTheArgument) {
  Args a;
  EXPECT_EQ(a.check(), "");
  {
    Args b = a;
    b.q.dim = b.k.dim = b.v.dim = b.o.dim = 96;
    rt::Error e = validateFlashAttention(b.q, b.k, b.v, b.o, b.opt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(e.message(), "flash_attention: q: head dimension 96 "
                           "(supported: 64, 128, 256)");
  }
  {
    Args b = a;
    b.k.heads = b.v.heads = 3;
    EXPECT_EQ(b.check(), "flash_attention: k: 3 heads do not divide q's 8 "
                         "(GQA/MQA groups)");
  }
  {
    Args b = a;
    b.v.dtype = DType::BF16;
    EXPECT_EQ(b.check(),
              "flash_attention: v: dtype bf16 but must be f16 (q's)");
  }
  {
    Args b = a;
    b.q.dtype = b.k.dtype = b.v.dtype = b.o.dtype = DType::F32;
    rt::Error e = validateFlashAttention(b.q, b.k, b.v, b.o, b.opt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(e.message(), "flash_attention: q: dtype f32 (f16 or bf16)");
  }
  {
    // Ping-pong is built for head dims 64 and 128; 256 issues freely.
    Args b = a;
    b.opt.schedule = AttentionOptions::Schedule::PingPong;
    EXPECT_EQ(b.check(), "");
    b.q.dim = b.k.dim = b.v.dim = b.o.dim = 256;
    rt::Error e = validateFlashAttention(b.q, b.k, b.v, b.o, b.opt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(e.message(), "flash_attention: schedule: ping-pong at head "
                           "dimension 256 (supported: 64, 128)");
    b.opt.schedule = AttentionOptions::Schedule::Auto;
    EXPECT_EQ(b.check(), "");
  }
  {
    // 192-row blocks are built at head dim 64; 128 is every dim's.
    Args b = a;
    b.q.dim = b.k.dim = b.v.dim = b.o.dim = 64;
    for (int rows : {0, 128, 192}) {
      b.opt.queryRows = rows;
      EXPECT_EQ(b.check(), "") << rows;
    }
    b.opt.queryRows = 64;
    EXPECT_EQ(b.check(), "flash_attention: queryRows: 64 is not 0 (the "
                         "library's choice), 128 or 192");
    b.q.dim = b.k.dim = b.v.dim = b.o.dim = 128;
    b.opt.queryRows = 192;
    rt::Error e = validateFlashAttention(b.q, b.k, b.v, b.o, b.opt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(e.message(), "flash_attention: queryRows: 192 at head "
                           "dimension 128 (supported: 64)");
  }
  {
    Args b = a;
    b.o.seq = 99;
    EXPECT_EQ(b.check(), "flash_attention: o: is 2x99x8x128 but must be "
                         "2x100x8x128 (q's shape)");
  }
  {
    Args b = a;
    b.v.seq = 299;
    EXPECT_EQ(b.check(), "flash_attention: v: is 2x299x2x128 but must be "
                         "2x300x2x128 (k's shape)");
  }
  {
    Args b = a;
    b.k.batch = b.v.batch = 1;
    EXPECT_EQ(b.check(), "flash_attention: k: batch 1 but q's is 2");
  }
  {
    Args b = a;
    b.k.seqStride = 2 * 128 + 4;
    EXPECT_EQ(b.check(),
              "flash_attention: k: every row must start 16-byte aligned "
              "(pointer a multiple of 16 bytes, strides multiples of 8 "
              "elements)");
    b = a;
    b.q.data += 2;
    EXPECT_EQ(b.check(),
              "flash_attention: q: every row must start 16-byte aligned "
              "(pointer a multiple of 16 bytes, strides multiples of 8 "
              "elements)");
  }
  {
    Args b = a;
    b.o.data = b.q.data + 4096;
    EXPECT_EQ(b.check(), "flash_attention: o: overlaps q");
  }
  {
    Args b = a;
    b.o.capacityBytes = 2 * 100 * 8 * 128 * 2 - 2;
    EXPECT_EQ(b.check(), "flash_attention: o: 2x100x8x128 spans 409600 bytes "
                         "but the buffer holds 409598");
  }
  {
    Args b = a;
    b.opt.scale = -1;
    EXPECT_EQ(b.check(), "flash_attention: scale: must be finite and positive "
                         "(0: 1 / sqrt(dim))");
    b.opt.scale = NAN;
    EXPECT_EQ(b.check(), "flash_attention: scale: must be finite and positive "
                         "(0: 1 / sqrt(dim))");
  }
  {
    Args b = a;
    b.opt.causal = true;
    b.opt.windowRight = 4;
    EXPECT_EQ(b.check(), "flash_attention: window: a causal mask has no keys "
                         "right of the diagonal (windowRight must be -1 or 0)");
    b.opt.windowRight = -2;
    EXPECT_EQ(b.check(), "flash_attention: window: sides are -1 (unbounded) "
                         "or 0 .. 2^31 - 1");
  }
  {
    Args b = a;
    b.opt.lse = fakeMatrix(DType::F32, 1, 2 * 8 * 100 - 1, 0x5000000);
    EXPECT_EQ(b.check(), "flash_attention: lse: is 1x1599 but must be a "
                         "contiguous vector of 1600 elements ([batch, heads, "
                         "seq_q])");
    b.opt.lse = fakeMatrix(DType::F32, 1, 2 * 8 * 100, 0x4000000);
    EXPECT_EQ(b.check(), "flash_attention: lse: overlaps o");
  }
}

TEST(FlashAttentionValidation, PackedSequences) {
  Args a;
  a.q.batch = a.k.batch = a.v.batch = a.o.batch = 1;
  a.opt.cuSeqlensQ = fakeMatrix(DType::S32, 1, 4, 0x6000000);
  a.opt.cuSeqlensK = fakeMatrix(DType::S32, 1, 4, 0x6001000);
  a.opt.maxSeqlenQ = 60;
  EXPECT_EQ(a.check(), "");
  Args b = a;
  b.opt.cuSeqlensK.cols = b.opt.cuSeqlensK.ld = 3;
  EXPECT_EQ(b.check(), "flash_attention: cu_seqlens_k: is 1x3 but must be a "
                       "contiguous vector of 4 elements (as many as "
                       "cu_seqlens_q)");
  b = a;
  b.opt.maxSeqlenQ = 101;
  EXPECT_EQ(b.check(), "flash_attention: max_seqlen_q: must be in 1 .. 100 "
                       "(the packed query rows)");
  b = a;
  b.q.batch = b.o.batch = b.k.batch = b.v.batch = 2;
  EXPECT_EQ(b.check(), "flash_attention: q: packed sequences (cu_seqlens) "
                       "take tensors of batch 1, not 2");
  b = a;
  b.opt.cuSeqlensQ.dtype = DType::F32;
  EXPECT_EQ(b.check(), "flash_attention: cu_seqlens_q: dtype f32 but must be "
                       "s32");
  b = a;
  b.opt.lse = fakeMatrix(DType::F32, 1, 8 * 100, 0x7000000);
  EXPECT_EQ(b.check(), "");
}

TEST(FlashAttentionValidation, Backward) {
  Args a;
  AttentionTensor dO = fakeTensor(DType::F16, 2, 100, 8, 128, 0x5000000);
  AttentionTensor dq = fakeTensor(DType::F16, 2, 100, 8, 128, 0x6000000);
  AttentionTensor dk = fakeTensor(DType::F16, 2, 300, 2, 128, 0x7000000);
  AttentionTensor dv = fakeTensor(DType::F16, 2, 300, 2, 128, 0x8000000);
  a.opt.lse = fakeMatrix(DType::F32, 1, 2 * 8 * 100, 0x9000000);
  a.opt.workspace = fakeMatrix(DType::F32, 1, 2 * 8 * 100, 0xa000000);
  auto check = [&](const Args &b, const AttentionTensor &gdo,
                   const AttentionTensor &gq, const AttentionTensor &gk,
                   const AttentionTensor &gv) {
    return messageOf(validateFlashAttentionBackward(b.q, b.k, b.v, b.o, gdo,
                                                    gq, gk, gv, b.opt));
  };
  EXPECT_EQ(flashAttentionBackwardWorkspaceElements(a.q), 1600);
  EXPECT_EQ(check(a, dO, dq, dk, dv), "");
  {
    // Head dim 256: the backward too (dK/dV blocks of 32 keys).
    Args w = a;
    AttentionTensor wdo = dO, wdq = dq, wdk = dk, wdv = dv;
    for (AttentionTensor *t :
         {&w.q, &w.k, &w.v, &w.o, &wdo, &wdq, &wdk, &wdv}) {
      t->dim = 256;
      t->batchStride = t->batchStride * 2;
      t->seqStride *= 2;
      t->headStride *= 2;
    }
    EXPECT_EQ(w.check(), "");
    EXPECT_EQ(check(w, wdo, wdq, wdk, wdv), "");
    // The forward's schedule: the backward ignores it.
    w.opt.schedule = AttentionOptions::Schedule::PingPong;
    EXPECT_EQ(check(w, wdo, wdq, wdk, wdv), "");
    w.opt.schedule = AttentionOptions::Schedule::Auto;
    // Other head dims: a typed error naming the supported set.
    for (AttentionTensor *t :
         {&w.q, &w.k, &w.v, &w.o, &wdo, &wdq, &wdk, &wdv})
      t->dim = 96;
    rt::Error e = validateFlashAttentionBackward(w.q, w.k, w.v, w.o, wdo, wdq,
                                                 wdk, wdv, w.opt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
    EXPECT_EQ(e.message(), "flash_attention: q: head dimension 96 "
                           "(supported: 64, 128, 256)");
  }
  Args b = a;
  b.opt.lse = Matrix();
  EXPECT_EQ(check(b, dO, dq, dk, dv),
            "flash_attention: lse: required (the forward's logsumexp per "
            "row)");
  b = a;
  b.opt.workspace.cols = b.opt.workspace.ld = 1599;
  EXPECT_EQ(check(b, dO, dq, dk, dv),
            "flash_attention: workspace: must be a contiguous f32 vector of "
            "at least 1600 elements (flashAttentionBackwardWorkspaceElements)");
  AttentionTensor wrong = dk;
  wrong.seq = 299;
  EXPECT_EQ(check(a, dO, dq, dk, wrong),
            "flash_attention: dv: is 2x299x2x128 but must be 2x300x2x128 "
            "(k's shape)");
  wrong = dq;
  wrong.data = a.q.data;
  EXPECT_EQ(check(a, dO, wrong, dk, dv), "flash_attention: dq: overlaps q");
  wrong = dv;
  wrong.data = dk.data + 256;
  EXPECT_EQ(check(a, dO, dq, dk, wrong), "flash_attention: dv: overlaps dk");
  wrong = dO;
  wrong.dtype = DType::BF16;
  EXPECT_EQ(check(a, wrong, dq, dk, dv),
            "flash_attention: do: dtype bf16 but must be f16 (q's)");
  b = a;
  b.opt.workspace.data = dq.data;
  EXPECT_EQ(check(b, dO, dq, dk, dv),
            "flash_attention: workspace: overlaps dq");
  // Packed: the key blocks need the longest key sequence.
  b = a;
  for (AttentionTensor *t : {&b.q, &b.k, &b.v, &b.o})
    t->batch = 1;
  AttentionTensor pdo = dO, pdq = dq, pdk = dk, pdv = dv;
  for (AttentionTensor *t : {&pdo, &pdq, &pdk, &pdv})
    t->batch = 1;
  b.opt.cuSeqlensQ = fakeMatrix(DType::S32, 1, 3, 0xb000000);
  b.opt.cuSeqlensK = fakeMatrix(DType::S32, 1, 3, 0xb001000);
  b.opt.maxSeqlenQ = 60;
  b.opt.lse.cols = b.opt.lse.ld = 800;
  EXPECT_EQ(check(b, pdo, pdq, pdk, pdv),
            "flash_attention: max_seqlen_k: must be in 1 .. 300 (the packed "
            "key rows)");
  b.opt.maxSeqlenK = 200;
  EXPECT_EQ(check(b, pdo, pdq, pdk, pdv), "");
}

TEST(FlashDecodeValidation, NamesTheArgument) {
  // 4 sequences, 2 tokens each of 16 heads over 4 kv heads (8 rows), a
  // pool of 40 pages of 64 keys.
  AttentionTensor q = fakeTensor(DType::BF16, 4, 2, 16, 128, 0x1000000);
  AttentionTensor o = fakeTensor(DType::BF16, 4, 2, 16, 128, 0x2000000);
  KVCache c;
  c.k = fakeTensor(DType::BF16, 40, 64, 4, 128, 0x3000000);
  c.v = fakeTensor(DType::BF16, 40, 64, 4, 128, 0x4000000);
  c.pageSize = 64;
  c.blockTable = fakeMatrix(DType::S32, 4, 10, 0x5000000);
  c.seqlens = fakeMatrix(DType::S32, 1, 4, 0x5001000);
  DecodeOptions opt;
  // 4 x 4 (batch x kv heads) pairs, 10 tiles: 10 blocks of 4 warps, 8 rows
  // of 128 + 1 floats each.
  EXPECT_EQ(flashDecodeWorkspaceElements(q, c),
            4 * 4 * 10 * 4 * 8 * 129);
  opt.workspace = fakeMatrix(DType::F32, 1, 4 * 4 * 10 * 4 * 8 * 129,
                             0x6000000);
  auto check = [&](const AttentionTensor &qq, const KVCache &cc,
                   const DecodeOptions &oo) {
    return messageOf(validateFlashDecode(qq, cc, o, oo));
  };
  EXPECT_EQ(check(q, c, opt), "");
  KVCache b = c;
  b.pageSize = 24;
  b.k.seq = b.v.seq = 24;
  rt::Error e = validateFlashDecode(q, b, o, opt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), rt::ErrorCode::Unsupported);
  EXPECT_EQ(e.message(), "flash_decode: page_size: 24 (a multiple of 16)");
  // vLLM's 16-key pages.
  b.pageSize = 16;
  b.k.seq = b.v.seq = 16;
  EXPECT_EQ(check(q, b, opt), "");
  b = c;
  b.k.seq = b.v.seq = 128;
  EXPECT_EQ(check(q, b, opt), "flash_decode: k_cache: pages of 128 rows but "
                              "page_size is 64");
  b = c;
  b.blockTable.rows = 3;
  EXPECT_EQ(check(q, b, opt), "flash_decode: block_table: must be a "
                              "row-major s32 [batch, max pages] matrix (4 "
                              "rows)");
  b = c;
  b.seqlens.dtype = DType::F32;
  EXPECT_EQ(check(q, b, opt), "flash_decode: seqlens: dtype f32 but must be "
                              "s32");
  // More than 16 rows a kv head (6 query heads x 3 tokens): one 32-row
  // block a head (the _r32 kernel), which the splits (and so the
  // workspace) count — 4 x 4 blocks of 10 splits (two 16-row blocks took
  // 5 each).
  AttentionTensor many = fakeTensor(DType::BF16, 4, 3, 24, 128, 0x1000000);
  AttentionTensor manyO = fakeTensor(DType::BF16, 4, 3, 24, 128, 0x7000000);
  EXPECT_EQ(flashDecodeWorkspaceElements(many, c),
            4 * 4 * 10 * 4 * 18 * 129);
  DecodeOptions manyOpt = opt;
  manyOpt.workspace = fakeMatrix(DType::F32, 1, 4 * 4 * 10 * 4 * 18 * 129,
                                 0x8000000);
  EXPECT_EQ(messageOf(validateFlashDecode(many, c, manyO, manyOpt)), "");
  // The grid's y: kv heads x row blocks at most 65535 (4 x 16385 32-row
  // blocks here).
  AttentionTensor mqa =
      fakeTensor(DType::BF16, 4, 1, 4 * 16385 * 32, 128, 0x10000000);
  e = validateFlashDecode(mqa, c, mqa, opt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "flash_decode: q: more than 65535 batches, or kv "
                         "heads x row blocks (of 32) of their query heads x "
                         "tokens (4 x 16385)");
  DecodeOptions small = opt;
  small.workspace.cols = small.workspace.ld = 100;
  EXPECT_EQ(check(q, c, small),
            "flash_decode: workspace: must be a contiguous f32 vector of at "
            "least 660480 elements (flashDecodeWorkspaceElements)");
  // Contiguous: one cache row block per batch.
  b = c;
  b.blockTable = Matrix();
  EXPECT_EQ(check(q, b, opt), "flash_decode: k_cache: batch 40 but q's is 4 "
                              "(a paged cache takes a block_table)");
}

class FlashAttentionTest : public BackendTest {};

TEST_P(FlashAttentionTest, DecodeLaunchesSplitsThenTheirMerge) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<rt::Half>::allocate(*device, 1 << 22);
  auto f32 = rt::DeviceBuffer<float>::allocate(*device, 1 << 20);
  auto s32 = rt::DeviceBuffer<std::int32_t>::allocate(*device, 64);
  ASSERT_TRUE(buf && f32 && s32);
  auto view = buf->view();
  // Contiguous cache of 1000 keys, 2 sequences, 8 heads over 2 kv heads.
  const std::int64_t cacheN = 2 * 1000 * 2 * 64;
  KVCache c;
  c.k = AttentionTensor::bshd(view.subview(0, cacheN), 2, 1000, 2, 64);
  c.v = AttentionTensor::bshd(view.subview(cacheN, cacheN), 2, 1000, 2, 64);
  c.seqlens = Matrix::vector(s32->view().subview(0, 2), 2);
  AttentionTensor q =
      AttentionTensor::bshd(view.subview(2 * cacheN, 1024), 2, 1, 8, 64);
  AttentionTensor o =
      AttentionTensor::bshd(view.subview(2 * cacheN + 1024, 1024), 2, 1, 8, 64);
  DecodeOptions opt;
  std::int64_t need = flashDecodeWorkspaceElements(q, c);
  opt.workspace = Matrix::vector(f32->view().subview(0, need), need);
  int launches = counters->launches;
  rt::Error e = lib->flashDecode(q, c, o, opt);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(counters->launches, launches + 2);
  EXPECT_STREQ(counters->lastKernel, "flash_decode_combine_f16_d64");
  // One block per output row (4 heads of the group, 1 token), kv head,
  // sequence; groups of 64 threads (one per element of the row) walk the
  // partials side by side.
  EXPECT_EQ(counters->lastGrid[0], 4u);
  EXPECT_EQ(counters->lastGrid[1], 2u);
  EXPECT_EQ(counters->lastGrid[2], 2u);
  EXPECT_EQ(counters->lastBlock[0], 512u);
  opt.workspace.cols = opt.workspace.ld = need - 1;
  EXPECT_TRUE(lib->flashDecode(q, c, o, opt));
  EXPECT_EQ(counters->launches, launches + 2);
  // MQA: 32 query heads over each kv head (one 32-row block a head: the
  // _r32 kernel reads each head's keys once); the merge still takes a
  // block per output row.
  AttentionTensor mq =
      AttentionTensor::bshd(view.subview(2 * cacheN, 2 * 64 * 64), 2, 1, 64, 64);
  AttentionTensor mo = AttentionTensor::bshd(
      view.subview(2 * cacheN + 2 * 64 * 64, 2 * 64 * 64), 2, 1, 64, 64);
  need = flashDecodeWorkspaceElements(mq, c);
  opt.workspace = Matrix::vector(f32->view().subview(0, need), need);
  e = lib->flashDecode(mq, c, mo, opt);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(counters->launches, launches + 4);
  EXPECT_STREQ(counters->prevKernel, "flash_decode_f16_d64_r32");
  EXPECT_EQ(counters->prevGrid[1], 2u);
  EXPECT_EQ(counters->lastGrid[0], 32u);
  EXPECT_EQ(counters->lastGrid[1], 2u);
  // 16-key pages keep 16-row blocks (two a head).
  c.k = AttentionTensor::bshd(view.subview(0, cacheN), 125, 16, 2, 64);
  c.v = AttentionTensor::bshd(view.subview(cacheN, cacheN), 125, 16, 2, 64);
  c.pageSize = 16;
  c.blockTable = Matrix::rowMajor(s32->view().subview(0, 64), 2, 32);
  need = flashDecodeWorkspaceElements(mq, c);
  opt.workspace = Matrix::vector(f32->view().subview(0, need), need);
  e = lib->flashDecode(mq, c, mo, opt);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->prevKernel, "flash_decode_f16_d64_p16");
  EXPECT_EQ(counters->prevGrid[1], 4u);
}

/// flashAttentionBackward on fake buffers: causal, GQA 4:2, batch 2, 130
/// queries, 200 keys, f16 at head dim `dim` (with the logsumexp, or
/// without it: refused).
rt::Error fakeBackward(Library &lib, rt::Device &device, std::int64_t dim,
                       bool withLse = true, bool portable = false) {
  auto buf = rt::DeviceBuffer<rt::Half>::allocate(device, 1 << 23);
  auto f32 = rt::DeviceBuffer<float>::allocate(device, 1 << 16);
  if (!buf)
    return buf.takeError();
  if (!f32)
    return f32.takeError();
  auto view = buf->view();
  const std::int64_t qn = 2 * 130 * 4 * dim, kn = 2 * 200 * 2 * dim;
  std::int64_t at = 0;
  auto next = [&](std::int64_t n, std::int64_t seq, std::int64_t heads) {
    AttentionTensor t =
        AttentionTensor::bshd(view.subview(at, n), 2, seq, heads, dim);
    at += n;
    return t;
  };
  AttentionTensor q = next(qn, 130, 4), k = next(kn, 200, 2),
                  v = next(kn, 200, 2), o = next(qn, 130, 4),
                  dO = next(qn, 130, 4), dq = next(qn, 130, 4),
                  dk = next(kn, 200, 2), dv = next(kn, 200, 2);
  AttentionOptions opt;
  opt.causal = true;
  opt.portable = portable;
  if (withLse)
    opt.lse = Matrix::vector(f32->view().subview(0, 2 * 4 * 130), 2 * 4 * 130);
  opt.workspace =
      Matrix::vector(f32->view().subview(2048, 2 * 4 * 130), 2 * 4 * 130);
  return lib.flashAttentionBackward(q, k, v, o, dO, dq, dk, dv, opt);
}

TEST_P(FlashAttentionTest, BackwardLaunchesThreeKernels) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  for (std::int64_t dim : {128, 256}) {
    SCOPED_TRACE(dim);
    int launches = counters->launches;
    rt::Error e = fakeBackward(*lib, *device, dim);
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(counters->launches, launches + 3);
    // The last: dK/dV, a block per 64 keys of each kv head (32 at head dim
    // 256), its tiles in dynamic shared memory (at 128 two sets of Q and
    // dO: both fake GPUs hold two such blocks an SM).
    EXPECT_EQ(std::string(counters->lastKernel),
              "flash_bwd_dkdv_f16_d" + std::to_string(dim));
    EXPECT_EQ(counters->lastGrid[0], dim == 256 ? 7u : 4u); // ceil(200 / n)
    EXPECT_EQ(counters->lastGrid[1], 2u);
    EXPECT_EQ(counters->lastGrid[2], 2u);
    EXPECT_GT(counters->lastSharedBytes, (dim == 128 ? 64u : 48u) * 1024);
    EXPECT_TRUE(fakeBackward(*lib, *device, dim, /*withLse=*/false));
    EXPECT_EQ(counters->launches, launches + 3);
  }
}

TEST_P(FlashAttentionTest, BackwardUsesTheTmaWgmmaKernelsOnA90Gpu) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  for (std::int64_t dim : {64, 128}) {
    SCOPED_TRACE(dim);
    int launches = counters->launches, maps = counters->tensorMapsEncoded;
    rt::Error e = fakeBackward(fake->lib, fake->device, dim);
    ASSERT_FALSE(e) << e.message();
    // delta, dQ (a block of 384 threads per 128 rows of each head), then
    // dK/dV: a block of 384 threads per 128 keys of each kv head, four
    // tensor maps each (dO's last: 64-row boxes).
    EXPECT_EQ(counters->launches, launches + 3);
    EXPECT_EQ(std::string(counters->prevKernel),
              "hopper_flash_bwd_dq_f16_d" + std::to_string(dim));
    EXPECT_EQ(counters->prevGrid[0], 2u); // ceil(130 / 128)
    EXPECT_EQ(counters->prevGrid[1], 4u);
    EXPECT_EQ(std::string(counters->lastKernel),
              "hopper_flash_bwd_dkdv_f16_d" + std::to_string(dim));
    EXPECT_EQ(counters->lastGrid[0], 2u); // ceil(200 / 128)
    EXPECT_EQ(counters->lastGrid[1], 2u);
    EXPECT_EQ(counters->lastGrid[2], 2u);
    EXPECT_EQ(counters->lastBlock[0], 384u);
    EXPECT_EQ(counters->lastSharedBytes,
              unsigned(2 * 128 * dim * 2 + 2 * (2 * 64 * dim * 2 + 512)));
    EXPECT_EQ(counters->tensorMapsEncoded, maps + 8);
    EXPECT_EQ(counters->lastTensorMapBox[2], 64u);
    // Asked for, the portable kernel; head dim 256 has only that one.
    e = fakeBackward(fake->lib, fake->device, dim, true, /*portable=*/true);
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(std::string(counters->prevKernel),
              "flash_bwd_dq_f16_d" + std::to_string(dim));
    EXPECT_EQ(std::string(counters->lastKernel),
              "flash_bwd_dkdv_f16_d" + std::to_string(dim));
  }
  rt::Error e = fakeBackward(fake->lib, fake->device, 256);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "flash_bwd_dkdv_f16_d256");
}

TEST_P(FlashAttentionTest, BackwardKeepsTwoDkdvBlocksAnSM) {
  if (!isFake())
    GTEST_SKIP() << "a fake GPU with less shared memory";
  // An 8.6-like GPU (100 KiB an SM): two double-buffered dK/dV blocks of
  // head dim 128 (65 KiB each) would not fit, the single-set variant's
  // (49 KiB) do. Head dim 64 (33 KiB) keeps the double-buffered kernel.
  ScopedEnv optin("FAKE_CUDA_OPTIN_SHARED", "101376");
  rt::Expected<rt::Device> small = rt::Device::open(0);
  ASSERT_TRUE(small) << small.error().message();
  ASSERT_EQ(small->properties().sharedMemPerSm, 102400);
  rt::Expected<Library> lib = Library::load(*small);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  ASSERT_FALSE(fakeBackward(*lib, *small, 128));
  EXPECT_STREQ(counters->lastKernel, "flash_bwd_dkdv_single_f16_d128");
  EXPECT_LE(2 * (counters->lastSharedBytes + 1024), 102400u);
  ASSERT_FALSE(fakeBackward(*lib, *small, 64));
  EXPECT_STREQ(counters->lastKernel, "flash_bwd_dkdv_f16_d64");
}

TEST_P(FlashAttentionTest, LaunchesABlockPer64RowsHeadAndBatch) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, 1 << 22);
  ASSERT_TRUE(buf);
  auto view = buf->view();
  std::int64_t qn = 3 * 130 * 8 * 64, kn = 3 * 200 * 2 * 64;
  AttentionTensor q = AttentionTensor::bhsd(view.subview(0, qn), 3, 130, 8, 64);
  AttentionTensor k =
      AttentionTensor::bhsd(view.subview(qn, kn), 3, 200, 2, 64);
  AttentionTensor v =
      AttentionTensor::bhsd(view.subview(qn + kn, kn), 3, 200, 2, 64);
  AttentionTensor o =
      AttentionTensor::bhsd(view.subview(qn + 2 * kn, qn), 3, 130, 8, 64);
  AttentionOptions opt;
  opt.causal = true;
  rt::Error e = lib->flashAttention(q, k, v, o, opt);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "flash_fwd_bf16_d64");
  EXPECT_EQ(counters->lastGrid[0], 3u); // ceil(130 / 64)
  EXPECT_EQ(counters->lastGrid[1], 8u);
  EXPECT_EQ(counters->lastGrid[2], 3u);
  EXPECT_EQ(counters->lastBlock[0], 128u);
  // Bad input launches nothing.
  int launches = counters->launches;
  AttentionTensor small = o;
  small.capacityBytes -= 2;
  EXPECT_TRUE(lib->flashAttention(q, k, v, small, opt));
  EXPECT_EQ(counters->launches, launches);
  // Nothing to do: no launch, no error.
  AttentionTensor empty = q;
  empty.seq = 0;
  AttentionTensor emptyO = o;
  emptyO.seq = 0;
  EXPECT_FALSE(lib->flashAttention(empty, k, v, emptyO, opt));
  EXPECT_EQ(counters->launches, launches);
}

TEST_P(FlashAttentionTest, UsesTheTmaWgmmaForwardOnA90Gpu) {
  if (!isFake())
    GTEST_SKIP() << "checks the launch through the fake driver";
  // The fake's device 1 is a 9.0 GPU.
  rt::Expected<kaio::test::FakeHopper> fake = kaio::test::loadOnFakeHopper();
  ASSERT_TRUE(fake) << fake.error().message();
  rt::Device *h100 = &fake->device;
  Library *lib = &fake->lib;
  FakeCudaCounters *counters = getFakeCounters();
  auto buf = rt::DeviceBuffer<rt::Half>::allocate(*h100, 1 << 22);
  ASSERT_TRUE(buf);
  auto view = buf->view();
  std::int64_t qn = 2 * 300 * 8 * 128, kn = 2 * 200 * 2 * 128;
  AttentionTensor q = AttentionTensor::bshd(view.subview(0, qn), 2, 300, 8, 128);
  AttentionTensor k =
      AttentionTensor::bshd(view.subview(qn, kn), 2, 200, 2, 128);
  AttentionTensor v =
      AttentionTensor::bshd(view.subview(qn + kn, kn), 2, 200, 2, 128);
  AttentionTensor o =
      AttentionTensor::bshd(view.subview(qn + 2 * kn, qn), 2, 300, 8, 128);
  AttentionOptions opt;
  opt.causal = true;
  int maps = counters->tensorMapsEncoded;
  rt::Error e = lib->flashAttention(q, k, v, o, opt);
  ASSERT_FALSE(e) << e.message();
  // The consumers take turns issuing (ping-pong) by default at d128.
  EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d128_pp");
  EXPECT_EQ(counters->lastGrid[0], 3u); // ceil(300 / 128)
  EXPECT_EQ(counters->lastGrid[1], 8u);
  EXPECT_EQ(counters->lastGrid[2], 2u);
  EXPECT_EQ(counters->lastBlock[0], 384u);
  // Q (128 rows), then two stages of K and V blocks of 128 keys.
  EXPECT_EQ(counters->lastSharedBytes, 128u * 256 + 2 * 2 * 128 * 256);
  EXPECT_EQ(counters->tensorMapsEncoded, maps + 3);
  // The last map is V's: boxes of 64 columns of 128 keys of one head.
  EXPECT_EQ(counters->lastTensorMapBox[0], 64u);
  EXPECT_EQ(counters->lastTensorMapBox[1], 1u);
  EXPECT_EQ(counters->lastTensorMapBox[2], 128u);
  EXPECT_EQ(counters->lastTensorMapBox[3], 1u);
  // Asked for, the kernel whose consumers issue independently.
  AttentionOptions independent = opt;
  independent.schedule = AttentionOptions::Schedule::Independent;
  e = lib->flashAttention(q, k, v, o, independent);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d128");
  maps += 3;
  // 192-row blocks: head dim 64 only, three consumers (512 threads), Q's
  // box and the grid by 192 rows.
  {
    std::int64_t q64 = 2 * 300 * 8 * 64, kv64 = 2 * 200 * 2 * 64;
    AttentionTensor q = AttentionTensor::bshd(view.subview(0, q64), 2, 300, 8,
                                              64);
    AttentionTensor k =
        AttentionTensor::bshd(view.subview(q64, kv64), 2, 200, 2, 64);
    AttentionTensor v =
        AttentionTensor::bshd(view.subview(q64 + kv64, kv64), 2, 200, 2, 64);
    AttentionTensor o = AttentionTensor::bshd(
        view.subview(q64 + 2 * kv64, q64), 2, 300, 8, 64);
    AttentionOptions rows = opt;
    rows.queryRows = 192;
    int before = counters->tensorMapsEncoded;
    e = lib->flashAttention(q, k, v, o, rows);
    ASSERT_FALSE(e) << e.message();
    EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d64_q192_pp");
    EXPECT_EQ(counters->lastGrid[0], 2u); // ceil(300 / 192)
    EXPECT_EQ(counters->lastBlock[0], 512u);
    EXPECT_EQ(counters->lastSharedBytes, 192u * 128 + 2 * 2 * 128 * 128);
    EXPECT_EQ(counters->tensorMapsEncoded, before + 3);
    rows.schedule = AttentionOptions::Schedule::Independent;
    e = lib->flashAttention(q, k, v, o, rows);
    ASSERT_FALSE(e) << e.message();
    EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d64_q192");
    // The library's choice at 64: two consumers (until measured).
    e = lib->flashAttention(q, k, v, o, opt);
    ASSERT_FALSE(e) << e.message();
    EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d64_pp");
    EXPECT_EQ(counters->lastBlock[0], 384u);
    maps += 9;
  }
  // Asked for, the portable mma.sync kernel runs there too.
  AttentionOptions portable = opt;
  portable.portable = true;
  e = lib->flashAttention(q, k, v, o, portable);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "flash_fwd_f16_d128");
  EXPECT_EQ(counters->lastBlock[0], 128u);
  EXPECT_EQ(counters->tensorMapsEncoded, maps + 3);
  // Packed sequences go the same way (batch-1 maps, offsets passed on).
  auto offsets = rt::DeviceBuffer<std::int32_t>::allocate(*h100, 3);
  ASSERT_TRUE(offsets);
  AttentionTensor pq = AttentionTensor::bshd(view.subview(0, qn), 1, 600, 8, 128);
  AttentionTensor pk =
      AttentionTensor::bshd(view.subview(qn, kn), 1, 400, 2, 128);
  AttentionTensor pv =
      AttentionTensor::bshd(view.subview(qn + kn, kn), 1, 400, 2, 128);
  AttentionTensor po =
      AttentionTensor::bshd(view.subview(qn + 2 * kn, qn), 1, 600, 8, 128);
  AttentionOptions packed;
  packed.cuSeqlensQ = Matrix::vector(offsets->view(), 3);
  packed.cuSeqlensK = Matrix::vector(offsets->view(), 3);
  packed.maxSeqlenQ = 300;
  packed.maxSeqlenK = 300;
  e = lib->flashAttention(pq, pk, pv, po, packed);
  ASSERT_FALSE(e) << e.message();
  EXPECT_STREQ(counters->lastKernel, "hopper_flash_fwd_f16_d128_pp");
  EXPECT_EQ(counters->lastGrid[0], 3u); // ceil(300 / 128)
  EXPECT_EQ(counters->lastGrid[2], 2u); // sequences
}

struct AttentionCase {
  std::int64_t batch, seq, heads, kvHeads, dim;
  bool causal;
};

/// Runs flashAttention on T (Half or BFloat16) inputs drawn from [-1, 1]
/// and compares a few rows of every (batch, head) with an f64 materialised
/// softmax; all rows' log-sum-exp too. Counts mismatches and shows the first
/// few, so a failure shows its pattern.
template <class T>
void expectAttentionMatchesReference(rt::Device &device, Library &lib,
                                     AttentionCase c, double tolerance,
                                     bool portable = false,
                                     int queryRows = 0) {
  const auto [B, S, H, Hk, D, causal] = c;
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<T> hq(B * S * H * D), hk(B * S * Hk * D), hv(B * S * Hk * D);
  for (auto *vec : {&hq, &hk, &hv})
    for (T &x : *vec)
      x = kaio::test::roundTo16<T>(dist(rng));
  auto dq = rt::DeviceBuffer<T>::fromHost(device, hq);
  auto dk = rt::DeviceBuffer<T>::fromHost(device, hk);
  auto dv = rt::DeviceBuffer<T>::fromHost(device, hv);
  auto dout = rt::DeviceBuffer<T>::allocate(device, hq.size());
  auto dlse = rt::DeviceBuffer<float>::allocate(device, B * H * S);
  ASSERT_TRUE(dq && dk && dv && dout && dlse);
  AttentionOptions opt;
  opt.causal = causal;
  opt.portable = portable;
  opt.queryRows = queryRows;
  opt.lse = Matrix::vector(dlse->view(), B * H * S);
  rt::Error e = lib.flashAttention(
      AttentionTensor::bshd(dq->view(), B, S, H, D),
      AttentionTensor::bshd(dk->view(), B, S, Hk, D),
      AttentionTensor::bshd(dv->view(), B, S, Hk, D),
      AttentionTensor::bshd(dout->view(), B, S, H, D), opt);
  ASSERT_FALSE(e) << e.message();
  std::vector<T> out(hq.size());
  std::vector<float> lse(B * H * S);
  ASSERT_FALSE(dout->copyToHost(out.data(), out.size()));
  ASSERT_FALSE(dlse->copyToHost(lse.data(), lse.size()));
  const double scale = 1 / std::sqrt(double(D));
  std::size_t wrong = 0;
  std::string examples;
  auto mismatch = [&](const std::string &what, double got, double want) {
    if (wrong++ < 8)
      examples += " " + what + ": " + std::to_string(got) + " vs " +
                  std::to_string(want) + ";";
  };
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t i : {0L, 1L, 63L, 64L, 127L, 128L, S / 2, S - 1}) {
        if (i >= S)
          continue;
        const std::int64_t kh = h / (H / Hk), keys = causal ? i + 1 : S;
        std::vector<double> s(keys);
        double mx = -INFINITY, sum = 0;
        for (std::int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += double(rt::toFloat(hq[((b * S + i) * H + h) * D + d])) *
                   rt::toFloat(hk[((b * S + j) * Hk + kh) * D + d]);
          s[j] = dot * scale;
          mx = std::max(mx, s[j]);
        }
        for (double x : s)
          sum += std::exp(x - mx);
        const std::string at = "b " + std::to_string(b) + " h " +
                               std::to_string(h) + " row " + std::to_string(i);
        double gotLse = lse[(b * H + h) * S + i];
        if (!(std::fabs(gotLse - (mx + std::log(sum))) <= 2e-3))
          mismatch(at + " lse", gotLse, mx + std::log(sum));
        for (std::int64_t d = 0; d < D; ++d) {
          double want = 0;
          for (std::int64_t j = 0; j < keys; ++j)
            want += std::exp(s[j] - mx) / sum *
                    rt::toFloat(hv[((b * S + j) * Hk + kh) * D + d]);
          double got = rt::toFloat(out[((b * S + i) * H + h) * D + d]);
          if (!(std::fabs(got - want) <= tolerance))
            mismatch(at + " d " + std::to_string(d), got, want);
        }
      }
  ASSERT_EQ(wrong, 0u) << "B " << B << " S " << S << " H " << H << ":" << Hk
                       << " D " << D << (causal ? " causal" : "")
                       << (portable ? " portable" : "")
                       << (queryRows ? " rows " + std::to_string(queryRows)
                                     : std::string())
                       << ": " << wrong << " values differ, first" << examples;
}

/// On a 9.0 GPU these run the TMA/wgmma forward; elsewhere the mma.sync
/// kernel (bf16 included), which the last cases force on any GPU.
TEST_P(FlashAttentionTest, MatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  expectAttentionMatchesReference<rt::Half>(*device, *lib,
                                            {2, 1000, 4, 2, 128, true}, 4e-3);
  expectAttentionMatchesReference<rt::Half>(*device, *lib,
                                            {1, 300, 2, 2, 64, false}, 4e-3);
  expectAttentionMatchesReference<rt::Half>(*device, *lib,
                                            {1, 130, 2, 1, 256, true}, 4e-3);
  expectAttentionMatchesReference<rt::BFloat16>(
      *device, *lib, {1, 520, 4, 1, 128, false}, 2e-2);
  expectAttentionMatchesReference<rt::Half>(
      *device, *lib, {2, 1000, 4, 2, 128, true}, 4e-3, /*portable=*/true);
  expectAttentionMatchesReference<rt::BFloat16>(
      *device, *lib, {1, 300, 2, 2, 64, false}, 2e-2, /*portable=*/true);
  // 192-row blocks (three consumers at head dim 64; elsewhere ignored).
  expectAttentionMatchesReference<rt::Half>(
      *device, *lib, {2, 1000, 4, 2, 64, true}, 4e-3, false, 192);
  expectAttentionMatchesReference<rt::BFloat16>(
      *device, *lib, {1, 300, 2, 2, 64, false}, 2e-2, false, 192);
}

/// Runs flashAttention (for O and the logsumexp) and flashAttentionBackward
/// on T inputs from [-1, 1] and compares dQ, dK and dV with f64 gradients
/// (P from the f64 softmax, delta from the GPU's O), relative to each
/// gradient's largest magnitude. With `packed` lengths, c's B and S are
/// unused: the sequences (queries and keys alike) lie one after another in
/// batch-1 tensors with cumulative offsets.
template <class T>
void expectBackwardMatchesReference(rt::Device &device, Library &lib,
                                    AttentionCase c, double relative,
                                    bool portable = false,
                                    std::int64_t windowLeft = -1,
                                    std::vector<std::int64_t> packed = {}) {
  const auto [denseB, denseS, H, Hk, D, causal] = c;
  // Sequence b is rows [start[b], start[b] + len[b]) of the storage.
  const std::int64_t B =
      packed.empty() ? denseB : std::int64_t(packed.size());
  std::vector<std::int64_t> len(B, denseS), start(B + 1, 0);
  if (!packed.empty())
    len = packed;
  for (std::int64_t b = 0; b < B; ++b)
    start[b + 1] = start[b] + len[b];
  const std::int64_t total = start[B];
  const std::int64_t S = packed.empty()
                             ? denseS
                             : *std::max_element(len.begin(), len.end());
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> dist(-1, 1);
  const std::size_t nq = total * H * D, nk = total * Hk * D;
  std::vector<T> hq(nq), hk(nk), hv(nk), hdo(nq);
  for (auto *vec : {&hq, &hk, &hv, &hdo})
    for (T &x : *vec)
      x = kaio::test::roundTo16<T>(dist(rng));
  auto upload = [&](const std::vector<T> &h) {
    return rt::DeviceBuffer<T>::fromHost(device, h);
  };
  auto dq = upload(hq), dk = upload(hk), dv = upload(hv), ddo = upload(hdo);
  auto dout = rt::DeviceBuffer<T>::allocate(device, nq);
  auto gq = rt::DeviceBuffer<T>::allocate(device, nq);
  auto gk = rt::DeviceBuffer<T>::allocate(device, nk);
  auto gv = rt::DeviceBuffer<T>::allocate(device, nk);
  // lse and the workspace: [B, H, S] dense, [H, total] packed.
  const std::int64_t rowsLse = H * total;
  auto f32 = rt::DeviceBuffer<float>::allocate(device, 2 * rowsLse);
  std::vector<std::int32_t> offsets(start.begin(), start.end());
  auto cu = rt::DeviceBuffer<std::int32_t>::fromHost(device, offsets);
  ASSERT_TRUE(dq && dk && dv && ddo && dout && gq && gk && gv && f32 && cu);
  const std::int64_t storeB = packed.empty() ? B : 1,
                     storeS = packed.empty() ? S : total;
  auto qShaped = [&](rt::DeviceBuffer<T> &b) {
    return AttentionTensor::bshd(b.view(), storeB, storeS, H, D);
  };
  auto kShaped = [&](rt::DeviceBuffer<T> &b) {
    return AttentionTensor::bshd(b.view(), storeB, storeS, Hk, D);
  };
  AttentionOptions opt;
  opt.causal = causal;
  opt.portable = portable;
  opt.windowLeft = windowLeft;
  opt.lse = Matrix::vector(f32->view().subview(0, rowsLse), rowsLse);
  opt.workspace =
      Matrix::vector(f32->view().subview(rowsLse, rowsLse), rowsLse);
  if (!packed.empty()) {
    opt.cuSeqlensQ = Matrix::vector(cu->view(), B + 1);
    opt.cuSeqlensK = Matrix::vector(cu->view(), B + 1);
    opt.maxSeqlenQ = opt.maxSeqlenK = S;
  }
  rt::Error e = lib.flashAttention(qShaped(*dq), kShaped(*dk), kShaped(*dv),
                                   qShaped(*dout), opt);
  ASSERT_FALSE(e) << e.message();
  e = lib.flashAttentionBackward(qShaped(*dq), kShaped(*dk), kShaped(*dv),
                                 qShaped(*dout), qShaped(*ddo), qShaped(*gq),
                                 kShaped(*gk), kShaped(*gv), opt);
  ASSERT_FALSE(e) << e.message();
  std::vector<T> out(nq), rq(nq), rk(nk), rv(nk);
  ASSERT_FALSE(dout->copyToHost(out.data(), nq));
  ASSERT_FALSE(gq->copyToHost(rq.data(), nq));
  ASSERT_FALSE(gk->copyToHost(rk.data(), nk));
  ASSERT_FALSE(gv->copyToHost(rv.data(), nk));
  auto f = [](const T &x) { return double(rt::toFloat(x)); };
  auto qi = [&](std::int64_t b, std::int64_t i, std::int64_t h) {
    return ((start[b] + i) * H + h) * D;
  };
  auto ki = [&](std::int64_t b, std::int64_t j, std::int64_t h) {
    return ((start[b] + j) * Hk + h) * D;
  };
  const double scale = 1 / std::sqrt(double(D));
  std::vector<double> wq(nq, 0.0), wk(nk, 0.0), wv(nk, 0.0);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t i = 0; i < len[b]; ++i) {
        // Keys [first, keys) (a window: at most windowLeft before i).
        const std::int64_t kh = h / (H / Hk), keys = causal ? i + 1 : len[b];
        const std::int64_t first =
            windowLeft < 0 ? 0 : std::max<std::int64_t>(0, i - windowLeft);
        std::vector<double> p(keys, 0.0);
        double mx = -INFINITY, sum = 0, delta = 0;
        for (std::int64_t j = first; j < keys; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += f(hq[qi(b, i, h) + d]) * f(hk[ki(b, j, kh) + d]);
          p[j] = dot * scale;
          mx = std::max(mx, p[j]);
        }
        for (std::int64_t j = first; j < keys; ++j)
          sum += (p[j] = std::exp(p[j] - mx));
        for (std::int64_t d = 0; d < D; ++d)
          delta += f(hdo[qi(b, i, h) + d]) * f(out[qi(b, i, h) + d]);
        for (std::int64_t j = first; j < keys; ++j) {
          double pj = p[j] / sum, dp = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dp += f(hdo[qi(b, i, h) + d]) * f(hv[ki(b, j, kh) + d]);
          double ds = pj * (dp - delta);
          for (std::int64_t d = 0; d < D; ++d) {
            wq[qi(b, i, h) + d] += scale * ds * f(hk[ki(b, j, kh) + d]);
            wk[ki(b, j, kh) + d] += scale * ds * f(hq[qi(b, i, h) + d]);
            wv[ki(b, j, kh) + d] += pj * f(hdo[qi(b, i, h) + d]);
          }
        }
      }
  auto compare = [&](const char *what, const std::vector<double> &want,
                     const std::vector<T> &got) {
    double mag = 1e-3;
    for (double w : want)
      mag = std::max(mag, std::fabs(w));
    std::size_t wrong = 0;
    std::string examples;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (!(std::fabs(f(got[i]) - want[i]) <= relative * mag) &&
          wrong++ < 6)
        examples += " [" + std::to_string(i) + "] " +
                    std::to_string(f(got[i])) + " vs " +
                    std::to_string(want[i]) + ";";
    EXPECT_EQ(wrong, 0u) << what << " B " << B << " S " << S << " H " << H
                         << ":" << Hk << " D " << D
                         << (causal ? " causal" : "") << " window "
                         << windowLeft << (portable ? " portable" : "")
                         << (packed.empty() ? "" : " packed")
                         << " (largest " << mag
                         << "):" << examples;
  };
  compare("dq", wq, rq);
  compare("dk", wk, rk);
  compare("dv", wv, rv);
}

/// The backward (mma.sync kernels on every GPU) at each head dim, causal
/// and not, grouped heads, ragged lengths.
TEST_P(FlashAttentionTest, BackwardMatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  expectBackwardMatchesReference<rt::Half>(*device, *lib,
                                           {2, 300, 4, 2, 128, true}, 4e-3);
  expectBackwardMatchesReference<rt::Half>(*device, *lib,
                                           {1, 200, 2, 2, 64, false}, 4e-3);
  expectBackwardMatchesReference<rt::Half>(*device, *lib,
                                           {1, 130, 2, 1, 256, true}, 4e-3);
  expectBackwardMatchesReference<rt::BFloat16>(
      *device, *lib, {1, 257, 4, 1, 256, false}, 3e-2);
  // On a 9.0 GPU dK and dV above came from the TMA/wgmma kernel at head
  // dims 64 and 128; the portable kernel there, and a bf16 wgmma case.
  expectBackwardMatchesReference<rt::Half>(
      *device, *lib, {2, 300, 4, 2, 128, true}, 4e-3, /*portable=*/true);
  expectBackwardMatchesReference<rt::Half>(
      *device, *lib, {1, 200, 2, 2, 64, false}, 4e-3, /*portable=*/true);
  expectBackwardMatchesReference<rt::BFloat16>(
      *device, *lib, {2, 333, 4, 1, 128, true}, 3e-2);
  // A sliding window (70 keys back): query and key blocks that see nothing
  // skipped, masked steps at both edges.
  for (bool portable : {false, true})
    expectBackwardMatchesReference<rt::Half>(
        *device, *lib, {1, 300, 4, 2, 64, true}, 4e-3, portable, 70);
  // Packed sequences (cumulative offsets): a TMA box past a sequence's end
  // reads the next one's rows, which the masks must hide.
  for (bool portable : {false, true}) {
    expectBackwardMatchesReference<rt::Half>(
        *device, *lib, {0, 0, 4, 2, 64, true}, 4e-3, portable, -1,
        {5, 130, 64});
    expectBackwardMatchesReference<rt::BFloat16>(
        *device, *lib, {0, 0, 2, 1, 128, false}, 3e-2, portable, -1,
        {129, 3, 70});
  }
}

TEST_P(FlashAttentionTest, DecodeMatchesAnF64ReferenceOnTheGpu) {
  if (isFake())
    GTEST_SKIP() << "the fake driver computes nothing";
  rt::Expected<Library> lib = Library::load(*device);
  ASSERT_TRUE(lib) << lib.error().message();
  // 2 sequences of 100 and 1000 keys in a pool of pages (reversed order),
  // one token each, bf16: 8 query heads over 2 kv heads in 64-key pages,
  // the same in vLLM's 16-key pages, and MQA (32 query heads over one kv
  // head: one 32-row block, the _r32 kernel).
  for (const auto &config :
       {std::tuple<std::int64_t, std::int64_t, std::int64_t>{64, 8, 2},
        {16, 8, 2},
        {64, 32, 1}}) {
    const std::int64_t page = std::get<0>(config), H = std::get<1>(config),
                       Hk = std::get<2>(config);
    SCOPED_TRACE("page " + std::to_string(page) + ", " + std::to_string(H) +
                 " heads over " + std::to_string(Hk));
    const std::int64_t B = 2, D = 128;
    const std::int64_t perSeq = (1000 + page - 1) / page, pool = B * perSeq;
    std::vector<std::int32_t> lens = {100, 1000}, table(pool);
    for (std::int64_t i = 0; i < pool; ++i)
      table[i] = std::int32_t(pool - 1 - i);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<rt::BFloat16> hq(B * H * D), hk(pool * page * Hk * D),
        hv(hk.size());
    for (auto *vec : {&hq, &hk, &hv})
      for (rt::BFloat16 &x : *vec)
        x = rt::toBFloat16(dist(rng));
    auto dq = rt::DeviceBuffer<rt::BFloat16>::fromHost(*device, hq);
    auto dk = rt::DeviceBuffer<rt::BFloat16>::fromHost(*device, hk);
    auto dv = rt::DeviceBuffer<rt::BFloat16>::fromHost(*device, hv);
    auto dout = rt::DeviceBuffer<rt::BFloat16>::allocate(*device, hq.size());
    auto dTable = rt::DeviceBuffer<std::int32_t>::fromHost(*device, table);
    auto dLens = rt::DeviceBuffer<std::int32_t>::fromHost(*device, lens);
    ASSERT_TRUE(dq && dk && dv && dout && dTable && dLens);
    KVCache c;
    c.k = AttentionTensor::bshd(dk->view(), pool, page, Hk, D);
    c.v = AttentionTensor::bshd(dv->view(), pool, page, Hk, D);
    c.pageSize = page;
    c.blockTable = Matrix::rowMajor(dTable->view(), B, perSeq);
    c.seqlens = Matrix::vector(dLens->view(), B);
    AttentionTensor q = AttentionTensor::bshd(dq->view(), B, 1, H, D);
    AttentionTensor o = AttentionTensor::bshd(dout->view(), B, 1, H, D);
    std::int64_t need = flashDecodeWorkspaceElements(q, c);
    auto ws = rt::DeviceBuffer<float>::allocate(*device, need);
    ASSERT_TRUE(ws);
    DecodeOptions opt;
    opt.workspace = Matrix::vector(ws->view(), need);
    rt::Error e = lib->flashDecode(q, c, o, opt);
    ASSERT_FALSE(e) << e.message();
    std::vector<rt::BFloat16> out(hq.size());
    ASSERT_FALSE(dout->copyToHost(out.data(), out.size()));
    auto kv = [&](const std::vector<rt::BFloat16> &cache, std::int64_t b,
                  std::int64_t kh, std::int64_t j, std::int64_t d) {
      std::int64_t p = table[b * perSeq + j / page];
      return double(
          rt::toFloat(cache[((p * page + j % page) * Hk + kh) * D + d]));
    };
    double scale = 1 / std::sqrt(double(D));
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < H; ++h) {
        std::int64_t kh = h / (H / Hk), n = lens[b];
        std::vector<double> s(n);
        double mx = -INFINITY, sum = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += double(rt::toFloat(hq[(b * H + h) * D + d])) *
                   kv(hk, b, kh, j, d);
          s[j] = dot * scale;
          mx = std::max(mx, s[j]);
        }
        for (double x : s)
          sum += std::exp(x - mx);
        for (std::int64_t d = 0; d < D; ++d) {
          double want = 0;
          for (std::int64_t j = 0; j < n; ++j)
            want += std::exp(s[j] - mx) / sum * kv(hv, b, kh, j, d);
          ASSERT_NEAR(rt::toFloat(out[(b * H + h) * D + d]), want, 3e-2)
              << "b " << b << " h " << h << " d " << d;
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FlashAttentionTest,
                         ::testing::Values(Backend::Real, Backend::Fake),
                         backendName);

} // namespace

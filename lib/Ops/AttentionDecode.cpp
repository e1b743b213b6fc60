//===- AttentionDecode.cpp - validation and dispatch of flash decoding ----===//

#include "Kaio/Ops/Library.h"

#include "AttentionCheck.h"
#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::ops;
using namespace kaio::ops::kernels;

namespace {

constexpr const char *kOp = "flash_decode";
/// Blocks the splits aim for (about two waves of a large GPU), whatever the
/// device: the workspace size depends on the shapes only.
constexpr std::int64_t kTargetBlocks = 256;

bool isPaged(const KVCache &c) { return !c.blockTable.isAbsent(); }

/// Keys a sequence may have: the cache's capacity.
std::int64_t capacity(const KVCache &c) {
  return isPaged(c) ? c.blockTable.cols * c.pageSize : c.k.seq;
}

std::int64_t rowsOf(const AttentionTensor &q, const KVCache &c) {
  return c.k.heads ? q.heads / c.k.heads * q.seq : 0;
}

/// Pages of 16-key multiples that are not 64-key ones: the variant that
/// copies each 16-key part of a tile from its own page.
bool pagePartsOf(const KVCache &c) {
  return isPaged(c) && c.pageSize % kAttnBlockK != 0;
}

/// The query rows of a decode block: 16, or 32 (the `_r32` kernels) for
/// more (decodeBlockRows).
unsigned blockRowsOf(const AttentionTensor &q, const KVCache &c) {
  return kernels::decodeBlockRows(rowsOf(q, c), unsigned(q.dim),
                                  pagePartsOf(c));
}

/// The decode kernel's blocks a kv head: one per 16 or 32 of its rows (the
/// group's query heads x the query tokens; one or two mma tiles a warp).
std::int64_t rowBlocksOf(const AttentionTensor &q, const KVCache &c) {
  const std::int64_t per = blockRowsOf(q, c);
  return std::max<std::int64_t>((rowsOf(q, c) + per - 1) / per, 1);
}

struct Split {
  std::int64_t blocks, keysPerBlock;
};
Split splitOf(const AttentionTensor &q, const KVCache &c) {
  std::int64_t tiles = std::max<std::int64_t>(
      (capacity(c) + kAttnBlockK - 1) / kAttnBlockK, 1);
  std::int64_t pairs =
      std::max<std::int64_t>(q.batch * c.k.heads * rowBlocksOf(q, c), 1);
  std::int64_t blocks =
      std::clamp<std::int64_t>((kTargetBlocks + pairs - 1) / pairs, 1, tiles);
  std::int64_t tilesPerBlock = (tiles + blocks - 1) / blocks;
  blocks = (tiles + tilesPerBlock - 1) / tilesPerBlock;
  return {blocks, tilesPerBlock * kAttnBlockK};
}

} // namespace

std::int64_t kaio::ops::flashDecodeWorkspaceElements(const AttentionTensor &q,
                                                     const KVCache &cache) {
  Split s = splitOf(q, cache);
  // Per partial: the rows' O (dim each) and log-sum.
  return q.batch * cache.k.heads * s.blocks * kAttnWarps *
         rowsOf(q, cache) * (q.dim + 1);
}

rt::Error kaio::ops::validateFlashDecode(const AttentionTensor &q,
                                         const KVCache &c,
                                         const AttentionTensor &o,
                                         const DecodeOptions &opt) {
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k_cache", &c.k}, {"v_cache", &c.v}, {"o", &o}})
    if (rt::Error e = detail::checkTensor(kOp, name, *t))
      return e;
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "k_cache", &c.k},
                         {"v_cache", &c.v}, {"o", &o}})
    if (rt::Error e = detail::checkSameDType(kOp, name, *t, q))
      return e;
  if (q.dim != 64 && q.dim != 128 && q.dim != 256)
    return detail::unsupported(kOp, "q",
                               "head dimension " + std::to_string(q.dim) +
                                   " (supported: 64, 128, 256)");
  using detail::dims;
  if (rt::Error e = detail::checkSameShape(kOp, "o", o, q, "q"))
    return e;
  if (rt::Error e = detail::checkSameShape(kOp, "v_cache", c.v, c.k, "k_cache"))
    return e;
  if (c.k.dim != q.dim)
    return detail::invalid(kOp, "k_cache",
                           "head dimension " + std::to_string(c.k.dim) +
                               " but q's is " + std::to_string(q.dim));
  if (q.heads % c.k.heads)
    return detail::invalid(kOp, "k_cache",
                           std::to_string(c.k.heads) +
                               " heads do not divide q's " +
                               std::to_string(q.heads) + " (GQA/MQA groups)");
  if (q.batch > 65535 || c.k.heads * rowBlocksOf(q, c) > 65535)
    return detail::invalid(
        kOp, "q",
        "more than 65535 batches, or kv heads x row blocks (of " +
            std::to_string(blockRowsOf(q, c)) +
            ") of their query heads x tokens (" +
            std::to_string(c.k.heads) + " x " +
            std::to_string(rowBlocksOf(q, c)) + ")");
  if (rt::Error e = detail::checkVector(kOp, "seqlens", c.seqlens, q.batch,
                                        DType::S32, "one per batch"))
    return e;
  if (isPaged(c)) {
    if (c.pageSize < 16 || c.pageSize % 16)
      return detail::unsupported(kOp, "page_size",
                                 std::to_string(c.pageSize) +
                                     " (a multiple of 16)");
    if (c.k.seq != c.pageSize)
      return detail::invalid(kOp, "k_cache",
                             "pages of " + std::to_string(c.k.seq) +
                                 " rows but page_size is " +
                                 std::to_string(c.pageSize));
    const Matrix &t = c.blockTable;
    if (rt::Error e = detail::validateMatrix(kOp, "block_table", t))
      return e;
    if (t.dtype != DType::S32 || t.layout != Layout::RowMajor ||
        t.rows != q.batch || t.cols < 1 || t.ld > detail::kMaxExtent)
      return detail::invalid(kOp, "block_table",
                             "must be a row-major s32 [batch, max pages] "
                             "matrix (" + std::to_string(q.batch) + " rows)");
  } else if (c.k.batch != q.batch) {
    return detail::invalid(kOp, "k_cache",
                           "batch " + std::to_string(c.k.batch) +
                               " but q's is " + std::to_string(q.batch) +
                               " (a paged cache takes a block_table)");
  }
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k_cache", &c.k}, {"v_cache", &c.v}})
    if (detail::overlaps(*t, o))
      return detail::invalid(kOp, "o", std::string("overlaps ") + name);
  if (!std::isfinite(opt.scale) || opt.scale < 0)
    return detail::invalid(kOp, "scale",
                           "must be finite and positive (0: 1 / sqrt(dim))");
  if (rt::Error e = detail::checkWorkspace(
          kOp, opt.workspace, flashDecodeWorkspaceElements(q, c),
          "flashDecodeWorkspaceElements"))
    return e;
  for (auto [name, t] : {std::pair<const char *, const AttentionTensor *>{
                             "q", &q},
                         {"k_cache", &c.k}, {"v_cache", &c.v}, {"o", &o}})
    if (detail::overlaps(*t, opt.workspace))
      return detail::invalid(kOp, "workspace", std::string("overlaps ") + name);
  return rt::Error::success();
}

rt::Error Library::flashDecode(const AttentionTensor &q, const KVCache &c,
                               const AttentionTensor &o,
                               const DecodeOptions &opt) {
  if (rt::Error e = validateFlashDecode(q, c, o, opt))
    return e;
  if (!q.batch || !q.seq)
    return rt::Error::success();
  std::string suffix =
      std::string("_") + getDTypeName(q.dtype) + "_d" + std::to_string(q.dim);
  rt::Expected<rt::Kernel *> decode = impl_->kernel(
      "flash_decode" + suffix + (blockRowsOf(q, c) == 32 ? "_r32" : "") +
      (pagePartsOf(c) ? "_p16" : ""));
  if (!decode)
    return decode.takeError().addContext(kOp);
  rt::Expected<rt::Kernel *> combine =
      impl_->kernel("flash_decode_combine" + suffix);
  if (!combine)
    return combine.takeError().addContext(kOp);
  Split split = splitOf(q, c);
  std::int64_t rows = rowsOf(q, c), partials =
      q.batch * c.k.heads * split.blocks * kAttnWarps * rows;
  CUdeviceptr partialO = opt.workspace.data;
  CUdeviceptr partialLse = partialO + std::uint64_t(partials * q.dim) * 4;
  using detail::appendTensorArgs;
  auto u32 = [](std::int64_t x) {
    return rt::KernelArg::scalar(std::uint32_t(x));
  };
  float scale = opt.scale ? opt.scale : float(1.0 / std::sqrt(double(q.dim)));
  std::uint32_t flags = (isPaged(c) ? kDecodePaged : 0u) |
                        (opt.causal ? kDecodeCausal : 0u);
  std::vector<rt::KernelArg> args;
  appendTensorArgs(args, "q", q, true);
  appendTensorArgs(args, "cache.k", c.k, true);
  appendTensorArgs(args, "cache.v", c.v, true);
  // An absent block table is never read (the flag is off).
  rt::ScalarType s32 = detail::scalarTypeOf(DType::S32);
  for (rt::KernelArg a :
       {rt::KernelArg::pointer(isPaged(c) ? c.blockTable.data : q.data, s32,
                               true)
            .named(isPaged(c) ? "cache.blockTable" : "q"),
        // (The kernel divides by the page size before it selects; 1 for a
        // contiguous cache.)
        u32(isPaged(c) ? c.blockTable.ld : 0), u32(isPaged(c) ? c.pageSize : 1),
        rt::KernelArg::pointer(c.seqlens.data, s32, true)
            .named("cache.seqlens"),
        u32(q.seq), u32(q.heads / c.k.heads), u32(rowBlocksOf(q, c)),
        u32(split.keysPerBlock), rt::KernelArg::scalar(float(scale * M_LOG2E)),
        rt::KernelArg::scalar(flags),
        rt::KernelArg::pointer(partialO, rt::ScalarType::F32, false)
            .named("workspace"),
        rt::KernelArg::pointer(partialLse, rt::ScalarType::F32, false)
            .named("workspace")})
    args.push_back(a);
  rt::LaunchConfig config;
  config.grid = rt::Dim3(unsigned(split.blocks),
                         unsigned(c.k.heads * rowBlocksOf(q, c)),
                         unsigned(q.batch));
  config.block = rt::Dim3(32 * kAttnWarps);
  config.stream = opt.stream;
  if (rt::Error e = (*decode)->launchArgs(config, args))
    return e.addContext(kOp);
  std::vector<rt::KernelArg> cargs;
  appendTensorArgs(cargs, "o", o, false);
  for (rt::KernelArg a :
       {rt::KernelArg::pointer(partialO, rt::ScalarType::F32, true)
            .named("workspace"),
        rt::KernelArg::pointer(partialLse, rt::ScalarType::F32, true)
            .named("workspace"),
        u32(split.blocks * kAttnWarps), u32(q.seq), u32(q.heads / c.k.heads)})
    cargs.push_back(a);
  config.grid = rt::Dim3(unsigned(rows), unsigned(c.k.heads),
                         unsigned(q.batch));
  config.block = rt::Dim3(kDecodeCombineThreads);
  if (rt::Error e = (*combine)->launchArgs(config, cargs))
    return e.addContext(kOp);
  return rt::Error::success();
}

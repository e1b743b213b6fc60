//===- Gemm.cpp - validation and dispatch of the library's GEMM -----------===//

#include "Kaio/Ops/Library.h"

#include "Kernels/OpsKernels.h"
#include "LibraryImpl.h"
#include "Validate.h"

#include "Kaio/Runtime/TensorMap.h"

#include <cmath>
#include <limits>
#include <string_view>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::ops;

namespace {

/// The rows of C a block of the portable kernels (mma.sync, f32) covers:
/// the grid's y dimension counts them.
constexpr std::int64_t kBlockTile = kernels::kMmaGemmBlockM;
static_assert(kernels::kSgemmBlockTile == kBlockTile,
              "the portable kernels' block rows");
/// Grid dimension y (rows of block tiles) is limited to 65535.
constexpr std::int64_t kMaxGridY = 65535;

rt::Error invalid(const char *name, const std::string &what) {
  return detail::invalid("gemm", name, what);
}
rt::Error unsupported(const char *name, const std::string &what) {
  return detail::unsupported("gemm", name, what);
}
using detail::shape;
using detail::transposed;

bool isFP8(DType type) { return type == DType::E4M3 || type == DType::E5M2; }

/// What the kernels gemm() launches support: A and B f16, bf16, f32 or s8
/// (or e4m3 or e5m2 on the sm_90 kernel) of one type; C f32 or a 16-bit
/// type (A's for 16-bit inputs; f16 or bf16 for FP8 and s8, s32 for s8;
/// f32 for f32).
rt::Error checkDTypes(const Matrix &a, const Matrix &b, const Matrix &c) {
  const char *supported = " is not supported yet (A and B f16, bf16, e4m3, "
                          "e5m2, f32 or s8; C f32, a 16-bit type or s32)";
  const bool s8 = a.dtype == DType::S8;
  if (a.dtype != DType::F16 && a.dtype != DType::BF16 && !isFP8(a.dtype) &&
      a.dtype != DType::F32 && !s8)
    return unsupported("a", std::string("dtype ") + getDTypeName(a.dtype) +
                                supported);
  if (a.dtype != b.dtype)
    return invalid("b", std::string("dtype ") + getDTypeName(b.dtype) +
                            " differs from a's " + getDTypeName(a.dtype));
  const bool c16 = c.dtype == DType::F16 || c.dtype == DType::BF16;
  const bool c16Allowed = isFP8(a.dtype) || s8 ||
                          (a.dtype != DType::F32 && c.dtype == a.dtype);
  if (!(c.dtype == DType::F32 || (c16 && c16Allowed) ||
        (s8 && c.dtype == DType::S32)))
    return unsupported("c", std::string("dtype ") + getDTypeName(c.dtype) +
                                " is not supported with " +
                                getDTypeName(a.dtype) + " inputs (C f32" +
                                (isFP8(a.dtype)           ? ", or f16 or bf16"
                                 : s8                     ? ", f16, bf16 or s32"
                                 : a.dtype == DType::F32 ? ""
                                                         : ", or A's type") +
                                ")");
  // wgmma reads 8-bit operands K-major only. With a column-major C the
  // operands swap (C^T = B^T A^T), which keeps both K-major. (f32's
  // layouts depend on the kernel: gemmRowMajorC.)
  const bool kMajorOnly = isFP8(a.dtype) || s8;
  const std::string why = std::string(isFP8(a.dtype) ? "FP8" : "int8") +
                          " tensor cores read K-major operands only";
  if (kMajorOnly && a.layout != Layout::RowMajor)
    return unsupported("a", std::string("an ") + getDTypeName(a.dtype) +
                                " A must be row-major (K contiguous): " + why);
  if (kMajorOnly && b.layout != Layout::ColMajor)
    return unsupported("b", std::string("an ") + getDTypeName(b.dtype) +
                                " B must be column-major (K contiguous, e.g. "
                                "the transpose of a row-major N x K weight): " +
                                why);
  return rt::Error::success();
}

/// Unsupported, naming the matrix, when a shape or leading dimension of A,
/// B or C exceeds `limit` elements.
rt::Error checkExtents(const Matrix &a, const Matrix &b, const Matrix &c,
                       std::int64_t limit, const char *why) {
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"b", &b}, {"c", &c}})
    if (m->ld > limit || m->rows > limit || m->cols > limit)
      return unsupported(name, "is " + shape(*m) + " with leading dimension " +
                                   std::to_string(m->ld) + ": " + why);
  return rt::Error::success();
}

/// The fused epilogue's `epilogue` argument of the GEMM kernels
/// (HopperGemmEpilogue): the activation, and where a bias is added.
std::uint32_t epilogueBits(const GemmOptions &options, bool biasAlongRows) {
  return std::uint32_t(options.activation) |
         (options.bias.isAbsent() ? 0u
          : biasAlongRows         ? kernels::kGemmBiasRows
                                  : kernels::kGemmBiasColumns);
}

/// kGemmVectorC where C's rows (and a column bias) allow 4-element vector
/// accesses: aligned to 4 elements, 4 elements apart or more.
std::uint32_t vectorCBit(const Matrix &c, const GemmOptions &options,
                         bool biasAlongRows) {
  const std::uint64_t chunk = 4 * getDTypeBytes(c.dtype);
  const bool vectorC = c.data % chunk == 0 && c.ld % 4 == 0 &&
                       (options.bias.isAbsent() || biasAlongRows ||
                        options.bias.data % chunk == 0);
  return vectorC ? kernels::kGemmVectorC : 0u;
}

/// The bias argument of those kernels: without a bias they read none, any
/// valid pointer of C's type (C's own).
rt::KernelArg biasArg(const Matrix &c, const GemmOptions &options) {
  return rt::KernelArg::pointer(
             options.bias.isAbsent() ? c.data : options.bias.data,
             detail::scalarTypeOf(c.dtype), /*readOnly=*/true)
      .named(options.bias.isAbsent() ? "c" : "bias");
}

/// The kernels' name for an element type.
kernels::GemmElem gemmElemOf(DType type) {
  switch (type) {
  case DType::BF16:
    return kernels::GemmElem::BF16;
  case DType::E4M3:
    return kernels::GemmElem::E4M3;
  case DType::E5M2:
    return kernels::GemmElem::E5M2;
  case DType::F32:
    return kernels::GemmElem::F32;
  case DType::S8:
    return kernels::GemmElem::S8;
  case DType::S32:
    return kernels::GemmElem::S32;
  default:
    return kernels::GemmElem::F16;
  }
}

/// The lines of A and B as stored (rows, or columns of a column-major
/// matrix) start 16-byte aligned: pointers and leading dimensions.
bool linesAligned(const Matrix &a, const Matrix &b) {
  const std::int64_t perLine = 16 / getDTypeBytes(a.dtype);
  return a.data % 16 == 0 && b.data % 16 == 0 && a.ld % perLine == 0 &&
         b.ld % perLine == 0;
}

} // namespace

/// The sm_90a GEMM reads A and B through tensor maps: their lines must be
/// 16-byte aligned (and K > 0: with no k tile its consumers would wait
/// forever).
bool detail::hopperGemmFits(const Matrix &a, const Matrix &b) {
  return a.cols > 0 && linesAligned(a, b);
}

namespace {

/// A 128-byte-swizzled tensor map over a matrix: boxes of `boxInner`
/// contiguous elements (along a row of a row-major matrix, a column of a
/// column-major one) x `boxOuter` lines.
rt::Expected<rt::TensorMap> matrixMap(const rt::Kernel &kernel, const Matrix &m,
                                      std::uint32_t boxInner,
                                      std::uint32_t boxOuter) {
  const bool rowMajor = m.layout == Layout::RowMajor;
  rt::TensorMapDesc d;
  d.elem = detail::scalarTypeOf(m.dtype);
  d.rank = 2;
  d.address = m.data;
  d.dims[0] = std::uint64_t(rowMajor ? m.cols : m.rows);
  d.dims[1] = std::uint64_t(rowMajor ? m.rows : m.cols);
  d.strides[0] = getDTypeBytes(m.dtype);
  d.strides[1] = std::uint64_t(m.ld) * getDTypeBytes(m.dtype);
  d.box[0] = boxInner;
  d.box[1] = boxOuter;
  d.swizzle = rt::TensorMapSwizzle::B128;
  return rt::makeTensorMap(kernel, d);
}

/// Tiles of `blockM` x `blockN` covering C.
std::int64_t tileCount(const Matrix &c, unsigned blockM, unsigned blockN) {
  return ((c.rows + blockM - 1) / blockM) * ((c.cols + blockN - 1) / blockN);
}

/// What a kGemmTuningChoices name selects of the sm_90a kernel: its tile
/// width ("n128", "n256") and, with a "c2" suffix, clusters of two.
struct HopperChoice {
  unsigned blockN, clusterM;
};
HopperChoice hopperChoiceOf(std::string_view name) {
  return {name.substr(0, 4) == "n256" ? 256u : 128u,
          name.substr(4) == "c2" ? 2u : 1u};
}

/// The sm_90a kernel's configuration: 128 x 256 tiles when C is wide and
/// not read (beta 0: the wide kernel has no beta path) and its 128 x 128
/// tiles would not all fit in one wave (with no more tiles than SMs,
/// halving each block's work halves the time); else 128 x 128, the only
/// tile for FP8 inputs and an s32 C (hopperGemmHasWideTile). `choice` (a
/// tuner's) or the tuning table decide first.
kernels::HopperGemmConfig hopperConfig(Library::Impl &impl, const Matrix &a,
                                       const Matrix &b, const Matrix &c,
                                       const GemmOptions &options,
                                       std::uint32_t epilogue,
                                       const char *choice) {
  kernels::HopperGemmConfig config;
  config.in = gemmElemOf(a.dtype);
  config.out = gemmElemOf(c.dtype);
  config.blockK = 128 / getDTypeBytes(a.dtype); // 128-byte rows
  config.aColMajor = a.layout == Layout::ColMajor;
  config.bColMajor = b.layout == Layout::ColMajor;
  // The tuner's choice (being timed, or recorded for this problem class),
  // else: the staged epilogue (any fused one) reads C on wide tiles too.
  const char *tuned = impl.gemmChoiceFor(a, b, c, options, choice);
  // Clusters of two (B multicast) only where chosen (not measured yet:
  // docs/perf.md), and where C has two tile rows (a pair's second tile
  // would compute nothing).
  const std::optional<HopperChoice> picked =
      tuned ? std::optional(hopperChoiceOf(tuned)) : std::nullopt;
  if (picked && kernels::hopperGemmHasClusters(config.in) &&
      c.rows > config.blockM)
    config.clusterM = picked->clusterM;
  if (!kernels::hopperGemmHasWideTile(config.in, config.out))
    config.blockN = 128; // the only tile (s32 C, FP8 inputs)
  else if (picked)
    config.blockN = picked->blockN;
  else
    config.blockN = (options.beta == 0 || epilogue) && c.cols >= 256 &&
                            tileCount(c, config.blockM, 128) > impl.smCount
                        ? 256
                        : 128;
  return config;
}

/// A split of K (splits 1: none) across the sm_90a kernel's work units or
/// the portable kernel's grid z: k tiles per split, and the rows of f32
/// partial sums (ldw, a multiple of 4 elements) each split leaves in the
/// workspace.
struct SplitK {
  std::int64_t splits = 1, kTilesPerSplit = 0, kTiles = 0, ldw = 0;
  std::int64_t elements(const Matrix &c) const {
    return splits > 1 ? splits * c.rows * ldw : 0;
  }
};
/// A split needs at least this many k tiles, and takes at most this many.
constexpr std::int64_t kMinSplitKTiles = 4, kMaxSplits = 16;

/// K split when C's tiles fill at most half the SMs (decode-like M): as
/// many splits as fill them, of at least kMinSplitKTiles k tiles each but
/// the last (which may be shorter: 33 k tiles in 7 splits of 5, the last
/// 3). An s32 C (exact integer sums, C += A B) is never split.
SplitK chooseSplitK(int smCount, unsigned blockM, unsigned blockN,
                    unsigned blockK, const Matrix &c, std::int64_t k) {
  SplitK split;
  split.kTiles = (k + blockK - 1) / blockK;
  split.kTilesPerSplit = split.kTiles;
  const std::int64_t tiles = tileCount(c, blockM, blockN);
  if (c.dtype == DType::S32 || 2 * tiles > smCount)
    return split;
  std::int64_t want = std::min({smCount / tiles,
                                split.kTiles / kMinSplitKTiles, kMaxSplits});
  if (want < 2)
    return split;
  split.kTilesPerSplit = (split.kTiles + want - 1) / want;
  split.splits = (split.kTiles + split.kTilesPerSplit - 1) / split.kTilesPerSplit;
  split.ldw = (c.cols + 3) / 4 * 4;
  return split;
}

/// The portable kernel's split of A x B: its 128 x 128 tiles, k tiles 64
/// bytes of K deep.
SplitK mmaSplitK(const Library::Impl &impl, const Matrix &a, const Matrix &c) {
  return chooseSplitK(impl.smCount, kernels::kMmaGemmBlockM,
                      kernels::kMmaGemmBlockN,
                      kernels::mmaGemmBlockK(gemmElemOf(a.dtype)), c, a.cols);
}

/// `split` where options.workspace holds its partial sums, else no split
/// (one split of every k tile: what the kernels are launched with then).
SplitK usableSplit(SplitK split, const Matrix &c, const GemmOptions &options) {
  const Matrix &ws = options.workspace;
  if (split.splits > 1 && !ws.isAbsent() &&
      ws.rows * ws.cols >= split.elements(c))
    return split;
  split.splits = 1;
  split.kTilesPerSplit = split.kTiles;
  return split;
}

/// Adds the splits' partial sums in the workspace (gemm_split_reduce in
/// C's type) and applies the epilogue.
rt::Error launchSplitReduce(Library::Impl &impl, const Matrix &c,
                            const GemmOptions &options, bool biasAlongRows,
                            const SplitK &split) {
  const Matrix &ws = options.workspace;
  const std::uint64_t stride = std::uint64_t(c.rows * split.ldw);
  rt::Expected<rt::Kernel *> reduce = impl.kernel(
      std::string("gemm_split_reduce_") + getDTypeName(c.dtype));
  if (!reduce)
    return reduce.takeError();
  const std::int64_t perBlock = 4 * kernels::kGemmSplitReduceThreads;
  rt::LaunchConfig sum;
  sum.block = rt::Dim3(kernels::kGemmSplitReduceThreads);
  sum.grid = rt::Dim3(unsigned((c.cols + perBlock - 1) / perBlock),
                      unsigned(std::min<std::int64_t>(c.rows, kMaxGridY)));
  sum.stream = options.stream;
  return (*reduce)->launch(
      sum,
      rt::KernelArg::pointer(ws.data, rt::ScalarType::F32, true)
          .named("workspace"),
      std::uint32_t(split.splits), stride, std::uint32_t(split.ldw),
      rt::KernelArg::pointer(c.data, detail::scalarTypeOf(c.dtype), false)
          .named("c"),
      std::uint32_t(c.rows), std::uint32_t(c.cols), std::uint32_t(c.ld),
      options.alpha, options.beta, biasArg(c, options),
      epilogueBits(options, biasAlongRows) |
          vectorCBit(c, options, biasAlongRows));
}

/// What a GEMM kernel writes and how: C itself with the options' epilogue,
/// or, with K split, the f32 partial sums in the workspace (rows of ldw,
/// splits `splitStride` elements apart; alpha 1, nothing else).
struct KernelOutput {
  rt::KernelArg c, bias;
  std::uint32_t ldc, epilogue;
  float alpha, beta;
  std::uint64_t splitStride;
};
KernelOutput kernelOutput(const Matrix &c, const GemmOptions &options,
                          bool biasAlongRows, const SplitK &split) {
  if (split.splits == 1)
    return {rt::KernelArg::pointer(c.data, detail::scalarTypeOf(c.dtype),
                                   /*readOnly=*/false)
                .named("c"),
            biasArg(c, options),
            std::uint32_t(c.ld),
            epilogueBits(options, biasAlongRows),
            options.alpha,
            options.beta,
            0};
  rt::KernelArg partial =
      rt::KernelArg::pointer(options.workspace.data, rt::ScalarType::F32,
                             /*readOnly=*/false)
          .named("workspace");
  return {partial, partial, std::uint32_t(split.ldw), 0, 1.0f, 0.0f,
          std::uint64_t(c.rows * split.ldw)};
}

/// The persistent warp-specialised TMA + wgmma kernel (hopperConfig's
/// tiles), one block per SM walking the work units; with a split K
/// (options.workspace large enough) the f32-C kernel leaves each split's
/// partial sums in the workspace and gemm_split_reduce adds them and
/// applies the epilogue.
rt::Error launchHopperGemm(Library::Impl &impl, const Matrix &a,
                           const Matrix &b, const Matrix &c,
                           const GemmOptions &options, bool biasAlongRows,
                           const char *choice) {
  const std::uint32_t epilogue = epilogueBits(options, biasAlongRows);
  kernels::HopperGemmConfig config =
      hopperConfig(impl, a, b, c, options, epilogue, choice);
  const SplitK split = usableSplit(
      chooseSplitK(impl.smCount, config.blockM, config.blockN, config.blockK,
                   c, a.cols),
      c, options);
  const bool splitting = split.splits > 1;
  if (splitting)
    config.out = kernels::GemmElem::F32; // the partial sums
  rt::Expected<rt::Kernel *> kernel =
      impl.kernel(kernels::hopperGemmName(config), /*hopperSet=*/true);
  if (!kernel)
    return kernel.takeError();
  // K-major operands (row-major A, column-major B): boxes of BK columns of
  // K x the tile's rows (a cluster's B: half of them); MN-major ones: 64
  // columns x BK rows of K (kernels::hopperGemmBoxA/B).
  const kernels::HopperGemmBox boxA = kernels::hopperGemmBoxA(config),
                               boxB = kernels::hopperGemmBoxB(config);
  rt::Expected<rt::TensorMap> mapA =
      matrixMap(**kernel, a, boxA.inner, boxA.outer);
  if (!mapA)
    return mapA.takeError().addContext("the tensor map of a");
  rt::Expected<rt::TensorMap> mapB =
      matrixMap(**kernel, b, boxB.inner, boxB.outer);
  if (!mapB)
    return mapB.takeError().addContext("the tensor map of b");
  // Work units: tiles (pairs of vertically adjacent tiles for a cluster)
  // times splits; one block (cluster) per unit, at most as many as run at
  // once (persistent).
  const unsigned cl = config.clusterM;
  const std::int64_t units =
      ((c.rows + cl * config.blockM - 1) / (cl * config.blockM)) *
      ((c.cols + config.blockN - 1) / config.blockN) *
      (splitting ? split.splits : 1);
  rt::LaunchConfig launch;
  launch.block = rt::Dim3(384);
  launch.stream = options.stream;
  std::int64_t resident = impl.smCount;
  if (cl > 1) {
    launch.cluster = rt::Dim3(cl);
    // The SMs of a GPC that are left over do not take a cluster: ask the
    // driver once per kernel (a driver without the query: one cluster per
    // cl SMs).
    const std::string name = kernels::hopperGemmName(config);
    auto known = impl.activeClusters.find(name);
    if (known == impl.activeClusters.end()) {
      rt::Expected<unsigned> clusters = (*kernel)->maxActiveClusters(launch);
      if (!clusters && clusters.error().code() != rt::ErrorCode::Unsupported)
        return clusters.takeError();
      const unsigned fits =
          clusters.valueOr(unsigned(impl.smCount) / cl);
      if (fits == 0)
        return rt::Error::make(rt::ErrorCode::InvalidConfig,
                               "gemm: the device runs no cluster of " +
                                   std::to_string(cl) + " blocks of '" +
                                   name + "' (tune again without it)");
      known = impl.activeClusters.emplace(name, fits).first;
    }
    resident = known->second;
  }
  launch.grid = rt::Dim3(
      unsigned(cl * std::max<std::int64_t>(1, std::min(units, resident))));
  const KernelOutput out = kernelOutput(c, options, biasAlongRows, split);
  if (rt::Error e = (*kernel)->launch(
          launch, *mapA, *mapB, out.c, std::uint32_t(c.rows),
          std::uint32_t(c.cols), std::uint32_t(a.cols), out.ldc, out.alpha,
          out.beta, out.bias, out.epilogue,
          std::uint32_t(split.kTilesPerSplit),
          out.splitStride * sizeof(float)))
    return e;
  return splitting ? launchSplitReduce(impl, c, options, biasAlongRows, split)
                   : rt::Error::success();
}

} // namespace

rt::Error kaio::ops::validateGemm(const Matrix &a, const Matrix &b,
                                  const Matrix &c, const GemmOptions &options) {
  for (auto [name, m] : {std::pair<const char *, const Matrix *>{"a", &a},
                         {"b", &b}, {"c", &c}})
    if (rt::Error e = detail::validateMatrix("gemm", name, *m))
      return e;
  if (a.cols != b.rows)
    return invalid("a, b", "inner dimensions differ: a is " + shape(a) +
                               ", b is " + shape(b));
  if (c.rows != a.rows || c.cols != b.cols)
    return invalid("c", "is " + shape(c) + " but a x b is " +
                            std::to_string(a.rows) + "x" +
                            std::to_string(b.cols));
  if (rt::Error e = checkDTypes(a, b, c))
    return e;
  if (!std::isfinite(options.alpha))
    return invalid("alpha", "must be finite, got " +
                                std::to_string(options.alpha));
  if (!std::isfinite(options.beta))
    return invalid("beta", "must be finite, got " +
                               std::to_string(options.beta));
  if (unsigned(options.activation) > unsigned(Activation::GeluErf))
    return invalid("activation",
                   "is not an Activation (code " +
                       std::to_string(unsigned(options.activation)) + ")");
  if (c.dtype == DType::S32) {
    // Integer sums: C = A B or C += A B, nothing else.
    if (options.alpha != 1.0f)
      return unsupported("alpha", "an s32 C takes alpha 1 only (exact integer "
                                  "sums; a scaled result needs an f32, f16 or "
                                  "bf16 C), got " +
                                      std::to_string(options.alpha));
    if (options.beta != 0.0f && options.beta != 1.0f)
      return unsupported("beta", "an s32 C takes beta 0 or 1 only (C = A B or "
                                 "C += A B), got " +
                                     std::to_string(options.beta));
    if (!options.bias.isAbsent() || options.activation != Activation::None)
      return unsupported("c", "an s32 C takes no bias or activation (they "
                              "apply to an f32, f16 or bf16 C)");
  }
  if (!options.bias.isAbsent())
    if (rt::Error e = detail::checkVector("gemm", "bias", options.bias, c.cols,
                                          c.dtype, "one per column of c"))
      return e;
  // The kernels take shapes and leading dimensions as 32-bit values.
  if (rt::Error e = checkExtents(a, b, c, std::numeric_limits<std::uint32_t>::max(),
                                 "shapes and leading dimensions past 2^32 - 1 "
                                 "elements are not supported"))
    return e;
  // The rows of C as computed: a column-major C is C^T's.
  const std::int64_t rows = c.layout == Layout::ColMajor ? c.cols : c.rows;
  if ((rows + kBlockTile - 1) / kBlockTile > kMaxGridY)
    return invalid("c", std::to_string(rows) + " rows (of C as computed: "
                            "C^T's for a column-major C) need more than " +
                            std::to_string(kMaxGridY) +
                            " rows of 128-row block tiles");
  if (!options.bias.isAbsent())
    if (rt::Error e = detail::checkDisjoint("gemm", "c", c, "bias",
                                            options.bias))
      return e;
  if (const Matrix &ws = options.workspace; !ws.isAbsent()) {
    // Any size (smaller than gemmWorkspaceElements: K is not split).
    if (rt::Error e = detail::checkWorkspace("gemm", ws, 1,
                                             "Library::gemmWorkspaceElements"))
      return e;
    if (ws.data % 16)
      return invalid("workspace", "must be 16-byte aligned");
    for (auto [name, m] :
         {std::pair<const char *, const Matrix *>{"a", &a}, {"b", &b},
          {"c", &c}, {"bias", &options.bias}})
      if (rt::Error e = detail::checkDisjoint("gemm", name, *m, "workspace",
                                              ws))
        return e;
  }
  return rt::Error::success();
}


bool detail::gemmRunsOnHopper(bool hopperGpu, const Matrix &a,
                              const Matrix &b, const GemmOptions &options) {
  // f32 goes to the tensor cores (as tf32) only when the caller allows it
  // and the operands are K-major; else to the full-precision f32 kernel.
  const bool tf32 = options.allowTf32 && a.layout == Layout::RowMajor &&
                    b.layout == Layout::ColMajor;
  return hopperGpu && !options.portable && hopperGemmFits(a, b) &&
         (a.dtype != DType::F32 || tf32);
}

std::vector<const char *> detail::hopperGemmChoices(const Matrix &a,
                                                   const Matrix &c) {
  const kernels::GemmElem in = gemmElemOf(a.dtype), out = gemmElemOf(c.dtype);
  std::vector<const char *> choices;
  for (const char *choice : kGemmTuningChoices) {
    const HopperChoice picked = hopperChoiceOf(choice);
    if (picked.blockN > 128 && !kernels::hopperGemmHasWideTile(in, out))
      continue;
    if (picked.clusterM > 1 && !kernels::hopperGemmHasClusters(in))
      continue;
    choices.push_back(choice);
  }
  return choices;
}

bool detail::portableGemmHasBlockChoice(const Matrix &a, const Matrix &b) {
  return (a.dtype == DType::F16 || a.dtype == DType::BF16) &&
         linesAligned(a, b);
}

namespace {

/// The kernel that runs a (validated) row-major-C product.
enum class GemmPath { Hopper, Sgemm, MmaSync };

/// The portable kernels read a column-major operand only with 16-byte
/// aligned lines of A and B (those with run-time alignment tests are
/// embedded for row-major A and B): `why` for the first column-major one
/// otherwise.
rt::Error columnMajorNeedsAlignedLines(const Matrix &a, const Matrix &b,
                                       const char *why) {
  if (linesAligned(a, b))
    return rt::Error::success();
  for (auto [name, m] :
       {std::pair<const char *, const Matrix *>{"a", &a}, {"b", &b}})
    if (m->layout == Layout::ColMajor)
      return unsupported(name, why);
  return rt::Error::success();
}

/// Which kernel gemm() launches for A x B into a row-major C, or the error
/// it returns before launching anything: what each kernel reads.
rt::Expected<GemmPath> chooseGemmPath(bool hopperGpu, const Matrix &a,
                                      const Matrix &b, const Matrix &c,
                                      const GemmOptions &options) {
  if (detail::gemmRunsOnHopper(hopperGpu, a, b, options))
    return GemmPath::Hopper;
  // The portable kernels compute indices and bounds in signed 32 bits.
  if (rt::Error e = checkExtents(a, b, c, std::numeric_limits<std::int32_t>::max(),
                                 "past 2^31 - 1 elements only the sm_90 kernel "
                                 "runs (a 9.0 GPU, 16-byte aligned lines of A "
                                 "and B)"))
    return e;
  // tf32 (when allowed) and s8 on mma.sync read K-major operands (the
  // dtype check holds s8 to them) with 16-byte aligned lines.
  const bool kMajor =
      a.layout == Layout::RowMajor && b.layout == Layout::ColMajor;
  if (a.dtype == DType::S8) {
    if (!linesAligned(a, b))
      return unsupported(
          linesAligned(a, a) ? "b" : "a",
          "an s8 matrix needs 16-byte aligned lines (pointer 16-byte "
          "aligned, leading dimension a multiple of 16) off the sm_90 "
          "kernel");
    return GemmPath::MmaSync;
  }
  if (a.dtype == DType::F32 && options.allowTf32 && kMajor &&
      linesAligned(a, b))
    return GemmPath::MmaSync;
  if (a.dtype == DType::F32) {
    if (rt::Error e = columnMajorNeedsAlignedLines(
            a, b, "a column-major f32 matrix needs 16-byte aligned lines of "
                  "A and B (pointers 16-byte aligned, leading dimensions "
                  "multiples of 4)"))
      return e;
    return GemmPath::Sgemm;
  }
  if (a.dtype != DType::F16 && a.dtype != DType::BF16)
    return unsupported("a", std::string(getDTypeName(a.dtype)) +
                                " runs on the sm_90 kernel only: it needs a "
                                "9.0 GPU and 16-byte aligned lines of A and "
                                "B (pointers 16-byte aligned, leading "
                                "dimensions of 16 bytes' multiples)");
  // Lines that are not 16-byte aligned: the kernel whose copies test
  // alignment at run time, embedded for row-major A and B.
  if (rt::Error e = columnMajorNeedsAlignedLines(
          a, b, "a column-major matrix needs 16-byte aligned lines of A and "
                "B (pointers 16-byte aligned, leading dimensions of 16 "
                "bytes' multiples) off the sm_90 kernel"))
    return e;
  return GemmPath::MmaSync;
}

/// The row-major-C problem gemm() computes for C (C^T = B^T A^T for a
/// column-major C) and the error it returns for it before launching.
struct RowMajorProblem {
  Matrix a, b, c;
  bool biasAlongRows;
};
RowMajorProblem rowMajorProblem(const Matrix &a, const Matrix &b,
                                const Matrix &c) {
  if (c.layout == Layout::ColMajor)
    return {transposed(b), transposed(a), transposed(c), true};
  return {a, b, c, false};
}

/// For an error about the swapped problem of a column-major C: says so.
rt::Error aboutSwapped(rt::Error e, const RowMajorProblem &p) {
  if (e && p.biasAlongRows)
    e.addContext("gemm: computed as C^T = B^T A^T for a column-major c "
                 "(its a is B^T, its b is A^T)");
  return e;
}

/// The full-precision f32 kernel: A and B row- or column-major (any
/// leading dimension; 16-byte aligned lines when either is column-major),
/// C f32.
rt::Error launchSgemm(Library::Impl &impl, const Matrix &a, const Matrix &b,
                      const Matrix &c, const GemmOptions &options,
                      bool biasAlongRows) {
  const unsigned tile = kernels::kSgemmBlockTile;
  rt::LaunchConfig config;
  config.block = rt::Dim3(kernels::kSgemmThreads);
  config.grid = rt::Dim3(unsigned((c.cols + tile - 1) / tile),
                         unsigned((c.rows + tile - 1) / tile));
  config.stream = options.stream;
  // 16-byte aligned lines of A and B: copies without the run-time test.
  kernels::SgemmConfig variant;
  variant.aColMajor = a.layout == Layout::ColMajor;
  variant.bColMajor = b.layout == Layout::ColMajor;
  variant.aligned = linesAligned(a, b);
  rt::Expected<rt::Kernel *> kernel = impl.kernel(kernels::sgemmName(variant));
  if (!kernel)
    return kernel.takeError();
  return (*kernel)->launch(config, detail::pointerArg("a", a, DType::F32, true),
                           detail::pointerArg("b", b, DType::F32, true),
                           detail::pointerArg("c", c, DType::F32, false),
                           std::uint32_t(c.rows), std::uint32_t(c.cols),
                           std::uint32_t(a.cols), std::uint32_t(a.ld),
                           std::uint32_t(b.ld), std::uint32_t(c.ld),
                           options.alpha, options.beta, biasArg(c, options),
                           epilogueBits(options, biasAlongRows) |
                               vectorCBit(c, options, biasAlongRows));
}

/// The variant of the portable kernel (blocks an SM it is built for): the
/// tuner's `choice` (being timed) or the tuning table's for the problem's
/// class, else 2 (the measured default); 2 also where only that variant
/// exists (unaligned lines).
unsigned portableBlocksPerSM(Library::Impl &impl, const Matrix &a,
                             const Matrix &b, const Matrix &c,
                             const GemmOptions &options, const char *choice) {
  if (!detail::portableGemmHasBlockChoice(a, b))
    return 2;
  const char *tuned = impl.gemmChoiceFor(a, b, c, options, choice);
  return tuned && std::string_view(tuned) == "b3" ? 3 : 2;
}

/// The portable tensor-core kernel (mma.sync): f16 or bf16 A and B in
/// either layout, C f32 or their type (the variant whose copies skip the
/// run-time alignment test when A's and B's lines are 16-byte aligned);
/// K-major tf32 or s8 A and B with aligned lines.
rt::Error launchMmaSync(Library::Impl &impl, const Matrix &a, const Matrix &b,
                        const Matrix &c, const GemmOptions &options,
                        bool biasAlongRows, const char *choice) {
  kernels::MmaGemmConfig mma;
  mma.in = gemmElemOf(a.dtype);
  mma.out = gemmElemOf(c.dtype);
  mma.aColMajor = a.layout == Layout::ColMajor;
  mma.bColMajor = b.layout == Layout::ColMajor;
  mma.aligned = linesAligned(a, b);
  mma.blocksPerSM = portableBlocksPerSM(impl, a, b, c, options, choice);
  // Split K (decode-like M, a workspace): the f32-C kernel over grid z.
  const SplitK split = usableSplit(mmaSplitK(impl, a, c), c, options);
  const bool splitting = split.splits > 1;
  if (splitting)
    mma.out = kernels::GemmElem::F32;
  rt::LaunchConfig config;
  config.block = rt::Dim3(kernels::kMmaGemmThreads);
  config.grid = rt::Dim3(
      unsigned((c.cols + kernels::kMmaGemmBlockN - 1) / kernels::kMmaGemmBlockN),
      unsigned((c.rows + kernels::kMmaGemmBlockM - 1) / kernels::kMmaGemmBlockM),
      splitting ? unsigned(split.splits) : 1u);
  config.stream = options.stream;
  rt::Expected<rt::Kernel *> kernel = impl.kernel(kernels::mmaGemmName(mma));
  if (!kernel)
    return kernel.takeError();
  const std::uint32_t kPerSplit =
      std::uint32_t(split.kTilesPerSplit * kernels::mmaGemmBlockK(mma.in));
  const KernelOutput out = kernelOutput(c, options, biasAlongRows, split);
  if (rt::Error e = (*kernel)->launch(
          config, detail::pointerArg("a", a, a.dtype, true),
          detail::pointerArg("b", b, b.dtype, true), out.c,
          std::uint32_t(c.rows), std::uint32_t(c.cols), std::uint32_t(a.cols),
          std::uint32_t(a.ld), std::uint32_t(b.ld), out.ldc, out.alpha,
          out.beta, out.bias, out.epilogue, kPerSplit, out.splitStride))
    return e;
  return splitting ? launchSplitReduce(impl, c, options, biasAlongRows, split)
                   : rt::Error::success();
}

} // namespace

rt::Error Library::checkGemmRuns(const Matrix &a, const Matrix &b,
                                 const Matrix &c, const GemmOptions &options) {
  if (rt::Error e = validateGemm(a, b, c, options))
    return e;
  const RowMajorProblem p = rowMajorProblem(a, b, c);
  rt::Expected<GemmPath> path = chooseGemmPath(
      impl_->hopper != nullptr, p.a, p.b, p.c, options);
  return path ? rt::Error::success() : aboutSwapped(path.takeError(), p);
}

rt::Error Library::gemmRowMajorC(const Matrix &a, const Matrix &b,
                                 const Matrix &c, const GemmOptions &options,
                                 bool biasAlongRows, const char *choice) {
  rt::Expected<GemmPath> path = chooseGemmPath(impl_->hopper != nullptr, a, b,
                                               c, options);
  if (!path)
    return path.takeError();
  rt::Error launched =
      *path == GemmPath::Hopper
          ? launchHopperGemm(*impl_, a, b, c, options, biasAlongRows, choice)
      : *path == GemmPath::Sgemm
          ? launchSgemm(*impl_, a, b, c, options, biasAlongRows)
          : launchMmaSync(*impl_, a, b, c, options, biasAlongRows, choice);
  // Every kernel fuses bias and activation into its epilogue.
  return launched ? launched.addContext("gemm") : rt::Error::success();
}


namespace {

/// gemm()'s options for one product of the backward.
GemmOptions backwardProduct(const GemmBackwardOptions &o) {
  GemmOptions g;
  g.alpha = o.alpha;
  g.beta = o.beta;
  g.allowTf32 = o.allowTf32;
  g.stream = o.stream;
  return g;
}

/// One product of the backward: what it computes, and its operands.
struct BackwardProduct {
  const char *what;
  Matrix a, b, c;
};
/// The products for the gradients asked for (dA = dC B^T, dB = A^T dC).
std::vector<BackwardProduct>
backwardProducts(const Matrix &a, const Matrix &b, const Matrix &dc,
                 const Matrix &da, const Matrix &db) {
  std::vector<BackwardProduct> out;
  if (!da.isAbsent())
    out.push_back({"da = dc b^T", dc, transposed(b), da});
  if (!db.isAbsent())
    out.push_back({"db = a^T dc", transposed(a), dc, db});
  return out;
}

/// An error about one of the backward's products, said as such.
rt::Error inProduct(rt::Error e, const BackwardProduct &p) {
  if (e)
    e.addContext(std::string("gemm_backward: ") + p.what);
  return e;
}

/// The gradients' shapes: A's and B's.
rt::Error checkGradientShapes(const Matrix &a, const Matrix &b,
                              const Matrix &da, const Matrix &db) {
  const char *op = "gemm_backward";
  if (!da.isAbsent() && (da.rows != a.rows || da.cols != a.cols))
    return detail::invalid(op, "da",
                           "is " + shape(da) + " but a is " + shape(a));
  if (!db.isAbsent() && (db.rows != b.rows || db.cols != b.cols))
    return detail::invalid(op, "db",
                           "is " + shape(db) + " but b is " + shape(b));
  return rt::Error::success();
}

} // namespace

rt::Error kaio::ops::validateGemmBackward(const Matrix &a, const Matrix &b,
                                          const Matrix &dc, const Matrix &da,
                                          const Matrix &db,
                                          const GemmBackwardOptions &options) {
  if (rt::Error e = checkGradientShapes(a, b, da, db))
    return e;
  const GemmOptions g = backwardProduct(options);
  for (const BackwardProduct &p : backwardProducts(a, b, dc, da, db))
    if (rt::Error e = validateGemm(p.a, p.b, p.c, g))
      return inProduct(std::move(e), p);
  return rt::Error::success();
}

rt::Error Library::gemmBackward(const Matrix &a, const Matrix &b,
                                const Matrix &dc, const Matrix &da,
                                const Matrix &db,
                                const GemmBackwardOptions &options) {
  if (rt::Error e = checkGradientShapes(a, b, da, db))
    return e;
  const GemmOptions g = backwardProduct(options);
  const auto products = backwardProducts(a, b, dc, da, db);
  // Every product must run here (validated, and read by a kernel) before
  // any launches.
  for (const BackwardProduct &p : products)
    if (rt::Error e = checkGemmRuns(p.a, p.b, p.c, g))
      return inProduct(std::move(e), p);
  for (const BackwardProduct &p : products)
    if (rt::Error e = gemm(p.a, p.b, p.c, g))
      return inProduct(std::move(e), p);
  return rt::Error::success();
}

std::int64_t Library::gemmWorkspaceElements(const Matrix &a, const Matrix &b,
                                            const Matrix &c,
                                            const GemmOptions &options) {
  if (validateGemm(a, b, c, options) || c.rows == 0 || c.cols == 0)
    return 0;
  const RowMajorProblem p = rowMajorProblem(a, b, c);
  rt::Expected<GemmPath> path = chooseGemmPath(
      impl_->hopper != nullptr, p.a, p.b, p.c, options);
  if (!path || *path == GemmPath::Sgemm)
    return 0;
  if (*path == GemmPath::MmaSync)
    return mmaSplitK(*impl_, p.a, p.c).elements(p.c);
  kernels::HopperGemmConfig config =
      hopperConfig(*impl_, p.a, p.b, p.c, options,
                   epilogueBits(options, p.biasAlongRows), nullptr);
  return chooseSplitK(impl_->smCount, config.blockM, config.blockN,
                      config.blockK, p.c, p.a.cols)
      .elements(p.c);
}

rt::Error Library::gemm(const Matrix &a, const Matrix &b, const Matrix &c,
                        const GemmOptions &options) {
  if (rt::Error e = validateGemm(a, b, c, options))
    return e;
  if (c.rows == 0 || c.cols == 0)
    return rt::Error::success();
  // A column-major C is the row-major C^T = B^T A^T (its bias runs along
  // C^T's rows).
  const RowMajorProblem p = rowMajorProblem(a, b, c);
  return aboutSwapped(gemmRowMajorC(p.a, p.b, p.c, options, p.biasAlongRows),
                      p);
}

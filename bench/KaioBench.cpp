//===- KaioBench.cpp - KAIO's kernels against their peers on the GPU ------===//
//
// kaio-bench: each benchmark times a KAIO kernel and its peer in the same
// run, with CUDA events, after warm-up, and reports both medians and their
// ratio:
//   * the op library's gemm (kaio::ops::Library, f16 in, f32 out) at square
//     shapes from 256 to 8192 and LLM shapes, also with column-major A or
//     B, with inputs rotated through enough copies to defeat L2;
//   * the tensor-core examples (64 x 64 tiles, its two-stage pipelined
//     variant, the 128 x 128 warp-tile kernel);
//   all against cuBLAS GemmEx at the same precision (FP16 inputs, FP32
//   compute and output); the FP8 GEMM against cuBLASLt's FP8 matmul;
//   * vector_add and fused_silu_gate against a device-to-device copy of the
//     same bytes (the memory-bandwidth ceiling);
//   * FlashAttention forward in FLOP/s (its peer, torch's SDPA, in
//     bench/torch_attention.py).
// The kernels are embedded at build time (kaio_add_kernels) and the binary
// links only the runtime; cuBLAS is loaded with dlopen when present. With no
// GPU it says so and reports nothing: no number is made up.
//
//   kaio-bench --list                 the benchmarks
//   kaio-bench --filter 'Gemm.*4096'  a regex over their names
//   kaio-bench --json out.json        also write the results as JSON
//                                     (bench/plot.py turns it into a plot)
// (Google Benchmark's own --benchmark_* flags work too.)
//
//===----------------------------------------------------------------------===//

#include "Kaio/Ops/Library.h"
#include "Kaio/Runtime/Runtime.h"
#include "bench_hopper_kernels.h"
#include "bench_kernels.h"

#include <benchmark/benchmark.h>
#include <algorithm>
#include <cstdio>
#include <dlfcn.h>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace kaio::rt;

namespace {

//===----------------------------------------------------------------------===//
// cuBLAS, loaded at run time (values from cublas_api.h / library_types.h)
//===----------------------------------------------------------------------===//

struct Cublas {
  using Handle = void *;
  using CreateFn = int (*)(Handle *);
  using DestroyFn = int (*)(Handle);
  using GemmExFn = int (*)(Handle, int, int, int, int, int, const void *,
                           const void *, int, int, const void *, int, int,
                           const void *, void *, int, int, int, int);
  static constexpr int kOpN = 0, kOpT = 1, kR16F = 2, kR16BF = 14, kR32F = 0,
                       kCompute32F = 68, kCompute32FFastTf32 = 77,
                       kGemmDefault = -1;

  void *lib = nullptr;
  Handle handle = nullptr;
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  GemmExFn gemmEx = nullptr;

  bool load() {
    for (const char *name : {"libcublas.so", "libcublas.so.13", "libcublas.so.12"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!lib)
      return false;
    create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<DestroyFn>(dlsym(lib, "cublasDestroy_v2"));
    gemmEx = reinterpret_cast<GemmExFn>(dlsym(lib, "cublasGemmEx"));
    return create && destroy && gemmEx && create(&handle) == 0;
  }
  /// Row-major C (f32, m x n) = A (f16 or bf16, m x k) B (k x n) with FP32
  /// compute, A and B dense row-major or (aCol, bCol) column-major:
  /// column-major C^T = B^T A^T, where a row-major operand is its own
  /// transpose to cuBLAS and a column-major one is transposed (op T). True
  /// when cuBLAS accepted it.
  bool gemm16F32(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int m, int n,
                 int k, bool bf16, bool aCol = false, bool bCol = false,
                 bool c16 = false) const {
    int in = bf16 ? kR16BF : kR16F;
    return gemmF32(a, b, c, m, n, k, in, kCompute32F, aCol, bCol,
                   c16 ? in : kR32F);
  }
  /// The same with f32 inputs and TF32 tensor-core compute (cuBLAS's
  /// CUBLAS_COMPUTE_32F_FAST_TF32), or full-precision f32 (SGEMM).
  bool gemmTf32(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int m, int n,
                int k, bool aCol, bool bCol, bool tf32 = true) const {
    return gemmF32(a, b, c, m, n, k, kR32F,
                   tf32 ? kCompute32FFastTf32 : kCompute32F, aCol, bCol);
  }
  bool gemmF32(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int m, int n,
               int k, int in, int compute, bool aCol, bool bCol,
               int out = kR32F) const {
    float one = 1.0f, zero = 0.0f;
    return gemmEx(handle, bCol ? kOpT : kOpN, aCol ? kOpT : kOpN, n, m, k,
                  &one, reinterpret_cast<void *>(b), in, bCol ? k : n,
                  reinterpret_cast<void *>(a), in, aCol ? m : k, &zero,
                  reinterpret_cast<void *>(c), out, n, compute,
                  kGemmDefault) == 0;
  }
  ~Cublas() {
    if (handle)
      destroy(handle);
    if (lib)
      dlclose(lib);
  }
};

/// cuBLASLt's FP8 matmul (cuBLAS GemmEx has none), loaded with dlopen: the
/// peer of the library's FP8 GEMM.
struct CublasLt {
  using Handle = void *;
  using Desc = void *;
  using Layout = void *;
  int (*create)(Handle *) = nullptr;
  int (*destroy)(Handle) = nullptr;
  int (*descCreate)(Desc *, int, int) = nullptr;
  int (*descDestroy)(Desc) = nullptr;
  int (*descSet)(Desc, int, const void *, size_t) = nullptr;
  int (*layoutCreate)(Layout *, int, uint64_t, uint64_t, int64_t) = nullptr;
  int (*layoutDestroy)(Layout) = nullptr;
  int (*matmul)(Handle, Desc, const void *, const void *, Layout,
                const void *, Layout, const void *, const void *, Layout,
                void *, Layout, const void *, void *, size_t,
                void *) = nullptr;
  static constexpr int kCompute32F = 68, kR32F = 0, kR8FE4M3 = 28,
                       kR8FE5M2 = 29, kTransA = 3, kTransB = 4, kOpN = 0,
                       kOpT = 1;
  void *lib = nullptr;
  Handle handle = nullptr;

  template <class F> bool sym(F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
  }
  bool load() {
    for (const char *name :
         {"libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    return lib && sym(create, "cublasLtCreate") &&
           sym(destroy, "cublasLtDestroy") &&
           sym(descCreate, "cublasLtMatmulDescCreate") &&
           sym(descDestroy, "cublasLtMatmulDescDestroy") &&
           sym(descSet, "cublasLtMatmulDescSetAttribute") &&
           sym(layoutCreate, "cublasLtMatrixLayoutCreate") &&
           sym(layoutDestroy, "cublasLtMatrixLayoutDestroy") &&
           sym(matmul, "cublasLtMatmul") && create(&handle) == 0;
  }
  static constexpr int kR16F = 2, kR16BF = 14, kEpilogue = 7,
                       kBiasPointer = 8, kEpilogueDefault = 1,
                       kEpilogueReluBias = 6, kEpilogueGeluBias = 36;
  /// Row-major C (`out`, m x n) = epilogue(alpha A B) with A (`in`, m x k
  /// row-major) and B (`in`, k x n column-major, i.e. n rows of k):
  /// column-major C^T = B^T A^T, the "TN" form (op T on the k x n first
  /// operand, N on the k x m second) that cuBLASLt's FP8 matmul requires.
  /// `epilogue` a cublasLtEpilogue_t (bias: one per column of C, C's
  /// type); the workspace lets it pick its fastest kernels. True when
  /// cuBLASLt accepted it.
  /// Integer (s8 in, s32 out) problems compute in s32 with s32 scales.
  /// `inB` (default: `in`) is B's type where it differs from A's.
  static constexpr int kR8I = 3, kR32I = 10, kCompute32I = 72;
  bool gemmTN(int in, int out, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
              int m, int n, int k, float alpha, int epilogue, CUdeviceptr bias,
              CUdeviceptr workspace, size_t workspaceBytes,
              int inB = -1) const {
    Desc desc = nullptr;
    Layout la = nullptr, lb = nullptr, lc = nullptr;
    const bool integer = out == kR32I;
    bool ok = descCreate(&desc, integer ? kCompute32I : kCompute32F,
                         integer ? kR32I : kR32F) == 0;
    const int t = kOpT, nn = kOpN;
    const void *biasPtr = reinterpret_cast<const void *>(bias);
    ok = ok && descSet(desc, kTransA, &t, sizeof t) == 0 &&
         descSet(desc, kTransB, &nn, sizeof nn) == 0 &&
         descSet(desc, kEpilogue, &epilogue, sizeof epilogue) == 0 &&
         (!bias || descSet(desc, kBiasPointer, &biasPtr, sizeof biasPtr) == 0) &&
         layoutCreate(&la, inB < 0 ? in : inB, uint64_t(k), uint64_t(n), k) ==
             0 &&
         layoutCreate(&lb, in, uint64_t(k), uint64_t(m), k) == 0 &&
         layoutCreate(&lc, out, uint64_t(n), uint64_t(m), n) == 0;
    float zero = 0.0f;
    std::int32_t alphaInt = std::int32_t(alpha), zeroInt = 0;
    ok = ok && matmul(handle, desc,
                      integer ? static_cast<const void *>(&alphaInt) : &alpha,
                      reinterpret_cast<void *>(b), la,
                      reinterpret_cast<void *>(a), lb,
                      integer ? static_cast<const void *>(&zeroInt) : &zero,
                      reinterpret_cast<void *>(c), lc,
                      reinterpret_cast<void *>(c), lc, nullptr,
                      reinterpret_cast<void *>(workspace), workspaceBytes,
                      nullptr) == 0;
    for (Layout l : {la, lb, lc})
      if (l)
        layoutDestroy(l);
    if (desc)
      descDestroy(desc);
    return ok;
  }
  ~CublasLt() {
    if (handle)
      destroy(handle);
    if (lib)
      dlclose(lib);
  }
};

//===----------------------------------------------------------------------===//
// Shared state: device, kernels, peers
//===----------------------------------------------------------------------===//

struct Gpu {
  std::optional<Device> device;
  std::optional<bench::Kernels> kernels;
  std::optional<kaio::ops::Library> library;
  std::optional<Event> start, stop;
  Cublas cublas;
  bool hasCublas = false;
  CublasLt cublasLt;
  /// cuBLASLt's workspace (lets it pick its fastest kernels), one for all.
  std::optional<DeviceBuffer<std::int8_t>> cublasLtWorkspace;
  static constexpr size_t kCublasLtWorkspace = size_t(32) << 20;
  bool hasCublasLt = false;

  /// cuBLASLt's FP8 matmul (CublasLt::gemmTN, f32 C) with the workspace.
  /// cuBLASLt refuses e5m2 x e5m2 (one operand must be e4m3), so the e5m2
  /// peer reads A as e5m2 and B as e4m3: the same bytes at the same
  /// tensor-core rate, the closest problem it runs.
  bool cublasLtFp8(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int64_t m,
                   int64_t n, int64_t k, bool e4m3, float alpha) const {
    return cublasLt.gemmTN(e4m3 ? CublasLt::kR8FE4M3 : CublasLt::kR8FE5M2,
                           CublasLt::kR32F, a, b, c, int(m), int(n), int(k),
                           alpha, CublasLt::kEpilogueDefault, 0,
                           cublasLtWorkspace->ptr(), kCublasLtWorkspace,
                           CublasLt::kR8FE4M3);
  }
  /// cuBLASLt's int8 matmul (s8 in, s32 out, TN).
  bool cublasLtInt8(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int64_t m,
                    int64_t n, int64_t k) const {
    return cublasLt.gemmTN(CublasLt::kR8I, CublasLt::kR32I, a, b, c, int(m),
                           int(n), int(k), 1.0f, CublasLt::kEpilogueDefault, 0,
                           cublasLtWorkspace->ptr(), kCublasLtWorkspace);
  }
  /// cuBLASLt's bf16 matmul with a fused bias + activation epilogue (a
  /// linear layer: C = act(A W^T + bias), C bf16).
  bool cublasLtBf16Epilogue(CUdeviceptr a, CUdeviceptr w, CUdeviceptr c,
                            CUdeviceptr bias, int64_t m, int64_t n, int64_t k,
                            int epilogue) const {
    return cublasLt.gemmTN(CublasLt::kR16BF, CublasLt::kR16BF, a, w, c, int(m),
                           int(n), int(k), 1.0f, epilogue, bias,
                           cublasLtWorkspace->ptr(), kCublasLtWorkspace);
  }
  std::string why;

  static Gpu &get() {
    static Gpu gpu;
    return gpu;
  }

private:
  Gpu() {
    Expected<Device> d = Device::open(0);
    if (!d) {
      why = d.error().message();
      return;
    }
    device.emplace(std::move(*d));
    Expected<bench::Kernels> k = bench::Kernels::load(*device);
    Expected<Event> a = Event::create(*device), b = Event::create(*device);
    if (!k || !a || !b) {
      why = !k ? k.error().message() : "cannot create CUDA events";
      device.reset();
      return;
    }
    kernels.emplace(std::move(*k));
    Expected<kaio::ops::Library> lib = kaio::ops::Library::load(*device);
    if (lib)
      library.emplace(std::move(*lib));
    start.emplace(std::move(*a));
    stop.emplace(std::move(*b));
    hasCublas = cublas.load();
    if (cublasLt.load()) {
      auto ws = DeviceBuffer<std::int8_t>::allocate(*device, kCublasLtWorkspace);
      if (ws)
        cublasLtWorkspace.emplace(std::move(*ws));
      hasCublasLt = cublasLtWorkspace.has_value();
    }
  }
};

constexpr int kWarmup = 3, kReps = 20;

/// Median milliseconds of `reps` event-timed runs of `fn` after warm-up; -1
/// when a run fails.
template <typename Fn>
double medianMs(Gpu &gpu, Fn fn) {
  for (int i = 0; i < kWarmup; ++i)
    if (!fn())
      return -1;
  std::vector<double> times;
  for (int i = 0; i < kReps; ++i) {
    if (gpu.start->record() || !fn() || gpu.stop->record() ||
        gpu.stop->synchronize())
      return -1;
    Expected<float> ms = elapsedMs(*gpu.start, *gpu.stop);
    if (!ms)
      return -1;
    times.push_back(*ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}

bool skipWithoutGpu(benchmark::State &state, Gpu &gpu) {
  if (gpu.device)
    return false;
  state.SkipWithError(("not measured, no GPU: " + gpu.why).c_str());
  return true;
}

/// A and B (f16) and C (f32) of an m x n x k GEMM, A and B filled with
/// 0x3c3c (f16 1.0586: finite inputs, sums far from overflow); nullopt,
/// the benchmark skipped, when an allocation fails.
/// A GEMM's operands: A (m x k) and B (k x n) of TA, C (m x n) of TC.
template <class TA = Half, class TC = float> struct GemmBuffers {
  DeviceBuffer<TA> a, b;
  DeviceBuffer<TC> c;
};
/// Allocates them with every byte of A and B `fill` (0x3c: 1.5 in e4m3,
/// 1.0 in e5m2, 0.0115 in bf16 and f32, 1.06 in f16); on failure the
/// state is skipped.
template <class TA = Half, class TC = float>
std::optional<GemmBuffers<TA, TC>>
allocateGemm(benchmark::State &state, Gpu &gpu, int64_t m, int64_t n,
             int64_t k, int fill = 0x3c) {
  auto a = DeviceBuffer<TA>::allocate(*gpu.device, size_t(m) * size_t(k));
  auto b = DeviceBuffer<TA>::allocate(*gpu.device, size_t(k) * size_t(n));
  auto c = DeviceBuffer<TC>::allocate(*gpu.device, size_t(m) * size_t(n));
  if (!a || !b || !c || a->fillBytes(fill) || b->fillBytes(fill)) {
    state.SkipWithError("device allocation failed");
    return std::nullopt;
  }
  return GemmBuffers<TA, TC>{std::move(*a), std::move(*b), std::move(*c)};
}
/// `sets` copies of them (inputs rotated past L2); empty on failure.
template <class TA = Half, class TC = float>
std::vector<GemmBuffers<TA, TC>>
allocateGemmSets(benchmark::State &state, Gpu &gpu, int sets, int64_t m,
                 int64_t n, int64_t k, int fill = 0x3c) {
  std::vector<GemmBuffers<TA, TC>> out;
  for (int i = 0; i < sets; ++i) {
    std::optional<GemmBuffers<TA, TC>> bufs =
        allocateGemm<TA, TC>(state, gpu, m, n, k, fill);
    if (!bufs)
      return {};
    out.push_back(std::move(*bufs));
  }
  return out;
}
/// B (k x n) read column-major from its buffer: the transpose of a
/// row-major n x k weight (K-major), as a Linear layer's x W^T reads W.
template <class T>
kaio::ops::Matrix kMajorB(const DeviceBuffer<T> &buf, int64_t k, int64_t n) {
  kaio::ops::Matrix b = kaio::ops::Matrix::rowMajor(buf.view(), n, k);
  std::swap(b.rows, b.cols);
  b.layout = kaio::ops::Layout::ColMajor;
  return b;
}

/// Skips (saying why) unless both the op library and cuBLAS loaded.
bool skipWithoutLibraryOrCublas(benchmark::State &state, Gpu &gpu) {
  if (gpu.hasCublas && gpu.library)
    return false;
  state.SkipWithError(!gpu.library ? "not measured: the op library did not "
                                     "load"
                                   : "not measured: cuBLAS not found");
  return true;
}

void report(benchmark::State &state, double kaioMs, double peerMs,
            double work, const char *unit) {
  state.SetIterationTime(kaioMs / 1e3);
  state.counters["kaio_ms"] = kaioMs;
  state.counters["peer_ms"] = peerMs;
  state.counters["ratio_vs_peer"] = peerMs / kaioMs; // > 1: KAIO is faster
  state.counters[std::string("kaio_") + unit] = work / (kaioMs / 1e3);
  state.counters[std::string("peer_") + unit] = work / (peerMs / 1e3);
}

//===----------------------------------------------------------------------===//
// Benchmarks
//===----------------------------------------------------------------------===//

enum class MatmulVariant { Plain, Pipelined, WarpTiles, Staged };

template <MatmulVariant variant>
void BM_TensorCoreMatmulVsCublas(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  if (!gpu.hasCublas) {
    state.SkipWithError("not measured: cuBLAS not found");
    return;
  }
  const int32_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::optional<GemmBuffers<>> bufs = allocateGemm(state, gpu, m, n, k);
  if (!bufs)
    return;
  DeviceBuffer<Half> *a = &bufs->a, *b = &bufs->b;
  DeviceBuffer<float> *c = &bufs->c;
  LaunchConfig config;
  config.block = bench::Kernels::tensor_core_matmul_block();
  // The warp-tile kernel covers 128 x 128 per block, the others 64 x 64.
  const int32_t tile = variant == MatmulVariant::WarpTiles ||
                               variant == MatmulVariant::Staged
                           ? 128
                           : 64;
  config.grid = Dim3((n + tile - 1) / tile, (m + tile - 1) / tile);
  auto kaio = [&] {
    if constexpr (variant == MatmulVariant::Pipelined)
      return !gpu.kernels->tensor_core_matmul_pipelined(
          config, a->view(), b->view(), *c, uint32_t(m), uint32_t(n),
          uint32_t(k));
    else if constexpr (variant == MatmulVariant::WarpTiles)
      return !gpu.kernels->tensor_core_matmul_tiled(
          config, a->view(), b->view(), *c, uint32_t(m), uint32_t(n),
          uint32_t(k), 1.0f, 0.0f);
    else if constexpr (variant == MatmulVariant::Staged)
      return !gpu.kernels->tensor_core_matmul_staged(
          config, a->view(), b->view(), *c, uint32_t(m), uint32_t(n),
          uint32_t(k));
    else
      return !gpu.kernels->tensor_core_matmul(config, a->view(), b->view(),
                                              *c, uint32_t(m), uint32_t(n),
                                              uint32_t(k));
  };
  auto peer = [&] {
    return gpu.cublas.gemm16F32(a->ptr(), b->ptr(), c->ptr(), m, n, k, false);
  };
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    report(state, kaioMs, peerMs, 2.0 * m * n * k, "flop/s");
  }
}
/// The shapes every matmul variant runs at, timed manually (CUDA events).
void matmulShapes(benchmark::internal::Benchmark *b) {
  b->Args({1024, 1024, 1024})
      ->Args({4096, 4096, 4096})
      ->Args({1000, 1000, 1000})
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_TensorCoreMatmulVsCublas<MatmulVariant::Plain>)
    ->Name("BM_TensorCoreMatmulVsCublas")
    ->Apply(matmulShapes);
BENCHMARK(BM_TensorCoreMatmulVsCublas<MatmulVariant::Pipelined>)
    ->Name("BM_TensorCoreMatmulPipelinedVsCublas")
    ->Apply(matmulShapes);
BENCHMARK(BM_TensorCoreMatmulVsCublas<MatmulVariant::WarpTiles>)
    ->Name("BM_TensorCoreMatmulWarpTilesVsCublas")
    ->Apply(matmulShapes);
BENCHMARK(BM_TensorCoreMatmulVsCublas<MatmulVariant::Staged>)
    ->Name("BM_TensorCoreMatmulStagedVsCublas")
    ->Apply(matmulShapes);

/// The kaio-dialect sm_90a examples, loaded once; null (the benchmark
/// skipped, saying why) where they do not load (not a 9.0 GPU).
bench_hopper::Kernels *hopperKernels(benchmark::State &state, Gpu &gpu) {
  static std::optional<Expected<bench_hopper::Kernels>> hopper;
  if (!hopper)
    hopper.emplace(bench_hopper::Kernels::load(*gpu.device));
  if (!*hopper) {
    state.SkipWithError(("not measured: " + hopper->error().message()).c_str());
    return nullptr;
  }
  return &**hopper;
}

/// A 128-byte-swizzled tensor map over a dense row-major rows x cols matrix
/// of `elem`, in boxes of 128 bytes of a row x `boxRows` rows.
Expected<TensorMap> swizzledMap(const Kernel &kernel, CUdeviceptr at,
                                ScalarType elem, int64_t rows, int64_t cols,
                                uint32_t boxRows) {
  const uint64_t size = getScalarTypeSize(elem);
  TensorMapDesc d;
  d.elem = elem;
  d.rank = 2;
  d.address = at;
  d.dims[0] = uint64_t(cols);
  d.dims[1] = uint64_t(rows);
  d.strides[0] = size;
  d.strides[1] = uint64_t(cols) * size;
  d.box[0] = uint32_t(128 / size);
  d.box[1] = boxRows;
  d.swizzle = TensorMapSwizzle::B128;
  return makeTensorMap(kernel, d);
}

/// Skips (saying why) unless both the op library and cuBLASLt loaded.
bool skipWithoutLibraryOrCublasLt(benchmark::State &state, Gpu &gpu) {
  if (gpu.library && gpu.hasCublasLt)
    return false;
  state.SkipWithError(!gpu.library ? "not measured: the op library did not "
                                     "load"
                                   : "not measured: cuBLASLt not found");
  return true;
}

/// The GPU when it, the op library and cuBLAS (or cuBLASLt) are all
/// there; else null, with the state skipped saying why.
Gpu *gpuWithPeers(benchmark::State &state, bool cublasLt) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return nullptr;
  if (cublasLt ? skipWithoutLibraryOrCublasLt(state, gpu)
               : skipWithoutLibraryOrCublas(state, gpu))
    return nullptr;
  return &gpu;
}


/// Skips (saying why) unless both tensor maps were made.
bool skipWithoutMaps(benchmark::State &state, const Expected<TensorMap> &a,
                     const Expected<TensorMap> &b) {
  if (a && b)
    return false;
  state.SkipWithError(
      ("tensor map: " + (!a ? a.error() : b.error()).message()).c_str());
  return true;
}

/// The grid of a persistent example GEMM: a block per 128 x tileN tile of
/// C, at most one per SM.
Dim3 persistentGrid(Gpu &gpu, int64_t m, int64_t n, int64_t tileN = 256) {
  const int64_t tiles = ((m + 127) / 128) * ((n + tileN - 1) / tileN);
  return Dim3(unsigned(
      std::min<int64_t>(tiles, gpu.device->properties().smCount)));
}

/// Times a kaio-dialect example GEMM, its peer and the library's kernel for
/// the same product, and reports the example against the peer (the
/// library's median as `library_ms`).
template <class KaioFn, class PeerFn, class LibraryFn>
void reportExampleGemm(benchmark::State &state, Gpu &gpu, int64_t m, int64_t n,
                       int64_t k, KaioFn kaio, PeerFn peer, LibraryFn library) {
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer),
           libraryMs = medianMs(gpu, library);
    if (kaioMs < 0 || peerMs < 0 || libraryMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    report(state, kaioMs, peerMs, 2.0 * double(m) * double(n) * double(k),
           "flop/s");
    state.counters["library_ms"] = libraryMs;
  }
}

/// examples/hopper_gemm.mlir — the warp-specialised TMA + wgmma GEMM
/// written in the kaio dialect — against cuBLAS GemmEx (f16 in, f32 out),
/// and against the op library's generated sm_90a kernel (ops::gemm, 128 x
/// 128 tiles at these shapes when they fit one wave, else 128 x 256) in the
/// same run: `library_ms`. Needs a 9.0 GPU (the PTX is sm_90a).
void BM_HopperGemmExampleVsCublas(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/false);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  bench_hopper::Kernels *hopper = hopperKernels(state, gpu);
  if (!hopper)
    return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::optional<GemmBuffers<>> bufs = allocateGemm(state, gpu, m, n, k);
  if (!bufs)
    return;
  DeviceBuffer<Half> *a = &bufs->a, *b = &bufs->b;
  DeviceBuffer<float> *c = &bufs->c;
  // Row-major 16-bit matrices, 128-byte swizzle: A in 128 x 64 boxes, B in
  // 64 x 64 (the boxes the example's types declare).
  auto map = [&](const DeviceBuffer<Half> &buf, int64_t rows, int64_t cols,
                 uint32_t boxRows) {
    return swizzledMap(hopper->hopper_gemm_kernel(), buf.ptr(),
                       ScalarType::F16, rows, cols, boxRows);
  };
  Expected<TensorMap> ma = map(*a, m, k, 128), mb = map(*b, k, n, 64);
  if (skipWithoutMaps(state, ma, mb))
    return;
  LaunchConfig config;
  config.block = bench_hopper::Kernels::hopper_gemm_block();
  config.grid = persistentGrid(gpu, m, n);
  auto kaio = [&] {
    return !hopper->hopper_gemm(config, *ma, *mb, *c, uint32_t(m),
                                   uint32_t(n), uint32_t(k));
  };
  auto library = [&] {
    return !gpu.library->gemm(
        kaio::ops::Matrix::rowMajor(std::as_const(*a).view(), m, k),
        kaio::ops::Matrix::rowMajor(std::as_const(*b).view(), k, n),
        kaio::ops::Matrix::rowMajor(c->view(), m, n));
  };
  auto peer = [&] {
    return gpu.cublas.gemm16F32(a->ptr(), b->ptr(), c->ptr(), int(m), int(n),
                                int(k), false);
  };
  reportExampleGemm(state, gpu, m, n, k, kaio, peer, library);
}
BENCHMARK(BM_HopperGemmExampleVsCublas)
    ->ArgNames({"M", "N", "K"})
    ->Args({2048, 2048, 2048})
    ->Args({4096, 4096, 4096})
    ->Args({8192, 8192, 8192})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// examples/hopper_gemm_fp8.mlir (the FP8 kaio-dialect GEMM: A row-major,
/// B given as B^T, E4M3 bytes of 0x3c = 1.5) against cuBLASLt's FP8
/// matmul and the library's FP8 kernel (`library_ms`) in the same run.
void BM_HopperGemmFp8ExampleVsCublasLt(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/true);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  bench_hopper::Kernels *hopper = hopperKernels(state, gpu);
  if (!hopper)
    return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  auto a = DeviceBuffer<std::int8_t>::allocate(*gpu.device, size_t(m * k));
  auto bt = DeviceBuffer<std::int8_t>::allocate(*gpu.device, size_t(n * k));
  auto c = DeviceBuffer<float>::allocate(*gpu.device, size_t(m * n));
  if (!a || !bt || !c || a->fillBytes(0x3c) ||
      bt->fillBytes(0x3c)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  // Byte maps of K-contiguous rows, boxes of 128 bytes x the tile's rows.
  auto map = [&](const DeviceBuffer<std::int8_t> &buf, int64_t rows,
                 uint32_t boxRows) {
    return swizzledMap(hopper->hopper_gemm_fp8_kernel(), buf.ptr(),
                       ScalarType::U8, rows, k, boxRows);
  };
  Expected<TensorMap> ma = map(*a, m, 128), mb = map(*bt, n, 128);
  if (skipWithoutMaps(state, ma, mb))
    return;
  LaunchConfig config;
  config.block = bench_hopper::Kernels::hopper_gemm_fp8_block();
  config.grid = persistentGrid(gpu, m, n, /*tileN=*/128);
  auto kaio = [&] {
    return !hopper->hopper_gemm_fp8(config, *ma, *mb, *c, uint32_t(m),
                                       uint32_t(n), uint32_t(k), 0.5f);
  };
  auto library = [&] {
    kaio::ops::Matrix ma8 =
        kaio::ops::Matrix::rowMajor(std::as_const(*a).view(), m, k);
    kaio::ops::Matrix mb8 =
        kaio::ops::Matrix::rowMajor(std::as_const(*bt).view(), n, k);
    std::swap(mb8.rows, mb8.cols);
    mb8.layout = kaio::ops::Layout::ColMajor;
    ma8.dtype = mb8.dtype = kaio::ops::DType::E4M3;
    kaio::ops::GemmOptions options;
    options.alpha = 0.5f;
    return !gpu.library->gemm(
        ma8, mb8, kaio::ops::Matrix::rowMajor(c->view(), m, n), options);
  };
  auto peer = [&] {
    return gpu.cublasLtFp8(a->ptr(), bt->ptr(), c->ptr(), m, n, k, true, 0.5f);
  };
  reportExampleGemm(state, gpu, m, n, k, kaio, peer, library);
}
BENCHMARK(BM_HopperGemmFp8ExampleVsCublasLt)
    ->ArgNames({"M", "N", "K"})
    ->Args({4096, 4096, 4096})
    ->Args({8192, 8192, 8192})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// How many copies of a GEMM's operands (`setBytes` each, at most 16) the
/// timed runs rotate through so that together they exceed twice the L2
/// cache: no run reads inputs the previous one left in L2.
int l2RotationSets(Gpu &gpu, uint64_t setBytes) {
  const uint64_t l2 = std::max<uint64_t>(
      uint64_t(gpu.device->properties().l2CacheSize), 1 << 20);
  return int(std::clamp<uint64_t>(2 * l2 / setBytes + 1, 1, 16));
}

/// Times `kaio` and `peer` (each call runs the next operand set) and
/// reports both medians and the ratio in flop/s of an m x n x k GEMM.
template <class KaioFn, class PeerFn>
void reportGemmPair(benchmark::State &state, Gpu &gpu, int64_t m, int64_t n,
                    int64_t k, int sets, KaioFn kaio, PeerFn peer) {
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    report(state, kaioMs, peerMs, 2.0 * double(m) * double(n) * double(k),
           "flop/s");
    state.counters["l2_rotation_sets"] = sets;
  }
}

/// Times the configurations gemm() chooses among for these arguments with
/// the tuner (its CUDA events, warm-up and median; recorded for this run
/// only, so gemm() then launches the fastest): the sm_90a kernel's tile
/// widths alone and in clusters of two (n128, n256, n128c2, n256c2), the
/// portable one's variants for 2 or 3 blocks an SM (b2, b3). Every median
/// is a counter <choice>_ms. False (the benchmark skipped) on an error.
bool tuneForBench(benchmark::State &state, Gpu &gpu, const kaio::ops::Matrix &a,
                  const kaio::ops::Matrix &b, const kaio::ops::Matrix &c,
                  const kaio::ops::GemmOptions &options) {
  kaio::ops::GemmTuneOptions tune;
  tune.save = false;
  kaio::rt::Expected<kaio::ops::GemmTuneResult> tuned =
      gpu.library->tuneGemm(*gpu.device, a, b, c, options, tune);
  if (!tuned) {
    state.SkipWithError(tuned.error().message().c_str());
    return false;
  }
  for (const auto &[name, ms] : tuned->timings)
    state.counters[name + "_ms"] = ms;
  return true;
}

/// kaio::ops::gemm, tuned (counters <choice>_ms), against cuBLAS GemmEx at
/// the same precision (f16 or bf16 inputs, f32 out) and the same layouts
/// (A, B row- or column-major).
/// Each timed run uses the next of enough A, B, C copies to exceed twice
/// the L2 cache, so neither side reads its inputs from L2 left by the
/// previous run.
void runOpsGemmVsCublas(benchmark::State &state, bool bf16, bool aCol,
                        bool bCol, bool portable = false, bool c16 = false) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/false);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int sets =
      l2RotationSets(gpu, uint64_t(m * k + k * n) * 2 + uint64_t(m * n) * 4);
  std::vector<GemmBuffers<>> bufs = allocateGemmSets(state, gpu, sets, m, n, k);
  if (bufs.empty())
    return;
  int next = 0;
  auto problem = [&](const GemmBuffers<> &g, kaio::ops::Matrix &a,
                     kaio::ops::Matrix &b) {
    // A column-major operand: the transpose of a row-major one.
    auto operand = [](const DeviceBuffer<Half> &buf, int64_t rows,
                      int64_t cols, bool col) {
      return col ? kMajorB(buf, rows, cols)
                 : kaio::ops::Matrix::rowMajor(buf.view(), rows, cols);
    };
    a = operand(g.a, m, k, aCol);
    b = operand(g.b, k, n, bCol);
    if (bf16) // the same 16-bit buffers read as bf16 (0x3c3c: 0.0115)
      a.dtype = b.dtype = kaio::ops::DType::BF16;
    kaio::ops::Matrix c = kaio::ops::Matrix::rowMajor(g.c.view(), m, n);
    if (c16) // a C of the inputs' type in the first half of the f32 buffer
      c.dtype = a.dtype;
    return c;
  };
  // The workspace with which gemm() splits K (decode-like M), as a user
  // passing one would.
  kaio::ops::GemmOptions options;
  options.portable = portable;
  kaio::ops::Matrix a0, b0;
  kaio::ops::Matrix c0 = problem(bufs[0], a0, b0);
  const int64_t wsElements =
      gpu.library->gemmWorkspaceElements(a0, b0, c0, options);
  std::optional<DeviceBuffer<float>> ws;
  if (wsElements) {
    auto got = DeviceBuffer<float>::allocate(*gpu.device, size_t(wsElements));
    if (!got) {
      state.SkipWithError(got.error().message().c_str());
      return;
    }
    ws.emplace(std::move(*got));
    options.workspace = kaio::ops::Matrix::vector(ws->view(), wsElements);
  }
  state.counters["split_k_workspace_mib"] =
      double(wsElements) * 4 / (1 << 20);
  if (!tuneForBench(state, gpu, a0, b0, c0, options))
    return;
  auto kaio = [&] {
    kaio::ops::Matrix a, b;
    kaio::ops::Matrix c = problem(bufs[next++ % sets], a, b);
    return !gpu.library->gemm(a, b, c, options);
  };
  auto peer = [&] {
    const GemmBuffers<> &g = bufs[next++ % sets];
    return gpu.cublas.gemm16F32(g.a.ptr(), g.b.ptr(), g.c.ptr(), int(m),
                                int(n), int(k), bf16, aCol, bCol, c16);
  };
  reportGemmPair(state, gpu, m, n, k, sets, kaio, peer);
}
template <bool BF16> void BM_OpsGemmVsCublas(benchmark::State &state) {
  runOpsGemmVsCublas(state, BF16, false, false);
}
/// C of the inputs' 16-bit type (f16 or bf16, FP32 accumulation), A and B
/// row-major or B column-major (layout 2: x W^T), against cuBLAS GemmEx
/// with the same C type.
void BM_OpsGemm16BitOutVsCublas(benchmark::State &state) {
  runOpsGemmVsCublas(state, state.range(3) != 0, false, state.range(4) & 2,
                     /*portable=*/false, /*c16=*/true);
}
BENCHMARK(BM_OpsGemm16BitOutVsCublas)
    ->ArgNames({"M", "N", "K", "bf16", "layout"})
    ->ArgsProduct({{4096}, {4096}, {4096}, {0, 1}, {0, 2}})
    ->Args({4096, 11008, 4096, 1, 2})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
/// The portable mma.sync kernel (the path of every GPU but a 9.0 one) on
/// any GPU: bf16 0/1, layout as below; the faster of its variants for 2
/// and 3 blocks an SM (counters b2_ms, b3_ms: the tuner's medians).
void BM_OpsGemmPortableVsCublas(benchmark::State &state) {
  runOpsGemmVsCublas(state, state.range(3) != 0, state.range(4) & 1,
                     state.range(4) & 2, /*portable=*/true);
}
BENCHMARK(BM_OpsGemmPortableVsCublas)
    ->ArgNames({"M", "N", "K", "bf16", "layout"})
    ->Args({1024, 1024, 1024, 0, 0})
    ->Args({2048, 2048, 2048, 0, 0})
    ->Args({4096, 4096, 4096, 0, 0})
    ->Args({8192, 8192, 8192, 0, 0})
    ->Args({4096, 4096, 4096, 1, 0})
    ->Args({8192, 8192, 8192, 1, 0})
    ->Args({4096, 11008, 4096, 1, 2})
    ->Args({4096, 4096, 4096, 0, 3})
    // Decode-like M: K split over grid z (the workspace the bench passes).
    ->Args({16, 4096, 4096, 0, 0})
    ->Args({128, 4096, 4096, 1, 0})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
/// Column-major operands (layout: 1 A, 2 B, 3 both; 2 is x W^T with W
/// row-major, as a Linear layer computes).
void BM_OpsGemmLayoutsVsCublas(benchmark::State &state) {
  runOpsGemmVsCublas(state, false, state.range(3) & 1, state.range(3) & 2);
}
BENCHMARK(BM_OpsGemmVsCublas<false>)
    ->Name("BM_OpsGemmF16F32VsCublas")
    ->ArgNames({"M", "N", "K"})
    // Squares.
    ->Args({256, 256, 256})
    ->Args({512, 512, 512})
    ->Args({1024, 1024, 1024})
    ->Args({2048, 2048, 2048})
    ->Args({4096, 4096, 4096})
    ->Args({8192, 8192, 8192})
    // LLM shapes: MLP up/down projections, and decode-like small M.
    ->Args({4096, 11008, 4096})
    ->Args({4096, 4096, 11008})
    ->Args({16, 4096, 4096})
    ->Args({128, 4096, 4096})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
// Column-major operands: the sm_90a kernel on a 9.0 GPU, the portable one
// (16-byte aligned lines) elsewhere.
BENCHMARK(BM_OpsGemmLayoutsVsCublas)
    ->Name("BM_OpsGemmF16F32LayoutsVsCublas")
    ->ArgNames({"M", "N", "K", "layout"})
    ->ArgsProduct({{4096}, {4096}, {4096}, {1, 2, 3}})
    ->Args({4096, 11008, 4096, 2})
    ->Args({4096, 4096, 11008, 2})
    ->Args({8192, 8192, 8192, 2})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
/// The FP8 GEMM (A row-major, B column-major, C f32, alpha the scale)
/// against cuBLASLt's FP8 matmul in the same form (TN), both reading bytes
/// of 0x3c (1.5 in e4m3, 1.0 in e5m2), inputs rotated past L2.
void BM_OpsGemmFp8VsCublasLt(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/true);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  const bool e4m3 = state.range(3) == 0;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int sets = l2RotationSets(gpu, uint64_t(m * k + k * n) +
                                           uint64_t(m * n) * 4);
  auto bufs = allocateGemmSets<std::int8_t, float>(state, gpu, sets, m, n, k);
  if (bufs.empty())
    return;
  const kaio::ops::DType type =
      e4m3 ? kaio::ops::DType::E4M3 : kaio::ops::DType::E5M2;
  kaio::ops::GemmOptions options;
  options.alpha = 0.5f;
  auto operands = [&](const auto &g, kaio::ops::Matrix &a,
                      kaio::ops::Matrix &b) {
    a = kaio::ops::Matrix::rowMajor(g.a.view(), m, k);
    b = kMajorB(g.b, k, n);
    a.dtype = b.dtype = type;
    return kaio::ops::Matrix::rowMajor(g.c.view(), m, n);
  };
  {
    // Alone or in clusters of two (counters n128_ms, n128c2_ms).
    kaio::ops::Matrix a0, b0;
    kaio::ops::Matrix c0 = operands(bufs[0], a0, b0);
    if (!tuneForBench(state, gpu, a0, b0, c0, options))
      return;
  }
  int next = 0;
  auto kaio = [&] {
    kaio::ops::Matrix a, b;
    kaio::ops::Matrix c = operands(bufs[next++ % sets], a, b);
    return !gpu.library->gemm(a, b, c, options);
  };
  auto peer = [&] {
    const auto &g = bufs[next++ % sets];
    return gpu.cublasLtFp8(g.a.ptr(), g.b.ptr(), g.c.ptr(), m, n, k, e4m3,
                           0.5f);
  };
  reportGemmPair(state, gpu, m, n, k, sets, kaio, peer);
}
BENCHMARK(BM_OpsGemmFp8VsCublasLt)
    ->Name("BM_OpsGemmFp8F32VsCublasLt")
    ->ArgNames({"M", "N", "K", "e5m2"})
    ->ArgsProduct({{4096}, {4096}, {4096}, {0, 1}})
    ->Args({8192, 8192, 8192, 0})
    ->Args({4096, 11008, 4096, 0})
    ->Args({128, 4096, 4096, 0})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
/// The int8 GEMM (s8 A row-major x B column-major, exact s32 C) against
/// cuBLASLt's int8 matmul in the same form, inputs rotated past L2; on the
/// kernel gemm() picks or (portable:1) the mma.sync one every other GPU
/// runs.
void BM_OpsGemmS8VsCublasLt(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/true);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int sets = l2RotationSets(gpu, uint64_t(m * k + k * n) +
                                           uint64_t(m * n) * 4);
  // Bytes of 3: sums of 9 k, far from overflow.
  auto bufs =
      allocateGemmSets<std::int8_t, std::int32_t>(state, gpu, sets, m, n, k, 3);
  if (bufs.empty())
    return;
  kaio::ops::GemmOptions options;
  options.portable = state.range(3) != 0;
  int next = 0;
  auto kaio = [&] {
    const auto &g = bufs[next++ % sets];
    return !gpu.library->gemm(kaio::ops::Matrix::rowMajor(g.a.view(), m, k),
                              kMajorB(g.b, k, n),
                              kaio::ops::Matrix::rowMajor(g.c.view(), m, n),
                              options);
  };
  auto peer = [&] {
    const auto &g = bufs[next++ % sets];
    return gpu.cublasLtInt8(g.a.ptr(), g.b.ptr(), g.c.ptr(), m, n, k);
  };
  reportGemmPair(state, gpu, m, n, k, sets, kaio, peer);
}
BENCHMARK(BM_OpsGemmS8VsCublasLt)
    ->Name("BM_OpsGemmS8S32VsCublasLt")
    ->ArgNames({"M", "N", "K", "portable"})
    ->Args({4096, 4096, 4096, 0})
    ->Args({8192, 8192, 8192, 0})
    ->Args({4096, 11008, 4096, 0})
    ->Args({1024, 1024, 1024, 1})
    ->Args({4096, 4096, 4096, 1})
    ->Args({8192, 8192, 8192, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
/// f32 inputs on the tensor cores as tf32 (A row-major, B column-major:
/// x W^T), f32 C, against cuBLAS GemmEx with CUBLAS_COMPUTE_32F_FAST_TF32
/// in the same layout; or (range 3 = 1) in full precision, A and B
/// row-major, against cuBLAS SGEMM (GemmEx, CUBLAS_COMPUTE_32F), or
/// (range 3 = 2) in full precision with B column-major (x W^T, the
/// `_bcol` kernel) against SGEMM in the same layout, or (range 3 = 3) as
/// tf32 on the portable mma.sync kernel (what GPUs other than 9.0 run)
/// against the same tf32 cuBLAS; inputs rotated past L2.
void BM_OpsGemmTf32VsCublas(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/false);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool full = state.range(3) == 1 || state.range(3) == 2;
  // x W^T: tf32, or full precision on the column-major-B kernel.
  const bool bCol = state.range(3) != 1;
  const int sets = l2RotationSets(gpu, uint64_t(m * k + k * n + m * n) * 4);
  auto bufs = allocateGemmSets<float, float>(state, gpu, sets, m, n, k);
  if (bufs.empty())
    return;
  int next = 0;
  auto kaio = [&] {
    const auto &g = bufs[next++ % sets];
    kaio::ops::GemmOptions options;
    options.allowTf32 = !full;
    options.portable = state.range(3) == 3;
    return !gpu.library->gemm(
        kaio::ops::Matrix::rowMajor(g.a.view(), m, k),
        bCol ? kMajorB(g.b, k, n) : kaio::ops::Matrix::rowMajor(g.b.view(), k, n),
        kaio::ops::Matrix::rowMajor(g.c.view(), m, n), options);
  };
  auto peer = [&] {
    const auto &g = bufs[next++ % sets];
    return gpu.cublas.gemmTf32(g.a.ptr(), g.b.ptr(), g.c.ptr(), int(m),
                               int(n), int(k), false, bCol, !full);
  };
  reportGemmPair(state, gpu, m, n, k, sets, kaio, peer);
}
BENCHMARK(BM_OpsGemmTf32VsCublas)
    ->Name("BM_OpsGemmF32VsCublas")
    ->ArgNames({"M", "N", "K", "full"})
    ->Args({2048, 2048, 2048, 0})
    ->Args({4096, 4096, 4096, 0})
    ->Args({8192, 8192, 8192, 0})
    ->Args({4096, 11008, 4096, 0})
    ->Args({2048, 2048, 2048, 1})
    ->Args({4096, 4096, 4096, 1})
    ->Args({2048, 2048, 2048, 2})
    ->Args({4096, 4096, 4096, 2})
    ->Args({4096, 4096, 4096, 3})
    ->Args({8192, 8192, 8192, 3})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// A linear layer, C = act(X W^T + bias) in bf16 (W row-major N x K, read
/// as a column-major B): the library's fused epilogue against cuBLASLt's
/// (RELU_BIAS, or GELU_BIAS, which is GELU's tanh form), inputs rotated
/// past L2. The counters add the library's unfused time (the product, then
/// Library::biasActivation) as `unfused_ms`: what fusing saves.
void BM_OpsGemmBiasActVsCublasLt(benchmark::State &state) {
  Gpu *peers = gpuWithPeers(state, /*cublasLt=*/true);
  if (!peers)
    return;
  Gpu &gpu = *peers;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool gelu = state.range(3) != 0;
  const kaio::ops::Activation act =
      gelu ? kaio::ops::Activation::GeluTanh : kaio::ops::Activation::Relu;
  const int sets = l2RotationSets(gpu, uint64_t(m * k + k * n + m * n) * 2);
  // The 16-bit buffers read as bf16 (0x3c3c: 0.0115).
  auto bufs = allocateGemmSets<Half, Half>(state, gpu, sets, m, n, k);
  if (bufs.empty())
    return;
  auto bias = DeviceBuffer<Half>::allocate(*gpu.device, size_t(n));
  if (!bias || bias->fillBytes(0)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  auto bf16 = [](kaio::ops::Matrix x) {
    x.dtype = kaio::ops::DType::BF16;
    return x;
  };
  int next = 0;
  auto run = [&](bool fused) {
    const auto &g = bufs[next++ % sets];
    kaio::ops::Matrix a = bf16(kaio::ops::Matrix::rowMajor(g.a.view(), m, k));
    kaio::ops::Matrix b = bf16(kMajorB(g.b, k, n));
    kaio::ops::Matrix c = bf16(kaio::ops::Matrix::rowMajor(g.c.view(), m, n));
    kaio::ops::GemmOptions options;
    kaio::ops::ElementwiseOptions after;
    (fused ? options.bias : after.bias) =
        bf16(kaio::ops::Matrix::rowMajor(std::as_const(*bias).view(), 1, n));
    if (fused) {
      options.activation = act;
      return !gpu.library->gemm(a, b, c, options);
    }
    return !gpu.library->gemm(a, b, c) &&
           !gpu.library->biasActivation(c, c, act, after);
  };
  auto peer = [&] {
    const auto &g = bufs[next++ % sets];
    return gpu.cublasLtBf16Epilogue(
        g.a.ptr(), g.b.ptr(), g.c.ptr(), bias->ptr(), m, n, k,
        gelu ? CublasLt::kEpilogueGeluBias : CublasLt::kEpilogueReluBias);
  };
  reportGemmPair(state, gpu, m, n, k, sets, [&] { return run(true); }, peer);
  state.counters["unfused_ms"] = medianMs(gpu, [&] { return run(false); });
}
BENCHMARK(BM_OpsGemmBiasActVsCublasLt)
    ->Name("BM_OpsGemmBF16BiasActVsCublasLt")
    ->ArgNames({"M", "N", "K", "gelu"})
    ->ArgsProduct({{4096}, {4096}, {4096}, {0, 1}})
    ->Args({4096, 11008, 4096, 1})
    ->Args({8192, 8192, 8192, 1})
    ->Args({128, 4096, 4096, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
// bf16: the sm_90a kernel on a 9.0 GPU, the portable one elsewhere.
BENCHMARK(BM_OpsGemmVsCublas<true>)
    ->Name("BM_OpsGemmBF16F32VsCublas")
    ->ArgNames({"M", "N", "K"})
    ->Args({2048, 2048, 2048})
    ->Args({4096, 4096, 4096})
    ->Args({8192, 8192, 8192})
    ->Args({4096, 11008, 4096})
    ->Args({128, 4096, 4096})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// Elementwise kernels against a device-to-device copy of the bytes they
/// move (two reads and a write).
template <bool silu>
void BM_ElementwiseVsCopy(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  const uint32_t n = state.range(0);
  auto x = DeviceBuffer<float>::allocate(*gpu.device, n);
  auto y = DeviceBuffer<float>::allocate(*gpu.device, n);
  auto out = DeviceBuffer<float>::allocate(*gpu.device, n);
  auto big = DeviceBuffer<float>::allocate(*gpu.device, 2 * size_t(n));
  auto copy = DeviceBuffer<float>::allocate(*gpu.device, 2 * size_t(n));
  if (!x || !y || !out || !big || !copy || x->zero() || y->zero() ||
      big->zero()) {
    state.SkipWithError("device allocation failed");
    return;
  }
  LaunchConfig config;
  config.block = Dim3(256);
  config.grid = Dim3((n + 255) / 256);
  auto kaio = [&] {
    DeviceView<const float> cx = std::as_const(*x).view(),
                            cy = std::as_const(*y).view();
    if constexpr (silu)
      return !gpu.kernels->fused_silu_gate(config, cx, cy, *out, n);
    else
      return !gpu.kernels->vector_add(config, cx, cy, *out, n);
  };
  auto peer = [&] {
    return !copy->copyFrom(*big);
  };
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    // Bytes moved: the kernels read 2n and write n floats; the copy reads
    // and writes 2n, so the same traffic would take it 4/3 as long.
    report(state, kaioMs, peerMs * 3.0 / 4.0, 3.0 * n * sizeof(float),
           "byte/s");
  }
}
BENCHMARK(BM_ElementwiseVsCopy<false>)
    ->Name("BM_VectorAddVsCopy")
    ->Arg(1 << 24)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ElementwiseVsCopy<true>)
    ->Name("BM_FusedSiluGateVsCopy")
    ->Arg(1 << 24)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// The library's row and element-wise ops against a device-to-device copy of
/// the bytes they must move at least (each input read once, out written
/// once), at LLM sizes. Rows of up to 8192 f32 / 16384 16-bit elements are
/// held in registers and read once (softmax, the norms; the softmax
/// backward up to 8192); longer rows are read a second time (from L1/L2).
/// The ratio says how close each gets to the copy; bench/torch_rowops.py
/// times torch on the same ops (but RoPE), sizes and byte counts.
enum class RowOp {
  Softmax, LogSoftmax, RmsNorm, LayerNorm, SwiGlu, GeluTanh, SoftmaxBwd,
  CrossEntropy, ReduceSum, RmsNormBwd, LayerNormBwd, Rope, ReduceColsSum,
  LogSoftmaxBwd, CrossEntropyBwd, ReduceMax, ReduceMin, Argmax
};

template <RowOp op, typename T> void BM_RowOpVsCopy(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  if (!gpu.library) {
    state.SkipWithError("not measured: the op library did not load");
    return;
  }
  const int64_t rows = state.range(0), cols = state.range(1);
  const size_t count = size_t(rows * cols);
  auto x = DeviceBuffer<T>::allocate(*gpu.device, count);
  bool twoInputs = op == RowOp::SwiGlu || op == RowOp::SoftmaxBwd ||
                   op == RowOp::LogSoftmaxBwd || op == RowOp::RmsNormBwd ||
                   op == RowOp::LayerNormBwd;
  auto workspace = DeviceBuffer<float>::allocate(
      *gpu.device,
      size_t(std::max(kaio::ops::normBackwardWorkspaceElements(rows, cols),
                      kaio::ops::reduceColsWorkspaceElements(rows, cols))));
  auto grads = DeviceBuffer<T>::allocate(*gpu.device, 2 * size_t(cols));
  auto colStats = DeviceBuffer<float>::allocate(*gpu.device, size_t(cols));
  // RoPE: 128-wide heads, angle tables for 4096 positions (all rows at 0).
  const int64_t headDim = 128, maxPos = 4096;
  auto table = DeviceBuffer<float>::allocate(*gpu.device,
                                             size_t(maxPos * headDim));
  auto up = DeviceBuffer<T>::allocate(*gpu.device, twoInputs ? count : 1);
  auto stats = DeviceBuffer<float>::allocate(*gpu.device, size_t(rows) * 2);
  auto targets = DeviceBuffer<int32_t>::allocate(*gpu.device, size_t(rows));
  auto out = DeviceBuffer<T>::allocate(*gpu.device, count);
  auto weight = DeviceBuffer<T>::allocate(*gpu.device, size_t(cols));
  auto bias = DeviceBuffer<T>::allocate(*gpu.device, size_t(cols));
  // 0x3c: small finite values in f32, f16 and bf16 alike.
  if (!x || !up || !out || !weight || !bias || !stats || !targets ||
      !workspace || !grads || !table || table->fillBytes(0x3c) ||
      stats->fillBytes(0x3c) ||
      targets->zero() || x->fillBytes(0x3c) || up->fillBytes(0x3c) ||
      weight->fillBytes(0x3c) || bias->fillBytes(0x3c)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  using kaio::ops::Matrix;
  Matrix mx = Matrix::rowMajor(std::as_const(*x).view(), rows, cols);
  Matrix mo = Matrix::rowMajor(out->view(), rows, cols);
  kaio::ops::NormOptions norm;
  norm.weight = Matrix::vector(std::as_const(*weight).view(), cols);
  if constexpr (op == RowOp::LayerNorm)
    norm.bias = Matrix::vector(std::as_const(*bias).view(), cols);
  auto kaio = [&] {
    switch (op) {
    case RowOp::Softmax:
      return !gpu.library->softmax(mx, mo);
    case RowOp::LogSoftmax:
      return !gpu.library->logSoftmax(mx, mo);
    case RowOp::RmsNorm:
      return !gpu.library->rmsNorm(mx, mo, norm);
    case RowOp::LayerNorm:
      return !gpu.library->layerNorm(mx, mo, norm);
    case RowOp::SwiGlu:
      return !gpu.library->gatedActivation(
          mx, Matrix::rowMajor(std::as_const(*up).view(), rows, cols), mo,
          kaio::ops::Activation::Silu);
    case RowOp::GeluTanh:
      return !gpu.library->biasActivation(mx, mo,
                                          kaio::ops::Activation::GeluTanh);
    case RowOp::SoftmaxBwd:
      return !gpu.library->softmaxBackward(
          mx, Matrix::rowMajor(std::as_const(*up).view(), rows, cols), mo);
    case RowOp::LogSoftmaxBwd:
      return !gpu.library->logSoftmaxBackward(
          mx, Matrix::rowMajor(std::as_const(*up).view(), rows, cols), mo);
    case RowOp::CrossEntropy:
      return !gpu.library->crossEntropy(
          mx, Matrix::vector(std::as_const(*targets).view(), rows),
          Matrix::vector(stats->view(), rows));
    case RowOp::CrossEntropyBwd:
      // lse and dloss: the two halves of the f32 row statistics.
      return !gpu.library->crossEntropyBackward(
          mx, Matrix::vector(std::as_const(*targets).view(), rows),
          Matrix::vector(std::as_const(*stats).view().subview(0, rows), rows),
          Matrix::vector(std::as_const(*stats).view().subview(rows, rows),
                         rows),
          mo);
    case RowOp::RmsNormBwd:
    case RowOp::LayerNormBwd: {
      kaio::ops::NormBackwardOptions nb;
      nb.weight = norm.weight;
      nb.rstd = Matrix::vector(std::as_const(*stats).view().subview(0, rows),
                               rows);
      if (op == RowOp::LayerNormBwd) {
        nb.mean = Matrix::vector(
            std::as_const(*stats).view().subview(rows, rows), rows);
        nb.dbias = Matrix::vector(grads->view().subview(cols, cols), cols);
      }
      nb.dweight = Matrix::vector(grads->view().subview(0, cols), cols);
      nb.workspace = Matrix::vector(
          workspace->view(),
          kaio::ops::normBackwardWorkspaceElements(rows, cols));
      Matrix dy = Matrix::rowMajor(std::as_const(*up).view(), rows, cols);
      return op == RowOp::RmsNormBwd
                 ? !gpu.library->rmsNormBackward(mx, dy, mo, nb)
                 : !gpu.library->layerNormBackward(mx, dy, mo, nb);
    }
    case RowOp::Rope: {
      auto cosT = std::as_const(*table).view().subview(0, maxPos * headDim / 2);
      auto sinT = std::as_const(*table).view().subview(maxPos * headDim / 2,
                                                       maxPos * headDim / 2);
      return !gpu.library->rope(
          mx, mo, Matrix::vector(std::as_const(*targets).view(), rows),
          Matrix::rowMajor(cosT, maxPos, headDim / 2),
          Matrix::rowMajor(sinT, maxPos, headDim / 2), cols / headDim);
    }
    case RowOp::ReduceSum:
    case RowOp::ReduceMax:
    case RowOp::ReduceMin:
      return !gpu.library->reduceRows(
          mx, Matrix::vector(stats->view(), rows),
          op == RowOp::ReduceSum   ? kaio::ops::Reduction::Sum
          : op == RowOp::ReduceMax ? kaio::ops::Reduction::Max
                                   : kaio::ops::Reduction::Min);
    case RowOp::Argmax:
      return !gpu.library->argmaxRows(
          mx, Matrix::vector(targets->view(), rows));
    case RowOp::ReduceColsSum: {
      kaio::ops::ReduceOptions ro;
      ro.workspace = Matrix::vector(
          workspace->view(),
          kaio::ops::reduceColsWorkspaceElements(rows, cols));
      return !gpu.library->reduceCols(
          mx, Matrix::vector(colStats->view(), cols),
          kaio::ops::Reduction::Sum, ro);
    }
    }
    return false;
  };
  auto peer = [&] { return !out->copyFrom(*x); };
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    // SwiGLU reads two matrices: the copy of one matrix moves 2/3 of its
    // bytes, so its time is scaled to the same traffic.
    // Cross-entropy and the reductions only read theirs.
    const bool readsOnly = op == RowOp::CrossEntropy ||
                           op == RowOp::ReduceSum || op == RowOp::ReduceMax ||
                           op == RowOp::ReduceMin || op == RowOp::Argmax ||
                           op == RowOp::ReduceColsSum;
    double matrices = twoInputs ? 3 : readsOnly ? 1 : 2;
    report(state, kaioMs, peerMs * matrices / 2,
           matrices * double(count) * sizeof(T), "byte/s");
  }
}

void rowShapes(benchmark::internal::Benchmark *b) {
  b->ArgNames({"rows", "cols"})
      ->Args({4096, 4096})
      ->Args({32768, 4096})
      ->Args({32768, 8192})
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

#define KAIO_ROW_BENCH(OP, T, NAME)                                            \
  BENCHMARK(BM_RowOpVsCopy<RowOp::OP, T>)->Name(NAME)->Apply(rowShapes)
KAIO_ROW_BENCH(Softmax, float, "BM_SoftmaxF32VsCopy");
KAIO_ROW_BENCH(Softmax, BFloat16, "BM_SoftmaxBF16VsCopy");
KAIO_ROW_BENCH(LogSoftmax, float, "BM_LogSoftmaxF32VsCopy");
KAIO_ROW_BENCH(LogSoftmax, BFloat16, "BM_LogSoftmaxBF16VsCopy");
KAIO_ROW_BENCH(RmsNorm, float, "BM_RmsNormF32VsCopy");
KAIO_ROW_BENCH(RmsNorm, BFloat16, "BM_RmsNormBF16VsCopy");
KAIO_ROW_BENCH(LayerNorm, float, "BM_LayerNormF32VsCopy");
KAIO_ROW_BENCH(LayerNorm, BFloat16, "BM_LayerNormBF16VsCopy");
KAIO_ROW_BENCH(SwiGlu, float, "BM_SwiGluF32VsCopy");
KAIO_ROW_BENCH(SwiGlu, BFloat16, "BM_SwiGluBF16VsCopy");
KAIO_ROW_BENCH(GeluTanh, float, "BM_GeluTanhF32VsCopy");
KAIO_ROW_BENCH(GeluTanh, BFloat16, "BM_GeluTanhBF16VsCopy");
KAIO_ROW_BENCH(SoftmaxBwd, float, "BM_SoftmaxBwdF32VsCopy");
KAIO_ROW_BENCH(SoftmaxBwd, BFloat16, "BM_SoftmaxBwdBF16VsCopy");
KAIO_ROW_BENCH(ReduceSum, float, "BM_ReduceSumF32VsCopy");
KAIO_ROW_BENCH(ReduceSum, BFloat16, "BM_ReduceSumBF16VsCopy");
KAIO_ROW_BENCH(ReduceColsSum, float, "BM_ReduceColsSumF32VsCopy");
KAIO_ROW_BENCH(ReduceColsSum, BFloat16, "BM_ReduceColsSumBF16VsCopy");
KAIO_ROW_BENCH(RmsNormBwd, float, "BM_RmsNormBwdF32VsCopy");
KAIO_ROW_BENCH(RmsNormBwd, BFloat16, "BM_RmsNormBwdBF16VsCopy");
KAIO_ROW_BENCH(LayerNormBwd, float, "BM_LayerNormBwdF32VsCopy");
KAIO_ROW_BENCH(LayerNormBwd, BFloat16, "BM_LayerNormBwdBF16VsCopy");
KAIO_ROW_BENCH(Rope, float, "BM_RopeF32VsCopy");
KAIO_ROW_BENCH(Rope, BFloat16, "BM_RopeBF16VsCopy");
KAIO_ROW_BENCH(LogSoftmaxBwd, float, "BM_LogSoftmaxBwdF32VsCopy");
KAIO_ROW_BENCH(LogSoftmaxBwd, BFloat16, "BM_LogSoftmaxBwdBF16VsCopy");
KAIO_ROW_BENCH(ReduceMax, float, "BM_ReduceMaxF32VsCopy");
KAIO_ROW_BENCH(ReduceMax, BFloat16, "BM_ReduceMaxBF16VsCopy");
KAIO_ROW_BENCH(ReduceMin, float, "BM_ReduceMinF32VsCopy");
KAIO_ROW_BENCH(ReduceMin, BFloat16, "BM_ReduceMinBF16VsCopy");
KAIO_ROW_BENCH(Argmax, float, "BM_ArgmaxF32VsCopy");
KAIO_ROW_BENCH(Argmax, BFloat16, "BM_ArgmaxBF16VsCopy");
/// Cross-entropy over a vocabulary: 128k (4096 rows) and 32k (8192 rows).
void vocabShapes(benchmark::internal::Benchmark *b) {
  b->ArgNames({"rows", "cols"})
      ->Args({4096, 131072})
      ->Args({8192, 32768})
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}
#define KAIO_VOCAB_BENCH(OP, T, NAME)                                          \
  BENCHMARK(BM_RowOpVsCopy<RowOp::OP, T>)->Name(NAME)->Apply(vocabShapes)
KAIO_VOCAB_BENCH(CrossEntropy, float, "BM_CrossEntropyF32VsCopy");
KAIO_VOCAB_BENCH(CrossEntropy, BFloat16, "BM_CrossEntropyBF16VsCopy");
KAIO_VOCAB_BENCH(CrossEntropyBwd, float, "BM_CrossEntropyBwdF32VsCopy");
KAIO_VOCAB_BENCH(CrossEntropyBwd, BFloat16, "BM_CrossEntropyBwdBF16VsCopy");
#undef KAIO_VOCAB_BENCH
#undef KAIO_ROW_BENCH

/// GEMV (batch-1 decode) against a device copy of A: the kernel must read A
/// once, which is nearly all of its traffic.
template <typename T, bool Transposed = false>
void BM_GemvVsCopy(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  if (!gpu.library) {
    state.SkipWithError("not measured: the op library did not load");
    return;
  }
  const int64_t m = state.range(0), k = state.range(1);
  auto a = DeviceBuffer<T>::allocate(*gpu.device, size_t(m * k));
  auto copy = DeviceBuffer<T>::allocate(*gpu.device, size_t(m * k));
  auto x = DeviceBuffer<T>::allocate(*gpu.device, size_t(k));
  // Transposed: A is m x k, x has m elements, y k.
  auto x2 = DeviceBuffer<T>::allocate(*gpu.device, size_t(std::max(m, k)));
  auto y = DeviceBuffer<T>::allocate(*gpu.device, size_t(std::max(m, k)));
  auto workspace = DeviceBuffer<float>::allocate(
      *gpu.device, size_t(kaio::ops::gemvTransposedWorkspaceElements(m, k)));
  if (!a || !copy || !x || !x2 || !y || !workspace || a->fillBytes(0x3c) ||
      x->fillBytes(0x3c) || x2->fillBytes(0x3c)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  using kaio::ops::Matrix;
  auto kaio = [&] {
    Matrix ma = Matrix::rowMajor(std::as_const(*a).view(), m, k);
    if constexpr (Transposed) {
      kaio::ops::GemvOptions o;
      o.workspace = Matrix::vector(
          workspace->view(), kaio::ops::gemvTransposedWorkspaceElements(m, k));
      return !gpu.library->gemvTransposed(
          ma, Matrix::vector(std::as_const(*x2).view().subview(0, m), m),
          Matrix::vector(y->view().subview(0, k), k), o);
    }
    return !gpu.library->gemv(ma, Matrix::vector(std::as_const(*x).view(), k),
                              Matrix::vector(y->view().subview(0, m), m));
  };
  // A copy reads and writes A: twice the bytes the GEMV moves.
  auto peer = [&] { return !copy->copyFrom(*a); };
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    double bytes = double(m * k + k + m) * sizeof(T);
    report(state, kaioMs, peerMs / 2, bytes, "byte/s");
  }
}

void gemvShapes(benchmark::internal::Benchmark *b) {
  b->ArgNames({"M", "K"})
      ->Args({4096, 4096})
      ->Args({8192, 28672})
      ->Args({28672, 8192})
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_GemvVsCopy<float>)->Name("BM_GemvF32VsCopy")->Apply(gemvShapes);
BENCHMARK(BM_GemvVsCopy<BFloat16>)
    ->Name("BM_GemvBF16VsCopy")
    ->Apply(gemvShapes);
BENCHMARK(BM_GemvVsCopy<BFloat16, true>)
    ->Name("BM_GemvTransposedBF16VsCopy")
    ->Apply(gemvShapes);
BENCHMARK(BM_GemvVsCopy<float, true>)
    ->Name("BM_GemvTransposedF32VsCopy")
    ->Apply(gemvShapes);

/// FlashAttention forward (kaio::ops::Library::flashAttention) at a fixed
/// 16k tokens (batch = 16384 / seq) and 2048 hidden (heads = 2048 / dim),
/// FlashAttention's benchmark convention, in FLOP/s (4 B H S^2 D, half of
/// that causal). The peer, torch's scaled_dot_product_attention, runs in
/// bench/torch_attention.py (the same shapes, KAIO's kernel beside it in
/// one process through the Python package); here kaio_ms only.
/// What BM_FlashAttention* times: the forward as `flashAttention` picks it
/// (the TMA/wgmma kernel on a 9.0 GPU, ping-pong at head dims 64 and 128),
/// that kernel with its consumers issuing independently
/// (AttentionOptions::Schedule::Independent: what ping-pong gains), the
/// portable mma.sync forward (AttentionOptions::portable: every other
/// GPU's path), or the backward (dQ, dK, dV from the forward's O and
/// logsumexp: dK/dV by the TMA/wgmma kernel on a 9.0 GPU at head dims 64
/// and 128) or the portable backward (mma.sync only: what the wgmma dK/dV
/// kernel gains).
/// Rows192: the forward with 192-row blocks (AttentionOptions::queryRows,
/// three consumer warpgroups; timed at head dim 64, where they are built).
enum class AttnPass { Forward, Independent, Rows192, Portable, Backward,
                      PortableBackward };

/// FlashAttention at 16k tokens, hidden 2048: FLOP/s count 4 B H S^2 D for
/// the forward (half of it causal) and 2.5 times that for the backward
/// (FlashAttention's convention: five S x S x D products to the forward's
/// two). No peer in the binary: bench/torch_attention.py times torch's SDPA
/// (forward and backward) beside KAIO's kernels on the same tensors.
template <class T, AttnPass Pass>
void BM_FlashAttention(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  if (!gpu.library) {
    state.SkipWithError("not measured: the op library did not load");
    return;
  }
  const int64_t seq = state.range(0), dim = state.range(1);
  const bool causal = state.range(2) != 0;
  const int64_t batch = std::max<int64_t>(16384 / seq, 1),
                heads = 2048 / dim;
  const size_t n = size_t(batch * seq * heads * dim);
  const bool backward =
      Pass == AttnPass::Backward || Pass == AttnPass::PortableBackward;
  // The backward's dO, dQ, dK, dV (dO filled like the inputs).
  const size_t gradElems = backward ? n : 1;
  auto q = DeviceBuffer<T>::allocate(*gpu.device, n);
  auto k = DeviceBuffer<T>::allocate(*gpu.device, n);
  auto v = DeviceBuffer<T>::allocate(*gpu.device, n);
  auto o = DeviceBuffer<T>::allocate(*gpu.device, n);
  auto dO = DeviceBuffer<T>::allocate(*gpu.device, gradElems);
  auto dq = DeviceBuffer<T>::allocate(*gpu.device, gradElems);
  auto dk = DeviceBuffer<T>::allocate(*gpu.device, gradElems);
  auto dv = DeviceBuffer<T>::allocate(*gpu.device, gradElems);
  const int64_t rows = batch * heads * seq;
  auto lse = DeviceBuffer<float>::allocate(*gpu.device, size_t(rows));
  // 0x3c3c: f16 1.06, bf16 0.0115; finite scores either way.
  if (!q || !k || !v || !o || !dO || !dq || !dk || !dv || !lse ||
      q->fillBytes(0x3c) || k->fillBytes(0x3c) || v->fillBytes(0x3c) ||
      dO->fillBytes(0x3c)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  using kaio::ops::AttentionTensor;
  auto tensor = [&](auto &buf) {
    return AttentionTensor::bshd(buf.view(), batch, seq, heads, dim);
  };
  kaio::ops::AttentionOptions opt;
  opt.causal = causal;
  opt.portable =
      Pass == AttnPass::Portable || Pass == AttnPass::PortableBackward;
  if (Pass == AttnPass::Independent)
    opt.schedule = kaio::ops::AttentionOptions::Schedule::Independent;
  if (Pass == AttnPass::Rows192)
    opt.queryRows = 192;
  // The backward reads the forward's logsumexp; the forward benches store
  // none (as torch_attention.py's forward and earlier numbers).
  if (backward)
    opt.lse = kaio::ops::Matrix::vector(lse->view(), rows);
  const int64_t wsElems =
      kaio::ops::flashAttentionBackwardWorkspaceElements(tensor(*q));
  auto ws = DeviceBuffer<float>::allocate(*gpu.device,
                                          size_t(backward ? wsElems : 1));
  if (!ws) {
    state.SkipWithError("device allocation failed");
    return;
  }
  if (backward)
    opt.workspace = kaio::ops::Matrix::vector(ws->view(), wsElems);
  auto forward = [&] {
    return !gpu.library->flashAttention(tensor(*q), tensor(*k), tensor(*v),
                                        tensor(*o), opt);
  };
  auto grads = [&] {
    return !gpu.library->flashAttentionBackward(
        tensor(*q), tensor(*k), tensor(*v), tensor(*o), tensor(*dO),
        tensor(*dq), tensor(*dk), tensor(*dv), opt);
  };
  // The backward reads the forward's O and logsumexp.
  if (backward && !forward()) {
    state.SkipWithError("the forward failed");
    return;
  }
  for (auto _ : state) {
    double ms = backward ? medianMs(gpu, grads) : medianMs(gpu, forward);
    if (ms < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    double flops = 4.0 * double(batch * heads) * double(seq) * double(seq) *
                   double(dim) * (causal ? 0.5 : 1.0) * (backward ? 2.5 : 1.0);
    state.SetIterationTime(ms / 1e3);
    state.counters["kaio_ms"] = ms;
    state.counters["kaio_flop/s"] = flops / (ms / 1e3);
  }
}
void attentionShapesAt(benchmark::internal::Benchmark *b,
                       std::initializer_list<int64_t> dims) {
  b->ArgNames({"seq", "dim", "causal"});
  for (int64_t causal : {0, 1})
    for (int64_t dim : dims)
      for (int64_t seq : {512, 1024, 2048, 4096, 8192, 16384})
        b->Args({seq, dim, causal});
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}
void attentionShapes(benchmark::internal::Benchmark *b) {
  attentionShapesAt(b, {64, 128, 256});
}
/// The shapes at head dim 64 (the 192-row kernels').
void attentionShapesDim64(benchmark::internal::Benchmark *b) {
  attentionShapesAt(b, {64});
}
BENCHMARK(BM_FlashAttention<Half, AttnPass::Forward>)
    ->Name("BM_FlashAttentionF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::Forward>)
    ->Name("BM_FlashAttentionBF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<Half, AttnPass::Independent>)
    ->Name("BM_FlashAttentionIndependentF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::Independent>)
    ->Name("BM_FlashAttentionIndependentBF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<Half, AttnPass::Rows192>)
    ->Name("BM_FlashAttentionRows192F16")
    ->Apply(attentionShapesDim64);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::Rows192>)
    ->Name("BM_FlashAttentionRows192BF16")
    ->Apply(attentionShapesDim64);
BENCHMARK(BM_FlashAttention<Half, AttnPass::Portable>)
    ->Name("BM_FlashAttentionPortableF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::Portable>)
    ->Name("BM_FlashAttentionPortableBF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<Half, AttnPass::Backward>)
    ->Name("BM_FlashAttentionBwdF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::Backward>)
    ->Name("BM_FlashAttentionBwdBF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<Half, AttnPass::PortableBackward>)
    ->Name("BM_FlashAttentionPortableBwdF16")
    ->Apply(attentionShapes);
BENCHMARK(BM_FlashAttention<BFloat16, AttnPass::PortableBackward>)
    ->Name("BM_FlashAttentionPortableBwdBF16")
    ->Apply(attentionShapes);

/// Flash decoding (one token, 32 query heads over 8 kv heads, dim 128,
/// bf16) over a paged KV cache (pages of 256 keys, scattered in the pool):
/// bytes of K and V read per ms against a device copy of the same bytes
/// (half its time: a copy reads and writes), the memory-bandwidth ceiling.
void BM_FlashDecodeVsCopy(benchmark::State &state) {
  Gpu &gpu = Gpu::get();
  if (skipWithoutGpu(state, gpu))
    return;
  if (!gpu.library) {
    state.SkipWithError("not measured: the op library did not load");
    return;
  }
  const int64_t batch = state.range(0), keys = state.range(1);
  // 32 query heads over 8 kv heads (GQA), or over 1 (MQA: two 16-row
  // blocks a kv head).
  const int64_t kvHeads = state.range(2), heads = 32, dim = 128, page = 256;
  const int64_t pagesPerSeq = (keys + page - 1) / page;
  const int64_t pool = batch * pagesPerSeq;
  const size_t cacheN = size_t(pool * page * kvHeads * dim);
  auto k = DeviceBuffer<BFloat16>::allocate(*gpu.device, cacheN);
  auto v = DeviceBuffer<BFloat16>::allocate(*gpu.device, cacheN);
  auto copyK = DeviceBuffer<BFloat16>::allocate(*gpu.device, cacheN);
  auto copyV = DeviceBuffer<BFloat16>::allocate(*gpu.device, cacheN);
  auto q = DeviceBuffer<BFloat16>::allocate(*gpu.device,
                                            size_t(batch * heads * dim));
  auto o = DeviceBuffer<BFloat16>::allocate(*gpu.device,
                                            size_t(batch * heads * dim));
  std::vector<int32_t> table(static_cast<size_t>(pool));
  std::vector<int32_t> lens(static_cast<size_t>(batch), int32_t(keys));
  // Every sequence's pages scattered over the pool (7919 is prime: a
  // permutation).
  for (int64_t i = 0; i < pool; ++i)
    table[size_t(i)] = int32_t((i * 7919) % pool);
  auto dTable = DeviceBuffer<int32_t>::fromHost(*gpu.device, table);
  auto dLens = DeviceBuffer<int32_t>::fromHost(*gpu.device, lens);
  if (!k || !v || !copyK || !copyV || !q || !o || !dTable || !dLens ||
      k->fillBytes(0x3c) || v->fillBytes(0x3c) || q->fillBytes(0x3c)) {
    state.SkipWithError("device allocation failed");
    return;
  }
  using kaio::ops::AttentionTensor;
  using kaio::ops::Matrix;
  kaio::ops::KVCache cache;
  cache.k = AttentionTensor::bshd(std::as_const(*k).view(), pool, page,
                                  kvHeads, dim);
  cache.v = AttentionTensor::bshd(std::as_const(*v).view(), pool, page,
                                  kvHeads, dim);
  cache.pageSize = page;
  cache.blockTable =
      Matrix::rowMajor(std::as_const(*dTable).view(), batch, pagesPerSeq);
  cache.seqlens = Matrix::vector(std::as_const(*dLens).view(), batch);
  AttentionTensor qt =
      AttentionTensor::bshd(std::as_const(*q).view(), batch, 1, heads, dim);
  AttentionTensor ot = AttentionTensor::bshd(o->view(), batch, 1, heads, dim);
  int64_t need = kaio::ops::flashDecodeWorkspaceElements(qt, cache);
  auto ws = DeviceBuffer<float>::allocate(*gpu.device, size_t(need));
  if (!ws) {
    state.SkipWithError("device allocation failed");
    return;
  }
  kaio::ops::DecodeOptions opt;
  opt.workspace = Matrix::vector(ws->view(), need);
  auto kaio = [&] { return !gpu.library->flashDecode(qt, cache, ot, opt); };
  auto peer = [&] { return !copyK->copyFrom(*k) && !copyV->copyFrom(*v); };
  for (auto _ : state) {
    double kaioMs = medianMs(gpu, kaio), peerMs = medianMs(gpu, peer);
    if (kaioMs < 0 || peerMs < 0) {
      state.SkipWithError("a launch failed");
      return;
    }
    double bytes = 2.0 * double(batch * keys * kvHeads * dim) * 2;
    report(state, kaioMs, peerMs / 2, bytes, "byte/s");
  }
}
BENCHMARK(BM_FlashDecodeVsCopy)
    ->Name("BM_FlashDecodeBF16VsCopy")
    ->ArgNames({"batch", "keys", "kv_heads"})
    ->ArgsProduct({{1, 8, 64}, {4096, 32768, 131072}, {8}})
    ->ArgsProduct({{1, 8}, {32768}, {1}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace

/// kaio-bench's own flags, as Google Benchmark spells them: --list,
/// --filter REGEX, --json FILE.
int main(int argc, char **argv) {
  std::vector<std::string> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> std::optional<std::string> {
      std::string prefix = std::string(flag) + "=";
      if (arg.rfind(prefix, 0) == 0)
        return arg.substr(prefix.size());
      if (arg == flag && i + 1 < argc)
        return std::string(argv[++i]);
      return std::nullopt;
    };
    if (arg == "--list") {
      args.push_back("--benchmark_list_tests=true");
    } else if (std::optional<std::string> filter = value("--filter")) {
      args.push_back("--benchmark_filter=" + *filter);
    } else if (std::optional<std::string> json = value("--json")) {
      args.push_back("--benchmark_out=" + *json);
      args.push_back("--benchmark_out_format=json");
    } else if (arg == "--filter" || arg == "--json") {
      std::fprintf(stderr, "kaio-bench: %s expects a value\n", arg.c_str());
      return 1;
    } else {
      args.push_back(arg);
    }
  }
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  int n = int(cargs.size());
  benchmark::Initialize(&n, cargs.data());
  if (benchmark::ReportUnrecognizedArguments(n, cargs.data()))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

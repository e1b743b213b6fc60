//===- Library.h - KAIO's kernel library --------------------------*- C++ -*-===//
//
// KAIO's kernel library (include/Kaio/Ops, lib/Ops): kernels written in the
// kaio dialect or with the C++ builder, compiled to PTX for sm_80 and sm_90
// when KAIO is built and embedded in the library, which links only the
// runtime (no LLVM/MLIR).
//
//   auto dev = kaio::rt::Device::open(0);
//   auto lib = kaio::ops::Library::load(*dev);
//   kaio::ops::Matrix a = kaio::ops::Matrix::rowMajor(aBuf.view(), m, k);
//   ...
//   if (kaio::rt::Error e = lib->gemm(a, b, c)) ...   // names the argument
//
// Every argument is validated before anything is launched; bad input is a
// typed error (InvalidValue, or Unsupported for what the library does not
// do yet) whose message names the op and the argument.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_LIBRARY_H
#define KAIO_OPS_LIBRARY_H

#include "Kaio/Ops/Attention.h"
#include "Kaio/Ops/Elementwise.h"
#include "Kaio/Ops/Gemm.h"
#include "Kaio/Ops/Gemv.h"
#include "Kaio/Ops/RowOps.h"
#include "Kaio/Ops/Tuning.h"
#include "Kaio/Runtime/Device.h"

#include <memory>
#include <vector>

namespace kaio::ops {

/// The library's kernels, loaded on one device (the code that suits it; the
/// runtime's cache keeps the driver's compiled code across processes).
class Library {
public:
  static rt::Expected<Library> load(const rt::Device &device);
  Library(Library &&) noexcept;
  Library &operator=(Library &&) noexcept;
  ~Library();

  /// C = alpha * A B + beta * C. Today: f16 and bf16 A and B (any GPU from
  /// sm_80), f32 (full precision
  /// on the CUDA cores, A and B row-major; with options.allowTf32 on a 9.0
  /// GPU, K-major operands multiply as tf32, inputs truncated to their top
  /// 19 bits), and e4m3, e5m2 and s8 on a 9.0 GPU; f32 C (or C in A's
  /// 16-bit type, or
  /// f16 or bf16 for FP8 and s8 inputs: f32 accumulation and scaling, one
  /// rounding; or s32 for s8: the exact sums, alpha 1, beta 0 or 1),
  /// any finite alpha and beta (beta 0 never reads C, so C may start as
  /// garbage; for FP8, alpha carries the product of the per-tensor
  /// scales), any M, N, K (edges zero filled). On a 9.0 GPU with 16-byte
  /// aligned lines of A and B (pointers 16-byte aligned, leading dimensions
  /// of a multiple of 16 bytes): A, B and C row- or column-major with any
  /// leading dimension (a column-major C is computed as C^T = B^T A^T;
  /// FP8, tf32 and s8 need A row-major and B column-major: K-major, the
  /// only layout their tensor cores read), on the persistent warp-specialised TMA +
  /// wgmma kernel. Elsewhere (sm_80 and later) the portable mma.sync
  /// kernel: f16 or bf16 A and B, row- or column-major with any leading
  /// dimension (column-major ones with 16-byte aligned lines), C f32 or the
  /// inputs' type; 128 x 128 block tiles of four 64 x 64 warp tiles, a
  /// four-stage cp.async pipeline (lib/Ops/Kernels/MmaGemmKernels.cpp).
  /// options.bias and options.activation make it C = act(alpha * A B +
  /// beta * C + bias): fused into each kernel's epilogue (the sm_90 and
  /// portable ones staged through shared memory; one launch), or, with K
  /// split (options.workspace), into the reduction of the splits.
  rt::Error gemm(const Matrix &a, const Matrix &b, const Matrix &c,
                 const GemmOptions &options = {});
  /// The f32 elements of options.workspace with which gemm() splits K for
  /// these arguments on this device, or 0 where it would not split (C has
  /// enough tiles to fill the GPU, K is short, the kernel is the f32
  /// CUDA-core one, the C is s32, or the arguments are invalid).
  std::int64_t gemmWorkspaceElements(const Matrix &a, const Matrix &b,
                                     const Matrix &c,
                                     const GemmOptions &options = {});

  /// The gradients of C = alpha A B by the forward's own kernels (KAIO's
  /// forward-reuse backward): dA = alpha dC B^T and dB = alpha A^T dC
  /// (+ beta times the old gradient), the transposes read in place as
  /// column-major views (no copies: on a 9.0 GPU any layout; elsewhere the
  /// products must be ones gemm() runs there). da or db may be absent
  /// (not computed). dC and the gradients take gemm()'s dtypes.
  rt::Error gemmBackward(const Matrix &a, const Matrix &b, const Matrix &dc,
                         const Matrix &da, const Matrix &db,
                         const GemmBackwardOptions &options = {});

  /// Times every configuration gemm() could launch for these arguments on
  /// `device` (the library's) and makes the fastest gemm()'s choice for
  /// their problem class (Kaio/Ops/Tuning.h), saved in the tuning file
  /// under the runtime's cache directory. C's contents afterwards are
  /// unspecified (pass scratch memory of C's shape). The sm_90a kernel's
  /// choices are its tile widths ("n128", "n256"), each also in clusters of
  /// two blocks multicasting B ("n128c2", "n256c2": 16-bit and FP8 inputs), the
  /// portable mma.sync kernel's (any other GPU, or options.portable) its
  /// variants for 2 and
  /// 3 blocks an SM ("b2", "b3") where A's and B's lines are 16-byte
  /// aligned; a forced portable kernel on a 9.0 GPU is recorded under its
  /// own key. Where gemm() has one configuration (unaligned lines, f32
  /// without tf32) the result names "portable", timed, and nothing is
  /// recorded.
  rt::Expected<GemmTuneResult> tuneGemm(const rt::Device &device,
                                        const Matrix &a, const Matrix &b,
                                        const Matrix &c,
                                        const GemmOptions &options = {},
                                        const GemmTuneOptions &tune = {});
  /// What the library warned about (a tuning file it ignored, ...), oldest
  /// first.
  const std::vector<std::string> &warnings() const;

  /// y = A x (+ bias): A row-major f32, f16 or bf16, f32 accumulation, a
  /// warp per row streaming A in 16-byte chunks (batch-1 decode).
  rt::Error gemv(const Matrix &a, const Matrix &x, const Matrix &y,
                 const GemvOptions &options = {});
  /// y = xᵀ A (+ bias), split along A's rows, deterministic (Gemv.h).
  rt::Error gemvTransposed(const Matrix &a, const Matrix &x, const Matrix &y,
                           const GemvOptions &options);

  /// out = softmax(scale * x) along each row (any length; one block per
  /// row with an online max and sum, 16-byte accesses where aligned). A
  /// row that is all -inf (fully masked) gives zeros; NaN and +inf give NaN.
  rt::Error softmax(const Matrix &x, const Matrix &out,
                    const SoftmaxOptions &options = {});
  /// out = log_softmax(scale * x); an all -inf row gives -inf.
  rt::Error logSoftmax(const Matrix &x, const Matrix &out,
                       const SoftmaxOptions &options = {});
  /// out = h / sqrt(mean(h^2) + eps) * weight, h = x (+ residual).
  rt::Error rmsNorm(const Matrix &x, const Matrix &out,
                    const NormOptions &options = {});
  /// out = (h - mean(h)) / sqrt(var(h) + eps) * weight + bias (biased
  /// variance, as torch.nn.functional.layer_norm), h = x (+ residual).
  rt::Error layerNorm(const Matrix &x, const Matrix &out,
                      const NormOptions &options = {});

  /// dx, dweight and dbias of rmsNorm / layerNorm (RowOps.h).
  rt::Error rmsNormBackward(const Matrix &x, const Matrix &dy,
                            const Matrix &dx,
                            const NormBackwardOptions &options);
  rt::Error layerNormBackward(const Matrix &x, const Matrix &dy,
                              const Matrix &dx,
                              const NormBackwardOptions &options);

  /// dx of softmax(scale * x) / log_softmax(scale * x) from y and dy.
  rt::Error softmaxBackward(const Matrix &y, const Matrix &dy,
                            const Matrix &dx,
                            const SoftmaxOptions &options = {});
  rt::Error logSoftmaxBackward(const Matrix &y, const Matrix &dy,
                               const Matrix &dx,
                               const SoftmaxOptions &options = {});
  /// Per-row cross-entropy loss of logits against s32 targets (RowOps.h).
  rt::Error crossEntropy(const Matrix &logits, const Matrix &targets,
                         const Matrix &loss,
                         const CrossEntropyOptions &options = {});
  rt::Error crossEntropyBackward(const Matrix &logits, const Matrix &targets,
                                 const Matrix &lse, const Matrix &dloss,
                                 const Matrix &dlogits,
                                 const CrossEntropyOptions &options = {});
  /// Sum, max or min of each row (f32 out), argmax of each row (s32 out),
  /// and of a whole matrix; deterministic.
  rt::Error reduceRows(const Matrix &x, const Matrix &out, Reduction reduction,
                       const ReduceOptions &options = {});
  rt::Error argmaxRows(const Matrix &x, const Matrix &out,
                       const ReduceOptions &options = {});
  rt::Error reduceAll(const Matrix &x, const Matrix &out, Reduction reduction,
                      const ReduceOptions &options = {});
  /// The index of the first maximum of the whole matrix (s32 out; s64 for
  /// 2^31 elements and more).
  rt::Error argmaxAll(const Matrix &x, const Matrix &out,
                      const ReduceOptions &options);
  /// Sum, max or min of each column (f32 out), deterministic.
  rt::Error reduceCols(const Matrix &x, const Matrix &out, Reduction reduction,
                       const ReduceOptions &options);

  /// out = act(x + bias) element-wise (bias optional, one per column).
  rt::Error biasActivation(const Matrix &x, const Matrix &out, Activation act,
                           const ElementwiseOptions &options = {});
  /// out = act(gate) * up: SwiGLU with Activation::Silu, GeGLU with a GELU.
  rt::Error gatedActivation(const Matrix &gate, const Matrix &up,
                            const Matrix &out, Activation act,
                            const ElementwiseOptions &options = {});
  /// Rotary position embedding of x's heads (Elementwise.h).
  rt::Error rope(const Matrix &x, const Matrix &out, const Matrix &positions,
                 const Matrix &cos, const Matrix &sin, std::int64_t heads,
                 const RopeOptions &options = {});
  /// out = a + b (e.g. a residual add).
  rt::Error add(const Matrix &a, const Matrix &b, const Matrix &out,
                const ElementwiseOptions &options = {});

  /// O = softmax(scale Q K^T) V per batch and head, FlashAttention-2 on
  /// tensor cores (Attention.h): f16 or bf16, head dims 64, 128, 256, MHA,
  /// GQA and MQA (k/v heads dividing q's), causal masks aligned top-left or
  /// bottom-right, sliding windows, packed variable-length batches, and
  /// optionally each row's logsumexp.
  rt::Error flashAttention(const AttentionTensor &q, const AttentionTensor &k,
                           const AttentionTensor &v, const AttentionTensor &o,
                           const AttentionOptions &options = {});
  /// dQ, dK and dV of flashAttention from dO, its output O and
  /// options.lse (FlashAttention-2's backward: delta = rowsum(dO O), then a
  /// dQ kernel over key blocks and a dK/dV kernel over query blocks, GQA
  /// heads summed in order: deterministic, no atomics); options as the
  /// forward's plus options.workspace.
  rt::Error flashAttentionBackward(
      const AttentionTensor &q, const AttentionTensor &k,
      const AttentionTensor &v, const AttentionTensor &o,
      const AttentionTensor &dO, const AttentionTensor &dq,
      const AttentionTensor &dk, const AttentionTensor &dv,
      const AttentionOptions &options);
  /// Flash decoding: o = attention of the q_len new tokens of q ([batch,
  /// q_len, heads, dim]) over a contiguous or paged KV cache (Attention.h),
  /// the keys split across blocks and the partials merged; GQA and MQA
  /// (query heads a kv head times query tokens in blocks of 16 rows, or of
  /// 32 for more than 16 at head dims 64 and 128).
  rt::Error flashDecode(const AttentionTensor &q, const KVCache &cache,
                        const AttentionTensor &o, const DecodeOptions &options);

  struct Impl;

private:
  explicit Library(std::unique_ptr<Impl> impl);
  /// gemm() once C is row-major (validated, not empty); a column-major
  /// C's bias runs along the rows of the C^T computed here.
  /// `choice` (a kGemmTuningChoices name) overrides the tuning table and
  /// the heuristic (tuneGemm times each).
  rt::Error gemmRowMajorC(const Matrix &a, const Matrix &b, const Matrix &c,
                          const GemmOptions &options, bool biasAlongRows,
                          const char *choice = nullptr);
  /// The error gemm() would return for these arguments here before
  /// launching anything (validation, then what the kernels read), or
  /// success.
  rt::Error checkGemmRuns(const Matrix &a, const Matrix &b, const Matrix &c,
                          const GemmOptions &options);
  std::unique_ptr<Impl> impl_;
};

} // namespace kaio::ops

#endif // KAIO_OPS_LIBRARY_H

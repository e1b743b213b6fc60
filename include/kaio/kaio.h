/*===- kaio.h - KAIO's C API ------------------------------------*- C -*-===*
 *
 * KAIO from C (and from anything with a C FFI: Python's ctypes, Rust, Go).
 * C99, a stable ABI: opaque handles, plain structs of fixed-width fields,
 * enums passed as int32_t, no C++ types. Two libraries implement it:
 *
 *   libkaio.so           contexts, memory, streams, the op library, PTX
 *                        modules and typed launches. Links only KAIO's
 *                        runtime (the CUDA driver is dlopen'ed; no
 *                        LLVM/MLIR), so it runs on any GPU host.
 *   libkaio_compiler.so  kaio_compile: kaio-dialect .mlir text to PTX
 *                        (links MLIR; needed only to compile).
 *
 * Every fallible call returns a kaio_status; on failure,
 * kaio_last_error_message() holds, for the calling thread, a message that
 * names the function, the argument or the CUDA error, and what was being
 * done. Arguments are validated before anything is launched: bad input is
 * KAIO_ERROR_INVALID_VALUE (or KAIO_ERROR_UNSUPPORTED for what KAIO does not
 * do yet), never a crash.
 *
 *   kaio_context ctx;
 *   if (kaio_context_create(0, &ctx) != KAIO_SUCCESS)
 *     fprintf(stderr, "%s\n", kaio_last_error_message());
 *   kaio_matrix x = kaio_matrix_row_major(xptr, KAIO_F16, rows, cols, 0);
 *   kaio_matrix y = kaio_matrix_row_major(yptr, KAIO_F16, rows, cols, 0);
 *   kaio_softmax(ctx, &x, &y, 1.0f, 0, 0, stream);
 *   kaio_context_destroy(ctx);
 *
 *===----------------------------------------------------------------------===*/

#ifndef KAIO_KAIO_H
#define KAIO_KAIO_H

#include <stddef.h>
#include <stdint.h>

#if defined(KAIO_C_API_BUILD)
#define KAIO_API __attribute__((visibility("default")))
#else
#define KAIO_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===- Versions and errors ------------------------------------------------===*/

#define KAIO_VERSION_MAJOR 0
#define KAIO_VERSION_MINOR 1
#define KAIO_VERSION_PATCH 0
/* Bumped when a function or struct of this header changes incompatibly. */
#define KAIO_ABI_VERSION 1

/* major * 10000 + minor * 100 + patch, of the library actually loaded. */
KAIO_API uint32_t kaio_version(void);
/* KAIO_ABI_VERSION of the library actually loaded. */
KAIO_API uint32_t kaio_abi_version(void);
/* "0.1.0". */
KAIO_API const char *kaio_version_string(void);

typedef int32_t kaio_status;
enum {
  KAIO_SUCCESS = 0,
  KAIO_ERROR_DRIVER = 1,            /* a CUDA driver call failed */
  KAIO_ERROR_NO_DRIVER = 2,         /* no usable libcuda.so.1 */
  KAIO_ERROR_INVALID_VALUE = 3,     /* a bad argument */
  KAIO_ERROR_INVALID_CONFIG = 4,    /* a launch exceeds a device limit */
  KAIO_ERROR_ARGUMENT_MISMATCH = 5, /* launch arguments vs the signature */
  KAIO_ERROR_NOT_FOUND = 6,         /* a kernel, file or device */
  KAIO_ERROR_IO = 7,                /* reading or writing a file */
  KAIO_ERROR_PARSE = 8,             /* malformed text */
  KAIO_ERROR_UNSUPPORTED = 9,       /* not available (yet) */
  KAIO_ERROR_COMPILE = 10,          /* kaio_compile: the source has errors */
  KAIO_ERROR_INTERNAL = 11          /* out of host memory, or a KAIO bug */
};

/* "KAIO_SUCCESS", "KAIO_ERROR_INVALID_VALUE", ...; "KAIO_ERROR_UNKNOWN" for
 * any other value. */
KAIO_API const char *kaio_status_name(kaio_status status);
/* The message of the calling thread's last failed call ("" when none).
 * Valid until the thread's next KAIO call. */
KAIO_API const char *kaio_last_error_message(void);
/* The CUresult of the calling thread's last failed call when it was a
 * driver error (KAIO_ERROR_DRIVER), else 0. */
KAIO_API int32_t kaio_last_cuda_error(void);

/*===- Devices, contexts and streams --------------------------------------===*/

/* CUDA devices; 0 (and KAIO_SUCCESS) when the driver reports none. */
KAIO_API kaio_status kaio_device_count(int32_t *count);
/* cuDriverGetVersion, e.g. 13000. */
KAIO_API kaio_status kaio_driver_version(int32_t *version);

/* One device's primary context, with the op library loaded on first use.
 * Safe to use from several threads. */
typedef struct kaio_context_st *kaio_context;

KAIO_API kaio_status kaio_context_create(int32_t device, kaio_context *out);
/* Frees what the context allocated (kaio_malloc) and loaded (modules it
 * still owns); NULL is a no-op. */
KAIO_API void kaio_context_destroy(kaio_context ctx);
/* Waits for all work on the context's device. */
KAIO_API kaio_status kaio_context_synchronize(kaio_context ctx);

typedef struct kaio_device_info {
  char name[256];
  int32_t ordinal;
  int32_t cc_major, cc_minor;
  int32_t sm_count;
  uint64_t total_memory; /* bytes */
  int32_t driver_version;
  int32_t max_threads_per_block;
  int32_t shared_mem_per_block_optin; /* bytes */
  int32_t reserved[5];
} kaio_device_info;

KAIO_API kaio_status kaio_context_device_info(kaio_context ctx,
                                              kaio_device_info *out);

/* A CUDA stream: the same pointer as cuda.h's CUstream (the caller's own
 * streams, e.g. a framework's current stream, are passed as they are).
 * NULL is the legacy default stream. */
typedef struct CUstream_st *kaio_stream;

/* A non-blocking stream owned by the caller (kaio_stream_destroy). */
KAIO_API kaio_status kaio_stream_create(kaio_context ctx, kaio_stream *out);
KAIO_API kaio_status kaio_stream_destroy(kaio_context ctx, kaio_stream stream);
KAIO_API kaio_status kaio_stream_synchronize(kaio_context ctx,
                                             kaio_stream stream);

/*===- Device memory ------------------------------------------------------===*/

/* A device address (CUdeviceptr). */
typedef uint64_t kaio_devptr;

KAIO_API kaio_status kaio_malloc(kaio_context ctx, size_t bytes,
                                 kaio_devptr *out);
/* Only addresses kaio_malloc returned (else KAIO_ERROR_INVALID_VALUE); 0 is
 * a no-op. */
KAIO_API kaio_status kaio_free(kaio_context ctx, kaio_devptr ptr);
KAIO_API kaio_status kaio_memcpy_htod(kaio_context ctx, kaio_devptr dst,
                                      const void *src, size_t bytes);
KAIO_API kaio_status kaio_memcpy_dtoh(kaio_context ctx, void *dst,
                                      kaio_devptr src, size_t bytes);
KAIO_API kaio_status kaio_memcpy_dtod(kaio_context ctx, kaio_devptr dst,
                                      kaio_devptr src, size_t bytes);
KAIO_API kaio_status kaio_memset(kaio_context ctx, kaio_devptr dst,
                                 uint8_t value, size_t bytes);

/*===- The op library -----------------------------------------------------===*/

typedef int32_t kaio_dtype;
enum {
  KAIO_F16 = 0,
  KAIO_BF16 = 1,
  KAIO_F32 = 2,
  KAIO_S8 = 3,
  KAIO_S32 = 4,
  KAIO_S64 = 5,
  KAIO_E4M3 = 6, /* 8-bit floats (OCP FP8; E4M3 has no infinities) */
  KAIO_E5M2 = 7
};

typedef int32_t kaio_layout;
enum { KAIO_ROW_MAJOR = 0, KAIO_COL_MAJOR = 1 };

/* A matrix in device memory: element (r, c) at data + (r * ld + c) *
 * sizeof(element) (row-major) or (c * ld + r) (column-major). Vectors are
 * 1 x n matrices. capacity_bytes: the buffer's size when known (checked),
 * 0 when unknown. Optional arguments are NULL pointers. */
typedef struct kaio_matrix {
  kaio_devptr data;
  kaio_dtype dtype;
  kaio_layout layout;
  int64_t rows, cols, ld;
  uint64_t capacity_bytes;
} kaio_matrix;

/* A row-major matrix; ld 0 means cols (at least 1). */
static inline kaio_matrix kaio_matrix_row_major(kaio_devptr data,
                                                kaio_dtype dtype, int64_t rows,
                                                int64_t cols, int64_t ld) {
  kaio_matrix m;
  m.data = data;
  m.dtype = dtype;
  m.layout = KAIO_ROW_MAJOR;
  m.rows = rows;
  m.cols = cols;
  m.ld = ld ? ld : (cols > 0 ? cols : 1);
  m.capacity_bytes = 0;
  return m;
}

/* A vector of n elements (1 x n). */
static inline kaio_matrix kaio_vector(kaio_devptr data, kaio_dtype dtype,
                                      int64_t n) {
  return kaio_matrix_row_major(data, dtype, 1, n, 0);
}

typedef int32_t kaio_activation;
enum {
  KAIO_ACT_NONE = 0,
  KAIO_ACT_RELU = 1,
  KAIO_ACT_SILU = 2,
  KAIO_ACT_GELU_TANH = 3,
  KAIO_ACT_GELU_ERF = 4
};

typedef int32_t kaio_reduction;
enum { KAIO_REDUCE_SUM = 0, KAIO_REDUCE_MAX = 1, KAIO_REDUCE_MIN = 2 };

typedef int32_t kaio_rope_layout;
enum { KAIO_ROPE_HALF_SPLIT = 0, KAIO_ROPE_INTERLEAVED = 1 };

/* Each op is the C++ kaio::ops::Library call of the same name (see
 * include/Kaio/Ops/Library.h for the semantics, shapes and dtypes). */

/* C = alpha * A B + beta * C (f16, bf16 or s8 A and B, or f32 — full
   precision —, or e4m3 or e5m2 on a 9.0 GPU; f32 C or C of A's 16-bit
   type, or f16/bf16 for FP8 and s8, or s32 for s8 (exact sums: alpha 1,
   beta 0 or 1); f16/bf16/f32 A and B in any layout and leading dimension
   (column-major ones with 16-byte aligned lines of A and B; FP8, tf32 and
   s8: A row-major, B column-major; s8 off a 9.0 GPU with 16-byte aligned
   lines)). */
KAIO_API kaio_status kaio_gemm(kaio_context ctx, const kaio_matrix *a,
                               const kaio_matrix *b, const kaio_matrix *c,
                               float alpha, float beta, kaio_stream stream);
/* kaio_gemm_ex's flags. */
enum {
  /* f32 A and B may run on the tensor cores as tf32 (10-bit mantissas), as
     torch's allow_tf32: on a 9.0 GPU with A row-major and B column-major;
     otherwise (and without the flag) f32 runs in full precision on the
     CUDA cores (A and B in any layout). */
  KAIO_GEMM_ALLOW_TF32 = 1
};
/* C = act(alpha * A B + beta * C + bias): kaio_gemm with an epilogue and
   flags (KAIO_GEMM_*). bias (or NULL) is a contiguous vector of C's columns
   in C's dtype; act a kaio_activation. Fused into the GEMM's epilogue (one
   launch) on every GPU. */
KAIO_API kaio_status kaio_gemm_ex(kaio_context ctx, const kaio_matrix *a,
                                  const kaio_matrix *b, const kaio_matrix *c,
                                  float alpha, float beta,
                                  const kaio_matrix *bias, kaio_activation act,
                                  uint32_t flags, kaio_stream stream);
/* The f32 elements of the workspace with which kaio_gemm_split splits K
   for these arguments on ctx's device (decode-like M: C of few tiles, a
   long K; tensor-core kernels), or 0 where it would not split (also for arguments
   kaio_gemm_ex would refuse), in *elements. */
KAIO_API kaio_status kaio_gemm_workspace_elements(
    kaio_context ctx, const kaio_matrix *a, const kaio_matrix *b,
    const kaio_matrix *c, float alpha, float beta, const kaio_matrix *bias,
    kaio_activation act, uint32_t flags, int64_t *elements);
/* kaio_gemm_ex with a workspace (NULL, or a contiguous f32 vector, 16-byte
   aligned, overlapping no other argument): with at least
   kaio_gemm_workspace_elements elements K is split across blocks and a
   second kernel adds the splits (in a fixed order) and applies the
   epilogue; with fewer, or NULL, this is kaio_gemm_ex. */
KAIO_API kaio_status kaio_gemm_split(kaio_context ctx, const kaio_matrix *a,
                                     const kaio_matrix *b,
                                     const kaio_matrix *c, float alpha,
                                     float beta, const kaio_matrix *bias,
                                     kaio_activation act, uint32_t flags,
                                     const kaio_matrix *workspace,
                                     kaio_stream stream);
/* The gradients of C = alpha A B by the forward's kernels: dA = alpha dC
   B^T (+ beta dA) and dB = alpha A^T dC (+ beta dB), the transposes read
   in place; da or db may be NULL (not computed). */
KAIO_API kaio_status kaio_gemm_backward(kaio_context ctx, const kaio_matrix *a,
                                        const kaio_matrix *b,
                                        const kaio_matrix *dc,
                                        const kaio_matrix *da,
                                        const kaio_matrix *db, float alpha,
                                        float beta, kaio_stream stream);
/* Times every configuration kaio_gemm_ex could launch for these arguments
   and makes the fastest its choice for their problem class (device,
   dtypes, layouts, epilogue, M, N, K rounded up to powers of two), saved in
   a file under the runtime's cache directory. C's contents afterwards are
   unspecified (pass scratch memory). `choice` (or NULL) receives the chosen
   configuration's name ("n128", "n256", "n128c2", "n256c2" on a 9.0 GPU; "b2", "b3" for the
   portable kernel with 16-byte aligned lines; "portable" where there is
   one),
   NUL-terminated, truncated to choice_size bytes. */
KAIO_API kaio_status kaio_gemm_tune(kaio_context ctx, const kaio_matrix *a,
                                    const kaio_matrix *b, const kaio_matrix *c,
                                    float alpha, float beta,
                                    const kaio_matrix *bias,
                                    kaio_activation act, uint32_t flags,
                                    char *choice, size_t choice_size,
                                    kaio_stream stream);
/* y = A x (+ bias). */
KAIO_API kaio_status kaio_gemv(kaio_context ctx, const kaio_matrix *a,
                               const kaio_matrix *x, const kaio_matrix *y,
                               const kaio_matrix *bias, kaio_stream stream);
/* y = xᵀ A (+ bias), deterministic; workspace: f32 of
 * kaio_gemv_transposed_workspace_elements(k, n). */
KAIO_API kaio_status kaio_gemv_transposed(kaio_context ctx,
                                          const kaio_matrix *a,
                                          const kaio_matrix *x,
                                          const kaio_matrix *y,
                                          const kaio_matrix *bias,
                                          const kaio_matrix *workspace,
                                          kaio_stream stream);
KAIO_API int64_t kaio_gemv_transposed_workspace_elements(int64_t k,
                                                         int64_t n);

/* out = softmax(scale * x) along rows; causal_rows 0: no mask (else the
 * mask of kaio::ops::SoftmaxOptions). */
KAIO_API kaio_status kaio_softmax(kaio_context ctx, const kaio_matrix *x,
                                  const kaio_matrix *out, float scale,
                                  int64_t causal_rows, int64_t causal_offset,
                                  kaio_stream stream);
KAIO_API kaio_status kaio_log_softmax(kaio_context ctx, const kaio_matrix *x,
                                      const kaio_matrix *out, float scale,
                                      int64_t causal_rows,
                                      int64_t causal_offset,
                                      kaio_stream stream);
KAIO_API kaio_status kaio_softmax_backward(kaio_context ctx,
                                           const kaio_matrix *y,
                                           const kaio_matrix *dy,
                                           const kaio_matrix *dx, float scale,
                                           kaio_stream stream);
KAIO_API kaio_status kaio_log_softmax_backward(kaio_context ctx,
                                               const kaio_matrix *y,
                                               const kaio_matrix *dy,
                                               const kaio_matrix *dx,
                                               float scale,
                                               kaio_stream stream);

/* out = h / sqrt(mean(h^2) + eps) * weight, h = x (+ residual, stored to
 * residual_out); rstd (f32 per row) for the backward. Optional: weight,
 * residual + residual_out, rstd. */
KAIO_API kaio_status kaio_rms_norm(kaio_context ctx, const kaio_matrix *x,
                                   const kaio_matrix *out,
                                   const kaio_matrix *weight,
                                   const kaio_matrix *residual,
                                   const kaio_matrix *residual_out,
                                   const kaio_matrix *rstd, float eps,
                                   kaio_stream stream);
KAIO_API kaio_status kaio_layer_norm(
    kaio_context ctx, const kaio_matrix *x, const kaio_matrix *out,
    const kaio_matrix *weight, const kaio_matrix *bias,
    const kaio_matrix *residual, const kaio_matrix *residual_out,
    const kaio_matrix *mean, const kaio_matrix *rstd, float eps,
    kaio_stream stream);
/* dx (and optionally dweight, dbias: then workspace is f32 of
 * kaio_norm_backward_workspace_elements(rows, cols)). */
KAIO_API kaio_status kaio_rms_norm_backward(
    kaio_context ctx, const kaio_matrix *x, const kaio_matrix *dy,
    const kaio_matrix *dx, const kaio_matrix *weight, const kaio_matrix *rstd,
    const kaio_matrix *dweight, const kaio_matrix *workspace,
    kaio_stream stream);
KAIO_API kaio_status kaio_layer_norm_backward(
    kaio_context ctx, const kaio_matrix *x, const kaio_matrix *dy,
    const kaio_matrix *dx, const kaio_matrix *weight, const kaio_matrix *mean,
    const kaio_matrix *rstd, const kaio_matrix *dweight,
    const kaio_matrix *dbias, const kaio_matrix *workspace,
    kaio_stream stream);
KAIO_API int64_t kaio_norm_backward_workspace_elements(int64_t rows,
                                                       int64_t cols);

/* loss[r] = logsumexp(logits[r]) - logits[r, targets[r]] (s32 targets,
 * f32 loss; lse optional, f32 per row). */
KAIO_API kaio_status kaio_cross_entropy(kaio_context ctx,
                                        const kaio_matrix *logits,
                                        const kaio_matrix *targets,
                                        const kaio_matrix *loss,
                                        const kaio_matrix *lse,
                                        int32_t ignore_index,
                                        kaio_stream stream);
KAIO_API kaio_status kaio_cross_entropy_backward(
    kaio_context ctx, const kaio_matrix *logits, const kaio_matrix *targets,
    const kaio_matrix *lse, const kaio_matrix *dloss,
    const kaio_matrix *dlogits, int32_t ignore_index, kaio_stream stream);

/* Per-row sum/max/min (f32 out) and argmax (s32 out); the whole matrix
 * (workspace: f32, one per row). Deterministic. */
KAIO_API kaio_status kaio_reduce_rows(kaio_context ctx, const kaio_matrix *x,
                                      const kaio_matrix *out,
                                      kaio_reduction reduction,
                                      kaio_stream stream);
KAIO_API kaio_status kaio_argmax_rows(kaio_context ctx, const kaio_matrix *x,
                                      const kaio_matrix *out,
                                      kaio_stream stream);
/* The row-major index (s32, one element) of the first maximum of x (first
 * NaN); workspace: f32 of kaio_argmax_all_workspace_elements(rows). */
KAIO_API kaio_status kaio_argmax_all(kaio_context ctx, const kaio_matrix *x,
                                     const kaio_matrix *out,
                                     const kaio_matrix *workspace,
                                     kaio_stream stream);
KAIO_API int64_t kaio_argmax_all_workspace_elements(int64_t rows);
/* Per-column sum/max/min (f32 out, deterministic); workspace: f32 of
 * kaio_reduce_cols_workspace_elements(rows, cols). */
KAIO_API kaio_status kaio_reduce_cols(kaio_context ctx, const kaio_matrix *x,
                                      const kaio_matrix *out,
                                      kaio_reduction reduction,
                                      const kaio_matrix *workspace,
                                      kaio_stream stream);
KAIO_API int64_t kaio_reduce_cols_workspace_elements(int64_t rows,
                                                     int64_t cols);
KAIO_API kaio_status kaio_reduce_all(kaio_context ctx, const kaio_matrix *x,
                                     const kaio_matrix *out,
                                     kaio_reduction reduction,
                                     const kaio_matrix *workspace,
                                     kaio_stream stream);

/* out = act(x + bias) (bias optional); out = act(gate) * up (SwiGLU with
 * KAIO_ACT_SILU, GeGLU with a GELU); out = a + b. */
KAIO_API kaio_status kaio_bias_activation(kaio_context ctx,
                                          const kaio_matrix *x,
                                          const kaio_matrix *out,
                                          const kaio_matrix *bias,
                                          kaio_activation act,
                                          kaio_stream stream);
KAIO_API kaio_status kaio_gated_activation(kaio_context ctx,
                                           const kaio_matrix *gate,
                                           const kaio_matrix *up,
                                           const kaio_matrix *out,
                                           kaio_activation act,
                                           kaio_stream stream);
KAIO_API kaio_status kaio_add(kaio_context ctx, const kaio_matrix *a,
                              const kaio_matrix *b, const kaio_matrix *out,
                              kaio_stream stream);
/* Rotary position embedding of x's `heads` heads per token. */
KAIO_API kaio_status kaio_rope(kaio_context ctx, const kaio_matrix *x,
                               const kaio_matrix *out,
                               const kaio_matrix *positions,
                               const kaio_matrix *cos, const kaio_matrix *sin,
                               int64_t heads, kaio_rope_layout layout,
                               kaio_stream stream);

/*===- Attention ----------------------------------------------------------===*/

/* A [batch, seq, heads, dim] tensor: element (b, s, h, d) at data +
 * (b * batch_stride + s * seq_stride + h * head_stride + d) *
 * sizeof(element); f16 or bf16. capacity_bytes as for kaio_matrix. */
typedef struct kaio_attention_tensor {
  kaio_devptr data;
  kaio_dtype dtype;
  int32_t reserved; /* 0 */
  int64_t batch, seq, heads, dim;
  int64_t batch_stride, seq_stride, head_stride;
  uint64_t capacity_bytes;
} kaio_attention_tensor;

/* Contiguous [batch, seq, heads, dim]. */
static inline kaio_attention_tensor
kaio_attention_bshd(kaio_devptr data, kaio_dtype dtype, int64_t batch,
                    int64_t seq, int64_t heads, int64_t dim) {
  kaio_attention_tensor t;
  t.data = data;
  t.dtype = dtype;
  t.reserved = 0;
  t.batch = batch;
  t.seq = seq;
  t.heads = heads;
  t.dim = dim;
  t.batch_stride = seq * heads * dim;
  t.seq_stride = heads * dim;
  t.head_stride = dim;
  t.capacity_bytes = 0;
  return t;
}

/* kaio_attention_options' flags. */
enum {
  /* The forward and the backward run the portable mma.sync kernels even
     on a 9.0 GPU (comparisons and tests of every other GPU's path). */
  KAIO_ATTENTION_PORTABLE = 1,
  /* The 9.0 forward's consumer warpgroups take turns issuing their
     products (FlashAttention-3's ping-pong; head dims 64 and 128), or each
     issues as soon as its operands are in. Neither: the library's choice
     (ping-pong at 64 and 128). At most one of the two. */
  KAIO_ATTENTION_PING_PONG = 2,
  KAIO_ATTENTION_INDEPENDENT = 4,
  /* The 9.0 forward takes 192 query rows a block (three consumer
     warpgroups, FlashAttention-3's tile at head dim 64; an unsupported
     error at other head dims), or 128 (two), instead of the library's
     choice. At most one of the two. */
  KAIO_ATTENTION_ROWS_192 = 8,
  KAIO_ATTENTION_ROWS_128 = 16
};

/* scale 0: 1 / sqrt(dim). causal: row i sees keys j <= i + offset, offset
 * seq_k - seq_q with bottom_right, else 0. flags: KAIO_ATTENTION_*.
 * window_left/right: the sliding window's sides (-1: unbounded).
 * max_seqlen_q/k: with cu_seqlens, the longest query and key sequences (the
 * forward needs only max_seqlen_q). */
typedef struct kaio_attention_options {
  float scale;
  int32_t causal;
  int32_t bottom_right;
  int32_t flags;
  int64_t window_left, window_right;
  int64_t max_seqlen_q, max_seqlen_k;
} kaio_attention_options;

static inline kaio_attention_options kaio_attention_defaults(void) {
  kaio_attention_options o;
  o.scale = 0.0f;
  o.causal = 0;
  o.bottom_right = 0;
  o.flags = 0;
  o.window_left = -1;
  o.window_right = -1;
  o.max_seqlen_q = 0;
  o.max_seqlen_k = 0;
  return o;
}

/* O = softmax(scale Q K^T) V (FlashAttention-2; head dims 64, 128, 256; k/v
 * heads dividing q's: GQA, MQA). cu_seqlens_q/k (NULL, or s32 vectors of
 * batch + 1 offsets: packed sequences, tensors of batch 1), lse (NULL, or
 * f32 [batch, heads, seq_q] / [heads, total_q]) and options (NULL:
 * kaio_attention_defaults()) are optional. */
KAIO_API kaio_status kaio_flash_attention(
    kaio_context ctx, const kaio_attention_tensor *q,
    const kaio_attention_tensor *k, const kaio_attention_tensor *v,
    const kaio_attention_tensor *o, const kaio_matrix *cu_seqlens_q,
    const kaio_matrix *cu_seqlens_k, const kaio_matrix *lse,
    const kaio_attention_options *options, kaio_stream stream);

/* dQ, dK, dV of kaio_flash_attention from dO, its output o and its lse
 * (required); workspace: f32 of kaio_flash_attention_backward_workspace_
 * elements(q). Deterministic (no atomics). */
KAIO_API kaio_status kaio_flash_attention_backward(
    kaio_context ctx, const kaio_attention_tensor *q,
    const kaio_attention_tensor *k, const kaio_attention_tensor *v,
    const kaio_attention_tensor *o, const kaio_attention_tensor *d_o,
    const kaio_attention_tensor *dq, const kaio_attention_tensor *dk,
    const kaio_attention_tensor *dv, const kaio_matrix *cu_seqlens_q,
    const kaio_matrix *cu_seqlens_k, const kaio_matrix *lse,
    const kaio_matrix *workspace, const kaio_attention_options *options,
    kaio_stream stream);
KAIO_API int64_t
kaio_flash_attention_backward_workspace_elements(const kaio_attention_tensor *q);

/* Flash decoding: o = attention of q's q_len new tokens ([batch, q_len,
 * heads, dim]) over a KV cache. block_table NULL: k_cache/v_cache are
 * [batch, capacity, kv_heads, dim]; else s32 [batch, max_pages] naming
 * pages of a pool [pages, page_size, kv_heads, dim] (page_size a multiple
 * of 16, vLLM's 16 included). seqlens: s32, keys per sequence. causal: token i sees keys up to
 * seqlen - q_len + i. workspace: f32 of
 * kaio_flash_decode_workspace_elements. */
KAIO_API kaio_status kaio_flash_decode(
    kaio_context ctx, const kaio_attention_tensor *q,
    const kaio_attention_tensor *k_cache,
    const kaio_attention_tensor *v_cache, const kaio_matrix *block_table,
    int64_t page_size, const kaio_matrix *seqlens,
    const kaio_attention_tensor *o, float scale, int32_t causal,
    const kaio_matrix *workspace, kaio_stream stream);
KAIO_API int64_t kaio_flash_decode_workspace_elements(
    const kaio_attention_tensor *q, const kaio_attention_tensor *k_cache,
    const kaio_matrix *block_table, int64_t page_size);

/*===- Custom kernels: PTX modules and typed launches ---------------------===*/

typedef struct kaio_module_st *kaio_module;

/* JIT-loads PTX text (len 0: NUL-terminated); `name` (may be NULL) is shown
 * in errors. KAIO's `// kaio.kernel` signature comments make launches
 * typed. The module keeps its context alive. */
KAIO_API kaio_status kaio_module_load_ptx(kaio_context ctx, const char *ptx,
                                          size_t len, const char *name,
                                          kaio_module *out);
/* ".ptx" as PTX, anything else as a cubin or fatbin. */
KAIO_API kaio_status kaio_module_load_file(kaio_context ctx, const char *path,
                                           kaio_module *out);
KAIO_API void kaio_module_destroy(kaio_module module);
/* The kernels whose signatures the module carries. */
KAIO_API size_t kaio_module_kernel_count(kaio_module module);
/* The i-th kernel's name, or NULL past the end. */
KAIO_API const char *kaio_module_kernel_name(kaio_module module, size_t i);
/* "vector_add(ptr<const f32>,ptr<f32>,u32)" (KAIO_ERROR_NOT_FOUND without
 * a signature for that kernel). Valid as long as the module. */
KAIO_API kaio_status kaio_module_kernel_signature(kaio_module module,
                                                  const char *kernel,
                                                  const char **signature);

typedef int32_t kaio_scalar_type;
enum {
  KAIO_TYPE_U8 = 0, KAIO_TYPE_S8 = 1, KAIO_TYPE_U16 = 2, KAIO_TYPE_S16 = 3,
  KAIO_TYPE_U32 = 4, KAIO_TYPE_S32 = 5, KAIO_TYPE_U64 = 6, KAIO_TYPE_S64 = 7,
  KAIO_TYPE_F16 = 8, KAIO_TYPE_BF16 = 9, KAIO_TYPE_F32 = 10,
  KAIO_TYPE_F64 = 11,
  KAIO_TYPE_B8 = 12 /* untyped bytes: pointer elements only */
};

typedef int32_t kaio_arg_kind;
enum {
  KAIO_ARG_SCALAR = 0,       /* `type` of `bits` (low bytes) */
  KAIO_ARG_POINTER = 1,      /* ptr<type> */
  KAIO_ARG_CONST_POINTER = 2, /* ptr<const type> */
  KAIO_ARG_ANY_POINTER = 3   /* any ptr<...> (type ignored) */
};

/* One launch argument: a scalar's bits (little-endian, in the low bytes;
 * f16/bf16 as their 16 bits) or a device address, with the type it claims,
 * checked against the kernel's signature (no implicit conversions). */
typedef struct kaio_arg {
  kaio_arg_kind kind;
  kaio_scalar_type type;
  uint64_t bits;
} kaio_arg;

static inline kaio_arg kaio_arg_scalar_bits(kaio_scalar_type type,
                                            uint64_t bits) {
  kaio_arg a;
  a.kind = KAIO_ARG_SCALAR;
  a.type = type;
  a.bits = bits;
  return a;
}
static inline kaio_arg kaio_arg_u32(uint32_t v) {
  return kaio_arg_scalar_bits(KAIO_TYPE_U32, v);
}
static inline kaio_arg kaio_arg_s32(int32_t v) {
  return kaio_arg_scalar_bits(KAIO_TYPE_S32, (uint32_t)v);
}
static inline kaio_arg kaio_arg_u64(uint64_t v) {
  return kaio_arg_scalar_bits(KAIO_TYPE_U64, v);
}
static inline kaio_arg kaio_arg_s64(int64_t v) {
  return kaio_arg_scalar_bits(KAIO_TYPE_S64, (uint64_t)v);
}
static inline kaio_arg kaio_arg_f32(float v) {
  union {
    float f;
    uint32_t u;
  } c;
  c.f = v;
  return kaio_arg_scalar_bits(KAIO_TYPE_F32, c.u);
}
static inline kaio_arg kaio_arg_f64(double v) {
  union {
    double f;
    uint64_t u;
  } c;
  c.f = v;
  return kaio_arg_scalar_bits(KAIO_TYPE_F64, c.u);
}
static inline kaio_arg kaio_arg_ptr(kaio_devptr p, kaio_scalar_type elem) {
  kaio_arg a;
  a.kind = KAIO_ARG_POINTER;
  a.type = elem;
  a.bits = p;
  return a;
}
static inline kaio_arg kaio_arg_const_ptr(kaio_devptr p,
                                          kaio_scalar_type elem) {
  kaio_arg a = kaio_arg_ptr(p, elem);
  a.kind = KAIO_ARG_CONST_POINTER;
  return a;
}
static inline kaio_arg kaio_arg_any_ptr(kaio_devptr p) {
  kaio_arg a = kaio_arg_ptr(p, KAIO_TYPE_B8);
  a.kind = KAIO_ARG_ANY_POINTER;
  return a;
}

typedef struct kaio_dim3 {
  uint32_t x, y, z;
} kaio_dim3;

static inline kaio_dim3 kaio_dim3_make(uint32_t x, uint32_t y, uint32_t z) {
  kaio_dim3 d;
  d.x = x;
  d.y = y;
  d.z = z;
  return d;
}

/* Launches `kernel` of `module`: the arguments are checked against its
 * signature (count and types) and the configuration against the device
 * and the kernel (block size, shared memory; the signature's own dynamic
 * shared memory is the minimum) before anything is launched. */
KAIO_API kaio_status kaio_launch(kaio_module module, const char *kernel,
                                 kaio_dim3 grid, kaio_dim3 block,
                                 uint32_t dynamic_shared_bytes,
                                 kaio_stream stream, const kaio_arg *args,
                                 size_t num_args);

/*===- Compiling kaio-dialect kernels (libkaio_compiler.so) ---------------===*/

typedef struct kaio_ptx_st *kaio_ptx;

enum {
  KAIO_COMPILE_LINE_INFO = 1, /* .file/.loc from the source's locations */
  KAIO_COMPILE_FAST_MATH = 2  /* approximate f32 division, contraction */
};

/* Compiles .mlir text (kaio dialect; len 0: NUL-terminated) to PTX for
 * `chip` ("sm_80", "sm_90a"; NULL: the module's kaio.target, else sm_80).
 * `buffer_name` (may be NULL) names the source in diagnostics. On failure
 * (KAIO_ERROR_COMPILE), the message holds every located diagnostic. */
KAIO_API kaio_status kaio_compile(const char *source, size_t len,
                                  const char *chip, const char *buffer_name,
                                  uint32_t flags, kaio_ptx *out);
KAIO_API void kaio_ptx_destroy(kaio_ptx ptx);
/* The PTX text, the chip it is for, and the warnings (valid as long as the
 * kaio_ptx). */
KAIO_API const char *kaio_ptx_text(kaio_ptx ptx);
KAIO_API const char *kaio_ptx_chip(kaio_ptx ptx);
KAIO_API const char *kaio_ptx_diagnostics(kaio_ptx ptx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KAIO_KAIO_H */

/*===- c_api_test.c - KAIO's C API from a C99 program ---------------------===*
 *
 * Built as C99 with -Wall -Wextra -pedantic -Werror and run by lit against
 * the fake CUDA driver (KAIO_CUDA_DRIVER): versions and errors, contexts,
 * memory, streams, argument validation of the op library (nothing launched
 * on bad input), typed launches of a kernel compiled from .mlir through
 * kaio_compile (the fake driver emulates vector_add), and no leaks (the
 * fake driver's counters). Usage: c_api_test VECTOR_ADD.mlir
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "kaio/kaio.h"

#include "FakeCudaCounters.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int checks, failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,  \
              __LINE__, #cond, kaio_last_error_message());                     \
    }                                                                          \
  } while (0)

/* The call fails with `status` and a message containing `needle`. */
#define CHECK_FAILS(call, status, needle)                                      \
  do {                                                                         \
    kaio_status s_ = (call);                                                   \
    ++checks;                                                                  \
    if (s_ != (status) || !strstr(kaio_last_error_message(), (needle))) {     \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: %s: got %s \"%s\", expected %s with \"%s\"\n",   \
              __FILE__, __LINE__, #call, kaio_status_name(s_),                 \
              kaio_last_error_message(), kaio_status_name(status), needle);    \
    }                                                                          \
  } while (0)

#define CHECK_OK(call) CHECK_FAILS(call, KAIO_SUCCESS, "")

static FakeCudaCounters *fakeCounters(void) {
  const char *path = getenv("KAIO_CUDA_DRIVER");
  void *lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  FakeCudaCounters *(*get)(void);
  if (!lib)
    return NULL;
  *(void **)(&get) = dlsym(lib, "fakeCudaCounters");
  return get ? get() : NULL;
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *text;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  if (text)
    text[n] = 0;
  fclose(f);
  return text;
}

static void testVersionAndErrors(void) {
  CHECK(kaio_version() == KAIO_VERSION_MAJOR * 10000 +
                              KAIO_VERSION_MINOR * 100 + KAIO_VERSION_PATCH);
  CHECK(kaio_abi_version() == KAIO_ABI_VERSION);
  CHECK(strcmp(kaio_version_string(), "0.1.0") == 0);
  CHECK(strcmp(kaio_status_name(KAIO_ERROR_INVALID_VALUE),
               "KAIO_ERROR_INVALID_VALUE") == 0);
  CHECK(strcmp(kaio_status_name(1234), "KAIO_ERROR_UNKNOWN") == 0);
  CHECK_FAILS(kaio_context_synchronize(NULL), KAIO_ERROR_INVALID_VALUE,
              "kaio_context_synchronize: ctx: null");
  CHECK_FAILS(kaio_context_create(0, NULL), KAIO_ERROR_INVALID_VALUE,
              "kaio_context_create: out: null");
  CHECK_FAILS(kaio_device_count(NULL), KAIO_ERROR_INVALID_VALUE,
              "count: null");
  CHECK(kaio_last_cuda_error() == 0);
}

static kaio_context testContext(void) {
  int32_t count = -1, version = 0;
  kaio_context ctx = NULL, bad = NULL;
  kaio_device_info info;
  CHECK_OK(kaio_device_count(&count));
  CHECK(count == 2); /* the fake driver's default */
  CHECK_OK(kaio_driver_version(&version));
  CHECK(version > 0);
  CHECK_FAILS(kaio_context_create(-1, &bad), KAIO_ERROR_INVALID_VALUE,
              "device: -1 is negative");
  CHECK(kaio_context_create(7, &bad) != KAIO_SUCCESS);
  CHECK(bad == NULL);
  CHECK(strlen(kaio_last_error_message()) > 0);
  CHECK_OK(kaio_context_create(0, &ctx));
  CHECK_OK(kaio_context_device_info(ctx, &info));
  CHECK(strlen(info.name) > 0);
  CHECK(info.cc_major >= 7);
  CHECK(info.sm_count > 0);
  CHECK(info.driver_version == version);
  printf("device 0: %s, sm_%d%d\n", info.name, info.cc_major, info.cc_minor);
  return ctx;
}

static void testMemoryAndStreams(kaio_context ctx) {
  float host[64], back[64];
  kaio_devptr p = 0, q = 0;
  kaio_stream stream = NULL;
  int i;
  for (i = 0; i < 64; ++i)
    host[i] = (float)i * 0.5f;
  CHECK_FAILS(kaio_malloc(ctx, 0, &p), KAIO_ERROR_INVALID_VALUE,
              "kaio_malloc: bytes: 0");
  CHECK_OK(kaio_malloc(ctx, sizeof host, &p));
  CHECK_OK(kaio_malloc(ctx, sizeof host, &q));
  CHECK(p != 0 && q != 0 && p != q);
  CHECK_OK(kaio_memcpy_htod(ctx, p, host, sizeof host));
  CHECK_OK(kaio_memcpy_dtod(ctx, q, p, sizeof host));
  CHECK_OK(kaio_memcpy_dtoh(ctx, back, q, sizeof back));
  CHECK(memcmp(host, back, sizeof host) == 0);
  CHECK_OK(kaio_memset(ctx, q, 0, sizeof host));
  CHECK_OK(kaio_memcpy_dtoh(ctx, back, q, sizeof back));
  CHECK(back[5] == 0.0f);
  CHECK_FAILS(kaio_memcpy_htod(ctx, p, NULL, 4), KAIO_ERROR_INVALID_VALUE,
              "kaio_memcpy_htod: host pointer: null");
  CHECK_OK(kaio_memcpy_htod(ctx, p, NULL, 0)); /* nothing to copy */
  CHECK_FAILS(kaio_free(ctx, p + 4), KAIO_ERROR_INVALID_VALUE,
              "not an address kaio_malloc returned");
  CHECK_OK(kaio_free(ctx, p));
  CHECK_FAILS(kaio_free(ctx, p), KAIO_ERROR_INVALID_VALUE, "freed already");
  CHECK_OK(kaio_free(ctx, 0));
  /* q stays allocated: kaio_context_destroy frees it. */

  CHECK_OK(kaio_stream_create(ctx, &stream));
  CHECK(stream != NULL);
  CHECK_OK(kaio_stream_synchronize(ctx, stream));
  CHECK_OK(kaio_stream_synchronize(ctx, NULL));
  CHECK_OK(kaio_stream_destroy(ctx, stream));
  CHECK_FAILS(kaio_stream_destroy(ctx, stream), KAIO_ERROR_INVALID_VALUE,
              "not created by kaio_stream_create");
  CHECK_OK(kaio_context_synchronize(ctx));
}

/* FlashAttention: tensors by strides, optional arguments as NULL. */
static void testAttention(kaio_context ctx, FakeCudaCounters *fake) {
  kaio_devptr buf = 0;
  kaio_attention_tensor q, k, v, o, bad;
  kaio_attention_options opts = kaio_attention_defaults();
  kaio_matrix lse;
  int launches;
  const int64_t B = 2, S = 100, H = 4, D = 64, n = B * S * H * D;
  CHECK_OK(kaio_malloc(ctx, (size_t)(4 * n * 2 + B * H * S * 4), &buf));
  q = kaio_attention_bshd(buf, KAIO_BF16, B, S, H, D);
  k = kaio_attention_bshd(buf + 2 * n, KAIO_BF16, B, S, H / 2, D);
  v = kaio_attention_bshd(buf + 3 * n, KAIO_BF16, B, S, H / 2, D);
  o = kaio_attention_bshd(buf + 4 * n, KAIO_BF16, B, S, H, D);
  lse = kaio_vector(buf + 8 * n, KAIO_F32, B * H * S);
  launches = fake->launches;
  CHECK_FAILS(kaio_flash_attention(ctx, &q, NULL, &v, &o, NULL, NULL, NULL,
                                   NULL, NULL),
              KAIO_ERROR_INVALID_VALUE, "kaio_flash_attention: k: null");
  bad = q;
  bad.dim = 80;
  bad.batch_stride = S * H * 80;
  bad.seq_stride = H * 80;
  bad.head_stride = 80;
  CHECK_FAILS(kaio_flash_attention(ctx, &bad, &k, &v, &o, NULL, NULL, NULL,
                                   NULL, NULL),
              KAIO_ERROR_INVALID_VALUE, "o: is 2x100x4x64 but must be "
                                        "2x100x4x80 (q's shape)");
  bad = q;
  bad.reserved = 1;
  CHECK_FAILS(kaio_flash_attention(ctx, &bad, &k, &v, &o, NULL, NULL, NULL,
                                   NULL, NULL),
              KAIO_ERROR_INVALID_VALUE, "q: reserved must be 0");
  opts.flags = 32 | KAIO_ATTENTION_ROWS_192;
  CHECK_FAILS(kaio_flash_attention(ctx, &q, &k, &v, &o, NULL, NULL, NULL,
                                   &opts, NULL),
              KAIO_ERROR_INVALID_VALUE,
              "kaio_flash_attention: options: flags: unknown bits 32");
  opts.flags = KAIO_ATTENTION_ROWS_192 | KAIO_ATTENTION_ROWS_128;
  CHECK_FAILS(kaio_flash_attention(ctx, &q, &k, &v, &o, NULL, NULL, NULL,
                                   &opts, NULL),
              KAIO_ERROR_INVALID_VALUE,
              "KAIO_ATTENTION_ROWS_192 and KAIO_ATTENTION_ROWS_128");
  opts.flags = KAIO_ATTENTION_PING_PONG | KAIO_ATTENTION_INDEPENDENT;
  CHECK_FAILS(kaio_flash_attention(ctx, &q, &k, &v, &o, NULL, NULL, NULL,
                                   &opts, NULL),
              KAIO_ERROR_INVALID_VALUE,
              "KAIO_ATTENTION_PING_PONG and KAIO_ATTENTION_INDEPENDENT");
  opts.flags = KAIO_ATTENTION_PORTABLE;
  opts.causal = 1;
  opts.window_right = 3;
  CHECK_FAILS(kaio_flash_attention(ctx, &q, &k, &v, &o, NULL, NULL, NULL,
                                   &opts, NULL),
              KAIO_ERROR_INVALID_VALUE, "window: a causal mask");
  CHECK(fake->launches == launches);
  opts.window_right = -1;
  CHECK_OK(kaio_flash_attention(ctx, &q, &k, &v, &o, NULL, NULL, &lse, &opts,
                                NULL));
  CHECK(fake->launches == launches + 1);
  CHECK(strcmp(fake->lastKernel, "flash_fwd_bf16_d64") == 0);
  CHECK(fake->lastGrid[0] == 2 && fake->lastGrid[1] == 4 &&
        fake->lastGrid[2] == 2);
  /* Backward: dO, dQ, dK, dV; lse (from the forward) and a workspace. */
  {
    kaio_devptr grads = 0, ws = 0;
    kaio_attention_tensor d_o, dq, dk, dv;
    kaio_matrix work;
    CHECK(kaio_flash_attention_backward_workspace_elements(&q) == B * H * S);
    CHECK(kaio_flash_attention_backward_workspace_elements(NULL) == 0);
    CHECK_OK(kaio_malloc(ctx, (size_t)(4 * n * 2), &grads));
    CHECK_OK(kaio_malloc(ctx, (size_t)(B * H * S * 4), &ws));
    d_o = kaio_attention_bshd(grads, KAIO_BF16, B, S, H, D);
    dq = kaio_attention_bshd(grads + 2 * n, KAIO_BF16, B, S, H, D);
    dk = kaio_attention_bshd(grads + 4 * n, KAIO_BF16, B, S, H / 2, D);
    dv = kaio_attention_bshd(grads + 5 * n, KAIO_BF16, B, S, H / 2, D);
    work = kaio_vector(ws, KAIO_F32, B * H * S);
    launches = fake->launches;
    CHECK_FAILS(kaio_flash_attention_backward(ctx, &q, &k, &v, &o, &d_o, &dq,
                                              &dk, &dv, NULL, NULL, NULL,
                                              &work, &opts, NULL),
                KAIO_ERROR_INVALID_VALUE,
                "kaio_flash_attention_backward: lse: null");
    CHECK_FAILS(kaio_flash_attention_backward(ctx, &q, &k, &v, &o, &d_o, &dq,
                                              &dk, &dq, NULL, NULL, &lse,
                                              &work, &opts, NULL),
                KAIO_ERROR_INVALID_VALUE, "dv: is 2x100x4x64 but must be");
    CHECK(fake->launches == launches);
    CHECK_OK(kaio_flash_attention_backward(ctx, &q, &k, &v, &o, &d_o, &dq,
                                           &dk, &dv, NULL, NULL, &lse, &work,
                                           &opts, NULL));
    CHECK(fake->launches == launches + 3);
    CHECK(strcmp(fake->lastKernel, "flash_bwd_dkdv_bf16_d64") == 0);
    CHECK_OK(kaio_free(ctx, grads));
    CHECK_OK(kaio_free(ctx, ws));
  }
  /* Decode: 2 sequences x 1 token over a contiguous cache of 100 keys. */
  {
    kaio_devptr cache = 0, ws = 0, lens = 0;
    kaio_attention_tensor dq, kc, vc, dout;
    kaio_matrix work, seqlens;
    int64_t need;
    int32_t hostLens[2] = {7, 100};
    CHECK_OK(kaio_malloc(ctx, (size_t)(4 * n * 2), &cache));
    CHECK_OK(kaio_malloc(ctx, 8, &lens));
    CHECK_OK(kaio_memcpy_htod(ctx, lens, hostLens, sizeof hostLens));
    dq = kaio_attention_bshd(buf, KAIO_BF16, B, 1, H, D);
    dout = kaio_attention_bshd(buf + 4 * n, KAIO_BF16, B, 1, H, D);
    kc = kaio_attention_bshd(cache, KAIO_BF16, B, S, H / 2, D);
    vc = kaio_attention_bshd(cache + 2 * n, KAIO_BF16, B, S, H / 2, D);
    seqlens = kaio_vector(lens, KAIO_S32, B);
    need = kaio_flash_decode_workspace_elements(&dq, &kc, NULL, 0);
    CHECK(need > 0);
    CHECK(kaio_flash_decode_workspace_elements(NULL, &kc, NULL, 0) == 0);
    CHECK_OK(kaio_malloc(ctx, (size_t)need * 4, &ws));
    work = kaio_vector(ws, KAIO_F32, need);
    launches = fake->launches;
    CHECK_FAILS(kaio_flash_decode(ctx, &dq, &kc, &vc, NULL, 0, NULL, &dout,
                                  0.0f, 0, &work, NULL),
                KAIO_ERROR_INVALID_VALUE, "kaio_flash_decode: seqlens: null");
    CHECK_FAILS(kaio_flash_decode(ctx, &dq, &kc, &vc, &seqlens, 24,
                                  &seqlens, &dout, 0.0f, 0, &work, NULL),
                KAIO_ERROR_UNSUPPORTED, "page_size: 24 (a multiple of 16)");
    CHECK(fake->launches == launches);
    CHECK_OK(kaio_flash_decode(ctx, &dq, &kc, &vc, NULL, 0, &seqlens, &dout,
                               0.0f, 0, &work, NULL));
    CHECK(fake->launches == launches + 2);
    CHECK(strcmp(fake->lastKernel, "flash_decode_combine_bf16_d64") == 0);
    CHECK_OK(kaio_free(ctx, cache));
    CHECK_OK(kaio_free(ctx, ws));
    CHECK_OK(kaio_free(ctx, lens));
  }
  CHECK_OK(kaio_free(ctx, buf));
}

static void testOps(kaio_context ctx, FakeCudaCounters *fake) {
  enum { R = 5, C = 33 };
  kaio_devptr x = 0, y = 0, w = 0, rstd = 0, a = 0, b = 0, c = 0;
  kaio_matrix mx, my, mw, mrstd, ma, mb, mc, bad;
  static float host_rows[R * C];
  int launches;
  CHECK_OK(kaio_malloc(ctx, R * C * 4, &x));
  CHECK_OK(kaio_malloc(ctx, R * C * 4, &y));
  CHECK_OK(kaio_malloc(ctx, C * 4, &w));
  CHECK_OK(kaio_malloc(ctx, R * 4, &rstd));
  mx = kaio_matrix_row_major(x, KAIO_F32, R, C, 0);
  mx.capacity_bytes = R * C * 4;
  my = kaio_matrix_row_major(y, KAIO_F32, R, C, 0);
  mw = kaio_vector(w, KAIO_F32, C);
  mrstd = kaio_vector(rstd, KAIO_F32, R);
  launches = fake->launches;

  /* Bad input: typed errors naming the argument, nothing launched. */
  CHECK_FAILS(kaio_softmax(NULL, &mx, &my, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "kaio_softmax: ctx: null");
  CHECK_FAILS(kaio_softmax(ctx, &mx, NULL, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "kaio_softmax: out: null");
  bad = my;
  bad.cols = C + 1;
  bad.ld = C + 1;
  CHECK_FAILS(kaio_softmax(ctx, &mx, &bad, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "out");
  bad = my;
  bad.dtype = 9;
  CHECK_FAILS(kaio_softmax(ctx, &mx, &bad, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "out: dtype 9 is not a kaio_dtype");
  bad = mx;
  bad.capacity_bytes = 16;
  CHECK_FAILS(kaio_softmax(ctx, &bad, &my, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "x");
  bad = mw;
  bad.data = 0;
  CHECK_FAILS(kaio_rms_norm(ctx, &mx, &my, &bad, NULL, NULL, NULL, 1e-5f,
                            NULL),
              KAIO_ERROR_INVALID_VALUE, "weight: data is 0");
  CHECK_FAILS(kaio_bias_activation(ctx, &mx, &my, NULL, 17, NULL),
              KAIO_ERROR_INVALID_VALUE, "act: 17 is out of range");
  CHECK_FAILS(kaio_reduce_rows(ctx, &mx, &mrstd, -1, NULL),
              KAIO_ERROR_INVALID_VALUE, "reduction: -1 is out of range");
  CHECK_FAILS(kaio_rope(ctx, &mx, &my, &mrstd, &mw, &mw, 1, 5, NULL),
              KAIO_ERROR_INVALID_VALUE, "layout: 5 is out of range");
  CHECK_FAILS(kaio_rms_norm(ctx, &mx, &my, &mx, NULL, NULL, NULL, 1e-5f,
                            NULL),
              KAIO_ERROR_INVALID_VALUE, "weight");
  /* Host memory where device memory belongs: refused before the launch
     (which would fault on a GPU and lose the context). */
  bad = my;
  bad.data = (kaio_devptr)(uintptr_t)host_rows;
  CHECK_FAILS(kaio_softmax(ctx, &mx, &bad, 1.0f, 0, 0, NULL),
              KAIO_ERROR_INVALID_VALUE, "is not memory the GPU can use");
  CHECK(strstr(kaio_last_error_message(), "softmax: launching kernel") !=
        NULL);
  CHECK(fake->launches == launches);

  /* Valid calls launch the library's kernels. */
  CHECK_OK(kaio_softmax(ctx, &mx, &my, 0.125f, 0, 0, NULL));
  CHECK(fake->launches == launches + 1);
  CHECK(strstr(fake->lastKernel, "softmax") != NULL);
  CHECK_OK(kaio_rms_norm(ctx, &mx, &my, &mw, NULL, NULL, &mrstd, 1e-5f,
                         NULL));
  CHECK(strstr(fake->lastKernel, "rms") != NULL);
  CHECK_OK(kaio_gated_activation(ctx, &mx, &mx, &my, KAIO_ACT_SILU, NULL));
  CHECK_OK(kaio_reduce_rows(ctx, &mx, &mrstd, KAIO_REDUCE_MAX, NULL));
  CHECK(fake->launches == launches + 4);
  /* Column sums (a bias gradient): slices of rows, then in order. */
  CHECK(kaio_reduce_cols_workspace_elements(R, C) == C);
  CHECK_FAILS(kaio_reduce_cols(ctx, &mx, &mw, KAIO_REDUCE_SUM, NULL, NULL),
              KAIO_ERROR_INVALID_VALUE, "kaio_reduce_cols: workspace: null");
  bad = kaio_vector(y, KAIO_F32, R * C);
  CHECK_OK(kaio_reduce_cols(ctx, &mx, &mw, KAIO_REDUCE_SUM, &bad, NULL));
  CHECK(strcmp(fake->lastKernel, "reduce_cols_finish_sum") == 0);
  /* The whole matrix's argmax, into an s32 of the GEMM buffers below. */
  CHECK(kaio_argmax_all_workspace_elements(R) == 2 * R + 1);
  CHECK_FAILS(kaio_argmax_all(ctx, &mx, &mrstd, &bad, NULL),
              KAIO_ERROR_INVALID_VALUE, "argmax_all: out:");
  launches = fake->launches;

  /* GEMM: f16 A and B, f32 C. */
  CHECK_OK(kaio_malloc(ctx, 64 * 32 * 2, &a));
  CHECK_OK(kaio_malloc(ctx, 32 * 48 * 2, &b));
  CHECK_OK(kaio_malloc(ctx, 64 * 48 * 4, &c));
  ma = kaio_matrix_row_major(a, KAIO_F16, 64, 32, 0);
  mb = kaio_matrix_row_major(b, KAIO_F16, 32, 48, 0);
  mc = kaio_matrix_row_major(c, KAIO_F32, 64, 48, 0);
  CHECK_FAILS(kaio_gemm(ctx, &ma, &ma, &mc, 1.0f, 0.0f, NULL),
              KAIO_ERROR_INVALID_VALUE, "b");
  CHECK_FAILS(kaio_gemm(ctx, &ma, &mb, &mc, (float)NAN, 0.0f, NULL),
              KAIO_ERROR_INVALID_VALUE, "alpha");
  launches = fake->launches;
  CHECK_OK(kaio_gemm(ctx, &ma, &mb, &mc, 2.0f, 0.5f, NULL));
  CHECK(fake->launches == launches + 1);
  /* With an epilogue: fused into the product's kernel on the fake 8.0 GPU
     too (one launch). */
  {
    kaio_matrix bias = kaio_vector(y, KAIO_F32, 48);
    kaio_matrix shortBias = kaio_vector(y, KAIO_F32, 47);
    CHECK_OK(kaio_gemm_ex(ctx, &ma, &mb, &mc, 1.0f, 0.0f, &bias,
                          KAIO_ACT_GELU_ERF, 0, NULL));
    CHECK(fake->launches == launches + 2);
    CHECK(strcmp(fake->lastKernel, "mma_gemm_f16_f32_aligned") == 0);
    CHECK_OK(kaio_gemm_ex(ctx, &ma, &mb, &mc, 1.0f, 0.0f, NULL,
                          KAIO_ACT_RELU, 0, NULL));
    CHECK(fake->launches == launches + 3);
    CHECK_FAILS(kaio_gemm_ex(ctx, &ma, &mb, &mc, 1.0f, 0.0f,
                             &shortBias, KAIO_ACT_NONE, 0, NULL),
                KAIO_ERROR_INVALID_VALUE, "gemm: bias: is 1x47");
    CHECK_FAILS(kaio_gemm_ex(ctx, &ma, &mb, &mc, 1.0f, 0.0f, &bias, 17, 0,
                             NULL),
                KAIO_ERROR_INVALID_VALUE, "act");
    CHECK_FAILS(kaio_gemm_ex(ctx, &ma, &mb, &mc, 1.0f, 0.0f, NULL,
                             KAIO_ACT_NONE, 6, NULL),
                KAIO_ERROR_INVALID_VALUE, "kaio_gemm_ex: flags: unknown bits 6");
    CHECK(fake->launches == launches + 3);
    /* This K (32) is too short to split: no workspace is needed, and
       kaio_gemm_split with one is kaio_gemm_ex; a bad workspace is named
       before anything launches. */
    {
      int64_t elements = -1;
      kaio_matrix ws = kaio_vector(y, KAIO_F32, 64);
      kaio_matrix wsOdd = kaio_vector(y + 4, KAIO_F32, 64);
      CHECK_OK(kaio_gemm_workspace_elements(ctx, &ma, &mb, &mc, 1.0f, 0.0f,
                                            NULL, KAIO_ACT_NONE, 0,
                                            &elements));
      CHECK(elements == 0);
      CHECK_FAILS(kaio_gemm_workspace_elements(ctx, &ma, &mb, &mc, 1.0f,
                                               0.0f, NULL, KAIO_ACT_NONE, 0,
                                               NULL),
                  KAIO_ERROR_INVALID_VALUE,
                  "kaio_gemm_workspace_elements: elements: null");
      CHECK_OK(kaio_gemm_split(ctx, &ma, &mb, &mc, 1.0f, 0.0f, NULL,
                               KAIO_ACT_RELU, 0, &ws, NULL));
      CHECK(fake->launches == launches + 4);
      CHECK(strcmp(fake->lastKernel, "mma_gemm_f16_f32_aligned") == 0);
      CHECK_FAILS(kaio_gemm_split(ctx, &ma, &mb, &mc, 1.0f, 0.0f, NULL,
                                  KAIO_ACT_NONE, 0, &wsOdd, NULL),
                  KAIO_ERROR_INVALID_VALUE,
                  "gemm: workspace: must be 16-byte aligned");
      CHECK(fake->launches == launches + 4);
    }
    launches += 1;
    /* The backward: the transposes are column-major views read in place
       (B^T's 48-element lines are 16-byte aligned: the fake 8.0 GPU's
       kernel reads them); an unaligned one is named, nothing launched. */
    {
      kaio_matrix dc16 = kaio_matrix_row_major(a, KAIO_F16, 64, 48, 0);
      kaio_matrix da = kaio_matrix_row_major(c, KAIO_F32, 64, 32, 0);
      kaio_matrix b47 = kaio_matrix_row_major(b, KAIO_F16, 32, 47, 0);
      kaio_matrix dc47 = kaio_matrix_row_major(a, KAIO_F16, 64, 47, 0);
      CHECK_OK(kaio_gemm_backward(ctx, &ma, &mb, &dc16, &da, NULL, 1.0f,
                                  0.0f, NULL));
      CHECK(fake->launches == launches + 4);
      CHECK(strcmp(fake->lastKernel, "mma_gemm_f16_f32_bcol_aligned") == 0);
      CHECK_FAILS(kaio_gemm_backward(ctx, &ma, &b47, &dc47, &da, NULL, 1.0f,
                                     0.0f, NULL),
                  KAIO_ERROR_UNSUPPORTED, "gemm_backward: da = dc b^T");
      CHECK_OK(kaio_gemm_backward(ctx, &ma, &mb, &dc16, NULL, NULL, 1.0f,
                                  0.0f, NULL));
      CHECK(fake->launches == launches + 4);
      launches += 1;
    }
    /* Tuning on the fake 8.0 GPU: the portable kernel's variants for 2 and
       3 blocks an SM (aligned lines), 2 warm-up and 10 timed runs of the
       product each, its epilogue fused. */
    {
      char choice[16] = "?";
      CHECK_OK(kaio_gemm_tune(ctx, &ma, &mb, &mc, 1.0f, 0.0f, &bias,
                              KAIO_ACT_RELU, 0, choice, sizeof choice, NULL));
      CHECK(strcmp(choice, "b2") == 0 || strcmp(choice, "b3") == 0);
      CHECK(fake->launches == launches + 3 + 24);
      CHECK_FAILS(kaio_gemm_tune(ctx, &ma, &mb, &mc, 1.0f, 0.0f, NULL, 99, 0,
                                 choice, sizeof choice, NULL),
                  KAIO_ERROR_INVALID_VALUE, "act");
      launches += 24;
    }
  }
  /* s8 A and B (K-major, 16-byte lines) into an exact s32 C run on the
     fake 8.0 GPU too (the mma.sync kernel); an s32 C takes alpha 1 only. */
  {
    kaio_matrix a8 = kaio_matrix_row_major(a, KAIO_S8, 64, 32, 0);
    kaio_matrix b8 = kaio_matrix_row_major(b, KAIO_S8, 48, 32, 0);
    kaio_matrix c32 = kaio_matrix_row_major(c, KAIO_S32, 64, 48, 0);
    b8.rows = 32;
    b8.cols = 48;
    b8.layout = KAIO_COL_MAJOR;
    const int before = fake->launches;
    CHECK_OK(kaio_gemm(ctx, &a8, &b8, &c32, 1.0f, 1.0f, NULL));
    CHECK(strcmp(fake->lastKernel, "mma_gemm_s8_s32_bcol_aligned") == 0);
    CHECK_FAILS(kaio_gemm(ctx, &a8, &b8, &c32, 2.0f, 0.0f, NULL),
                KAIO_ERROR_UNSUPPORTED, "alpha");
    CHECK(fake->launches == before + 1);
    launches += 1;
  }
  /* FP8 reaches the library as its dtype: a row-major e4m3 B is named (FP8
     tensor cores read K-major operands), an unknown dtype code too. */
  {
    kaio_matrix a8 = kaio_matrix_row_major(a, KAIO_E4M3, 64, 32, 0);
    kaio_matrix b8 = kaio_matrix_row_major(b, KAIO_E4M3, 32, 48, 0);
    kaio_matrix bad = b8;
    CHECK_FAILS(kaio_gemm(ctx, &a8, &b8, &mc, 1.0f, 0.0f, NULL),
                KAIO_ERROR_UNSUPPORTED, "b: an e4m3 B must be column-major");
    bad.dtype = KAIO_E5M2 + 1;
    CHECK_FAILS(kaio_gemm(ctx, &a8, &bad, &mc, 1.0f, 0.0f, NULL),
                KAIO_ERROR_INVALID_VALUE, "is not a kaio_dtype");
    CHECK(fake->launches == launches + 3);
  }
  CHECK(kaio_norm_backward_workspace_elements(R, C) > 0);
  CHECK(kaio_gemv_transposed_workspace_elements(64, 32) > 0);
  CHECK_OK(kaio_free(ctx, a));
  CHECK_OK(kaio_free(ctx, b));
  CHECK_OK(kaio_free(ctx, c));
  CHECK_OK(kaio_free(ctx, x));
  CHECK_OK(kaio_free(ctx, y));
  CHECK_OK(kaio_free(ctx, w));
  CHECK_OK(kaio_free(ctx, rstd));
}

static void testCustomKernel(kaio_context ctx, const char *mlirPath,
                             FakeCudaCounters *fake) {
  enum { N = 1000 };
  char *source = readFile(mlirPath);
  kaio_ptx ptx = NULL;
  kaio_module module = NULL;
  const char *sig = NULL;
  float ha[N], hb[N], hc[N];
  kaio_devptr a = 0, b = 0, c = 0;
  kaio_arg args[4];
  int i, launches;
  CHECK(source != NULL);
  if (!source)
    return;

  /* Compile errors are located. */
  CHECK_FAILS(kaio_compile("module { kaio.bogus }", 0, NULL, "bad.mlir", 0,
                           &ptx),
              KAIO_ERROR_COMPILE, "bad.mlir:1:");
  CHECK(ptx == NULL);
  /* A length ending inside a token: nothing past it is read (MLIR's lexer
   * used to run on to "kaio.threadXYZ"). */
  CHECK_FAILS(kaio_compile("module {\n}\nkaio.threadXYZ",
                           strlen("module {\n}\nkaio.thr"), NULL, "cut.mlir",
                           0, &ptx),
              KAIO_ERROR_COMPILE, "custom op 'kaio.thr' is unknown");
  /* Input MLIR's own parser would crash on: an error, not a crash. */
  CHECK_FAILS(kaio_compile("module attributes {kaio.x = array<index: 1>} {}",
                           0, NULL, "crash.mlir", 0, &ptx),
              KAIO_ERROR_COMPILE, "crash.mlir:1:29: error: dense arrays");
  CHECK_FAILS(kaio_compile(source, 0, NULL, NULL, 64, &ptx),
              KAIO_ERROR_INVALID_VALUE, "flags: unknown bits 64");
  CHECK_FAILS(kaio_compile(source, 0, "sm_12", NULL, 0, &ptx),
              KAIO_ERROR_COMPILE, "sm_12");

  CHECK_OK(kaio_compile(source, 0, "sm_80", "vector_add.mlir", 0, &ptx));
  free(source);
  if (!ptx)
    return;
  CHECK(strcmp(kaio_ptx_chip(ptx), "sm_80") == 0);
  CHECK(strstr(kaio_ptx_text(ptx), ".entry vector_add") != NULL);
  CHECK_OK(kaio_module_load_ptx(ctx, kaio_ptx_text(ptx), 0, "vector_add.ptx",
                                &module));
  kaio_ptx_destroy(ptx);
  if (!module)
    return;
  CHECK(kaio_module_kernel_count(module) == 1);
  CHECK(strcmp(kaio_module_kernel_name(module, 0), "vector_add") == 0);
  CHECK(kaio_module_kernel_name(module, 1) == NULL);
  CHECK_OK(kaio_module_kernel_signature(module, "vector_add", &sig));
  CHECK(sig && strcmp(sig, "vector_add(ptr<const f32>,ptr<const f32>,"
                           "ptr<f32>,u32) maxntid=256") == 0);
  printf("signature: %s\n", sig ? sig : "(none)");
  CHECK_FAILS(kaio_module_kernel_signature(module, "nope", &sig),
              KAIO_ERROR_NOT_FOUND, "no signature for 'nope'");

  for (i = 0; i < N; ++i) {
    ha[i] = (float)i;
    hb[i] = 1.0f;
    hc[i] = -1.0f;
  }
  CHECK_OK(kaio_malloc(ctx, sizeof ha, &a));
  CHECK_OK(kaio_malloc(ctx, sizeof hb, &b));
  CHECK_OK(kaio_malloc(ctx, sizeof hc, &c));
  CHECK_OK(kaio_memcpy_htod(ctx, a, ha, sizeof ha));
  CHECK_OK(kaio_memcpy_htod(ctx, b, hb, sizeof hb));
  CHECK_OK(kaio_memcpy_htod(ctx, c, hc, sizeof hc));

  args[0] = kaio_arg_const_ptr(a, KAIO_TYPE_F32);
  args[1] = kaio_arg_any_ptr(b);
  args[2] = kaio_arg_ptr(c, KAIO_TYPE_F32);
  args[3] = kaio_arg_u32(N);
  launches = fake->launches;
  /* Wrong count, type, kind, configuration: nothing launched. */
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, args, 3),
              KAIO_ERROR_ARGUMENT_MISMATCH, "vector_add");
  args[3] = kaio_arg_s32(N);
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, args, 4),
              KAIO_ERROR_ARGUMENT_MISMATCH, "u32");
  args[3] = kaio_arg_u32(N);
  args[2] = kaio_arg_ptr(c, KAIO_TYPE_F16);
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, args, 4),
              KAIO_ERROR_ARGUMENT_MISMATCH, "f16");
  args[2] = kaio_arg_ptr(c, KAIO_TYPE_F32);
  args[2].kind = 42;
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, args, 4),
              KAIO_ERROR_INVALID_VALUE, "args[2]: kind 42");
  args[2] = kaio_arg_ptr(c, KAIO_TYPE_F32);
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(4096, 1, 1), 0, NULL, args, 4),
              KAIO_ERROR_INVALID_CONFIG, "block");
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, NULL, 4),
              KAIO_ERROR_INVALID_VALUE, "kaio_launch: args: null");
  args[1] = kaio_arg_any_ptr((kaio_devptr)(uintptr_t)hb);
  CHECK_FAILS(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                          kaio_dim3_make(256, 1, 1), 0, NULL, args, 4),
              KAIO_ERROR_INVALID_VALUE,
              "argument 2 (ptr<?>): 0x");
  args[1] = kaio_arg_any_ptr(b);
  CHECK(kaio_launch(module, "missing", kaio_dim3_make(1, 1, 1),
                    kaio_dim3_make(32, 1, 1), 0, NULL, args,
                    4) != KAIO_SUCCESS);
  CHECK(strstr(kaio_last_error_message(), "missing") != NULL);
  CHECK(fake->launches == launches);

  /* A good launch, emulated by the fake driver. */
  CHECK_OK(kaio_launch(module, "vector_add", kaio_dim3_make(4, 1, 1),
                       kaio_dim3_make(256, 1, 1), 0, NULL, args, 4));
  CHECK(fake->launches == launches + 1);
  CHECK_OK(kaio_memcpy_dtoh(ctx, hc, c, sizeof hc));
  for (i = 0; i < N; ++i)
    if (hc[i] != (float)i + 1.0f)
      break;
  CHECK(i == N);
  printf("vector_add: c[999] = %g\n", (double)hc[N - 1]);
  CHECK_OK(kaio_free(ctx, a));
  CHECK_OK(kaio_free(ctx, b));
  CHECK_OK(kaio_free(ctx, c));
  kaio_module_destroy(module);
}

int main(int argc, char **argv) {
  FakeCudaCounters *fake;
  kaio_context ctx;
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_test VECTOR_ADD.mlir\n");
    return 2;
  }
  testVersionAndErrors();
  ctx = testContext();
  fake = fakeCounters();
  CHECK(fake != NULL);
  if (ctx && fake) {
    testMemoryAndStreams(ctx);
    testOps(ctx, fake);
    testAttention(ctx, fake);
    testCustomKernel(ctx, argv[1], fake);
  }
  kaio_context_destroy(ctx);
  kaio_context_destroy(NULL);
  if (fake) {
    /* Everything freed: buffers, streams, modules, the primary context. */
    CHECK(fake->liveAllocations == 0);
    CHECK(fake->liveStreams == 0);
    CHECK(fake->liveModules == 0);
    CHECK(fake->primaryContextRefs[0] == 0);
  }
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

/*===- c_api_faults.c - the C API when CUDA driver calls fail -------------===*
 *
 * A workflow through the C API (context, memory, a stream, an op of the
 * library, a PTX module and a typed launch, read-back) runs once per
 * fallible driver call it makes, with the fake driver failing exactly that
 * call. Every failure must come back as a non-success status whose message
 * names the CUDA error; after kaio_context_destroy nothing may be left
 * allocated; the run past the last call must succeed. C99, run by lit
 * (c-api.test) against the fake driver.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "kaio/kaio.h"

#include "FakeCudaCounters.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kPtx =
    "// kaio.kernel vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)\n"
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry vector_add(.param .u64 a, .param .u64 b, .param .u64 c,"
    " .param .u32 n)\n{\n    ret;\n}\n";

static FakeCudaCounters *counters;

/* The workflow; `faults` gets the fake's fault count when the work is done
 * and only cleanup (which cannot report) is left. `library`: with the op
 * library's softmax (loading the library, whose module is most of a run's
 * time). */
static kaio_status workflow(int *faults, int library) {
  enum { N = 256 };
  float host[N];
  kaio_context ctx = NULL;
  kaio_stream stream = NULL;
  kaio_module module = NULL;
  kaio_devptr a = 0, b = 0;
  kaio_matrix x, y;
  kaio_arg args[4];
  kaio_status s;
  int i;
  for (i = 0; i < N; ++i)
    host[i] = (float)i;
  if ((s = kaio_context_create(0, &ctx)))
    goto done;
  if ((s = kaio_malloc(ctx, sizeof host, &a)) ||
      (s = kaio_malloc(ctx, sizeof host, &b)) ||
      (s = kaio_memcpy_htod(ctx, a, host, sizeof host)) ||
      (s = kaio_memset(ctx, b, 0, sizeof host)) ||
      (s = kaio_stream_create(ctx, &stream)))
    goto done;
  x = kaio_matrix_row_major(a, KAIO_F32, 4, 64, 0);
  y = kaio_matrix_row_major(b, KAIO_F32, 4, 64, 0);
  if ((library && (s = kaio_softmax(ctx, &x, &y, 1.0f, 0, 0, stream))) ||
      (s = kaio_module_load_ptx(ctx, kPtx, 0, "faults.ptx", &module)))
    goto done;
  args[0] = kaio_arg_const_ptr(a, KAIO_TYPE_F32);
  args[1] = kaio_arg_const_ptr(a, KAIO_TYPE_F32);
  args[2] = kaio_arg_ptr(b, KAIO_TYPE_F32);
  args[3] = kaio_arg_u32(N);
  if ((s = kaio_launch(module, "vector_add", kaio_dim3_make(1, 1, 1),
                       kaio_dim3_make(N, 1, 1), 0, stream, args, 4)) ||
      (s = kaio_stream_synchronize(ctx, stream)) ||
      (s = kaio_memcpy_dtoh(ctx, host, b, sizeof host)) ||
      (s = kaio_stream_destroy(ctx, stream)))
    goto done;
  stream = NULL;
  if (host[N - 1] != 2.0f * (N - 1)) {
    fprintf(stderr, "wrong result %g\n", (double)host[N - 1]);
    s = KAIO_ERROR_INTERNAL;
  }
done:
  *faults = counters->faultsInjected;
  kaio_module_destroy(module);
  if (stream && ctx)
    kaio_stream_destroy(ctx, stream);
  kaio_context_destroy(ctx); /* frees a and b */
  return s;
}

int main(void) {
  const char *path = getenv("KAIO_CUDA_DRIVER");
  void *lib = path ? dlopen(path, RTLD_NOW) : NULL;
  FakeCudaCounters *(*get)(void);
  void (*inject)(int, int);
  /* Two codes through the whole workflow; the other eight (those the
   * runtime's FaultInjectionTest sweeps) without the op library, whose
   * load makes a workflow about 100 times longer. */
  static const struct {
    int code;
    const char *name;
    int library;
  } codes[] = {{2, "CUDA_ERROR_OUT_OF_MEMORY", 1},
               {999, "CUDA_ERROR_UNKNOWN", 1},
               {1, "CUDA_ERROR_INVALID_VALUE", 0},
               {700, "CUDA_ERROR_ILLEGAL_ADDRESS", 0},
               {218, "CUDA_ERROR_INVALID_PTX", 0},
               {200, "CUDA_ERROR_INVALID_IMAGE", 0},
               {719, "CUDA_ERROR_LAUNCH_FAILED", 0},
               {201, "CUDA_ERROR_INVALID_CONTEXT", 0},
               {500, "CUDA_ERROR_NOT_FOUND", 0},
               {100, "CUDA_ERROR_NO_DEVICE", 0}};
  const int ncodes = (int)(sizeof codes / sizeof codes[0]);
  int failures = 0, c;
  if (!lib) {
    fprintf(stderr, "KAIO_CUDA_DRIVER must name the fake driver\n");
    return 2;
  }
  *(void **)(&get) = dlsym(lib, "fakeCudaCounters");
  *(void **)(&inject) = dlsym(lib, "fakeCudaInjectFault");
  if (!get || !inject)
    return 2;
  counters = get();
  for (c = 0; c < ncodes; ++c) {
    int n, calls = 0, reported = 0, cleanup = 0, recovered = 0;
    for (n = 1; n < 100000; ++n) {
      int before = counters->faultsInjected, atCleanup = 0;
      kaio_status s;
      inject(n, codes[c].code);
      s = workflow(&atCleanup, codes[c].library);
      inject(0, 0);
      if (counters->liveAllocations || counters->liveStreams ||
          counters->liveModules || counters->primaryContextRefs[0]) {
        fprintf(stderr, "call %d (%s): left allocations %d streams %d "
                        "modules %d context refs %d\n",
                n, counters->lastFault, counters->liveAllocations,
                counters->liveStreams, counters->liveModules,
                counters->primaryContextRefs[0]);
        ++failures;
      }
      if (counters->faultsInjected == before) { /* past the last call */
        if (s) {
          fprintf(stderr, "healthy run failed: %s\n",
                  kaio_last_error_message());
          ++failures;
        }
        break;
      }
      ++calls;
      if (counters->faultsInjected > atCleanup) {
        ++cleanup; /* a release failed: nothing to report, no leak */
        continue;
      }
      if (!s) {
        /* Recovered: the op library falls back from a cubin the driver
         * refuses to its PTX. The result was checked: it is right. */
        ++recovered;
        continue;
      }
      if (!strstr(kaio_last_error_message(), codes[c].name)) {
        fprintf(stderr, "call %d (%s) failing with %s: status %s, \"%s\"\n",
                n, counters->lastFault, codes[c].name, kaio_status_name(s),
                kaio_last_error_message());
        ++failures;
      } else {
        ++reported;
      }
    }
    printf("%s: %d driver calls failed one at a time: %d reported, %d "
           "recovered, %d in cleanup\n",
           codes[c].name, calls, reported, recovered, cleanup);
    if (calls < (codes[c].library ? 20 : 12))
      ++failures;
  }
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}

/*===- FakeCudaCounters.h - what the fake CUDA driver counts ---*- C -*-===*
 *
 * The fake driver (FakeCudaDriver.cpp) exports fakeCudaCounters() returning
 * this struct, and fakeCudaInjectFault(n, code). Plain C, so that the C API
 * test program reads it as the C++ tests do.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KAIO_TEST_UNITTESTS_RUNTIME_FAKECUDACOUNTERS_H
#define KAIO_TEST_UNITTESTS_RUNTIME_FAKECUDACOUNTERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* test/Python/test_kaio.py mirrors this layout with ctypes: add fields at
   the end. */
typedef struct FakeCudaCounters {
  int liveAllocations;
  int liveHostAllocations;
  int liveStreams;
  int liveEvents;
  int liveModules;
  int primaryContextRefs[2];
  int jitCompiles;  /* PTX compiled by cuModuleLoadData(Ex). */
  int linkCompiles; /* PTX compiled by cuLinkAddData. */
  int launches;
  unsigned lastGrid[3], lastBlock[3], lastSharedBytes;
  int lastLaunchDevice;
  char lastKernel[64]; /* Name of the last launched kernel. */
  int faultsInjected;  /* Calls failed by fakeCudaInjectFault. */
  char lastFault[64];  /* The driver call that failed last. */
  int tensorMapsEncoded; /* cuTensorMapEncodeTiled calls that succeeded. */
  /* The 128-byte first parameter of the last launch of a kernel named
     "tmap_probe" (a tensor map passed by value). */
  unsigned char lastTensorMapParam[128];
  unsigned lastCluster[3]; /* Blocks per cluster of the last launch. */
  /* The launch before the last: its kernel and grid. */
  char prevKernel[64];
  unsigned prevGrid[3];
  /* The last GEMM launch's (hopper_gemm_*, mma_gemm_*) K and its K per
     split (k tiles for hopper_gemm, elements for mma_gemm). */
  unsigned lastGemmK, lastGemmKPerSplit;
  /* The box of the last tensor map encoded (unused dimensions 0). */
  unsigned lastTensorMapBox[5];
  /* cuPointerGetAttributes calls (the runtime's pointer checks). */
  int pointerQueries;
} FakeCudaCounters;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KAIO_TEST_UNITTESTS_RUNTIME_FAKECUDACOUNTERS_H */

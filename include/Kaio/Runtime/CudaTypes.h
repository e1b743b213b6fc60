//===- CudaTypes.h - CUDA driver handle types -------------------*- C++ -*-===//
//
// The few driver handle types that appear in the public runtime API (for
// interop with other CUDA libraries). They are spelled exactly as in cuda.h so
// that a translation unit may include both: redeclaring an identical typedef
// is legal C++. We do not include cuda.h because KAIO must build on machines
// without the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_CUDATYPES_H
#define KAIO_RUNTIME_CUDATYPES_H

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#endif // KAIO_RUNTIME_CUDATYPES_H

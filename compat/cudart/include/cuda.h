/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the version macro of the CUDA toolkit this
 * runtime stands in for, and the driver-API handle types that alias the
 * runtime's.  The driver API itself (cu* functions, libcuda.so) is not
 * provided: there is no driver on the CPU. */
#ifndef FDNN_COMPAT_CUDA_H
#define FDNN_COMPAT_CUDA_H

#include <stddef.h>

/* CUDA 12.2, as CUDART_VERSION in cuda_runtime_api.h. */
#define CUDA_VERSION 12020

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#endif /* FDNN_COMPAT_CUDA_H */

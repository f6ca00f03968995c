/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: CUDA's function and variable qualifiers as a
 * host compiler sees them.
 *
 * CUDA's cuda_runtime.h makes these names mean nothing (or the matching
 * GNU attribute) when the file is compiled by gcc, g++ or clang rather than
 * nvcc, so that helpers written once for host and device -- an FP16
 * emulation file of `__host__ __device__` functions, a struct with
 * `__align__(16)` -- compile in host code too.  This header does the same:
 *
 *   __host__ __device__ __global__ __shared__ __constant__ __managed__
 *   __grid_constant__ __device_builtin__ __cudart_builtin__     nothing
 *   __forceinline__      an inline function the compiler must inline
 *   __align__(n)         GNU aligned(n) attribute; __builtin_align__ alike
 *   __thread__           thread-local storage
 *   __no_return__        GNU noreturn attribute
 *   __launch_bounds__(..), __maxnreg__(n), __cluster_dims__(..)
 *                        nothing (kernel tuning hints; NVIDIA's header leaves
 *                        __launch_bounds__ to nvcc, we define it empty so a
 *                        shared file that spells it still compiles)
 *   CUDARTAPI, CUDART_CB calling-convention markers: nothing on Linux
 *
 * __CUDACC__ and __CUDA_ARCH__ stay undefined: code that tests them takes
 * its host branch, as it does with NVIDIA's headers under a host compiler.
 * A name the program already defined (e.g. -D__device__=) is kept. */
#ifndef FDNN_COMPAT_HOST_DEFINES_H
#define FDNN_COMPAT_HOST_DEFINES_H

#if !defined(__GNUC__)
#error "FreeDNN's CUDA headers need a GNU-compatible compiler (gcc or clang)"
#endif

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef __device_builtin__
#define __device_builtin__
#endif
#ifndef __cudart_builtin__
#define __cudart_builtin__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __maxnreg__
#define __maxnreg__(n)
#endif
#ifndef __cluster_dims__
#define __cluster_dims__(...)
#endif

/* __inline__ is the GNU spelling of inline that also works in strict C89. */
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __builtin_align__
#define __builtin_align__(n) __align__(n)
#endif
#ifndef __thread__
#define __thread__ __thread
#endif
#ifndef __no_return__
#define __no_return__ __attribute__((noreturn))
#endif

#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDART_CB
#define CUDART_CB
#endif

#endif /* FDNN_COMPAT_HOST_DEFINES_H */

/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: CUDA's complex number types, which cuBLAS's
 * header names.  cuFloatComplex is a float2 (real part in x, imaginary in y),
 * cuDoubleComplex a double2; the helpers below are the common ones. */
#ifndef FDNN_COMPAT_CUCOMPLEX_H
#define FDNN_COMPAT_CUCOMPLEX_H

#include "host_defines.h"
#include "vector_types.h"

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static __inline__ __host__ __device__ float cuCrealf(cuFloatComplex z) { return z.x; }
static __inline__ __host__ __device__ float cuCimagf(cuFloatComplex z) { return z.y; }
static __inline__ __host__ __device__ double cuCreal(cuDoubleComplex z) { return z.x; }
static __inline__ __host__ __device__ double cuCimag(cuDoubleComplex z) { return z.y; }

static __inline__ __host__ __device__ cuFloatComplex
make_cuFloatComplex(float re, float im)
{
    cuFloatComplex z;
    z.x = re;
    z.y = im;
    return z;
}

static __inline__ __host__ __device__ cuDoubleComplex
make_cuDoubleComplex(double re, double im)
{
    cuDoubleComplex z;
    z.x = re;
    z.y = im;
    return z;
}

static __inline__ __host__ __device__ cuComplex
make_cuComplex(float re, float im)
{
    return make_cuFloatComplex(re, im);
}

#endif /* FDNN_COMPAT_CUCOMPLEX_H */

/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the make_<type><n>(...) constructors of CUDA's
 * vector types (make_float2(x, y), make_int4(x, y, z, w), ...), one for each
 * type of vector_types.h, static inline as in CUDA, so that host code and
 * `__host__ __device__` helpers that build vectors compile and run on the
 * host.  cuda_runtime.h includes this header, as CUDA's does. */
#ifndef FDNN_COMPAT_VECTOR_FUNCTIONS_H
#define FDNN_COMPAT_VECTOR_FUNCTIONS_H

#include "host_defines.h"
#include "vector_types.h"

/* make_B1 .. make_B4 for the vector types B1 .. B4 of element type T. */
#define FDNN_MAKE_VEC(B, T)                                                              \
    static __inline__ __host__ __device__ B##1 make_##B##1(T x)                           \
    {                                                                                    \
        B##1 t;                                                                          \
        t.x = x;                                                                         \
        return t;                                                                        \
    }                                                                                    \
    static __inline__ __host__ __device__ B##2 make_##B##2(T x, T y)                      \
    {                                                                                    \
        B##2 t;                                                                          \
        t.x = x;                                                                         \
        t.y = y;                                                                         \
        return t;                                                                        \
    }                                                                                    \
    static __inline__ __host__ __device__ B##3 make_##B##3(T x, T y, T z)                 \
    {                                                                                    \
        B##3 t;                                                                          \
        t.x = x;                                                                         \
        t.y = y;                                                                         \
        t.z = z;                                                                         \
        return t;                                                                        \
    }                                                                                    \
    static __inline__ __host__ __device__ B##4 make_##B##4(T x, T y, T z, T w)            \
    {                                                                                    \
        B##4 t;                                                                          \
        t.x = x;                                                                         \
        t.y = y;                                                                         \
        t.z = z;                                                                         \
        t.w = w;                                                                         \
        return t;                                                                        \
    }

FDNN_MAKE_VEC(char, signed char)
FDNN_MAKE_VEC(uchar, unsigned char)
FDNN_MAKE_VEC(short, short)
FDNN_MAKE_VEC(ushort, unsigned short)
FDNN_MAKE_VEC(int, int)
FDNN_MAKE_VEC(uint, unsigned int)
FDNN_MAKE_VEC(long, long int)
FDNN_MAKE_VEC(ulong, unsigned long int)
FDNN_MAKE_VEC(longlong, long long int)
FDNN_MAKE_VEC(ulonglong, unsigned long long int)
FDNN_MAKE_VEC(float, float)
FDNN_MAKE_VEC(double, double)

#undef FDNN_MAKE_VEC

#endif /* FDNN_COMPAT_VECTOR_FUNCTIONS_H */

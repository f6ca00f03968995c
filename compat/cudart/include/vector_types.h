/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the small vector types of CUDA that host code
 * names (float2 for complex data, int2/int4 for packed indices, dim3 for
 * launch shapes).  Alignments are CUDA's, so arrays of them have the same
 * layout as on a CUDA system.  Only the common ones are provided. */
#ifndef FDNN_COMPAT_VECTOR_TYPES_H
#define FDNN_COMPAT_VECTOR_TYPES_H

#if defined(__GNUC__)
#define FDNN_CUDA_ALIGN(n) __attribute__((aligned(n)))
#else
#define FDNN_CUDA_ALIGN(n)
#endif

typedef struct char4 { signed char x, y, z, w; } FDNN_CUDA_ALIGN(4) char4;
typedef struct uchar4 { unsigned char x, y, z, w; } FDNN_CUDA_ALIGN(4) uchar4;
typedef struct int2 { int x, y; } FDNN_CUDA_ALIGN(8) int2;
typedef struct int3 { int x, y, z; } int3;
typedef struct int4 { int x, y, z, w; } FDNN_CUDA_ALIGN(16) int4;
typedef struct uint2 { unsigned int x, y; } FDNN_CUDA_ALIGN(8) uint2;
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef struct uint4 { unsigned int x, y, z, w; } FDNN_CUDA_ALIGN(16) uint4;
typedef struct float2 { float x, y; } FDNN_CUDA_ALIGN(8) float2;
typedef struct float3 { float x, y, z; } float3;
typedef struct float4 { float x, y, z, w; } FDNN_CUDA_ALIGN(16) float4;
typedef struct double2 { double x, y; } FDNN_CUDA_ALIGN(16) double2;

/* A launch shape.  C++ gets CUDA's defaulting constructor (unset sizes are
 * 1); kernels cannot be launched on this runtime, but host code that computes
 * and prints shapes compiles. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
#endif
};
typedef struct dim3 dim3;

#endif /* FDNN_COMPAT_VECTOR_TYPES_H */

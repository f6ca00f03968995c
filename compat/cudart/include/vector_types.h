/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: CUDA's small vector types (char1 .. double4)
 * and dim3, as host code names them (float2 for complex data, int2/int4 for
 * packed indices, float4 for 16-byte loads, dim3 for launch shapes).
 *
 * Members are x, y, z, w.  Alignments are CUDA's on 64-bit Linux, so that
 * arrays and structs holding them have the layout they have on a CUDA system:
 * 2 bytes: char2 uchar2;  4: char4 uchar4 short2 ushort2;
 * 8: short4 ushort4 int2 uint2 float2;
 * 16: int4 uint4 float4 long2 ulong2 long4 ulong4 longlong2 ulonglong2
 *     longlong4 ulonglong4 double2 double4;
 * every 1- and 3-element type: the alignment of its element.
 * tests/clients/host_device_helpers.c checks each size and alignment.
 * The make_* constructors are in vector_functions.h. */
#ifndef FDNN_COMPAT_VECTOR_TYPES_H
#define FDNN_COMPAT_VECTOR_TYPES_H

#include "host_defines.h"

/* A vector type: struct NAME { members } aligned to ALIGN (0 = natural). */
#define FDNN_VEC1(name, T) typedef struct name { T x; } name;
#define FDNN_VEC2(name, T, a) typedef struct __align__(a) name { T x, y; } name;
#define FDNN_VEC3(name, T) typedef struct name { T x, y, z; } name;
#define FDNN_VEC4(name, T, a) typedef struct __align__(a) name { T x, y, z, w; } name;

FDNN_VEC1(char1, signed char)
FDNN_VEC2(char2, signed char, 2)
FDNN_VEC3(char3, signed char)
FDNN_VEC4(char4, signed char, 4)
FDNN_VEC1(uchar1, unsigned char)
FDNN_VEC2(uchar2, unsigned char, 2)
FDNN_VEC3(uchar3, unsigned char)
FDNN_VEC4(uchar4, unsigned char, 4)

FDNN_VEC1(short1, short)
FDNN_VEC2(short2, short, 4)
FDNN_VEC3(short3, short)
FDNN_VEC4(short4, short, 8)
FDNN_VEC1(ushort1, unsigned short)
FDNN_VEC2(ushort2, unsigned short, 4)
FDNN_VEC3(ushort3, unsigned short)
FDNN_VEC4(ushort4, unsigned short, 8)

FDNN_VEC1(int1, int)
FDNN_VEC2(int2, int, 8)
FDNN_VEC3(int3, int)
FDNN_VEC4(int4, int, 16)
FDNN_VEC1(uint1, unsigned int)
FDNN_VEC2(uint2, unsigned int, 8)
FDNN_VEC3(uint3, unsigned int)
FDNN_VEC4(uint4, unsigned int, 16)

FDNN_VEC1(long1, long int)
FDNN_VEC2(long2, long int, 2 * sizeof(long int))
FDNN_VEC3(long3, long int)
FDNN_VEC4(long4, long int, 16)
FDNN_VEC1(ulong1, unsigned long int)
FDNN_VEC2(ulong2, unsigned long int, 2 * sizeof(unsigned long int))
FDNN_VEC3(ulong3, unsigned long int)
FDNN_VEC4(ulong4, unsigned long int, 16)

FDNN_VEC1(longlong1, long long int)
FDNN_VEC2(longlong2, long long int, 16)
FDNN_VEC3(longlong3, long long int)
FDNN_VEC4(longlong4, long long int, 16)
FDNN_VEC1(ulonglong1, unsigned long long int)
FDNN_VEC2(ulonglong2, unsigned long long int, 16)
FDNN_VEC3(ulonglong3, unsigned long long int)
FDNN_VEC4(ulonglong4, unsigned long long int, 16)

FDNN_VEC1(float1, float)
FDNN_VEC2(float2, float, 8)
FDNN_VEC3(float3, float)
FDNN_VEC4(float4, float, 16)
FDNN_VEC1(double1, double)
FDNN_VEC2(double2, double, 16)
FDNN_VEC3(double3, double)
FDNN_VEC4(double4, double, 16)

#undef FDNN_VEC1
#undef FDNN_VEC2
#undef FDNN_VEC3
#undef FDNN_VEC4

/* A launch shape.  C++ gets CUDA's constructor (unset sizes are 1) and the
 * conversions to and from uint3; C code sets the three members.  Kernels
 * cannot be launched on this runtime, but host code that computes and prints
 * shapes compiles. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
#if __cplusplus >= 201103L
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3(void) const { return uint3{x, y, z}; }
#else
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    operator uint3(void) const
    {
        uint3 t;
        t.x = x;
        t.y = y;
        t.z = z;
        return t;
    }
#endif
#endif
};
typedef struct dim3 dim3;

#endif /* FDNN_COMPAT_VECTOR_TYPES_H */

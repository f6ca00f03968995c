/* SPDX-License-Identifier: Apache-2.0
 * A host program that shares helper code with device code, as CUDA programs
 * do: a small FP16 emulation written once as `__host__ __device__` functions,
 * `__forceinline__` helpers, an `__align__(16)` struct, a `__global__` kernel
 * with `__launch_bounds__` (called here as a plain function), the vector
 * types with their make_* constructors, dim3, CUDART_CB host callbacks and
 * the special streams cudaStreamLegacy / cudaStreamPerThread.
 *
 * Nothing here defines __host__ or __device__: <cuda_runtime.h> must give
 * them their host meaning.  test_client_build.sh compiles it with gcc (C99),
 * g++ (C++11) and clang (C11), -Wall -Wextra -Werror, and runs each build;
 * it prints "Test passed!" (exit 0) or names the failed check (exit 1).
 * The expected sizes and alignments are those of CUDA's vector types on
 * 64-bit Linux. */
#include <builtin_types.h>
#include <cuda_runtime.h>
#include <vector_functions.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define require(cond)                                                                            \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define checkCUDA(expr)                                                                          \
    do {                                                                                         \
        cudaError_t e_ = (expr);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorName(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

/* ---- helpers shared with device code ------------------------------------------------ */

/* binary16 from float by truncation of the mantissa (normal range only), and
 * back: the kind of emulation file that host and device code both include. */
__host__ __device__ static unsigned short
emu_float_to_half(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof(u));
    unsigned int sign = (u >> 16) & 0x8000u;
    int exp = (int)((u >> 23) & 0xffu) - 127 + 15;
    unsigned int mant = (u >> 13) & 0x3ffu;
    if (exp <= 0)
        return (unsigned short)sign;
    if (exp >= 31)
        return (unsigned short)(sign | 0x7c00u);
    return (unsigned short)(sign | ((unsigned int)exp << 10) | mant);
}

__host__ __device__ static float
emu_half_to_float(unsigned short h)
{
    unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
    unsigned int exp = ((unsigned int)h >> 10) & 0x1fu;
    unsigned int mant = (unsigned int)h & 0x3ffu;
    unsigned int u = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static __forceinline__ __device__ __host__ float2
cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* A parameter block shared with a kernel, aligned for vector loads. */
typedef struct __align__(16) {
    float scale;
    int count;
} params_t;

static __device__ __constant__ float kBias = 0.5f;
static __shared__ float shared_scratch[4];

/* A kernel as a .cu file declares it; on the host it is a plain function. */
__global__ void __launch_bounds__(256, 2)
scale_kernel(float *out, const float *in, params_t p)
{
    for (int i = 0; i < p.count; i++)
        out[i] = in[i] * p.scale + kBias;
}

static int callback_calls;

static void CUDART_CB
on_host(void *user)
{
    (void)user;
    callback_calls++;
}

static void CUDART_CB
on_stream(cudaStream_t stream, cudaError_t status, void *user)
{
    (void)stream;
    (void)user;
    if (status == cudaSuccess)
        callback_calls++;
}

#define SIZE_ALIGN(T, size, align) require(sizeof(T) == (size) && __alignof__(T) == (align))

int
main(void)
{
    /* Every vector type: CUDA's size and alignment. */
    SIZE_ALIGN(char1, 1, 1); SIZE_ALIGN(char2, 2, 2); SIZE_ALIGN(char3, 3, 1); SIZE_ALIGN(char4, 4, 4);
    SIZE_ALIGN(uchar1, 1, 1); SIZE_ALIGN(uchar2, 2, 2); SIZE_ALIGN(uchar3, 3, 1); SIZE_ALIGN(uchar4, 4, 4);
    SIZE_ALIGN(short1, 2, 2); SIZE_ALIGN(short2, 4, 4); SIZE_ALIGN(short3, 6, 2); SIZE_ALIGN(short4, 8, 8);
    SIZE_ALIGN(ushort1, 2, 2); SIZE_ALIGN(ushort2, 4, 4); SIZE_ALIGN(ushort3, 6, 2); SIZE_ALIGN(ushort4, 8, 8);
    SIZE_ALIGN(int1, 4, 4); SIZE_ALIGN(int2, 8, 8); SIZE_ALIGN(int3, 12, 4); SIZE_ALIGN(int4, 16, 16);
    SIZE_ALIGN(uint1, 4, 4); SIZE_ALIGN(uint2, 8, 8); SIZE_ALIGN(uint3, 12, 4); SIZE_ALIGN(uint4, 16, 16);
    SIZE_ALIGN(long1, 8, 8); SIZE_ALIGN(long2, 16, 16); SIZE_ALIGN(long3, 24, 8); SIZE_ALIGN(long4, 32, 16);
    SIZE_ALIGN(ulong1, 8, 8); SIZE_ALIGN(ulong2, 16, 16); SIZE_ALIGN(ulong3, 24, 8); SIZE_ALIGN(ulong4, 32, 16);
    SIZE_ALIGN(longlong1, 8, 8); SIZE_ALIGN(longlong2, 16, 16); SIZE_ALIGN(longlong3, 24, 8);
    SIZE_ALIGN(longlong4, 32, 16); SIZE_ALIGN(ulonglong1, 8, 8); SIZE_ALIGN(ulonglong2, 16, 16);
    SIZE_ALIGN(ulonglong3, 24, 8); SIZE_ALIGN(ulonglong4, 32, 16);
    SIZE_ALIGN(float1, 4, 4); SIZE_ALIGN(float2, 8, 8); SIZE_ALIGN(float3, 12, 4); SIZE_ALIGN(float4, 16, 16);
    SIZE_ALIGN(double1, 8, 8); SIZE_ALIGN(double2, 16, 16); SIZE_ALIGN(double3, 24, 8);
    SIZE_ALIGN(double4, 32, 16);
    SIZE_ALIGN(dim3, 12, 4);
    SIZE_ALIGN(params_t, 16, 16);

    /* Constructors. */
    float4 f4 = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    int2 i2 = make_int2(-3, 7);
    uchar4 u4 = make_uchar4(1, 2, 3, 255);
    double2 d2 = make_double2(0.25, -8.0);
    longlong3 l3 = make_longlong3(1LL << 40, -1, 2);
    ushort1 s1 = make_ushort1(65535);
    require(f4.x == 1.0f && f4.y == 2.0f && f4.z == 3.0f && f4.w == 4.0f);
    require(i2.x == -3 && i2.y == 7);
    require(u4.w == 255 && u4.x == 1);
    require(d2.x == 0.25 && d2.y == -8.0);
    require(l3.x == (1LL << 40) && l3.y == -1 && l3.z == 2);
    require(s1.x == 65535);
    float2 z = cmul(make_float2(1.0f, 2.0f), make_float2(3.0f, -1.0f));
    require(z.x == 5.0f && z.y == 5.0f);

#if defined(__cplusplus)
    dim3 grid(4), block(16, 8);
    require(grid.x == 4 && grid.y == 1 && grid.z == 1 && block.x == 16 && block.y == 8 && block.z == 1);
    uint3 u3 = block;
    dim3 back(u3);
    require(back.x == 16 && back.y == 8 && back.z == 1);
#else
    dim3 grid = {4, 1, 1};
    require(grid.x * grid.y * grid.z == 4);
#endif

    /* The FP16 emulation round-trips values exact in binary16. */
    const float samples[] = {1.0f, -2.5f, 0.125f, 1024.0f, 65504.0f};
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
        require(emu_half_to_float(emu_float_to_half(samples[i])) == samples[i]);

    /* The kernel, run as a host function on runtime memory, through the
     * special streams. */
    enum { N = 64 };
    float *in = NULL, *out = NULL, host[N];
    checkCUDA(cudaMalloc((void **)&in, N * sizeof(float)));
    checkCUDA(cudaMallocManaged((void **)&out, N * sizeof(float), cudaMemAttachGlobal));
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    checkCUDA(cudaMemcpyAsync(in, host, sizeof(host), cudaMemcpyHostToDevice, cudaStreamPerThread));
    checkCUDA(cudaMemsetAsync(out, 0xff, sizeof(host), cudaStreamLegacy));
    checkCUDA(cudaStreamSynchronize(cudaStreamPerThread));
    params_t p;
    p.scale = 2.0f;
    p.count = N;
    shared_scratch[0] = 0.0f;
    scale_kernel(out, in, p);
    for (int i = 0; i < N; i++)
        require(out[i] == 2.0f * (float)i + 0.5f + shared_scratch[0]);
    require(cudaStreamLegacy == (cudaStream_t)0x1 && cudaStreamPerThread == (cudaStream_t)0x2);

    checkCUDA(cudaLaunchHostFunc(cudaStreamPerThread, on_host, NULL));
    checkCUDA(cudaStreamAddCallback(cudaStreamLegacy, on_stream, NULL, 0));
    require(callback_calls == 2);
    checkCUDA(cudaFree(in));
    checkCUDA(cudaFree(out));
    require(fabs((double)emu_half_to_float(emu_float_to_half(3.0f)) - 3.0) == 0.0);
    printf("Test passed!\n");
    return 0;
}

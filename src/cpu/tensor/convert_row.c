/* SPDX-License-Identifier: Apache-2.0
 * Row conversions (convert_row.h): the portable kernels and the dispatch.
 * On non-x86 builds the __avx* files are not compiled and every path is
 * the portable one. */
#include "cpu/tensor/convert_row.h"

#include <assert.h>
#include <stdint.h>

#include "cpu/simd/cvt.h"

void
fdnn_convert_row_f32_f16__scalar(const void *src, void *dst, size_t n)
{
    const float *restrict s = src;
    uint16_t *restrict d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = fdnn_f32_to_f16(s[i]);
}

void
fdnn_convert_row_f16_f32__scalar(const void *src, void *dst, size_t n)
{
    const uint16_t *restrict s = src;
    float *restrict d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = fdnn_f16_to_f32(s[i]);
}

void
fdnn_convert_row_f32_bf16__scalar(const void *src, void *dst, size_t n)
{
    const float *restrict s = src;
    uint16_t *restrict d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = fdnn_f32_to_bf16(s[i]);
}

void
fdnn_convert_row_bf16_f32__scalar(const void *src, void *dst, size_t n)
{
    const uint16_t *restrict s = src;
    float *restrict d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = fdnn_bf16_to_f32(s[i]);
}

bool
fdnn_convert_row_supported(cudnnDataType_t src_type, cudnnDataType_t dst_type)
{
    if (src_type == CUDNN_DATA_FLOAT)
        return dst_type == CUDNN_DATA_HALF || dst_type == CUDNN_DATA_BFLOAT16;
    if (dst_type == CUDNN_DATA_FLOAT)
        return src_type == CUDNN_DATA_HALF || src_type == CUDNN_DATA_BFLOAT16;
    return false;
}

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define FDNN_CVT_X86 1
#else
#define FDNN_CVT_X86 0
#endif

fdnn_cvt_path_t
fdnn_convert_row_path(fdnn_isa_t isa)
{
    if (!FDNN_CVT_X86)
        return FDNN_CVT_SCALAR;
    if (isa >= FDNN_ISA_AVX512)
        return fdnn_cpu_features()->avx512_bf16 ? FDNN_CVT_AVX512_BF16 : FDNN_CVT_AVX512;
    if (isa >= FDNN_ISA_AVX2)
        return FDNN_CVT_F16C;
    return FDNN_CVT_SCALAR;
}

bool
fdnn_convert_row_path_available(fdnn_cvt_path_t path)
{
    const fdnn_isa_t cpu = fdnn_cpu_detected_isa();
    switch (path) {
    case FDNN_CVT_SCALAR: return true;
    case FDNN_CVT_F16C: return FDNN_CVT_X86 && cpu >= FDNN_ISA_AVX2;
    case FDNN_CVT_AVX512: return FDNN_CVT_X86 && cpu >= FDNN_ISA_AVX512;
    case FDNN_CVT_AVX512_BF16: return FDNN_CVT_X86 && cpu >= FDNN_ISA_AVX512 && fdnn_cpu_features()->avx512_bf16;
    default: return false;
    }
}

const char *
fdnn_convert_row_path_name(fdnn_cvt_path_t path)
{
    static const char *const names[FDNN_CVT_PATH_COUNT] = {"scalar", "f16c", "avx512", "avx512bf16"};
    return (unsigned)path < FDNN_CVT_PATH_COUNT ? names[path] : "unknown";
}

/* Index of a supported pair in the tables below. */
enum { F32_F16, F16_F32, F32_BF16, BF16_F32, PAIRS };

static int
pair_index(cudnnDataType_t s, cudnnDataType_t d)
{
    if (s == CUDNN_DATA_FLOAT)
        return d == CUDNN_DATA_HALF ? F32_F16 : F32_BF16;
    return s == CUDNN_DATA_HALF ? F16_F32 : BF16_F32;
}

fdnn_convert_row_fn
fdnn_convert_row_kernel(fdnn_cvt_path_t path, cudnnDataType_t src_type, cudnnDataType_t dst_type)
{
    assert(fdnn_convert_row_supported(src_type, dst_type));
    static const fdnn_convert_row_fn kernels[FDNN_CVT_PATH_COUNT][PAIRS] = {
        {fdnn_convert_row_f32_f16__scalar, fdnn_convert_row_f16_f32__scalar, fdnn_convert_row_f32_bf16__scalar,
         fdnn_convert_row_bf16_f32__scalar},
#if FDNN_CVT_X86
        {fdnn_convert_row_f32_f16__avx2, fdnn_convert_row_f16_f32__avx2, fdnn_convert_row_f32_bf16__avx2,
         fdnn_convert_row_bf16_f32__avx2},
        {fdnn_convert_row_f32_f16__avx512, fdnn_convert_row_f16_f32__avx512, fdnn_convert_row_f32_bf16__avx512,
         fdnn_convert_row_bf16_f32__avx512},
        {fdnn_convert_row_f32_f16__avx512, fdnn_convert_row_f16_f32__avx512, fdnn_convert_row_f32_bf16__avx512bf16,
         fdnn_convert_row_bf16_f32__avx512},
#endif
    };
    if (!FDNN_CVT_X86 || (unsigned)path >= FDNN_CVT_PATH_COUNT)
        path = FDNN_CVT_SCALAR;
    return kernels[path][pair_index(src_type, dst_type)];
}

void
fdnn_convert_row(fdnn_isa_t isa, cudnnDataType_t src_type, const void *src, cudnnDataType_t dst_type, void *dst,
                 size_t n)
{
    fdnn_convert_row_kernel(fdnn_convert_row_path(isa), src_type, dst_type)(src, dst, n);
}

/* SPDX-License-Identifier: Apache-2.0
 * Row conversions (convert_row.h): the portable kernels, and the paths'
 * kernels as the per-ISA configuration (src/cpu/config) registers them. */
#include "cpu/tensor/convert_row.h"

#include <assert.h>
#include <stdint.h>

#include "cpu/config/config.h"
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

fdnn_cvt_path_t
fdnn_convert_row_path(fdnn_isa_t isa)
{
    return (fdnn_cvt_path_t)FDNN_ISA_PICK(fdnn_isa_config(isa)->cvt_row)->path;
}

bool
fdnn_convert_row_path_available(fdnn_cvt_path_t path)
{
    bool runs;
    return fdnn_isa_cvt_row_kernels((int)path, &runs) != NULL && runs;
}

const char *
fdnn_convert_row_path_name(fdnn_cvt_path_t path)
{
    static const char *const names[FDNN_CVT_PATH_COUNT] = {"scalar", "f16c", "avx512", "avx512bf16"};
    return (unsigned)path < FDNN_CVT_PATH_COUNT ? names[path] : "unknown";
}

/* The supported pairs. */
enum { F32_F16, F16_F32, F32_BF16, BF16_F32 };

static int
pair_index(cudnnDataType_t s, cudnnDataType_t d)
{
    if (s == CUDNN_DATA_FLOAT)
        return d == CUDNN_DATA_HALF ? F32_F16 : F32_BF16;
    return s == CUDNN_DATA_HALF ? F16_F32 : BF16_F32;
}

/* The path's kernels (src/cpu/config); the portable ones for a path this
 * build lacks. */
fdnn_convert_row_fn
fdnn_convert_row_kernel(fdnn_cvt_path_t path, cudnnDataType_t src_type, cudnnDataType_t dst_type)
{
    assert(fdnn_convert_row_supported(src_type, dst_type));
    const fdnn_cvt_row_kernels_t *k = fdnn_isa_cvt_row_kernels((int)path, NULL);
    if (k == NULL)
        k = &fdnn_cvt_row_kernels_scalar;
    switch (pair_index(src_type, dst_type)) {
    case F32_F16: return k->f32_f16;
    case F16_F32: return k->f16_f32;
    case F32_BF16: return k->f32_bf16;
    default: return k->bf16_f32;
    }
}

void
fdnn_convert_row(fdnn_isa_t isa, cudnnDataType_t src_type, const void *src, cudnnDataType_t dst_type, void *dst,
                 size_t n)
{
    fdnn_convert_row_kernel(fdnn_convert_row_path(isa), src_type, dst_type)(src, dst, n);
}

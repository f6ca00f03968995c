/* SPDX-License-Identifier: Apache-2.0
 * Strided rows of any floating-point storage type in and out of a float or
 * double work buffer.  The generic (any dtype, any stride) paths of the
 * element-wise and window ops gather a row, compute in float (double for
 * DOUBLE tensors) and scatter it back.
 *
 * `base` points at element 0 of the tensor, `off` and `stride` are in
 * elements of `dtype`; only FLOAT, DOUBLE, HALF and BFLOAT16 are handled
 * (the callers reject the others first). */
#ifndef FDNN_SIMD_ROWIO_H
#define FDNN_SIMD_ROWIO_H

#include <stdint.h>

#include "cpu/simd/cvt.h"
#include "cudnn.h"

static inline void
fdnn_row_load_f32(cudnnDataType_t dtype, const void *base, int64_t off, int64_t stride, int64_t n, float *dst)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT: {
        const float *s = (const float *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = s[i * stride];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        const double *s = (const double *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = (float)s[i * stride];
        break;
    }
    case CUDNN_DATA_HALF: {
        const uint16_t *s = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = fdnn_f16_to_f32(s[i * stride]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        const uint16_t *s = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = fdnn_bf16_to_f32(s[i * stride]);
        break;
    }
    default: break;
    }
}

static inline void
fdnn_row_store_f32(cudnnDataType_t dtype, void *base, int64_t off, int64_t stride, int64_t n, const float *src)
{
    switch (dtype) {
    case CUDNN_DATA_FLOAT: {
        float *d = (float *)base + off;
        for (int64_t i = 0; i < n; i++)
            d[i * stride] = src[i];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        double *d = (double *)base + off;
        for (int64_t i = 0; i < n; i++)
            d[i * stride] = src[i];
        break;
    }
    case CUDNN_DATA_HALF: {
        uint16_t *d = (uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            d[i * stride] = fdnn_f32_to_f16(src[i]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        uint16_t *d = (uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            d[i * stride] = fdnn_f32_to_bf16(src[i]);
        break;
    }
    default: break;
    }
}

/* Double versions, for DOUBLE tensors (other types are widened exactly). */
static inline void
fdnn_row_load_f64(cudnnDataType_t dtype, const void *base, int64_t off, int64_t stride, int64_t n, double *dst)
{
    if (dtype == CUDNN_DATA_DOUBLE) {
        const double *s = (const double *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = s[i * stride];
        return;
    }
    float tmp[256] = {0};
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        fdnn_row_load_f32(dtype, base, off + i * stride, stride, m, tmp);
        for (int64_t j = 0; j < m; j++)
            dst[i + j] = tmp[j];
    }
}

static inline void
fdnn_row_store_f64(cudnnDataType_t dtype, void *base, int64_t off, int64_t stride, int64_t n, const double *src)
{
    if (dtype == CUDNN_DATA_DOUBLE) {
        double *d = (double *)base + off;
        for (int64_t i = 0; i < n; i++)
            d[i * stride] = src[i];
        return;
    }
    float tmp[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t j = 0; j < m; j++)
            tmp[j] = (float)src[i + j];
        fdnn_row_store_f32(dtype, base, off + i * stride, stride, m, tmp);
    }
}

#endif /* FDNN_SIMD_ROWIO_H */

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dot_rows__scalar, fdnn_f32_axpy_rows__scalar (gemv.h): plain
 * loops, each sum in increasing p. */
#include "cpu/kernels/gemv.h"

void
fdnn_f32_dot_rows__scalar(size_t rows, size_t k, const float *a, size_t lda, const float *x, float *out)
{
    for (size_t i = 0; i < rows; i++) {
        float s = 0;
        for (size_t p = 0; p < k; p++)
            s += a[i * lda + p] * x[p];
        out[i] = s;
    }
}

void
fdnn_f32_axpy_rows__scalar(size_t cols, size_t k, const float *a, size_t lda, const float *x, float *out)
{
    for (size_t j = 0; j < cols; j++)
        out[j] = 0;
    for (size_t p = 0; p < k; p++)
        for (size_t j = 0; j < cols; j++)
            out[j] += x[p] * a[p * lda + j];
}

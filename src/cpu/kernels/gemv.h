/* SPDX-License-Identifier: Apache-2.0
 * Matrix-vector kernels for the GEMM core's thin cases (m == 1 or n == 1),
 * where a microkernel tile would be 1/14 to 1/32 useful and packing would
 * cost more than the product.  Both read the matrix in place, once.
 *
 *   dot rows:   out[i] = sum_{p < k} a[i * lda + p] * x[p]        (i < rows)
 *   axpy rows:  out[j] = sum_{p < k} x[p] * a[p * lda + j]        (j < cols)
 *
 * The order of summation is fixed by the kernel (dot: VL lanes of partial
 * sums over p, combined in a fixed tree, then the remainder in order; axpy:
 * p in increasing order), so a given ISA gives the same bits whatever range
 * of rows or columns a call covers.  Nothing outside the named elements is
 * read or written; no allocation, no threads. */
#ifndef FDNN_CPU_KERNELS_GEMV_H
#define FDNN_CPU_KERNELS_GEMV_H

#include <stddef.h>

typedef void (*fdnn_f32_gemv_fn)(size_t outputs, size_t k, const float *a, size_t lda, const float *x, float *out);

void fdnn_f32_dot_rows__scalar(size_t rows, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_axpy_rows__scalar(size_t cols, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_dot_rows__avx2(size_t rows, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_axpy_rows__avx2(size_t cols, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_dot_rows__avx512(size_t rows, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_axpy_rows__avx512(size_t cols, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_dot_rows__neon(size_t rows, size_t k, const float *a, size_t lda, const float *x, float *out);
void fdnn_f32_axpy_rows__neon(size_t cols, size_t k, const float *a, size_t lda, const float *x, float *out);

#endif /* FDNN_CPU_KERNELS_GEMV_H */

/* SPDX-License-Identifier: Apache-2.0
 * A float block of at most 16 x 16 transposed between rows named by
 * pointers: the channels-last implicit GEMM's im2col (a pointer per input
 * pixel, each pixel's channels contiguous, into the [channel][position]
 * rows of its panel) and its output (a tile of C [channel][position] into
 * a pointer per output pixel of y), src/cpu/conv/conv_gemm_nhwc_krsc.c;
 * the blocked direct solver's reorder of a KRSC filter (16 output
 * channels' rows of 16 input channels per tap), conv_direct_blocked.c.
 *
 *   dst[j][i] = src[i][j]    for i < ni, j < nj   (ni, nj <= 16)
 *
 * Reads src[i][0 .. nj) and writes dst[j][0 .. ni) only; src and dst do not
 * overlap.  A plain copy: every level gives the same bits. */
#ifndef FDNN_CPU_KERNELS_TRANSPOSE_PTRS_H
#define FDNN_CPU_KERNELS_TRANSPOSE_PTRS_H

#include <stddef.h>

typedef void (*fdnn_f32_transpose_ptrs_fn)(size_t ni, size_t nj, const float *const *src, float *const *dst);

void fdnn_f32_transpose_ptrs__scalar(size_t ni, size_t nj, const float *const *src, float *const *dst);
void fdnn_f32_transpose_ptrs__avx512(size_t ni, size_t nj, const float *const *src, float *const *dst);

#endif /* FDNN_CPU_KERNELS_TRANSPOSE_PTRS_H */

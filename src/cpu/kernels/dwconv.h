/* SPDX-License-Identifier: Apache-2.0
 * Depthwise convolution microkernels (FP32) over one channel's plane, with
 * the plane's padding, stride phases and (backward data) upsampling already
 * materialised by the caller (src/cpu/conv/conv_depthwise.c).  Positions run
 * along the vector: every tap of a depthwise filter is one shifted copy of
 * the plane, scaled by one weight.
 *
 * Rows kernel (forward and backward data), for r < rows, j < ow:
 *
 *   out[r*ld_out + j] = init + sum_{t < taps} w_rows[r][t] * src[row_off[r] + tap_off[t] + j]
 *
 * (each row its own filter: the rows of one call may come from several
 * channels' planes, which keeps the vectors full for small planes),
 * with init = 0, or out's previous value when `accumulate`; the sum runs in
 * tap order, one FMA (portable kernel: one multiply, one add) per term, so
 * the bits depend on the ISA only, not on how rows are split.  The kernel
 * computes whole vectors: it writes out[r*ld_out + j] for j < round_up(ow,
 * VL) (ld_out >= round_up(ow, FDNN_DWCONV_VL_MAX)) and reads src up to
 * FDNN_DWCONV_VL_MAX - 1 floats past the last named element of a row (the
 * caller keeps them readable and finite values there only feed the lanes
 * past ow).
 *
 * Gradient kernel (backward filter), for t < taps and each lane l of the
 * ISA's vector (VL lanes, VL <= FDNN_DWCONV_VL_MAX):
 *
 *   lanes[t*FDNN_DWCONV_VL_MAX + l] += sum over r < rows and the positions
 *       j < ow with j % VL == l of dy[dy_off[r] + j] * src[row_off[r] + tap_off[t] + j]
 *
 * one FMA per term, rows and vectors in order; the caller adds the lanes
 * (in a fixed order) once, after the last call, so a sum over many images
 * pays no per-call reduction.  It reads exactly the named elements (the
 * tails are masked), so nothing past ow can turn a sum into NaN.
 *
 * Offsets are in floats; no allocation, no threads. */
#ifndef FDNN_CPU_KERNELS_DWCONV_H
#define FDNN_CPU_KERNELS_DWCONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The widest vector of any ISA, in floats (AVX-512). */
#define FDNN_DWCONV_VL_MAX 16

typedef struct fdnn_f32_dwconv_rows_args {
    const float *src;
    const int64_t *row_off, *tap_off; /* rows and taps entries */
    const float *const *w_rows;       /* per row: its taps weights */
    size_t rows, taps, ow;
    float *out;
    size_t ld_out;
    bool accumulate;
} fdnn_f32_dwconv_rows_args_t;

typedef struct fdnn_f32_dwconv_grad_args {
    const float *src, *dy;
    const int64_t *row_off, *dy_off, *tap_off;
    size_t rows, taps, ow;
    float *lanes; /* taps x FDNN_DWCONV_VL_MAX, added to */
} fdnn_f32_dwconv_grad_args_t;

typedef void (*fdnn_f32_dwconv_rows_fn)(const fdnn_f32_dwconv_rows_args_t *a);
typedef void (*fdnn_f32_dwconv_grad_fn)(const fdnn_f32_dwconv_grad_args_t *a);

void fdnn_f32_dwconv_rows__avx512(const fdnn_f32_dwconv_rows_args_t *a);
void fdnn_f32_dwconv_rows__avx2(const fdnn_f32_dwconv_rows_args_t *a);
void fdnn_f32_dwconv_rows__scalar(const fdnn_f32_dwconv_rows_args_t *a);
void fdnn_f32_dwconv_grad__avx512(const fdnn_f32_dwconv_grad_args_t *a);
void fdnn_f32_dwconv_rows__neon(const fdnn_f32_dwconv_rows_args_t *a);
void fdnn_f32_dwconv_grad__neon(const fdnn_f32_dwconv_grad_args_t *a);
void fdnn_f32_dwconv_grad__avx2(const fdnn_f32_dwconv_grad_args_t *a);
void fdnn_f32_dwconv_grad__scalar(const fdnn_f32_dwconv_grad_args_t *a);

#endif /* FDNN_CPU_KERNELS_DWCONV_H */

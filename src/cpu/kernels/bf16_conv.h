/* SPDX-License-Identifier: Apache-2.0
 * The kernels of the native BF16 convolution (src/cpu/conv/conv_bf16.c):
 * an implicit-GEMM packing pass that reads the input straight from the
 * user's tensor (FLOAT, HALF or BFLOAT16), converts each value to bfloat16
 * (round to nearest even) and lays a strip of 32 output positions out as
 * the B strip of the vdpbf16ps microkernels (bf16_gemm.h: pair rows of 32
 * words, word j of pair row q = rows 2q and 2q+1 of column j), and the
 * epilogue that blends the FP32 sums into the output and converts them to
 * its type from registers.
 *
 * Columns of the implicit GEMM are output positions (n, od, oh, ow) in that
 * order; a strip is 32 consecutive ones, described by its runs: maximal
 * pieces with the same (n, od, oh) and consecutive ow.  Rows are the
 * products' index p = ((c * kd + qd) * kh + qh) * kw + qw of one group
 * (cg * taps rows), the filter's KCRS order, so that the A operand is the
 * filter's bfloat16 rows.  B(p, column) = x[n, c0 + c, od*sd - pd + qd*dd,
 * oh*sh - ph + qh*dh, ow*sw - pw + qw*dw], zero outside the input. */
#ifndef FDNN_CPU_KERNELS_BF16_CONV_H
#define FDNN_CPU_KERNELS_BF16_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDNN_BF16_CONV_STRIP 32     /* columns per B strip (the microkernel's NR) */
#define FDNN_BF16_CONV_MAX_STRIPS 8 /* strips per pack call */

/* One run of a strip: columns j .. j+len-1 are the output positions
 * (n, od, oh, ow0 .. ow0+len-1). */
typedef struct fdnn_bf16_conv_run {
    int64_t n, od, oh, ow0;
    int32_t j, len;
} fdnn_bf16_conv_run_t;

/* The input side of one convolution. */
typedef struct fdnn_bf16_conv_geom {
    int type;      /* FDNN_BF16_SRC_F32 / _F16 / _BF16 (bf16_gemm.h) */
    const void *x; /* x's element (0, 0, 0, 0, 0), its lowest address */
    int64_t x_bytes; /* bytes from x to past x's last element (whole-vector loads stay inside) */
    int64_t xs[5]; /* x's strides in elements: n, c, d, h, w */
    int64_t in[3], ker[3], pad[3], stride[3], dil[3];
    int64_t rows; /* cg * taps: the rows of B of one group */
} fdnn_bf16_conv_geom_t;

/* B rows p0 .. p0+kc-1 (kc even; rows past g->rows are zero) of ns <=
 * FDNN_BF16_CONV_MAX_STRIPS strips (strip s: the nruns[s] runs at
 * runs + 32 s; channels from c0, the group's first), each as kc/2 pair rows
 * of 32 words at dst + s * dst_words (64-byte aligned); columns past the
 * runs are zero.  The strips are packed row by row together, so that a
 * channel's row is read in order.  table: ns * fdnn_bf16_conv_table_bytes(
 * taps) bytes of scratch, 16-byte aligned. */
void fdnn_bf16_conv_pack__avx512bf16(const fdnn_bf16_conv_geom_t *g, int64_t c0, const fdnn_bf16_conv_run_t *runs,
                                     const int *nruns, size_t ns, size_t p0, size_t kc, void *table, uint32_t *dst,
                                     size_t dst_words);

/* The pack's scratch for kernels of `taps` taps: where each tap's loads
 * start, and up to 32 loads (24 bytes each) per tap. */
static inline size_t
fdnn_bf16_conv_table_bytes(int64_t taps)
{
    return ((size_t)(taps + 1) * sizeof(int) + 15) / 16 * 16 + (size_t)taps * 32 * 24;
}

/* dst[i] = src[i] (n contiguous values of `type`) as bfloat16, nearest
 * even. */
void fdnn_bf16_conv_cvt_row__avx512bf16(int type, const void *src, size_t n, uint16_t *dst);

/* The output side: y = alpha * acc + beta * y (y not read for beta 0),
 * + bias[k] (NULL: none; `type` values), then ReLU keeping NaN (as
 * fdnn_conv_epilogue_f32), rounded to y's type (nearest even). */
typedef struct fdnn_bf16_conv_out {
    int type;      /* FDNN_BF16_SRC_* of y and bias */
    void *y;       /* y's element (0, 0, 0, 0, 0) */
    int64_t ys[5]; /* y's strides in elements */
    float alpha, beta;
    const void *bias;
    bool relu;
} fdnn_bf16_conv_out_t;

/* Writes output channels k0 .. k0+rows-1 of the strip `runs`: the sums of
 * channel k0+i, column j at acc[i * ldc + j]. */
void fdnn_bf16_conv_store__avx512bf16(const fdnn_bf16_conv_out_t *o, const float *acc, size_t ldc, size_t rows,
                                      int64_t k0, const fdnn_bf16_conv_run_t *runs, int nruns);

#endif /* FDNN_CPU_KERNELS_BF16_CONV_H */

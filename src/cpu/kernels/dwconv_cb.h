/* SPDX-License-Identifier: Apache-2.0
 * Channel-blocked depthwise microkernels (FP32): channels run along the
 * vector, FDNN_DWCB_BLOCK of them per block whatever the ISA (an ISA with
 * narrower vectors takes a block in several), so a channels-innermost
 * tensor (NHWC) is read and written in place, and a channel block of NCHW
 * planes once transposed into [H][W][16] (src/cpu/conv/conv_depthwise_cb.c).
 *
 * Rows kernel (forward and backward data), for blocks b < blocks, listed
 * taps t < taps, positions j < count and lanes l < (b == blocks-1 ? tail :
 * 16):
 *
 *   s = sum_t wt[t][b*w_bstride + l] * src[t][b*src_bstride + j*src_step + l]
 *   out[b*out_bstride + j*out_step + l] = epilogue(s)
 *
 * the sum in tap order, one FMA per term (portable kernel: one multiply, one
 * add), epilogue = fdnn_conv_epilogue_f32 with bias (NULL: none) read at
 * bias[b*16 + l]; taps == 0 gives s = 0.  The weights are packed with zeros
 * past `tail` (they are read as whole blocks); src, out and bias are read and
 * written at the named lanes only (masked tails), so nothing past the last
 * channel of a tensor is touched.
 *
 * Gradient kernel (backward filter), over segments g < segs (a run of
 * count[g] positions each), for b, every tap t < taps, lanes l as above:
 *
 *   sums[b*sums_bstride + t*16 + l] += sum_{g, j < count[g]}
 *       dy[g][b*dy_bstride + j*dy_step + l] * src[g*taps + t][b*src_bstride + j*src_step[g] + l]
 *
 * segments and positions in order, one FMA per term, the sums held in
 * registers across segments (blocks one at a time or, AVX-512, full
 * blocks two at a time: the same terms in the same order); a tap whose src
 * is `zeros` (16 zero floats) reads zeros at every position and block (a
 * tap outside the image adds dy * 0).  Lanes past `tail` are left as they
 * were.
 *
 * Offsets are in floats; no allocation, no threads. */
#ifndef FDNN_CPU_KERNELS_DWCONV_CB_H
#define FDNN_CPU_KERNELS_DWCONV_CB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDNN_DWCB_BLOCK 16

typedef struct fdnn_f32_dwcb_rows_args {
    const float *const *src; /* taps entries: position 0 of block 0 */
    const float *const *wt;  /* taps entries: 16 weights of block 0 */
    size_t taps, count, blocks, tail;
    int64_t src_step, src_bstride, w_bstride;
    float *out;
    int64_t out_step, out_bstride;
    float alpha, beta;
    const float *bias;
    bool relu;
    /* A hint: the taps are whole filter rows of 3, tap 3r+k at src[3r] +
     * k*tap_step (kernels may then load each input once per row when
     * src_step is tap_step, 2*tap_step or -tap_step). */
    bool rows_of_3;
    int64_t tap_step;
    /* A hint: the data rows the next call (the next output row) reads and
     * this one does not, pf_off[r] floats past the row of src[0] (same
     * column), r < pf_rows (0: none).  Kernels may prefetch them, so that
     * they arrive from memory while this row computes; the results are the
     * same either way. */
    int64_t pf_rows, pf_off[2];
} fdnn_f32_dwcb_rows_args_t;

typedef struct fdnn_f32_dwcb_grad_args {
    const float *const *src;  /* segs x taps entries */
    const int64_t *src_step;  /* segs entries */
    const float *const *dy;   /* segs entries */
    const size_t *count;      /* segs entries */
    const float *zeros;
    size_t segs, taps, blocks, tail;
    int64_t src_bstride, dy_step, dy_bstride;
    float *sums;
    int64_t sums_bstride;
} fdnn_f32_dwcb_grad_args_t;

/* Planes to a blocked view and back (the NCHW path's transposes): for
 * channels c < nc, each a contiguous plane of hw floats at src + c*cs,
 *
 *   pack:    dst[(c/16)*hw*16 + p*16 + c%16] = src[c*cs + p]   (lanes of the
 *            last block past nc: zero)
 *   unpack:  dst[c*cs + p] = src[(c/16)*hw*16 + p*16 + c%16]   (nothing else
 *            written)
 *
 * Plain copies (the same bits); NULL in an ISA's configuration: the
 * portable loops of conv_depthwise_cb.c. */
typedef void (*fdnn_f32_dwcb_pack_fn)(const float *src, int64_t cs, size_t hw, size_t nc, float *dst);
typedef void (*fdnn_f32_dwcb_unpack_fn)(const float *src, size_t hw, size_t nc, float *dst, int64_t cs);

/* Channels-innermost positions to a blocked view (the backward filter's
 * strips, conv_depthwise_cb.c): for positions j < count and blocks
 * b < blocks, lanes l < (b == blocks-1 ? tail : 16),
 *
 *   dst[b*dst_bstride + j*16 + l] = src[j*src_step + b*16 + l]
 *
 * nothing else read or written.  Plain copies; NULL in an ISA's
 * configuration: the portable loop of conv_depthwise_cb.c. */
typedef void (*fdnn_f32_dwcb_gather_fn)(const float *src, int64_t src_step, size_t count, size_t blocks, size_t tail,
                                        float *dst, int64_t dst_bstride);

typedef void (*fdnn_f32_dwcb_rows_fn)(const fdnn_f32_dwcb_rows_args_t *a);
typedef void (*fdnn_f32_dwcb_grad_fn)(const fdnn_f32_dwcb_grad_args_t *a);

void fdnn_f32_dwcb_rows__avx512(const fdnn_f32_dwcb_rows_args_t *a);
void fdnn_f32_dwcb_rows__avx2(const fdnn_f32_dwcb_rows_args_t *a);
void fdnn_f32_dwcb_rows__neon(const fdnn_f32_dwcb_rows_args_t *a);
void fdnn_f32_dwcb_rows__scalar(const fdnn_f32_dwcb_rows_args_t *a);
void fdnn_f32_dwcb_grad__avx512(const fdnn_f32_dwcb_grad_args_t *a);
void fdnn_f32_dwcb_grad__avx2(const fdnn_f32_dwcb_grad_args_t *a);
void fdnn_f32_dwcb_grad__neon(const fdnn_f32_dwcb_grad_args_t *a);
void fdnn_f32_dwcb_grad__scalar(const fdnn_f32_dwcb_grad_args_t *a);
void fdnn_f32_dwcb_gather__avx512(const float *src, int64_t src_step, size_t count, size_t blocks, size_t tail,
                                  float *dst, int64_t dst_bstride);
void fdnn_f32_dwcb_gather__avx2(const float *src, int64_t src_step, size_t count, size_t blocks, size_t tail,
                                float *dst, int64_t dst_bstride);
void fdnn_f32_dwcb_pack__avx512(const float *src, int64_t cs, size_t hw, size_t nc, float *dst);
void fdnn_f32_dwcb_unpack__avx512(const float *src, size_t hw, size_t nc, float *dst, int64_t cs);

#endif /* FDNN_CPU_KERNELS_DWCONV_CB_H */

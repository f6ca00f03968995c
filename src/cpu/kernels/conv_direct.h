/* SPDX-License-Identifier: Apache-2.0
 * Register-tiled direct convolution microkernels (FP32 forward) over the
 * channel-blocked layouts of src/cpu/conv/conv_direct_blocked.c:
 *
 *   input   [cblocks][D'][H'][W'][cin]       zero padding materialised
 *   weights [kblocks][cblocks][kd][kh][kw][cin][16]
 *   tile    [pixels][nkb * 16]               the raw sums, pixel-major, or
 *           [nkb * 16][tile_ld]              channel-major (kmajor; for
 *                                            outputs with W contiguous)
 *
 * One call computes a tile of `rows` x `pixels` output pixels (rows 1 or 2
 * consecutive output rows, `pixels` consecutive pixels of each) for nkb
 * blocks of 16 output channels, summing over every channel block, kernel
 * tap and channel of the block; for pixel j = r*pixels + u:
 *
 *   sum[j][b*16 + k] = sum_{cb, qd, qh, qw, c}
 *       in[cb*in_cb + qd*in_d + qh*in_h + qw*in_w + r*in_row + u*in_px + c]
 *     * w[b*w_kb + (((cb*kd + qd)*kh + qh)*kw + qw)*cin*16 + c*16 + k]
 *
 * summed in exactly that order (cb, qd, qh, qw, c outermost to innermost),
 * one FMA (or, in the portable kernel, one multiply and one add) per term,
 * so an output's bits depend on the problem and the ISA only, not on the
 * tile shape.  The accumulators stay in registers for the whole sum: per
 * channel the kernel loads nkb weight vectors and broadcasts rows*pixels
 * input values.  Then it stores channel k of pixel (r, u), for u < y_pixels
 * and k < y_channels, to y[r*y_row + u*y_px + k*y_k]: in vector stores
 * along channels (y_k == 1, NHWC-like) or, with kmajor, along pixels
 * (y_px == 1, NCHW-like: VL x VL blocks transposed in registers).  The
 * caller points y either at the output tensor (plain results) or at a
 * small tile it then blends itself.
 *
 * Strides are in floats and include stride and dilation (in_px = stride_w
 * * cin, in_w = dil_w * cin, ...).  Preconditions (asserted): rows * pixels
 * <= the kernel's FDNN_*_CONV_DIRECT_UR, 1 <= nkb <= its _NKB, 1 <= y_pixels
 * <= pixels.  Nothing but the named elements is read or written; no
 * allocation, no threads. */
#ifndef FDNN_CPU_KERNELS_CONV_DIRECT_H
#define FDNN_CPU_KERNELS_CONV_DIRECT_H

#include <stddef.h>

/* Output channels per block (every ISA: the layouts do not depend on it). */
#define FDNN_CONV_DIRECT_KB 16

typedef struct fdnn_f32_conv_direct_args {
    const float *in; /* input of pixel 0, tap 0, channel 0 of block 0 */
    const float *w;  /* weights of the first output block */
    size_t pixels, rows, nkb;
    size_t cblocks, kd, kh, kw, cin;
    size_t in_cb, in_d, in_h, in_w, in_px, in_row;
    size_t w_kb; /* floats between the weights of consecutive output blocks */
    float *y;
    size_t y_k, y_px, y_row, y_pixels, y_channels;
    int kmajor; /* stores along pixels (y_px == 1) instead of channels (y_k == 1) */
} fdnn_f32_conv_direct_args_t;

typedef void (*fdnn_f32_conv_direct_fn)(const fdnn_f32_conv_direct_args_t *a);

/* Tile limits per ISA: pixels x blocks of accumulators that fit the
 * register file (AVX-512: 14 x 2 zmm pairs = 28 of 32 zmm; AVX2: 6 x 2 ymm
 * = 12 of 16 ymm; NEON: 6 x 4 q = 24 of 32 q; the portable kernel: what
 * keeps its arrays small). */
#define FDNN_AVX512_CONV_DIRECT_UR 14
#define FDNN_AVX512_CONV_DIRECT_NKB 2
#define FDNN_AVX2_CONV_DIRECT_UR 6
#define FDNN_AVX2_CONV_DIRECT_NKB 1
#define FDNN_NEON_CONV_DIRECT_UR 6
#define FDNN_NEON_CONV_DIRECT_NKB 1
#define FDNN_SCALAR_CONV_DIRECT_UR 4
#define FDNN_SCALAR_CONV_DIRECT_NKB 1

/* Input packing for channel-blocked rows: dst[j*16 + c] = src[c*src_c + j]
 * for j < pixels, c < 16 (16 channel rows with contiguous pixels, as in
 * NCHW, transposed in vector blocks). */
typedef void (*fdnn_f32_conv_direct_pack_fn)(size_t pixels, const float *src, size_t src_c, float *dst);

void fdnn_f32_conv_direct_pack16__avx512(size_t pixels, const float *src, size_t src_c, float *dst);
void fdnn_f32_conv_direct_pack16__avx2(size_t pixels, const float *src, size_t src_c, float *dst);
void fdnn_f32_conv_direct_pack16__neon(size_t pixels, const float *src, size_t src_c, float *dst);
void fdnn_f32_conv_direct_pack16__scalar(size_t pixels, const float *src, size_t src_c, float *dst);

void fdnn_f32_conv_direct_ukernel__avx512(const fdnn_f32_conv_direct_args_t *a);
void fdnn_f32_conv_direct_ukernel__avx2(const fdnn_f32_conv_direct_args_t *a);
void fdnn_f32_conv_direct_ukernel__neon(const fdnn_f32_conv_direct_args_t *a);
void fdnn_f32_conv_direct_ukernel__scalar(const fdnn_f32_conv_direct_args_t *a);

#endif /* FDNN_CPU_KERNELS_CONV_DIRECT_H */

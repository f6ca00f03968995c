/* SPDX-License-Identifier: Apache-2.0
 * The integer convolution microkernels (src/cpu/conv/conv_int8.c packs
 * their operands).  The wide kernels (below; the caller runs their
 * epilogue) and the fused VNNI kernel (further below, its own epilogue).
 *
 * One wide call sums, for m output pixels (1..MR) of one row and nkb blocks
 * (1 or 2) of VK output channels, every tap and input channel of their
 * window, exactly, in int32:
 *
 *   acc[i][b][l] = sum over taps t, units u of
 *                  dot4(x[i * x_step + tap_off[t] + 4u .. +4],
 *                       w[b * w_block + ((t * units + u) * VK + l) * 4 .. +4])
 *
 * A "unit" is 4 bytes of the packed input at one pixel and 4 bytes of one
 * output channel's packed filter.  Two encodings share that shape:
 * - vnni (the fused kernel): 4 channels, x as uint8 (INT8 inputs biased
 *   by +128 by the packing or the kernel, compensated), w as int8; dot4
 *   is vpdpbusd's u8 x s8 sum of 4 products.
 * - wide: 2 channels, x and w as int16; dot4 is vpmaddwd's sum of 2
 *   products.  Exact for any int8/uint8 value: 255 * 128 * 2 < 2^31.
 * No int32 sum can overflow for the problems the caller runs (it checks
 * taps * channels * 255 * 128 < 2^31).
 *
 * Kernels read only the bytes the formula names for i < m (pixels i >= m
 * read pixel 0's window instead: their sums are computed and dropped) and
 * write acc[0..m)[0..nkb)[0..VK).  acc is [MR][2][VK] int32. */
#ifndef FDNN_CPU_KERNELS_S8_CONV_H
#define FDNN_CPU_KERNELS_S8_CONV_H

#include <stdint.h>

typedef struct fdnn_s8_conv_args {
    const uint8_t *x; /* packed input: the window origin of output pixel 0 */
    int64_t x_step;   /* bytes from one output pixel's window origin to the next */
    const int64_t *tap_off; /* byte offset of each tap from the window origin */
    int64_t taps;
    int64_t units;        /* 4-byte units per tap */
    const uint8_t *w;     /* packed filter of the first block: [taps][units][VK][4] */
    int64_t w_block;      /* bytes from one block to the next */
    int nkb;              /* blocks: 1 or 2 */
    int m;                /* pixels: 1..MR */
    int32_t *acc;         /* [MR][2][VK] */
} fdnn_s8_conv_args_t;

typedef void (*fdnn_s8_conv_fn)(const fdnn_s8_conv_args_t *a);

/* Portable C, wide encoding, VK 16, MR 4. */
void fdnn_s8_conv_wide__scalar(const fdnn_s8_conv_args_t *a);
/* AVX2, wide encoding, VK 8, MR 6. */
void fdnn_s8_conv_wide__avx2(const fdnn_s8_conv_args_t *a);
/* AVX-512 (F, BW), wide encoding, VK 16, MR 8. */
void fdnn_s8_conv_wide__avx512(const fdnn_s8_conv_args_t *a);
/* (The vnni encoding runs in fdnn_s8_conv_fused__avx512vnni below.) */

/* The epilogue of `count` (<= 16) lanes without a blend (beta 0):
 *   v[l] = alpha * (float)(s[l] - comp[l]) + bias[l]   (bias NULL: no add)
 *   v[l] = relu && !(v[l] > 0) && v[l] == v[l] ? 0 : v[l]
 * then q receives, by `out`: 0 int8 or 1 uint8 (v rounded half to even and
 * saturated, NaN 0), 2 the floats.  Each step is one IEEE single operation
 * (no fused multiply-add), so every ISA gives the bits of the portable
 * epilogue in conv_int8.c. */
typedef void (*fdnn_s8_conv_epilogue_fn)(const int32_t *s, const int32_t *comp, const float *bias, float alpha,
                                         int relu, int out, int count, void *q);
void fdnn_s8_conv_epilogue__avx2(const int32_t *s, const int32_t *comp, const float *bias, float alpha, int relu,
                                 int out, int count, void *q);
void fdnn_s8_conv_epilogue__avx512(const int32_t *s, const int32_t *comp, const float *bias, float alpha, int relu,
                                   int out, int count, void *q);

/* ---- The fused VNNI kernel: sums and epilogue in one call ----
 *
 * For m output pixels (1..6) whose window origins x[i] may lie anywhere
 * (other rows, other images, the caller's tensor itself), and nkb blocks
 * (1..4) of 16 output channels, over nj 4-byte units j (a unit: one tap,
 * 4 input channels):
 *
 *   S[i][b][l] = sum over j < nj of
 *                dot4(x[i] + x_off[j] .. +4, w + j * w_unit + b * 64 + 4 l .. +4)
 *                - comp[b * 16 + l]                      (comp NULL: 0)
 *
 * dot4 is
 * vpdpbusd's u8 x s8 sum; with flip each x byte is taken as (x ^ 0x80),
 * the +128 bias of an INT8 input read in place.  Then, straight from the
 * registers (no blend):
 *
 *   v = alpha * (float)S + bias[b * 16 + l]       (bias NULL: no add)
 *   v = relu && !(v > 0) && v == v ? 0 : v
 *
 * stored by `out` as the epilogue below (0 int8, 1 uint8: rounded half to
 * even and saturated, NaN 0; 2 float) at y[i] + y_blk[b] + (l / 4) *
 * quad_stride + (l % 4) * size, for lanes l < (b < nkb - 1 ? 16 : last).
 * quad_stride is 4 * size where a block's channels are adjacent (NHWC,
 * INT8x32), the plane size of NCHW_VECT_C outputs with 4 channels a
 * vector (then last is a multiple of 4).  out 3 stores the sums S
 * themselves, for the caller's blend: acc[(i * 4 + b) * 16 + l], every
 * lane.  Pixels i >= m read x[0] and
 * store nothing.  The same bits as the portable epilogue: each step is
 * one IEEE single operation.  (w_unit = nkb * 64 as conv_int8.c packs
 * the filter: the blocks of a call interleaved unit by unit.) */
typedef struct fdnn_s8_conv_fused_args {
    const uint8_t *x[6];  /* window origin of each output pixel */
    const int64_t *x_off; /* [nj] byte offset of each unit from the window origin */
    int64_t nj;           /* units */
    int flip;             /* x bytes ^ 0x80 */
    const uint8_t *x_next; /* not NULL: x_next + x_off[j] prefetched for every unit (the next tile's) */
    const uint8_t *w;     /* packed filter: [nj][nkb][16][4] */
    int64_t w_unit;       /* bytes from one unit to the next */
    int nkb;              /* blocks: 1..4 */
    int m;                /* pixels: 1..6 */
    int last;             /* lanes of the last block: 1..16 */
    const int32_t *comp;  /* [nkb * 16] or NULL */
    const float *bias;    /* [nkb * 16] or NULL */
    float alpha;
    int relu;
    int out;              /* 0 int8, 1 uint8, 2 float, 3 the sums into acc */
    int nan_free;         /* alpha and bias finite: no lane can be NaN */
    uint8_t *y[6];        /* output address of the block's first channel, per pixel */
    int64_t y_blk[4];     /* bytes from y[i] to block b's first channel */
    int64_t quad_stride;  /* bytes from lanes 4j.. to lanes 4j + 4.. */
    int y_adjacent;       /* y[i] = y[0] + 4 i for every i < m (one row of NCHW_VECT_C) */
    int32_t *acc;         /* out 3: [6][4][16] */
} fdnn_s8_conv_fused_args_t;

/* AVX-512 VNNI; call only when the CPU has AVX512_VNNI. */
void fdnn_s8_conv_fused__avx512vnni(const fdnn_s8_conv_fused_args_t *a);

/* Packs one block of `lanes` (1..16) output channels for the fused kernel:
 * for each of n units j, the 4 bytes at rows + l * row_stride + off[j]
 * for lanes l (zeros past `lanes`) go to dst + j * dst_step + 4 l, and
 * sum[l] receives the sum of every byte packed for lane l (16 entries).
 * AVX-512 VNNI, as the kernel. */
void fdnn_s8_conv_pack_block__avx512vnni(const int8_t *rows, int64_t row_stride, int lanes, const int64_t *off,
                                         int64_t n, uint8_t *dst, int64_t dst_step, int32_t *sum);

typedef void (*fdnn_s8_conv_pack_block_fn)(const int8_t *rows, int64_t row_stride, int lanes, const int64_t *off,
                                           int64_t n, uint8_t *dst, int64_t dst_step, int32_t *sum);

/* The kernels of one level as the per-ISA configuration (src/cpu/config)
 * registers them: the wide encoding (wide != NULL, fused NULL) or the vnni
 * one (fused != NULL, wide NULL) with its filter pack (NULL: the portable
 * packing in conv_int8.c); the epilogue (NULL: conv_int8.c's portable
 * one); lanes (VK) and pixels per call (MR). */
typedef struct fdnn_s8_conv_kernels {
    fdnn_s8_conv_fn wide;
    void (*fused)(const fdnn_s8_conv_fused_args_t *a);
    fdnn_s8_conv_pack_block_fn pack_block;
    fdnn_s8_conv_epilogue_fn epi;
    int vk, mr;
} fdnn_s8_conv_kernels_t;

#endif /* FDNN_CPU_KERNELS_S8_CONV_H */

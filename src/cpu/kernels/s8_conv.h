/* SPDX-License-Identifier: Apache-2.0
 * The integer convolution microkernels (src/cpu/conv/conv_int8.c packs
 * their operands and runs their epilogue).
 *
 * One call sums, for m output pixels (1..MR) of one row and nkb blocks
 * (1 or 2) of VK output channels, every tap and input channel of their
 * window, exactly, in int32:
 *
 *   acc[i][b][l] = sum over taps t, units u of
 *                  dot4(x[i * x_step + tap_off[t] + 4u .. +4],
 *                       w[b * w_block + ((t * units + u) * VK + l) * 4 .. +4])
 *
 * A "unit" is 4 bytes of the packed input at one pixel and 4 bytes of one
 * output channel's packed filter.  Two encodings share that shape:
 * - vnni: 4 channels, x as uint8 (INT8 inputs biased by +128 by the
 *   packing, which the caller compensates), w as int8; dot4 is
 *   vpdpbusd's u8 x s8 sum of 4 products.
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
/* AVX-512 VNNI, vnni encoding, VK 16, MR 8.  Call only when the CPU has
 * AVX512_VNNI (fdnn_cpu_features). */
void fdnn_s8_conv_vnni__avx512vnni(const fdnn_s8_conv_args_t *a);

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

#endif /* FDNN_CPU_KERNELS_S8_CONV_H */

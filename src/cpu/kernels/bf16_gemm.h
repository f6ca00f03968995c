/* SPDX-License-Identifier: Apache-2.0
 * The kernels of the BF16 dot-product GEMM (src/cpu/gemm/bf16_gemm.c): the
 * packing pass that converts FLOAT, HALF or BFLOAT16 operands to bfloat16
 * (round to nearest even) and lays them out as k pairs, and the
 * microkernels that multiply such panels with FP32 accumulation.
 *
 * Panels.  A "pair" is one 32-bit word holding two bfloat16 values of
 * consecutive k: bits 0..15 the even k (2q), bits 16..31 the odd k (2q+1),
 * the operand layout of vdpbf16ps.  For a block of kc k steps (kp =
 * ceil(kc / 2) pairs; an odd kc pads the last pair's odd half with +0):
 *
 *   B strip (NR columns):  b[q * NR + j]      = pair of op(B)(2q, j), op(B)(2q+1, j)
 *   A strip, pairs:        a[q * MR + i]      = pair of op(A)(i, 2q), op(A)(i, 2q+1)
 *   A strip, wide:         a[(q * MR + i) * 2 + h] = the bits of the float equal
 *                          to the bfloat16 op(A)(i, 2q + h) (value << 16)
 *
 * Columns past the strip's width (rows past m) are +0.  The wide A layout
 * serves the kernels without vdpbf16ps, which then broadcast each A value
 * straight from memory instead of splitting pairs in registers.
 *
 * Microkernel arithmetic (every kernel, bitwise): for each C element,
 *
 *   acc = +0
 *   for q = 0 .. kp-1:   acc = fma(a(i, 2q+1), b(2q+1, j), acc)
 *                        acc = fma(a(i, 2q),   b(2q, j),   acc)
 *
 * each fma rounded to nearest even in FP32 with bfloat16 inputs that are
 * subnormal read as signed zero (DAZ) and subnormal results flushed to
 * signed zero (FTZ): vdpbf16ps as Intel's SDM defines it and as this
 * project's tests measured it on AMD Zen hardware.  The kernels without
 * vdpbf16ps run the same two FMAs with MXCSR.DAZ|FTZ set around the loop
 * (the SIMD ones) or with the flushes done in C (portable; see
 * bf16_gemm_4x16__scalar.c for its one known corner).  Then the epilogue
 * of fdnn_f32_gemm_epilogue_t (gemm_ukernel.h): alpha * acc, beta (C + v
 * for beta == 1, fma(beta, C, v) otherwise, C not read for beta == 0),
 * + bias_row[i], + bias_col[j], ReLU as max(0, v) keeping NaN; `stream` is
 * ignored.  kc == 0 runs the epilogue on acc = 0 (a and b are not read).
 * Only the mr x nr corner of C is read or written. */
#ifndef FDNN_CPU_KERNELS_BF16_GEMM_H
#define FDNN_CPU_KERNELS_BF16_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/kernels/gemm_ukernel.h"

/* Storage types the packs read (values of fdnn_gemm_dtype_t, gemm.h). */
enum { FDNN_BF16_SRC_F32 = 0, FDNN_BF16_SRC_F16 = 1, FDNN_BF16_SRC_BF16 = 2 };

typedef void (*fdnn_bf16_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                          float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* AVX-512 BF16 (vdpbf16ps), A in pairs. */
void fdnn_bf16_gemm_ukernel_14x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                              const uint32_t *b, float *c, size_t ldc,
                                              const fdnn_f32_gemm_epilogue_t *ep);
/* The same reading A in place: pair (q, i) = a[i * lda_words + q], i.e.
 * the 32-bit words of bfloat16 rows of A (not transposed, even offset);
 * kc even (no half pair past the row).  Rows past mr repeat row mr - 1. */
typedef void (*fdnn_bf16_gemm_arows_ukernel_fn)(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_14x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                    size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                    const fdnn_f32_gemm_epilogue_t *ep);
/* Half-width twins: 14 x 16 reading the first 16 columns of 32-wide B
 * strips (pair rows 32 words apart), for a last strip at most half full. */
void fdnn_bf16_gemm_ukernel_14x16__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                              const uint32_t *b, float *c, size_t ldc,
                                              const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_14x16__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                    size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                    const fdnn_f32_gemm_epilogue_t *ep);
/* Row-tail twins of the 14 x 32 in-place kernel (2 .. 12 rows, same sums;
 * bf16_gemm_arows_tails__avx512bf16.c), indexed by rows / 2 - 1. */
void fdnn_bf16_gemm_arows_ukernel_2x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                   size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                   const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_4x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                   size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                   const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_6x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                   size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                   const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_8x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                   size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                   const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_10x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                    size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                    const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_arows_ukernel_12x32__avx512bf16(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                    size_t lda_words, const uint32_t *b, float *c, size_t ldc,
                                                    const fdnn_f32_gemm_epilogue_t *ep);
/* AVX-512 F (FP32 FMA), A wide. */
void fdnn_bf16_gemm_ukernel_12x32__avx512(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                          float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
/* AVX2 + FMA, A wide. */
void fdnn_bf16_gemm_ukernel_4x16__avx2(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                       float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
/* AArch64 BF16 (BFMLALT/BFMLALB), A in pairs; AArch64 ASIMD (FMLA), A
 * wide.  8 x 12; bf16_gemm_neon.inc says how they keep the flush rule. */
void fdnn_bf16_gemm_ukernel_8x12__neonbf16(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                           float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_bf16_gemm_ukernel_8x12__neon(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                       float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
/* Portable C, A wide. */
void fdnn_bf16_gemm_ukernel_4x16__scalar(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                         float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* Packs strips: the kc x w block X(p, j) (p < kc, j < w; width <= 64)
 * of a matrix of `type` stored at src with leading dimension ld, where
 *
 *   X(p, j) = src[j * ld + p]   when k_contig (k runs along the rows:
 *                               A not transposed, B transposed)
 *           = src[p * ld + j]   otherwise (A transposed, B not)
 *
 * into ceil(w / width) strips of the pair layout above, `width` entries
 * per pair row (MR or NR), wide or not, strip s at dst + s * kp * width
 * (twice that when wide); columns past w in the last strip are +0.  Each value is converted to
 * bfloat16 once, rounding to nearest even (NaN stays a quiet NaN, overflow
 * goes to Inf); HALF goes through its exact float value.  Reads only the
 * elements of the block, writes only the strips. */
typedef void (*fdnn_bf16_pack_fn)(int type, bool k_contig, size_t kc, size_t w, const void *src, size_t ld,
                                  size_t width, bool wide, uint32_t *dst);
void fdnn_bf16_pack__scalar(int type, bool k_contig, size_t kc, size_t w, const void *src, size_t ld, size_t width,
                            bool wide, uint32_t *dst);
void fdnn_bf16_pack__avx2(int type, bool k_contig, size_t kc, size_t w, const void *src, size_t ld, size_t width,
                          bool wide, uint32_t *dst);
void fdnn_bf16_pack__avx512(int type, bool k_contig, size_t kc, size_t w, const void *src, size_t ld,
                            size_t width, bool wide, uint32_t *dst);

/* One tile of the family as the per-ISA configuration (src/cpu/config)
 * registers it: `id` its fdnn_bf16dot_kernel_t, the microkernel, its
 * A-in-place twin (NULL if none), the nr/2-wide twins for a last strip at
 * most half full (NULL if none), the pack, the shape and whether A is
 * packed wide (two words per pair). */
typedef struct fdnn_bf16dot_tile {
    int id;
    fdnn_bf16_gemm_ukernel_fn ukernel, ukernel_half;
    fdnn_bf16_gemm_arows_ukernel_fn arows, arows_half;
    fdnn_bf16_pack_fn pack;
    size_t mr, nr;
    bool a_wide;
} fdnn_bf16dot_tile_t;

#endif /* FDNN_CPU_KERNELS_BF16_GEMM_H */

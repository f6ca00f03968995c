/* SPDX-License-Identifier: Apache-2.0
 * The converting packs of the half-storage float GEMM (fdnn_sgemm_f16,
 * src/cpu/gemm/sgemm_f16.h): the FP32 packs of gemm_ukernel.h with IEEE
 * half sources, each element converted exactly to float (vcvtph2ps) as it
 * is packed, so PSEUDO_HALF convolutions never stage a whole operand in
 * FP32.  Contracts, element for element, those of the FP32 twins:
 *
 *   fdnn_f16_pack_t_fn   fdnn_f32_pack_t_fn  (transposing, dst_rows <= 64)
 *   fdnn_f16_pack_n_fn   fdnn_f32_pack_n_fn  (strips of width <= 64), and
 *                        fdnn_f32_pack_b49__avx512's layout for the _b49 one
 *   fdnn_f16_rows_fn     dst[r * dst_ld + c] = src[r * src_ld + c]
 *                        (r < rows, c < cols): rows of A for the arows
 *                        kernels, which read A with its rows kept
 *
 * Each reads and writes nothing outside those elements.  A level's set is
 * named in its src/cpu/config file (the sgemm_f16 field); the portable
 * ones are gemm_driver.inc's. */
#ifndef FDNN_CPU_KERNELS_F16_PACK_H
#define FDNN_CPU_KERNELS_F16_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/kernels/gemm_ukernel.h"

typedef void (*fdnn_f16_pack_t_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                   size_t dst_rows);
typedef void (*fdnn_f16_pack_n_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                   size_t width);
typedef void (*fdnn_f16_rows_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                 size_t dst_ld);

/* A "bhalf" microkernel: fdnn_f32_gemm_ukernel_fn's contract (A packed)
 * with B given as IEEE halves, b[p * b_stride + j], each converted exactly
 * to float as it is loaded: C gets the same products and sums, bit for
 * bit, as the plain kernel on a converted copy of B.  It reads B rows in
 * place (only full strips: all NR columns of each row are loaded). */
typedef void (*fdnn_f16_bhalf_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *a, const uint16_t *b,
                                          size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* A level's FP32 sgemm kernel and its bhalf twin (same mr x nr tile). */
typedef struct fdnn_f16_bhalf_twin {
    fdnn_f32_gemm_ukernel_fn ukernel;
    fdnn_f16_bhalf_ukernel_fn bhalf;
    size_t mr, nr;
} fdnn_f16_bhalf_twin_t;

/* An "ahalf" arows microkernel: fdnn_f32_gemm_arows_ukernel_fn's contract
 * with A's rows given as IEEE halves (row i at a + i * lda, k contiguous),
 * each converted exactly to float: bit for bit the plain arows kernel on
 * converted rows.  A level's FP32 arows kernel and its ahalf twin. */
typedef void (*fdnn_f16_ahalf_arows_ukernel_fn)(size_t mr, size_t nr, size_t kc, const uint16_t *a, size_t lda,
                                                const float *b, size_t b_stride, float *c, size_t ldc,
                                                const fdnn_f32_gemm_epilogue_t *ep);
typedef struct fdnn_f16_ahalf_twin {
    fdnn_f32_gemm_arows_ukernel_fn arows;
    fdnn_f16_ahalf_arows_ukernel_fn ahalf;
    size_t mr, nr;
} fdnn_f16_ahalf_twin_t;

/* One level's converting packs; a NULL member is the portable one (pack_b:
 * the level's FP32 tile has no pack_b of its own).  bhalf: the twins of
 * bhalf_count of the level's sgemm kernels (NULL, 0: none; the driver then
 * converts B by packing it even where fdnn_sgemm reads it in place). */
typedef struct fdnn_f16_packs {
    fdnn_f16_pack_t_fn pack_t;
    fdnn_f16_pack_n_fn pack_n;
    fdnn_f16_pack_n_fn pack_b; /* twin of the level's sgemm tile pack_b */
    fdnn_f16_rows_fn rows;
    const fdnn_f16_bhalf_twin_t *bhalf;
    size_t bhalf_count;
    /* the ahalf twins of ahalf_count of the level's arows kernels (NULL,
     * 0: none; the driver then converts A's rows into L1 for the float
     * arows kernel) */
    const fdnn_f16_ahalf_twin_t *ahalf;
    size_t ahalf_count;
} fdnn_f16_packs_t;

/* AVX-512 F (+ the F16C conversions). */
void fdnn_f16_pack_t__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                             size_t dst_rows);
void fdnn_f16_pack_n__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                             size_t width);
void fdnn_f16_pack_b49__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                               size_t width);
void fdnn_f16_rows__avx512(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                           size_t dst_ld);

/* AVX-512 F bhalf twins of fdnn_f32_gemm_ukernel_14x32__avx512 and _8x48. */
void fdnn_f32_gemm_bhalf_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, const uint16_t *b,
                                               size_t b_stride, float *c, size_t ldc,
                                               const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_bhalf_ukernel_8x48__avx512(size_t mr, size_t nr, size_t kc, const float *a, const uint16_t *b,
                                              size_t b_stride, float *c, size_t ldc,
                                              const fdnn_f32_gemm_epilogue_t *ep);

/* AVX-512 F ahalf twin of fdnn_f32_gemm_arows_ukernel_6x49__avx512. */
void fdnn_f32_gemm_arows_ahalf_ukernel_6x49__avx512(size_t mr, size_t nr, size_t kc, const uint16_t *a, size_t lda,
                                                    const float *b, size_t b_stride, float *c, size_t ldc,
                                                    const fdnn_f32_gemm_epilogue_t *ep);

/* AVX2 + F16C. */
void fdnn_f16_pack_t__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                           size_t dst_rows);
void fdnn_f16_pack_n__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                           size_t width);
void fdnn_f16_rows__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                         size_t dst_ld);

#endif /* FDNN_CPU_KERNELS_F16_PACK_H */

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

typedef void (*fdnn_f16_pack_t_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                   size_t dst_rows);
typedef void (*fdnn_f16_pack_n_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                   size_t width);
typedef void (*fdnn_f16_rows_fn)(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                                 size_t dst_ld);

/* One level's converting packs; a NULL member is the portable one (pack_b:
 * the level's FP32 tile has no pack_b of its own). */
typedef struct fdnn_f16_packs {
    fdnn_f16_pack_t_fn pack_t;
    fdnn_f16_pack_n_fn pack_n;
    fdnn_f16_pack_n_fn pack_b; /* twin of the level's sgemm tile pack_b */
    fdnn_f16_rows_fn rows;
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

/* AVX2 + F16C. */
void fdnn_f16_pack_t__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                           size_t dst_rows);
void fdnn_f16_pack_n__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                           size_t width);
void fdnn_f16_rows__avx2(size_t rows, size_t cols, const uint16_t *src, size_t src_ld, float *dst,
                         size_t dst_ld);

#endif /* FDNN_CPU_KERNELS_F16_PACK_H */

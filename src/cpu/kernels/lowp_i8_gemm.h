/* SPDX-License-Identifier: Apache-2.0
 * The kernels of the INT8 dot-product GEMM (src/cpu/gemm/lowp_i8_gemm.c):
 * int8/uint8 operands, exact int32 accumulation, vpdpbusd where the CPU
 * has AVX512-VNNI.
 *
 * Panels.  A "quad" is one 32-bit word holding four bytes of consecutive
 * k, byte h = k 4q + h (k past kc: 0), the operand layout of vpdpbusd.  The
 * A side is always unsigned and the B side signed: an int8 A is stored
 * with its sign bit flipped (a + 128) and a uint8 B likewise (b - 128); the
 * corrections are sums the packs compute (see the driver).
 *
 *   A strip (MR rows):    a[q * MR + i] = quad of op(A)(i, 4q .. 4q+3) as uint8
 *   B strip (NR columns): b[q * NR + j] = quad of op(B)(4q .. 4q+3, j) as int8
 *
 * followed, when the driver asks for it, by MR (NR) int32 "add" words.
 *
 * Microkernel: acc(i, j) = sum over p < kc of a(i, p) * b(p, j), exact
 * (int32, modulo 2^32 past its range), then
 *
 *   v = acc + row_add[i] (if row_add) + col_add[j] (if col_add)   mod 2^32
 *   C(i, j) = accumulate ? C(i, j) + v : v                          mod 2^32
 *
 * for i < mr, j < nr only; C is int32, row-major, ldc elements.  Exact
 * integer arithmetic: every kernel gives the same bits.  kc == 0: acc = 0
 * (a, b not read). */
#ifndef FDNN_CPU_KERNELS_LOWP_I8_GEMM_H
#define FDNN_CPU_KERNELS_LOWP_I8_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*fdnn_i8_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                        const int32_t *row_add, const int32_t *col_add, bool accumulate,
                                        int32_t *c, size_t ldc);

/* AVX-512 VNNI (vpdpbusd). */
void fdnn_i8_gemm_ukernel_14x32__avx512vnni(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                            const int32_t *row_add, const int32_t *col_add, bool accumulate,
                                            int32_t *c, size_t ldc);
/* The same reading A in place: quad (q, i) = a[i * lda_words + q] ^ a_xor
 * (the words of byte rows of A, not transposed; a_xor 0x80808080 makes
 * int8 unsigned); kc a multiple of 4.  Rows past mr repeat row mr - 1. */
typedef void (*fdnn_i8_gemm_arows_ukernel_fn)(size_t mr, size_t nr, size_t kc, const uint32_t *a, size_t lda_words,
                                              uint32_t a_xor, const uint32_t *b, const int32_t *row_add,
                                              const int32_t *col_add, bool accumulate, int32_t *c, size_t ldc);
void fdnn_i8_gemm_arows_ukernel_14x32__avx512vnni(size_t mr, size_t nr, size_t kc, const uint32_t *a,
                                                  size_t lda_words, uint32_t a_xor, const uint32_t *b,
                                                  const int32_t *row_add, const int32_t *col_add, bool accumulate,
                                                  int32_t *c, size_t ldc);
/* AVX-512 BW (bytes widened to 16 bits, vpmaddwd). */
void fdnn_i8_gemm_ukernel_12x32__avx512(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                        const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                        size_t ldc);
/* AVX2 (the same in ymm). */
void fdnn_i8_gemm_ukernel_4x16__avx2(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                     const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                     size_t ldc);
/* Portable C. */
void fdnn_i8_gemm_ukernel_4x16__scalar(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                       const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                       size_t ldc);

/* Packs one strip: the kc x w block X(p, j) (p < kc, j < w <= width <= 64)
 * of bytes at src with leading dimension ld,
 *
 *   X(p, j) = src[j * ld + p] when k_contig, src[p * ld + j] otherwise,
 *
 * as quads (byte h of word (q, j) = X(4q + h, j) ^ flip; bytes past kc and
 * columns past w are 0) with `width` words per quad row.  When sums is not
 * NULL also writes, for j < width,
 *
 *   sums[j] = scale * S(j) + add   (mod 2^32; 0 for j >= w)
 *
 * where S(j) is the sum over p < kc of the stored byte X(p, j) ^ flip read
 * as int8 when as_signed, as uint8 otherwise.  Reads only the block. */
typedef void (*fdnn_i8_pack_fn)(bool k_contig, size_t kc, size_t w, const uint8_t *src, size_t ld, size_t width,
                                uint8_t flip, bool as_signed, int32_t scale, int32_t add, uint32_t *dst,
                                int32_t *sums);
void fdnn_i8_pack__scalar(bool k_contig, size_t kc, size_t w, const uint8_t *src, size_t ld, size_t width,
                          uint8_t flip, bool as_signed, int32_t scale, int32_t add, uint32_t *dst, int32_t *sums);
void fdnn_i8_pack__avx2(bool k_contig, size_t kc, size_t w, const uint8_t *src, size_t ld, size_t width,
                        uint8_t flip, bool as_signed, int32_t scale, int32_t add, uint32_t *dst, int32_t *sums);
void fdnn_i8_pack__avx512(bool k_contig, size_t kc, size_t w, const uint8_t *src, size_t ld, size_t width,
                          uint8_t flip, bool as_signed, int32_t scale, int32_t add, uint32_t *dst, int32_t *sums);

/* The row corrections of an A read in place (the "add" words an A pack
 * would store): out[r] = scale * S(r) + add (mod 2^32) for r < rows, where
 * S(r) = sum over p < kc of (a[r * lda + p] ^ flip) as uint8. */
typedef void (*fdnn_i8_row_sums_fn)(size_t rows, size_t kc, const uint8_t *a, size_t lda, uint8_t flip,
                                    int32_t scale, int32_t add, int32_t *out);
void fdnn_i8_row_sums__scalar(size_t rows, size_t kc, const uint8_t *a, size_t lda, uint8_t flip, int32_t scale,
                              int32_t add, int32_t *out);
void fdnn_i8_row_sums__avx2(size_t rows, size_t kc, const uint8_t *a, size_t lda, uint8_t flip, int32_t scale,
                            int32_t add, int32_t *out);
void fdnn_i8_row_sums__avx512(size_t rows, size_t kc, const uint8_t *a, size_t lda, uint8_t flip, int32_t scale,
                              int32_t add, int32_t *out);

/* AArch64 I8MM (SUDOT by element), 8 x 12. */
void fdnn_i8_gemm_ukernel_8x12__neoni8mm(size_t mr, size_t nr, size_t kc, const uint32_t *a, const uint32_t *b,
                                         const int32_t *row_add, const int32_t *col_add, bool accumulate, int32_t *c,
                                         size_t ldc);

/* One tile of the family as the per-ISA configuration (src/cpu/config)
 * registers it: `id` its fdnn_i8dot_kernel_t, the microkernel, its
 * A-in-place twin and that twin's row sums (NULL if none), the pack and
 * the shape. */
typedef struct fdnn_i8dot_tile {
    int id;
    fdnn_i8_gemm_ukernel_fn ukernel;
    fdnn_i8_gemm_arows_ukernel_fn arows;
    fdnn_i8_pack_fn pack;
    fdnn_i8_row_sums_fn row_sums;
    size_t mr, nr;
} fdnn_i8dot_tile_t;

#endif /* FDNN_CPU_KERNELS_LOWP_I8_GEMM_H */

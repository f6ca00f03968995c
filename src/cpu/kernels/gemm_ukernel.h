/* SPDX-License-Identifier: Apache-2.0
 * GEMM microkernels: the register-tiled inner loop of the GEMM core
 * (src/cpu/gemm/), one per element type, tile shape and ISA.
 *
 * A microkernel computes one MR x NR tile of C from two packed panels:
 *
 *   a: kc x MR floats, a[p * MR + i] = op(A)(i, p)   (rows past mr are zero)
 *   b: kc rows of NR floats, b[p * b_stride + j] = op(B)(p, j), either a
 *      packed strip (b_stride == NR, 64-byte aligned, columns past nr zero) or,
 *      when nr == NR, op(B) itself read in place (b_stride == ldb, any
 *      alignment): all NR columns of each row are loaded (the SIMD kernels
 *      also prefetch such rows a few steps ahead, never past row kc - 1)
 *
 *   acc[i][j] = sum over p = 0 .. kc-1, in that order, of a[p][i] * b[p][j]
 *               (one fused multiply-add per step on the SIMD kernels)
 *   v = alpha * acc[i][j]
 *   v = v                      when beta == 0 (C is not read)
 *     = C[i][j] + v            when beta == 1
 *     = v + beta * C[i][j]     otherwise
 *   v = v + bias_row[i]        when bias_row != NULL
 *   v = v + bias_col[j]        when bias_col != NULL
 *   v = v < 0 ? 0 : v          when relu (NaN stays NaN)
 *   C[i][j] = v                for i < mr, j < nr only
 *
 * C is row-major with leading dimension ldc (elements).  Only the mr x nr
 * corner is read or written, so C may end right at a guard page.  The packed
 * panels are 64-byte aligned (the driver carves them from aligned scratch).  Kernels
 * allocate nothing, start no threads and trust their caller: preconditions
 * are asserts. */
#ifndef FDNN_CPU_KERNELS_GEMM_UKERNEL_H
#define FDNN_CPU_KERNELS_GEMM_UKERNEL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fdnn_f32_gemm_epilogue {
    float alpha;
    float beta;
    const float *bias_row; /* mr entries for this tile, or NULL */
    const float *bias_col; /* nr entries for this tile, or NULL */
    bool relu;
    /* Full-width rows of C that start on a 64-byte boundary go out with
     * non-temporal stores (no read for ownership); only for a C that is
     * written once (beta 0, one k pass) and far larger than the caches.
     * The caller fences (fdnn_gemm_stream_fence) before C is read. */
    bool stream;
} fdnn_f32_gemm_epilogue_t;

typedef struct fdnn_f64_gemm_epilogue {
    double alpha;
    double beta;
    const double *bias_row;
    const double *bias_col;
    bool relu;
    bool stream; /* as for float */
} fdnn_f64_gemm_epilogue_t;

typedef void (*fdnn_f32_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
typedef void (*fdnn_f64_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const double *a, const double *b,
    size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);

/* Portable C, any CPU. */
void fdnn_f32_gemm_ukernel_4x16__scalar(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f64_gemm_ukernel_4x8__scalar(size_t mr, size_t nr, size_t kc, const double *a, const double *b,
    size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);

/* AVX2 + FMA. */
void fdnn_f32_gemm_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f64_gemm_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const double *a, const double *b,
    size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);

/* AVX2 + FMA, narrow products (n <= 8). */
void fdnn_f32_gemm_ukernel_12x8__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* AVX-512 F. */
void fdnn_f32_gemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f64_gemm_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const double *a, const double *b,
    size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);

/* AVX-512 F, short products (m <= 8). */
void fdnn_f32_gemm_ukernel_8x48__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* The packed twins of the narrow arows kernels. */
void fdnn_f32_gemm_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* AVX2 + FMA, short products (m <= 4). */
void fdnn_f32_gemm_ukernel_4x24__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* AVX-512 F, narrow products (n <= 16). */
void fdnn_f32_gemm_ukernel_28x16__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* A read in place (not transposed, row i at a + i * lda): the same contract
 * with a[p * MR + i] replaced by a[i * lda + p]; rows past mr are not read. */
typedef void (*fdnn_f32_gemm_arows_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
                                               const float *b, size_t b_stride, float *c, size_t ldc,
                                               const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_8x48__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* A read through one pointer per row, in runs of seg elements (the last
 * one shorter if kc is not a multiple) at the offsets runs[0..]: k step p
 * reads row i at a[i][runs[p / seg] + p % seg] (seg >= 1); otherwise the
 * contract of the packed kernel.  a[i] for i >= mr is not read.  For
 * reading the rows of an im2col that is never written out: every row of
 * the block shares the runs (output rows of the block), each row has its
 * own start (channel and tap). */
typedef void (*fdnn_f32_gemm_aptrs_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *const *a,
                                               const size_t *runs, size_t seg, const float *b, size_t b_stride,
                                               float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_aptrs_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *const *a,
    const size_t *runs, size_t seg, const float *b, size_t b_stride, float *c, size_t ldc,
    const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_aptrs_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *const *a,
    const size_t *runs, size_t seg, const float *b, size_t b_stride, float *c, size_t ldc,
    const fdnn_f32_gemm_epilogue_t *ep);

/* 6 rows x 49 columns, A read in place, B in its own packed layout (made by
 * fdnn_f32_pack_b49__avx512, b_stride == 49); column 48 is summed along k
 * in 16 lanes and a fixed tree.  See the file. */
void fdnn_f32_gemm_arows_ukernel_6x49__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
/* One kernel call's share of a prefetch hint (fdnn_sgemm_args_t.next): lines
 * first .. first + count - 1 of a region whose row r holds lpr lines from
 * base + r * ld, in steps of 64 bytes (addresses only: a line may lie past
 * the region, a prefetch never faults). */
typedef struct fdnn_gemm_pf_share {
    const char *base;
    size_t lpr, ld, first, count;
} fdnn_gemm_pf_share_t;
/* An arows kernel that also prefetches its share, spread over its k loop
 * (the misses then overlap the FMAs); C exactly as the plain kernel's. */
typedef void (*fdnn_f32_gemm_arows_pf_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
                                                  const float *b, size_t b_stride, float *c, size_t ldc,
                                                  const fdnn_f32_gemm_epilogue_t *ep,
                                                  const fdnn_gemm_pf_share_t *pf);
void fdnn_f32_gemm_arows_pf_ukernel_6x49__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
/* The twins of the arows kernels above (gemm_ukernel_simd.inc): the share
 * into L2, ceil(count / kc) lines per k step. */
void fdnn_f32_gemm_arows_pf_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
void fdnn_f32_gemm_arows_pf_ukernel_8x48__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
void fdnn_f32_gemm_arows_pf_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
void fdnn_f32_gemm_arows_pf_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
void fdnn_f32_gemm_arows_pf_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep,
    const fdnn_gemm_pf_share_t *pf);
/* fdnn_f32_pack_n_fn for width 49 into that layout. */
void fdnn_f32_pack_b49__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                               size_t width);

/* AArch64 ASIMD (NEON): 8 rows x 12 columns (three q registers per row),
 * packed A broadcast by lane (FMLA by element); and A read in place. */
void fdnn_f32_gemm_ukernel_8x12__neon(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
    size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);
void fdnn_f32_gemm_arows_ukernel_8x12__neon(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
    const float *b, size_t b_stride, float *c, size_t ldc, const fdnn_f32_gemm_epilogue_t *ep);

/* Double, A read in place. */
typedef void (*fdnn_f64_gemm_arows_ukernel_fn)(size_t mr, size_t nr, size_t kc, const double *a, size_t lda,
                                               const double *b, size_t b_stride, double *c, size_t ldc,
                                               const fdnn_f64_gemm_epilogue_t *ep);
void fdnn_f64_gemm_arows_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const double *a, size_t lda,
    const double *b, size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);
void fdnn_f64_gemm_arows_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const double *a, size_t lda,
    const double *b, size_t b_stride, double *c, size_t ldc, const fdnn_f64_gemm_epilogue_t *ep);

/* Transposing pack of a panel: for a source of `rows` rows of `cols` floats
 * (row r at src + r * src_ld, contiguous in c), writes
 *
 *   dst[c * dst_rows + r] = src[r * src_ld + c]   for r < rows, c < cols
 *   dst[c * dst_rows + r] = 0                     for rows <= r < dst_rows
 *
 * i.e. the k-major, zero-padded strip layout the microkernels read, from a
 * matrix stored with k contiguous (A not transposed, B transposed).
 * rows <= dst_rows <= 64.  Reads and writes nothing outside those elements. */
typedef void (*fdnn_f32_pack_t_fn)(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                                   size_t dst_rows);
void fdnn_f32_pack_t__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                             size_t dst_rows);
void fdnn_f32_pack_t__avx2(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                           size_t dst_rows);

/* Plain pack of a panel already stored k-major (A transposed, B not), cut
 * into strips of `width` columns, each strip rows x width and contiguous:
 *
 *   dst[(c / width) * rows * width + r * width + c % width] = src[r * src_ld + c]
 *                                            for r < rows, c < cols
 *   the same with 0                          for cols <= c < ceil(cols / width) * width
 *
 * width <= 64.  Rows are read whole (one pass over each source row for all
 * its strips: contiguous reads, one page at a time).  Reads and writes
 * nothing outside those elements. */
typedef void (*fdnn_f32_pack_n_fn)(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                                   size_t width);
void fdnn_f32_pack_n__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                             size_t width);
void fdnn_f32_pack_n__avx2(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst,
                           size_t width);

#endif /* FDNN_CPU_KERNELS_GEMM_UKERNEL_H */

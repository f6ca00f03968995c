/* SPDX-License-Identifier: Apache-2.0
 * The one packed, blocked GEMM core that every GEMM-shaped computation of
 * FreeDNN goes through (convolution solvers, RNN, attention, the fully
 * connected layers of the demo).
 *
 *   C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
 *
 * Row-major with leading dimensions in elements; op(X) is X or X^T.  When
 * beta == 0, C is never read (NaN in C is ignored).  The optional epilogue is
 * applied to every element of C after the product:
 *   C[i][j] = act(C[i][j] + bias_row[i] + bias_col[j])
 * (each bias pointer may be NULL).
 *
 * Threads: the work is split over `pool` (NULL = the calling thread) into a
 * fixed set of blocks that does not depend on the thread count, and each
 * element of C is computed by one thread with a fixed order of summation over
 * k, so results are bitwise identical for any thread count on one ISA.
 *
 * Memory: packing buffers come from `scratch` when its size is at least
 * fdnn_sgemm_scratch_size(...); otherwise the call allocates (and frees)
 * them itself.  Kernels never allocate. */
#ifndef FDNN_CPU_GEMM_H
#define FDNN_CPU_GEMM_H

#include "core/pool.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"

typedef enum fdnn_gemm_act {
    FDNN_GEMM_ACT_NONE = 0,
    FDNN_GEMM_ACT_RELU = 1,
} fdnn_gemm_act_t;

/* A finished tile of C: rows [row, row + rows) and columns [col, col +
 * cols) of C, at c (c[i * ldc + j] is C[row + i][col + j]), after the last
 * k block and the built-in epilogue.  See fdnn_sgemm_args_t.tile_hook. */
typedef void (*fdnn_gemm_tile_hook_t)(void *ctx, float *c, size_t ldc, size_t row, size_t col, size_t rows,
                                      size_t cols);

/* rows of row_bytes bytes, ld_bytes apart, from base (see fdnn_sgemm_args_t.next) */
typedef struct fdnn_gemm_prefetch {
    const void *base;
    size_t rows, row_bytes, ld_bytes;
} fdnn_gemm_prefetch_t;

typedef struct fdnn_sgemm_args {
    bool trans_a, trans_b;
    size_t m, n, k;
    float alpha;
    const float *a;
    size_t lda;
    const float *b;
    size_t ldb;
    float beta;
    float *c;
    size_t ldc;
    const float *bias_row; /* m entries or NULL */
    const float *bias_col; /* n entries or NULL */
    fdnn_gemm_act_t act;
    /* Optional epilogue of the caller's (NULL: none, and nothing to pay):
     * called once for each tile of C a parallel item computes (at most
     * MC x NT, about L2/4), right after its last k block, on the thread
     * that computed it and while the tile is still in that core's cache.
     * The tiles partition C and do not depend on the thread count; the hook
     * may rewrite its tile (or write its tile's part of another tensor) and
     * must touch nothing else of C.  C then goes out with plain stores (no
     * streaming).  The fused graph engine runs its pointwise chain here. */
    fdnn_gemm_tile_hook_t tile_hook;
    void *tile_ctx;
    /* Optional hint (base NULL: none; no effect on C): memory the caller
     * reads right after this product (the convolution's next panel of B,
     * whose pack would otherwise wait on memory with no FMA running).  The
     * driver hands each kernel call an equal share of its lines; kernels
     * that support it (the 6x49 tile) prefetch their share during their k
     * loop, the others ignore it. */
    fdnn_gemm_prefetch_t next;
    /* Optional hint for the tile choice only (no effect on C): the caller
     * reads B in place in strips of the tile's nr columns and packs a last
     * partial strip (conv_gemm_nhwc_wgrad.c), so a tile whose nr leaves
     * none saves a copy of those columns of B. */
    bool b_strips_in_place;
    /* Optional hint (no effect on C): op(B) is far larger than the caches
     * and wanted once (one image's backward data reads the whole filter
     * as B for a few dozen rows of A), so where the short-product rule
     * reads B in place (m up to two row tiles, A's block in half of L2) it
     * does so whatever B's size, instead of copying it first. */
    bool b_read_once;
} fdnn_sgemm_args_t;

/* Bytes of scratch that fdnn_sgemm needs to run without allocating. */
size_t fdnn_sgemm_scratch_size(const fdnn_sgemm_args_t *args, size_t num_threads, fdnn_isa_t isa);

/* Returns false only when scratch was too small and allocation failed. */
bool fdnn_sgemm(const fdnn_sgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                size_t scratch_bytes);

/* True when fdnn_sgemm would run `args` (as given, A not transposed) with a
 * tile that reads A in place across all of n: the 6x49 AVX-512 tile for
 * n = 49, 98, 147, 196, .., which wastes no lanes on those widths.  A caller
 * holding A^T (the backward-data filter) can then pass a transposed copy
 * instead.  Depends on the shape and the ISA only. */
bool fdnn_sgemm_prefers_rows_of_a(const fdnn_sgemm_args_t *args, fdnn_isa_t isa);

/* Double precision, same contract (no epilogue activation). */
typedef struct fdnn_dgemm_args {
    bool trans_a, trans_b;
    size_t m, n, k;
    double alpha;
    const double *a;
    size_t lda;
    const double *b;
    size_t ldb;
    double beta;
    double *c;
    size_t ldc;
} fdnn_dgemm_args_t;

void fdnn_dgemm(const fdnn_dgemm_args_t *args, fdnn_pool_t pool);

/* fdnn_dgemm on an explicit ISA level (tests, handles with freednnSetIsa);
 * fdnn_dgemm uses fdnn_cpu_max_isa().  Returns false only when the packing
 * buffers could not be allocated (fdnn_dgemm then leaves C unchanged). */
bool fdnn_dgemm_isa(const fdnn_dgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa);

/* ---- BF16 dot-product GEMM: the CPU's Tensor Core math (bf16_gemm.c) ----
 *
 *   C[m x n] (FLOAT) = alpha * op(A) * op(B) + beta * C, then the epilogue
 *
 * with the layout, leading dimensions, beta == 0 (C not read), epilogue
 * and thread contract of fdnn_sgemm, but A and B each stored as FLOAT, HALF
 * or BFLOAT16 (any combination) and every product taken in bfloat16: each
 * element of op(A) and op(B) is rounded to bfloat16 (nearest even) as it is
 * packed, the products are exact in FP32 and summed in FP32, two k steps at
 * a time in vdpbf16ps order (odd, then even; subnormal inputs and results
 * flushed to zero), in k blocks of at most 512.  This is what
 * CUDNN_TENSOR_OP_MATH runs on HALF/BFLOAT16 data and
 * CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data.
 *
 * Error against the exact product of the bf16-rounded operands: at most
 * about k * 2^-24 * sum_p |a(i,p) b(p,j)| (FP32 accumulation); against the
 * unrounded operands add 2^-8 * sum_p |a b| (two bf16 roundings).
 *
 * Results are bitwise identical for every thread count and on every kernel
 * (AVX-512 BF16, AVX-512, AVX2, portable C), except in the portable
 * kernel's one flush corner (bf16_gemm_4x16__scalar.c).  NaN results may
 * carry different payloads. */
typedef enum fdnn_gemm_dtype {
    FDNN_GEMM_F32 = 0,  /* IEEE single */
    FDNN_GEMM_F16 = 1,  /* IEEE half */
    FDNN_GEMM_BF16 = 2, /* bfloat16 */
} fdnn_gemm_dtype_t;

typedef struct fdnn_gemm_bf16dot_args {
    bool trans_a, trans_b;
    size_t m, n, k;
    float alpha;
    fdnn_gemm_dtype_t a_type;
    const void *a;
    size_t lda;
    fdnn_gemm_dtype_t b_type;
    const void *b;
    size_t ldb;
    float beta;
    float *c;
    size_t ldc;
    const float *bias_row; /* m entries or NULL */
    const float *bias_col; /* n entries or NULL */
    fdnn_gemm_act_t act;
    /* B packed beforehand by fdnn_gemm_bf16dot_pack_b (same trans_b, n, k,
     * b_type, and the same kernel) or NULL; when set, b and ldb are not read.
     * For products that reuse one B many times (an RNN's recurrent weights
     * at every time step). */
    const void *b_packed;
} fdnn_gemm_bf16dot_args_t;

/* The microkernels; fdnn_gemm_bf16dot_kernel picks the best one the ISA
 * level allows and the CPU has (AVX512_BF16 needs the level AVX512 and the
 * CPU's avx512_bf16 flag). */
typedef enum fdnn_bf16dot_kernel {
    FDNN_BF16DOT_PORTABLE = 0,
    FDNN_BF16DOT_AVX2 = 1,
    FDNN_BF16DOT_AVX512 = 2,
    FDNN_BF16DOT_AVX512_BF16 = 3,
    FDNN_BF16DOT_NEON = 4,      /* AArch64 ASIMD: FP32 FMLA */
    FDNN_BF16DOT_NEON_BF16 = 5, /* BFMLALT/BFMLALB: level NEON and the CPU's BF16 (AT_HWCAP2) */
} fdnn_bf16dot_kernel_t;

fdnn_bf16dot_kernel_t fdnn_gemm_bf16dot_kernel(fdnn_isa_t isa);
const char *fdnn_gemm_bf16dot_kernel_name(fdnn_bf16dot_kernel_t kernel);

/* Bytes of scratch that fdnn_gemm_bf16dot needs to run without allocating
 * (any thread count). */
size_t fdnn_gemm_bf16dot_scratch_size(const fdnn_gemm_bf16dot_args_t *args, fdnn_isa_t isa);

/* Returns false only when scratch was too small and allocation failed (C
 * is then unchanged). */
bool fdnn_gemm_bf16dot(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                       size_t scratch_bytes);

/* Packed B for reuse (args->b_packed): bytes of the buffer (0 when the
 * product has no B to pack: m, n, k or alpha zero), and the packing of
 * op(B) of args (b, ldb, b_type, trans_b, n, k; m, A and C are not read)
 * into buf, 64-byte aligned, for the kernel fdnn_gemm_bf16dot(isa) runs.
 * A product given the packed B is bitwise the one that packs it itself. */
size_t fdnn_gemm_bf16dot_packed_b_size(const fdnn_gemm_bf16dot_args_t *args, fdnn_isa_t isa);
void fdnn_gemm_bf16dot_pack_b(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *buf);

/* The same on one kernel (tests, benchmarks); false also when this CPU
 * cannot run it. */
size_t fdnn_gemm_bf16dot_scratch_size_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_bf16dot_kernel_t kernel);
bool fdnn_gemm_bf16dot_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_bf16dot_kernel_t kernel,
                          void *scratch, size_t scratch_bytes);
size_t fdnn_gemm_bf16dot_packed_b_size_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_bf16dot_kernel_t kernel);
void fdnn_gemm_bf16dot_pack_b_on(const fdnn_gemm_bf16dot_args_t *args, fdnn_pool_t pool, fdnn_bf16dot_kernel_t kernel,
                                 void *buf);

/* ---- INT8 dot-product GEMM: integer convolutions' engine (lowp_i8_gemm.c) ----
 *
 *   C[m x n] (int32) = op(A) * op(B)          (accumulate: C += op(A) op(B))
 *
 * A and B each int8 or uint8 (any combination), transposed or not, row-major
 * with their leading dimensions; exact int32 arithmetic (wrapping modulo
 * 2^32 only past its range: |sum| >= 2^31 needs k > 66000 extreme values).
 * When accumulate is false C is not read.  vpdpbusd (u8 x s8) where the CPU
 * has AVX512-VNNI: an int8 A is stored as a + 128 and a uint8 B as b - 128,
 * the difference is restored from row/column sums taken while packing.
 * Bitwise the same on every kernel and thread count (integers). */
typedef enum fdnn_gemm_i8_type {
    FDNN_GEMM_S8 = 0, /* int8 */
    FDNN_GEMM_U8 = 1, /* uint8 */
} fdnn_gemm_i8_type_t;

typedef struct fdnn_gemm_i8dot_args {
    bool trans_a, trans_b;
    size_t m, n, k;
    fdnn_gemm_i8_type_t a_type;
    const void *a;
    size_t lda;
    fdnn_gemm_i8_type_t b_type;
    const void *b;
    size_t ldb;
    bool accumulate;
    int32_t *c;
    size_t ldc;
} fdnn_gemm_i8dot_args_t;

typedef enum fdnn_i8dot_kernel {
    FDNN_I8DOT_PORTABLE = 0,
    FDNN_I8DOT_AVX2 = 1,
    FDNN_I8DOT_AVX512 = 2,      /* AVX-512 BW: bytes widened, vpmaddwd */
    FDNN_I8DOT_AVX512_VNNI = 3, /* vpdpbusd: level AVX512 and the CPU's avx512_vnni flag */
    FDNN_I8DOT_NEON_I8MM = 4,   /* SUDOT: level NEON and the CPU's I8MM (AT_HWCAP2) */
} fdnn_i8dot_kernel_t;

fdnn_i8dot_kernel_t fdnn_gemm_i8dot_kernel(fdnn_isa_t isa);
const char *fdnn_gemm_i8dot_kernel_name(fdnn_i8dot_kernel_t kernel);
size_t fdnn_gemm_i8dot_scratch_size(const fdnn_gemm_i8dot_args_t *args, fdnn_isa_t isa);
/* Returns false only when scratch was too small and allocation failed. */
bool fdnn_gemm_i8dot(const fdnn_gemm_i8dot_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                     size_t scratch_bytes);
/* On one kernel (tests, benchmarks); false also when this CPU cannot run it. */
size_t fdnn_gemm_i8dot_scratch_size_on(const fdnn_gemm_i8dot_args_t *args, fdnn_i8dot_kernel_t kernel);
bool fdnn_gemm_i8dot_on(const fdnn_gemm_i8dot_args_t *args, fdnn_pool_t pool, fdnn_i8dot_kernel_t kernel,
                        void *scratch, size_t scratch_bytes);

#endif /* FDNN_CPU_GEMM_H */

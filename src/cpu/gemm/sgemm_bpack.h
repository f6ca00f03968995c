/* SPDX-License-Identifier: Apache-2.0
 * Float GEMM with op(B) packed once and reused by many products: the
 * recurrent products of an RNN (h R^T at every time step, dG R in the
 * backward), where the same 4 MiB of weights are read 50 times by 32-row
 * products.  Read in place (fdnn_sgemm's choice for such short products),
 * those rows lie ldb apart, every k step a new page, and the microkernel
 * waits on them (half its samples on the B loads at 512 x 2048); packed
 * once, each strip of nr columns is one contiguous run the hardware
 * prefetcher follows.
 *
 *   C[m x n] = alpha * A[m x k] * op(B)[k x n] + beta * C
 *
 * A not transposed, row-major with lda; beta == 0 never reads C (and a C
 * of 2 MiB or more then goes out with non-temporal stores, fenced before
 * the call returns).  The
 * tile (microkernel, nr) is the level's fdnn_sgemm choice for the shape
 * given at packing time (src/cpu/config).  Every tile of C is one
 * microkernel call over the whole k (one sum, no k blocks), so the result
 * does not depend on the thread count.  Separate from sgemm.c: the
 * blocked driver stays as it is. */
#ifndef FDNN_CPU_GEMM_SGEMM_BPACK_H
#define FDNN_CPU_GEMM_SGEMM_BPACK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cpu.h"
#include "core/pool.h"
#include "cpu/config/config.h"

typedef struct fdnn_sgemm_bpack {
    float *buf;   /* ceil(n / nr) strips of k x nr floats, zero padded; NULL: not packed */
    size_t n, k, nr, mr;
    fdnn_sgemm_tile_t tile; /* the kernels */
    bool owned;             /* buf allocated by fdnn_sgemm_bpack_init */
} fdnn_sgemm_bpack_t;

/* Bytes of the packed op(B) (n columns, k rows) for products of about m
 * rows on level `isa`, 64-byte alignment slack included; 0 when nothing
 * would be packed.  At most ((n + 63) * k + 16) * sizeof(float) on every
 * level (no tile is wider than 64), a bound callers may size buffers by. */
size_t fdnn_sgemm_bpack_bytes(size_t m, size_t n, size_t k, bool trans_b, fdnn_isa_t isa);

/* Packs op(B) (b, ldb, trans_b) for products of about `m` rows on level
 * `isa`, into `buf` when it holds fdnn_sgemm_bpack_bytes (no allocation),
 * else into an allocated buffer.  False only when that allocation failed.
 * pk->buf stays NULL (and true is returned) when the level has no tile for
 * it (a kernel with its own B layout); the caller then runs fdnn_sgemm. */
bool fdnn_sgemm_bpack_init(fdnn_sgemm_bpack_t *pk, size_t m, size_t n, size_t k, const float *b, size_t ldb,
                           bool trans_b, fdnn_pool_t pool, fdnn_isa_t isa, void *buf, size_t buf_bytes);
void fdnn_sgemm_bpack_free(fdnn_sgemm_bpack_t *pk);

/* Scratch bytes fdnn_sgemm_bpacked needs for m rows (0 when the kernel
 * reads A in place). */
size_t fdnn_sgemm_bpacked_scratch_size(const fdnn_sgemm_bpack_t *pk, size_t m);

/* The product with pk's op(B) (n, k as packed), then + bias_col[j] (NULL:
 * none) after the whole sum; scratch: at least
 * fdnn_sgemm_bpacked_scratch_size bytes, or NULL to allocate.  False only
 * when that allocation failed (C unchanged).  Taller products go by row
 * blocks (A's block a quarter of L2, B streamed once per block); the
 * blocks, like the tiles, do not depend on the thread count. */
bool fdnn_sgemm_bpacked(const fdnn_sgemm_bpack_t *pk, size_t m, float alpha, const float *a, size_t lda, float beta,
                        float *c, size_t ldc, const float *bias_col, fdnn_pool_t pool, void *scratch,
                        size_t scratch_bytes);

#endif /* FDNN_CPU_GEMM_SGEMM_BPACK_H */

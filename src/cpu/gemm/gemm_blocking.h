/* SPDX-License-Identifier: Apache-2.0
 * Block sizes of the GEMM driver, derived from the microkernel tile and the
 * cache sizes (src/core/cpu.h).  Internal to src/cpu/gemm/.  None of them
 * depends on the thread count (see gemm_driver.inc for why). */
#ifndef FDNN_CPU_GEMM_BLOCKING_H
#define FDNN_CPU_GEMM_BLOCKING_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fdnn_gemm_blocking {
    size_t kc;     /* k block */
    size_t mc, nt; /* C tile per parallel item, multiples of mr and nr */
    size_t mb, nc; /* rows of A and columns of B packed per pass */
} fdnn_gemm_blocking_t;

fdnn_gemm_blocking_t fdnn_gemm_blocking(size_t mr, size_t nr, size_t elem_bytes);

/* The same with the k block given (kc_max > 0, a multiple of 8) for a
 * product of depth k: mc (and mb) follow from the k block the driver will
 * use (k cut into equal blocks of at most kc_max), so the A block still
 * fills a quarter of L2.  kc_max == 0: fdnn_gemm_blocking. */
fdnn_gemm_blocking_t fdnn_gemm_blocking_k(size_t mr, size_t nr, size_t elem_bytes, size_t kc_max, size_t k);

/* True when a product is too small to be worth waking the thread pool. */
bool fdnn_gemm_is_small(size_t m, size_t n, size_t k);

#endif /* FDNN_CPU_GEMM_BLOCKING_H */

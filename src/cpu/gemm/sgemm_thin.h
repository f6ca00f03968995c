/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm's path for thin products (m == 1 or n == 1): matrix-vector
 * kernels (src/cpu/kernels/gemv.h) instead of packed tiles.  Internal to
 * src/cpu/gemm/. */
#ifndef FDNN_CPU_GEMM_SGEMM_THIN_H
#define FDNN_CPU_GEMM_SGEMM_THIN_H

#include "cpu/gemm/gemm.h"

/* True when fdnn_sgemm takes the thin path for these arguments. */
bool fdnn_sgemm_is_thin(const fdnn_sgemm_args_t *args);

/* Scratch bytes the thin path needs (the vector, gathered, and the raw
 * products), including alignment slack. */
size_t fdnn_sgemm_thin_scratch_size(const fdnn_sgemm_args_t *args);

/* The product, same contract as fdnn_sgemm; scratch holds at least
 * fdnn_sgemm_thin_scratch_size bytes. */
void fdnn_sgemm_thin(const fdnn_sgemm_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch);

#endif /* FDNN_CPU_GEMM_SGEMM_THIN_H */

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_sgemm_f16: fdnn_sgemm (gemm.h) with A and B stored as IEEE half.
 *
 *   C[m x n] (FLOAT) = alpha * op(A) * op(B) + beta * C, then the epilogue
 *
 * Same layout, leading dimensions (in elements), epilogue, beta == 0 and
 * thread contract as fdnn_sgemm: each element of op(A) and op(B) is
 * converted exactly to float while the driver packs it (the converting
 * packs of src/cpu/kernels/f16_pack.h, chosen per level in src/cpu/config),
 * and the products and sums are those of the FP32 microkernels.  No copy of
 * a whole operand is made: this is FLOAT math on HALF storage
 * (PSEUDO_HALF_CONFIG) without a staging pass.  Results are bitwise
 * identical for any thread count on one ISA level. */
#ifndef FDNN_CPU_GEMM_SGEMM_F16_H
#define FDNN_CPU_GEMM_SGEMM_F16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/pool.h"
#include "cpu/config/config.h"
#include "cpu/gemm/gemm.h"

typedef struct fdnn_sgemm_f16_args {
    bool trans_a, trans_b;
    size_t m, n, k;
    float alpha;
    const uint16_t *a; /* half */
    size_t lda;
    const uint16_t *b; /* half */
    size_t ldb;
    float beta;
    float *c;
    size_t ldc;
    const float *bias_row; /* m entries or NULL */
    const float *bias_col; /* n entries or NULL */
    fdnn_gemm_act_t act;
    /* Optional, NULL: none.  fdnn_sgemm_args_t.tile_hook's contract: called
     * once per finished tile of C (after its last k block), on the thread
     * that computed it, while the tile is in that core's cache; the tiles
     * partition C and do not depend on the thread count.  The PSEUDO_HALF
     * convolutions round their output to half here, so no pass of its own
     * reads the FP32 result back (conv_lowp_1x1.c). */
    fdnn_gemm_tile_hook_t tile_hook;
    void *tile_ctx;
} fdnn_sgemm_f16_args_t;

/* The tile and blocks fdnn_sgemm runs args with (sgemm.c).  fdnn_sgemm_f16
 * runs the same, so that its sums are, in order, those of fdnn_sgemm on the
 * converted operands: a PSEUDO_HALF convolution is bitwise the FP32 one
 * rounded (test_conv_lowp_resnet). */
typedef struct fdnn_sgemm_plan {
    struct fdnn_sgemm_tile tile;
    size_t kc, mc, nt, mb, nc;
    bool b_in_place; /* the short-product rule that has fdnn_sgemm read op(B) in place */
} fdnn_sgemm_plan_t;

fdnn_sgemm_plan_t fdnn_sgemm_plan(fdnn_isa_t isa, const fdnn_sgemm_args_t *args);

/* Bytes of scratch that fdnn_sgemm_f16 needs to run without allocating
 * (any thread count). */
size_t fdnn_sgemm_f16_scratch_size(const fdnn_sgemm_f16_args_t *args, fdnn_isa_t isa);

/* Returns false only when scratch was too small and allocation failed (C
 * is then unchanged). */
bool fdnn_sgemm_f16(const fdnn_sgemm_f16_args_t *args, fdnn_pool_t pool, fdnn_isa_t isa, void *scratch,
                    size_t scratch_bytes);

#endif /* FDNN_CPU_GEMM_SGEMM_F16_H */

/* SPDX-License-Identifier: Apache-2.0
 * FP64 multi-head attention backward (attn_bwd_t.inc) on the FP64 GEMM
 * core, which packs into its own buffers (no scratch). */
#include <limits.h>
#include <string.h>

#include "cpu/attn/attn_bwd.h"
#include "core/pool_slots.h"
#include "cpu/gemm/gemm.h"

#define REAL double
#define ATTN_DOUBLE 1
#define GEMM_ARGS fdnn_dgemm_args_t
#define XGEMM(g, pool, isa, scratch, bytes, bf16)                                                                   \
    ((void)(scratch), (void)(bytes), (void)(bf16), fdnn_dgemm_isa((g), (pool), (isa)))
#define XGEMM_SCRATCH(g, threads, isa) ((void)(g), (void)(threads), (void)(isa), (size_t)0)
#define FN(name) fdnn_attn_##name##_f64
#include "cpu/attn/attn_bwd_t.inc"

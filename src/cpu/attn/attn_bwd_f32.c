/* SPDX-License-Identifier: Apache-2.0
 * FP32 multi-head attention backward (attn_bwd_t.inc). */
#include <limits.h>
#include <string.h>

#include "cpu/attn/attn_bwd.h"
#include "core/pool_slots.h"
#include "cpu/gemm/gemm.h"
#include "cpu/tensor/convert_row.h"

#define REAL float
#define ATTN_DOUBLE 0
#define GEMM_ARGS fdnn_sgemm_args_t
#define XGEMM(g, pool, isa, scratch, bytes, bf16) fdnn_attn_sgemm((g), (pool), (isa), (scratch), (bytes), (bf16))
#define XGEMM_SCRATCH(g, threads, isa) fdnn_attn_sgemm_scratch((g), (threads), (isa))
#define FN(name) fdnn_attn_##name##_f32
#include "cpu/attn/attn_bwd_t.inc"

/* SPDX-License-Identifier: Apache-2.0
 * FP32 multi-head attention forward (attn_t.inc) on the FP32 GEMM core. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "cpu/attn/attn.h"
#include "core/pool_slots.h"
#include "cpu/config/config.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/sgemm_bpack.h"
#include "cpu/rnn/stage_io.h"
#include "cpu/tensor/convert_row.h"
#include "cpu/simd/simd.h"

#define REAL float
#define ATTN_DOUBLE 0
#define GEMM_ARGS fdnn_sgemm_args_t
#define XGEMM(g, pool, isa, scratch, bytes, bf16) fdnn_attn_sgemm((g), (pool), (isa), (scratch), (bytes), (bf16))
#define XGEMM_SCRATCH(g, threads, isa) fdnn_attn_sgemm_scratch((g), (threads), (isa))
#define FN(name) fdnn_attn_##name##_f32
#include "cpu/attn/attn_t.inc"

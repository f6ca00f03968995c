/* SPDX-License-Identifier: Apache-2.0
 * The thin-GEMM (matrix-vector) kernels on AArch64 ASIMD (gemv_simd.inc). */
#include "cpu/kernels/gemm_vec_f32_neon.h"
#include "cpu/kernels/gemv.h"

/* Halves, then the pair: a fixed order. */
static inline float
hsum(float32x4_t v)
{
    float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(s, 0) + vget_lane_f32(s, 1);
}

#define V_HSUM(v) hsum(v)
#define DOT_ROWS fdnn_f32_dot_rows__neon
#define AXPY_ROWS fdnn_f32_axpy_rows__neon
#include "cpu/kernels/gemv_simd.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The fused Winograd block on AArch64 ASIMD: 3 rows x 8 vectors of
 * accumulators (24 q registers). */
#include <arm_neon.h>

#define VL 4
#define VT float32x4_t
#define V_ZERO() vdupq_n_f32(0.0f)
#define V_SET1(x) vdupq_n_f32(x)
#define V_LOADU(p) vld1q_f32(p)
#define V_STOREU(p, v) vst1q_f32(p, v)
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define KR 3
#define BLOCK_FN fdnn_wino_fused_block__neon
#include "cpu/conv/conv_winograd_fused.inc"

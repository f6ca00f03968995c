/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwcb_{rows,grad}__neon (dwconv_cb.h): a channel block in four
 * q registers, tiles of 2 positions. */
#include <arm_neon.h>

#include "cpu/kernels/dwconv_cb.h"

static inline float32x4_t
cb_load_n(const float *p, size_t n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < n; i++)
        t[i] = p[i];
    return vld1q_f32(t);
}

static inline void
cb_store_n(float *p, float32x4_t v, size_t n)
{
    float t[4];
    vst1q_f32(t, v);
    for (size_t i = 0; i < n; i++)
        p[i] = t[i];
}

#define CB_ROWS_FN fdnn_f32_dwcb_rows__neon
#define CB_GRAD_FN fdnn_f32_dwcb_grad__neon
#define VL 4
#define VT float32x4_t
#define V_ZERO() vdupq_n_f32(0.0f)
#define V_SET1(x) vdupq_n_f32(x)
#define V_LOADU(p) vld1q_f32(p)
#define V_STOREU(p, v) vst1q_f32(p, v)
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define V_MUL(a, b) vmulq_f32(a, b)
#define V_ADD(a, b) vaddq_f32(a, b)
#define V_RELU(v) vbslq_f32(vcleq_f32(v, vdupq_n_f32(0.0f)), vdupq_n_f32(0.0f), v)
#define V_LOAD_N(p, n) cb_load_n(p, (size_t)(n))
#define V_STORE_N(p, v, n) cb_store_n(p, v, (size_t)(n))
#define CB_ACC 16
#include "cpu/kernels/dwconv_cb_simd.inc"

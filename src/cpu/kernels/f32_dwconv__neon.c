/* SPDX-License-Identifier: Apache-2.0
 * The depthwise convolution rows on AArch64 ASIMD (dwconv_simd.inc). */
#include <arm_neon.h>

#include "cpu/kernels/dwconv.h"

static inline float32x4_t
load_n(const float *p, size_t n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < n; i++)
        t[i] = p[i];
    return vld1q_f32(t);
}

#define ROWS_FN fdnn_f32_dwconv_rows__neon
#define GRAD_FN fdnn_f32_dwconv_grad__neon
#define VL 4
#define VT float32x4_t
#define V_ZERO() vdupq_n_f32(0.0f)
#define V_SET1(x) vdupq_n_f32(x)
#define V_LOADU(p) vld1q_f32(p)
#define V_STOREU(p, v) vst1q_f32(p, v)
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define V_LOAD_N(p, n) load_n(p, (size_t)(n))
#include "cpu/kernels/dwconv_simd.inc"

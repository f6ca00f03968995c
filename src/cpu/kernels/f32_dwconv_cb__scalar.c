/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwcb_{rows,grad}__scalar (dwconv_cb.h): the portable kernels,
 * one lane per float, a block as 16 of them. */
#define CB_ROWS_FN fdnn_f32_dwcb_rows__scalar
#define CB_GRAD_FN fdnn_f32_dwcb_grad__scalar
#define VL 1
#define VT float
#define V_ZERO() 0.0f
#define V_SET1(x) (x)
#define V_LOADU(p) (*(p))
#define V_STOREU(p, v) (*(p) = (v))
#define V_FMA(a, b, c) ((a) * (b) + (c))
#define V_MUL(a, b) ((a) * (b))
#define V_ADD(a, b) ((a) + (b))
#define V_RELU(v) ((v) <= 0.0f ? 0.0f : (v))
#define V_LOAD_N(p, n) (*(p)) /* one lane: never a partial vector */
#define V_STORE_N(p, v, n) (*(p) = (v))
#define CB_ACC 16
#include "cpu/kernels/dwconv_cb_simd.inc"

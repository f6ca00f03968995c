/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_dwconv_{rows,grad}__scalar (dwconv.h): the same tiles in portable
 * C, one float per "vector" (a multiply, then an add). */
#define ROWS_FN fdnn_f32_dwconv_rows__scalar
#define GRAD_FN fdnn_f32_dwconv_grad__scalar
#define VL 1
#define VT float
#define V_ZERO() 0.0f
#define V_SET1(x) (x)
#define V_LOADU(p) (*(p))
#define V_STOREU(p, v) (*(p) = (v))
#define V_FMA(a, b, c) ((a) * (b) + (c))
#define V_LOAD_N(p, n) (*(p)) /* never called: no tail with one lane */
#include "cpu/kernels/dwconv_simd.inc"

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_conv_direct_ukernel__scalar (conv_direct.h): the same blocking
 * in portable C, one float per "vector": up to 4 pixels x 16 output
 * channels.  Multiply then add (the project builds with -ffp-contract=off),
 * in the kernel's fixed order; the compiler may vectorise the channel loop. */
#include "cpu/kernels/conv_direct.h"

#define UKERNEL fdnn_f32_conv_direct_ukernel__scalar
#define PACK16 fdnn_f32_conv_direct_pack16__scalar
#define UR FDNN_SCALAR_CONV_DIRECT_UR
#define NKB FDNN_SCALAR_CONV_DIRECT_NKB
#define VL 1
#define VT float
#define V_ZERO() 0.0f
#define V_SET1(x) (x)
#define V_LOADU(p) (*(p))
#define V_STOREU(p, v) (*(p) = (v))
#define V_FMA(a, b, c) ((a) * (b) + (c))
#define V_STORE_N(p, v, n) (*(p) = (v))
#define V_LOAD_N(p, n) (*(p))
#define V_TRANSPOSE(r) ((void)(r)) /* 1 x 1 */
#include "cpu/kernels/conv_direct_simd.inc"

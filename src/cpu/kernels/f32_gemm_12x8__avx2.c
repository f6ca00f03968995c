/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_12x8__avx2: 12 rows x 1 ymm of 8 floats, for narrow
 * products (n <= 8) where half of the 6x16 tile would be padding.  12
 * accumulators + 1 b vector + 1 broadcast of the 16 ymm registers.  Column
 * tails use vmaskmov, which never touches masked-out lanes (no fault past a
 * guard page). */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_ukernel_12x8__avx2
#define MR 12
#define NV 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

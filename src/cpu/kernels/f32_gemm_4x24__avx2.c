/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_4x24__avx2: 4 rows x 3 ymm of 8 floats, for short
 * products (m <= 4).  12 accumulators + 3 b vectors + 1 broadcast.  Column
 * tails use vmaskmov (masked-out lanes are never accessed). */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_ukernel_4x24__avx2
#define MR 4
#define NV 3
#include "cpu/kernels/gemm_ukernel_simd.inc"

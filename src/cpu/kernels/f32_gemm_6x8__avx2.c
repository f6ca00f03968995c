/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_6x8__avx2: 6 rows x 1 ymm, the packed twin of the
 * arows 6x8 kernel (narrow products with A transposed or k == 0).
 */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_ukernel_6x8__avx2
#define MR 6
#define NV 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

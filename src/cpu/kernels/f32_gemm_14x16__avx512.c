/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_14x16__avx512: 14 rows x 1 zmm, the packed twin of
 * the arows 14x16 kernel (narrow products with A transposed or k == 0).
 */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_ukernel_14x16__avx512
#define MR 14
#define NV 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

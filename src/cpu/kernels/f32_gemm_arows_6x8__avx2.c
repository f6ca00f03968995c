/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_6x8__avx2: 6 rows x 1 ymm reading A in place,
 * for narrow products (n <= 8, A not transposed).
 */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_6x8__avx2
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_6x8__avx2
#define MR 6
#define NV 1
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

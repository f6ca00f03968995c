/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_8x48__avx512: the 8x48 kernel reading A in
 * place (rows lda apart, k contiguous), for products with one column tile.
 */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_8x48__avx512
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_8x48__avx512
#define MR 8
#define NV 3
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

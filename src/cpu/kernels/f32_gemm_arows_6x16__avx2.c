/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_6x16__avx2: the 6x16 kernel reading A in place
 * (rows lda apart, k contiguous), for products with one column tile where
 * the transposing pack of A would cost a large share.
 */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_6x16__avx2
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_6x16__avx2
#define MR 6
#define NV 2
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

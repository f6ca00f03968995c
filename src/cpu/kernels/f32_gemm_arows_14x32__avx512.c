/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_14x32__avx512: the 14x32 kernel reading A in
 * place (rows lda apart, k contiguous) instead of from a packed strip: for
 * narrow products, where the transposing pack of A would cost a third of
 * the time (n = 49: each element of A serves only 49 columns). */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_14x32__avx512
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_14x32__avx512
#define MR 14
#define NV 2
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_14x16__avx512: 14 rows x 1 zmm reading A in
 * place, for narrow products (n <= 16, A not transposed), where packing A
 * would cost more than the product: per k step 14 FMAs against 14
 * broadcasts from the A rows and 1 load of B.
 */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_14x16__avx512
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_14x16__avx512
#define MR 14
#define NV 1
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_arows_ukernel_14x16__avx512: the double 14x16 kernel reading
 * A in place (rows lda apart, k contiguous), for products with one column
 * tile, where the portable transposing pack of A would dominate.
 */
#include "cpu/kernels/gemm_vec_f64_avx512.h"

#define UKERNEL fdnn_f64_gemm_arows_ukernel_14x16__avx512
#define MR 14
#define NV 2
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

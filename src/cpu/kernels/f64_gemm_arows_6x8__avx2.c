/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_arows_ukernel_6x8__avx2: the double 6x8 kernel reading A in
 * place, for products with one column tile.
 */
#include "cpu/kernels/gemm_vec_f64_avx2.h"

#define UKERNEL fdnn_f64_gemm_arows_ukernel_6x8__avx2
#define MR 6
#define NV 2
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

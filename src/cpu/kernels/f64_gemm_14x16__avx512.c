/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_ukernel_14x16__avx512: 14 rows x 2 zmm of 8 doubles (the
 * float kernel's register plan with half the lanes). */
#include "cpu/kernels/gemm_vec_f64_avx512.h"

#define UKERNEL fdnn_f64_gemm_ukernel_14x16__avx512
#define MR 14
#define NV 2
#include "cpu/kernels/gemm_ukernel_simd.inc"

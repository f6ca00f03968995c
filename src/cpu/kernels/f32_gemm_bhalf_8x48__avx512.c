/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_bhalf_ukernel_8x48__avx512: the 8x48 kernel with B read as
 * IEEE halves in place (see f32_gemm_bhalf_14x32__avx512.c). */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_bhalf_ukernel_8x48__avx512
#define MR 8
#define NV 3
#define B_HALF 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

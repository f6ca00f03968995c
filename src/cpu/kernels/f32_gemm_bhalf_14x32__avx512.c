/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_bhalf_ukernel_14x32__avx512: the 14x32 kernel with B read
 * as IEEE halves in place (rows b_stride halves apart), each row of the
 * strip widened by vcvtph2ps as it is loaded.  For the PSEUDO_HALF GEMM
 * (sgemm_f16.c) where fdnn_sgemm reads op(B) in place: the converting pack
 * of B it replaces wrote and re-read every element (a fifth of
 * res2_1x1_256_64's time at mb=1). */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_bhalf_ukernel_14x32__avx512
#define MR 14
#define NV 2
#define B_HALF 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

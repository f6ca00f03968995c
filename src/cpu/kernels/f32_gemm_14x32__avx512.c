/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_14x32__avx512: 14 rows x 2 zmm of 16 floats.
 * 28 accumulators + 2 b vectors + 1 broadcast fit the 32 zmm registers; per
 * k step 28 FMAs against 2 loads and 14 broadcasts keep both FMA ports busy. */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_ukernel_14x32__avx512
#define MR 14
#define NV 2
#include "cpu/kernels/gemm_ukernel_simd.inc"

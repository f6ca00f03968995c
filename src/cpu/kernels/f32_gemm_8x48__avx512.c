/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_8x48__avx512: 8 rows x 3 zmm of 16 floats, for short
 * products (m <= 8) where the 14-row tile would be half padding, and for
 * shapes it covers with less padding than 14x32 (m a multiple of 8: 64, 128
 * output channels).  24 accumulators + 3 b vectors + 1 broadcast; per k step
 * 24 FMAs against 3 loads and 8 broadcasts: as fast as 14x32 from L1. */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_ukernel_8x48__avx512
#define MR 8
#define NV 3
#include "cpu/kernels/gemm_ukernel_simd.inc"

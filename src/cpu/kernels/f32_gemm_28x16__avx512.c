/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_28x16__avx512: 28 rows x 1 zmm of 16 floats, for
 * narrow products (n <= 16) where half of the 14x32 tile would be padding.
 * 28 accumulators + 1 b vector + 1 broadcast; per k step 28 FMAs against 29
 * loads, just within two loads per cycle. */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_ukernel_28x16__avx512
#define MR 28
#define NV 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_ukernel_6x8__avx2: 6 rows x 2 ymm of 4 doubles. */
#include "cpu/kernels/gemm_vec_f64_avx2.h"

#define UKERNEL fdnn_f64_gemm_ukernel_6x8__avx2
#define MR 6
#define NV 2
#include "cpu/kernels/gemm_ukernel_simd.inc"

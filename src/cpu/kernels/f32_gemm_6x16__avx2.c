/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_6x16__avx2: 6 rows x 2 ymm of 8 floats.  12
 * accumulators + 2 b vectors + 1 broadcast of the 16 ymm registers.  Column
 * tails use vmaskmov, which never touches masked-out lanes (no fault past a
 * guard page). */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_ukernel_6x16__avx2
#define MR 6
#define NV 2
#include "cpu/kernels/gemm_ukernel_simd.inc"

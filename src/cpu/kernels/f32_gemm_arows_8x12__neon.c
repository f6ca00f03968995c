/* SPDX-License-Identifier: Apache-2.0
 * The NEON 8x12 tile with A read in place (rows lda apart): each step
 * broadcasts a[i][p] (LD1R) for the 3 FMLAs of its row. */
#include "cpu/kernels/gemm_vec_f32_neon.h"

#define UKERNEL fdnn_f32_gemm_arows_ukernel_8x12__neon
#define MR 8
#define NV 3
#define A_IN_PLACE 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

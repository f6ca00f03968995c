/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ahalf_ukernel_6x49__avx512: the 6x49 arows kernel
 * with A's rows given as IEEE halves, read in place and converted 16 k
 * steps at a time (f32_gemm_arows_6x49.inc).  For the PSEUDO_HALF GEMM
 * (sgemm_f16.c) on the narrow products of res4 / res5 at mb=1: converting
 * each 6-row strip of A into L1 before the float kernel ran over it left
 * the strip's loads from memory outside the FMAs (a fifth of the kernel's
 * time on res5_3x3_512). */
#define UKERNEL fdnn_f32_gemm_arows_ahalf_ukernel_6x49__avx512
#define A_T uint16_t
#define A_HALF 1
#include "cpu/kernels/f32_gemm_arows_6x49.inc"

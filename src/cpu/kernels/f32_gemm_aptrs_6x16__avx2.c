/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_aptrs_ukernel_6x16__avx2: the 6x16 kernel reading each row
 * of A through its own pointer, in runs (see gemm_ukernel.h): backward
 * filter reads the rows of its virtual im2col straight from a padded copy
 * of the input. */
#include "cpu/kernels/gemm_vec_f32_avx2.h"

#define UKERNEL fdnn_f32_gemm_aptrs_ukernel_6x16__avx2
#define MR 6
#define NV 2
#define A_PTRS 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

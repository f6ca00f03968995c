/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_aptrs_ukernel_14x32__avx512: the 14x32 kernel reading each
 * row of A through its own pointer, in runs (see gemm_ukernel.h): backward
 * filter reads the rows of its virtual im2col straight from a padded copy
 * of the input, skipping the copy into an im2col panel. */
#include "cpu/kernels/gemm_vec_f32_avx512.h"

#define UKERNEL fdnn_f32_gemm_aptrs_ukernel_14x32__avx512
#define MR 14
#define NV 2
#define A_PTRS 1
#include "cpu/kernels/gemm_ukernel_simd.inc"

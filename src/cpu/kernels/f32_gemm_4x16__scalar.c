/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_ukernel_4x16__scalar: the portable float microkernel. */
#include "cpu/kernels/gemm_ukernel.h"

#define T float
#define MR 4
#define NR 16
#define EP_T fdnn_f32_gemm_epilogue_t
#define UKERNEL fdnn_f32_gemm_ukernel_4x16__scalar
#include "cpu/kernels/gemm_ukernel_scalar.inc"

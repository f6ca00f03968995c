/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f64_gemm_ukernel_4x8__scalar: the portable double microkernel. */
#include "cpu/kernels/gemm_ukernel.h"

#define T double
#define MR 4
#define NR 8
#define EP_T fdnn_f64_gemm_epilogue_t
#define UKERNEL fdnn_f64_gemm_ukernel_4x8__scalar
#include "cpu/kernels/gemm_ukernel_scalar.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The native BF16 forward convolution: the CPU's Tensor Core path for
 * TENSOR_OP_MATH on HALF and BFLOAT16 data (PSEUDO_HALF, PSEUDO_BFLOAT16
 * configurations) and TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT data, on CPUs
 * with AVX512-BF16 (vdpbf16ps).  The operands are converted to bfloat16
 * (nearest even) as they are packed, the products accumulate in FP32 in the
 * order of the BF16 GEMM's microkernels (bf16_gemm.h: pairs of k steps,
 * subnormal bfloat16 inputs read as zero), and the blend (alpha, beta, bias,
 * ReLU) is done in FP32 before the one rounding to the output type.  The
 * results lie within the tolerance of docs/numerics.md (the same as the
 * staged path of conv_lowp.c, which runs elsewhere: other CPUs, other
 * directions, TRUE_HALF, the FFT and Winograd algorithms).
 *
 * It serves the GEMM-like forward algorithms (IMPLICIT_GEMM,
 * IMPLICIT_PRECOMP_GEMM, GEMM, DIRECT) and needs no workspace: its buffers
 * (the converted filter, per-thread strips) live in the handle's scratch,
 * as the FP32 direct solver's do.  Results are bitwise the same at every
 * thread count. */
#ifndef FDNN_CPU_CONV_BF16_H
#define FDNN_CPU_CONV_BF16_H

#include <stdbool.h>

#include "core/conv_solver.h"

/* Whether this process may use it: AVX-512 not capped away
 * (FREEDNN_MAX_ISA) and a CPU with AVX512-BF16. */
bool fdnn_conv_bf16_cpu_has(void);

/* Whether algorithm `algo` of p runs on the native path. */
bool fdnn_conv_bf16_applies(const fdnn_conv_problem_t *p, int algo);

/* Runs p (fdnn_conv_bf16_applies) into e->out; e->handle is needed. */
cudnnStatus_t fdnn_conv_bf16_run(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_BF16_H */

/* SPDX-License-Identifier: Apache-2.0
 * The integer convolutions: every INT8 configuration of cuDNN 8.9's
 * forward tables (INT8, INT8_EXT, INT8x4, INT8x4_EXT, UINT8x4,
 * UINT8x4_EXT, INT8x32; conv_config.h), forward and bias-activation.
 *
 *   y = sat(round(act(alpha * (float)S + beta * (float)y0 + bias)))
 *
 * with S the exact int32 sum of products, y0 the blend source (y itself for
 * cudnnConvolutionForward, z for the bias-activation call), bias FLOAT per
 * output channel (NULL: none), act ReLU or identity, all in FLOAT; INT8 /
 * UINT8 outputs round half to even and saturate, FLOAT outputs (the _EXT
 * configurations) are stored as computed.  docs/convolution.md has the
 * layouts and algorithms each configuration takes. */
#ifndef FDNN_CPU_CONV_CONV_INT8_H
#define FDNN_CPU_CONV_CONV_INT8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conv_solver.h"

/* SUCCESS (and the workspace in bytes: none) when algorithm `algo` runs
 * integer problem p; NOT_SUPPORTED with the reason for the layouts,
 * channel counts and algorithms cuDNN 8.9 does not take. */
cudnnStatus_t fdnn_conv_int8_algo_check(const fdnn_conv_problem_t *p, int algo, size_t *workspace_bytes);

/* Runs e (checked by fdnn_conv_int8_algo_check).  e->y_in is the blend
 * source in y's layout (NULL: e->out itself); e->bias, when not NULL, is K
 * floats in channel order. */
cudnnStatus_t fdnn_conv_int8_execute(const fdnn_conv_exec_t *e);

/* The bias of an INT8x32 convolution under CUDNN_NO_REORDER, stored as
 * cudnnReorderFilterAndBias leaves it, back in channel order (k a multiple
 * of 32). */
void fdnn_conv_int8_unreorder_bias(const float *src, float *dst, int64_t k);

/* Tests: false keeps the AVX-512 level on the kernel without VNNI even on
 * CPUs that have it (process-wide; true restores the default). */
void fdnn_conv_int8_allow_vnni(bool allow);

#endif /* FDNN_CPU_CONV_CONV_INT8_H */

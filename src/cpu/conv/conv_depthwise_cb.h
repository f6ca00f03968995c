/* SPDX-License-Identifier: Apache-2.0
 * Channel-blocked depthwise convolution (FP32, 2-D, one input channel and
 * one filter per group: C/g == K/g == 1), the depthwise path's choice for
 * channels-innermost tensors (NHWC: read and written in place, 16 channels
 * per vector) and for NCHW problems with output planes of up to 64
 * positions (more with AVX-512: fdnn_conv_dwcb_applies; a group of
 * 16-channel blocks transposed into a [block][H][W][16] scratch and back),
 * in all three directions:
 *
 *   forward          each output row one kernel call per run of columns
 *                    with the same valid taps (conv_depthwise_cb.c);
 *   backward data    the same over dx, gathering dy * w per stride phase;
 *   backward filter  per channel block, each tap's 16 sums over every
 *                    image and position in order, blended into dw; on
 *                    large channels-innermost images, per image (or band
 *                    of rows) over every block, the images' partial sums
 *                    added in image order.
 *
 * Every output element is one sum computed by one task, in an order fixed
 * by the problem and the ISA: results do not depend on the thread count.
 * Scratch: the handle's (the partial sums: at most 64 MB, else by
 * blocks); no caller workspace. */
#ifndef FDNN_CPU_CONV_DEPTHWISE_CB_H
#define FDNN_CPU_CONV_DEPTHWISE_CB_H

#include <stdbool.h>

#include "core/conv_solver.h"

/* True when p takes this path (FP32, 2-D, C/g == K/g == 1, at most 64 taps,
 * channels innermost or output planes of at most 64 positions; where the
 * handle's ISA has the in-register plane transposes also one image of at
 * most 784 (28x28) outputs, and forward and backward data with input and
 * output planes of at most 196 positions). */
bool fdnn_conv_dwcb_applies(const fdnn_conv_problem_t *p, cudnnHandle_t handle);

/* Runs p (fdnn_conv_dwcb_applies); ALLOC_FAILED when the scratch cannot be
 * had, nothing written then. */
cudnnStatus_t fdnn_conv_dwcb_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_DEPTHWISE_CB_H */

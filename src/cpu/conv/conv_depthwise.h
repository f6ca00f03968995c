/* SPDX-License-Identifier: Apache-2.0
 * Depthwise convolution (FP32, one input channel per group: C/g == 1, any
 * K/g), the DIRECT solver's path for it in all three directions.  The
 * blocked kernels of conv_direct_blocked.h put 16 channels of a group in a
 * vector, which for depthwise leaves 15 lanes of 16 idle; here positions
 * run along the vector instead and every filter tap is one shifted copy of
 * a channel's plane (src/cpu/kernels/dwconv.h):
 *
 *   forward          per (image, group): the plane of x, padded and split
 *                    into the W stride's phases, then for each of the K/g
 *                    filters one rows-kernel pass into a plane buffer that
 *                    is blended into y (alpha, beta, bias, ReLU);
 *   backward data    per (image, group): for each of the K/g filters the
 *                    plane of dy upsampled by the stride and padded, one
 *                    stride-1 pass with the taps reversed, summed in filter
 *                    order into a plane buffer that is blended into dx;
 *   backward filter  per output channel: for each image in order the plane
 *                    of x as in forward, one gradient pass per tap group
 *                    against dy; the K x taps sums are blended into dw.
 *
 * The paths are an ordered list (conv_depthwise.c, paths[]), the first
 * applicable one runs: stride-1 backward data and filter on contiguous
 * NCHW planes of at least 28x28 read in place (conv_depthwise_flat.h),
 * then 2-D problems with one filter per channel (K/g == 1) on
 * channels-innermost tensors or small output planes on the channel-blocked
 * path of conv_depthwise_cb.h (16 channels per vector), then the plane
 * buffers above (any problem).
 *
 * Every output element is one sum computed by one task, in an order fixed
 * by the problem and the ISA: results do not depend on the thread count.
 * Scratch (the handle's): per chunk of tasks one padded plane and one
 * output plane, never the batch; no caller workspace. */
#ifndef FDNN_CPU_CONV_DEPTHWISE_H
#define FDNN_CPU_CONV_DEPTHWISE_H

#include <stdbool.h>

#include "core/conv_solver.h"

/* True when p is FP32 with one input channel per group. */
bool fdnn_conv_depthwise_applies(const fdnn_conv_problem_t *p);

/* Runs p; ALLOC_FAILED when the scratch cannot be had, NOT_SUPPORTED when
 * a plane is too large to buffer (the caller then takes another path).
 * Nothing is written on failure. */
cudnnStatus_t fdnn_conv_depthwise_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_DEPTHWISE_H */

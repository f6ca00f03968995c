/* SPDX-License-Identifier: Apache-2.0
 * Flat-plane depthwise convolution (FP32, 2-D, C/g == K/g == 1, stride 1,
 * the output plane of the input's size, NCHW planes stored contiguously):
 * backward data and backward filter read each channel's plane in place as
 * one row of H*W positions, 16 per vector whatever W is, every filter tap
 * one masked load of the plane shifted by dh*W + dw (src/cpu/kernels/
 * dwflat.h).  No copy, no transpose: the plane path (conv_depthwise.c)
 * copies each plane into a padded buffer and the channel-blocked one
 * (conv_depthwise_cb.h) transposes NCHW planes into 16-channel blocks,
 * which cost as much as the arithmetic on MobileNet's layers.
 *
 *   backward data    task = a run of (image, channel) planes of dx, each
 *                    sum in tap order, blended into dx;
 *   backward filter  task = a run of channels, each channel's taps summed
 *                    over every image in order (16 lanes per tap, added in
 *                    lane order at the end), blended into dw.
 *
 * Every output element is one sum computed by one task in an order fixed
 * by the problem: results do not depend on the thread count.  Scratch:
 * the handle's (the mask table, 2 bytes per tap per 16 positions); no
 * caller workspace. */
#ifndef FDNN_CPU_CONV_DEPTHWISE_FLAT_H
#define FDNN_CPU_CONV_DEPTHWISE_FLAT_H

#include "core/conv_solver.h"

/* SUCCESS when p takes this path on the handle's ISA; NOT_SUPPORTED with
 * the reason otherwise. */
cudnnStatus_t fdnn_conv_dwflat_applicable(const fdnn_conv_problem_t *p, cudnnHandle_t handle);

/* Runs p (fdnn_conv_dwflat_applicable); ALLOC_FAILED when the scratch
 * cannot be had, nothing written then. */
cudnnStatus_t fdnn_conv_dwflat_execute(const fdnn_conv_exec_t *e);

#endif /* FDNN_CPU_CONV_DEPTHWISE_FLAT_H */

/* SPDX-License-Identifier: Apache-2.0
 * Dropout on the CPU.
 *
 * Elements are numbered in the packed NCHW order of their tensor (index i),
 * whatever the strides.  Element i of forward call `call` is kept when
 *     fdnn_dropout_random(seed, call, i) >= p * 2^32
 * (so with probability 1 - p), and then y = x / (1 - p); a dropped element
 * gives 0.  Bit i of the reserve space (32-bit words, bit i % 32 of word
 * i / 32) records "kept"; the backward applies the same mask and scale to dy.
 *
 * Work is split into blocks of whole mask words, so threads never share a
 * word and the result does not depend on the thread count. */
#ifndef FDNN_CPU_DROPOUT_DROPOUT_H
#define FDNN_CPU_DROPOUT_DROPOUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"
#include "core/tensor.h"

/* Reserve bytes for n elements: one bit each, in whole 32-bit words (the
 * size cuDNN 9 reports as well). */
size_t fdnn_dropout_reserve_bytes(int64_t n);

/* x and y have the same number of elements and one of FLOAT, DOUBLE, HALF,
 * BFLOAT16 (the same); y may be x when their strides agree. */
void fdnn_dropout_forward(cudnnHandle_t handle, float p, uint64_t seed, uint64_t call, const fdnn_tensor_t *xt,
                          const void *x, const fdnn_tensor_t *yt, void *y, uint32_t *mask);

/* dx = mask ? dy / (1 - p) : 0. */
void fdnn_dropout_backward(cudnnHandle_t handle, float p, const fdnn_tensor_t *dyt, const void *dy,
                           const fdnn_tensor_t *dxt, void *dx, const uint32_t *mask);

#endif /* FDNN_CPU_DROPOUT_DROPOUT_H */

/* SPDX-License-Identifier: Apache-2.0
 * The sum of fixed chunks' partial results, the last step of the
 * reductions that split over chunks chosen by the shape (not the thread
 * count) to stay deterministic: the NHWC 1x1 backward filter
 * (conv_gemm_nhwc_wgrad.c) and the Winograd 4x4 backward filter's tile
 * chunks (conv_winograd_bwd_filter43.c). */
#ifndef FDNN_CPU_CONV_PARTIALS_H
#define FDNN_CPU_CONV_PARTIALS_H

#include <stddef.h>

#include "core/pool.h"

/* part_0[e] += part_1[e], += part_2[e], ... in part order for e < count,
 * part_i at base + i * stride: every element the same sum whatever the
 * thread count.  One pool task per run of FDNN_PARTIALS_RUN elements (the
 * run of part_0 stays in L1 while each other part streams past it). */
#define FDNN_PARTIALS_RUN 4096
void fdnn_conv_sum_partials_f32(fdnn_pool_t pool, float *base, size_t stride, size_t count, size_t parts);

#endif

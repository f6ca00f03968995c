/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference pooling over packed arrays (N, C, D, H, W) in that
 * order; 2-D problems pass D = 1 with window 1, pad 0, stride 1 there.
 * Semantics: src/cpu/pooling/pooling.h. */
#ifndef FDNN_REF_POOLING_REF_H
#define FDNN_REF_POOLING_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

typedef struct fdnn_ref_pool {
    cudnnPoolingMode_t mode;
    bool propagate_nan;
    int64_t N, C, in[3], out[3];
    int k[3], pad[3], str[3];
} fdnn_ref_pool_t;

void fdnn_ref_pooling_forward(const fdnn_ref_pool_t *p, double alpha, const double *x, double beta, double *y);

void fdnn_ref_pooling_backward(const fdnn_ref_pool_t *p, double alpha, const double *dy, const double *x,
                               double beta, double *dx);

#endif /* FDNN_REF_POOLING_REF_H */

/* SPDX-License-Identifier: Apache-2.0
 * Backward bias of a convolution: db[k] = alpha * sum_{n, spatial} dy[n, k,
 * spatial] + beta * db[k] (db never read when beta == 0).  The sum of each
 * channel is accumulated in double in a fixed order (images, then
 * positions), one channel per task, so the result does not depend on the
 * thread count. */
#ifndef FDNN_CPU_CONV_BIAS_H
#define FDNN_CPU_CONV_BIAS_H

#include "core/pool.h"

#include "core/tensor.h"

/* dy: an N, K, spatial... view (any rank >= 2); db: K elements with stride
 * db_stride; both of dy's data type (FLOAT or DOUBLE). */
void fdnn_conv_bwd_bias(fdnn_pool_t pool, const fdnn_tensor_t *dy, const void *dy_data, double alpha, double beta,
                        void *db, int64_t db_stride);

#endif /* FDNN_CPU_CONV_BIAS_H */

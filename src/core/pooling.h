/* SPDX-License-Identifier: Apache-2.0
 * The pooling descriptor (2-D and N-D) and its plain form.
 *
 * Output size per spatial dim i (cuDNN's formula, floor division):
 *     out[i] = 1 + (in[i] + 2 * pad[i] - window[i]) / stride[i]
 * Window start of output o: o * stride[i] - pad[i]; the window is clipped to
 * the input for MAX and AVERAGE_COUNT_EXCLUDE_PADDING (the divisor is the
 * number of inside elements); AVERAGE_COUNT_INCLUDE_PADDING divides by the
 * full window size (padding counts as zeros). */
#ifndef FDNN_CORE_POOLING_H
#define FDNN_CORE_POOLING_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_POOLING_MAGIC 0x4c4f4f50u /* "POOL" */
/* cudnnSetPoolingNdDescriptor accepts 1 to CUDNN_DIM_MAX - 2 spatial dims (as cuDNN 9
 * does); the operations run 1 to 3 (3-D to 5-D tensors). */
#define FDNN_POOL_MAX_DIMS 6
#define FDNN_POOL_MAX_SPATIAL 3

struct cudnnPoolingStruct {
    uint32_t magic;
    bool is_set;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan_opt;
    int nb_dims; /* spatial dims, 1 to FDNN_POOL_MAX_DIMS */
    int window[FDNN_POOL_MAX_DIMS];
    int padding[FDNN_POOL_MAX_DIMS];
    int stride[FDNN_POOL_MAX_DIMS];
};

typedef struct fdnn_pooling {
    cudnnPoolingMode_t mode;
    bool propagate_nan;
    int nsp; /* spatial dims; entries past nsp are window 1, pad 0, stride 1 */
    int window[FDNN_POOL_MAX_DIMS];
    int padding[FDNN_POOL_MAX_DIMS];
    int stride[FDNN_POOL_MAX_DIMS];
} fdnn_pooling_t;

cudnnStatus_t fdnn_pooling_from_desc(cudnnPoolingDescriptor_t desc, const char *what, fdnn_pooling_t *out);

/* Output extent of one spatial dim; < 1 means the window does not fit. */
static inline int64_t
fdnn_pooling_out_dim(int64_t in, int window, int pad, int stride)
{
    return 1 + (in + 2 * (int64_t)pad - window) / stride;
}

#endif /* FDNN_CORE_POOLING_H */

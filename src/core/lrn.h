/* SPDX-License-Identifier: Apache-2.0
 * The LRN descriptor, used by cross-channel LRN and by divisive
 * normalization, and its plain form.
 *
 * Limits (cudnnSetLRNDescriptor): CUDNN_LRN_MIN_N <= n <= CUDNN_LRN_MAX_N,
 * k >= CUDNN_LRN_MIN_K, beta >= CUDNN_LRN_MIN_BETA. */
#ifndef FDNN_CORE_LRN_H
#define FDNN_CORE_LRN_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_LRN_MAGIC 0x4e52524cu /* "LRRN" */

struct cudnnLRNStruct {
    uint32_t magic;
    bool is_set; /* cudnnCreateLRNDescriptor sets the defaults, so always true */
    unsigned n;
    double alpha, beta, k;
};

typedef struct fdnn_lrn {
    int n;
    double alpha, beta, k;
} fdnn_lrn_t;

cudnnStatus_t fdnn_lrn_from_desc(cudnnLRNDescriptor_t desc, const char *what, fdnn_lrn_t *out);

#endif /* FDNN_CORE_LRN_H */

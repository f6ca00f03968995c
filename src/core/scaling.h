/* SPDX-License-Identifier: Apache-2.0
 * cuDNN's scaling parameters.  alpha and beta (and the other blending
 * factors: alphaDataDiff, betaParamDiff, ...) are host pointers to a double
 * when the tensors they scale hold DOUBLE data, and to a float for every other
 * data type (HALF and BFLOAT16 included).  The caller has checked p != NULL. */
#ifndef FDNN_CORE_SCALING_H
#define FDNN_CORE_SCALING_H

#include "cudnn.h"

static inline double
fdnn_scaling_value(const void *p, cudnnDataType_t tensor_dtype)
{
    return tensor_dtype == CUDNN_DATA_DOUBLE ? *(const double *)p : (double)*(const float *)p;
}

#endif /* FDNN_CORE_SCALING_H */

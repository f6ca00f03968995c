/* SPDX-License-Identifier: Apache-2.0
 * The activation descriptor, and the plain parameters every user of it
 * (activation, fused convolution, normalization) works with below the API.
 *
 *   SIGMOID        y = 1 / (1 + exp(-x))
 *   RELU           y = max(x, 0)
 *   TANH           y = tanh(x)
 *   CLIPPED_RELU   y = min(max(x, 0), coef)
 *   ELU            y = x > 0 ? x : coef * (exp(x) - 1)
 *   IDENTITY       y = x   (only for the fused convolution, per cuDNN)
 *   SWISH          y = x * sigmoid(swish_beta * x)
 *
 * relu_nan: with CUDNN_NOT_PROPAGATE_NAN, RELU and CLIPPED_RELU map NaN to 0
 * (cuDNN's max/min semantics); with CUDNN_PROPAGATE_NAN they give NaN.  The
 * other modes are smooth functions of x and always propagate NaN. */
#ifndef FDNN_CORE_ACTIVATION_H
#define FDNN_CORE_ACTIVATION_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_ACTIVATION_MAGIC 0x56495441u /* "ATIV" */

struct cudnnActivationStruct {
    uint32_t magic;
    bool is_set;
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t relu_nan;
    double coef;       /* CLIPPED_RELU ceiling, ELU alpha; stored for every mode */
    double swish_beta; /* SWISH; 1.0 until cudnnSetActivationDescriptorSwishBeta */
};

/* An activation as the kernels see it. */
typedef struct fdnn_activation {
    cudnnActivationMode_t mode;
    bool propagate_nan;
    double coef;
    double swish_beta;
} fdnn_activation_t;

/* BAD_PARAM (with `what` in the reason) unless desc is a created, set
 * activation descriptor; on success fills *out. */
cudnnStatus_t fdnn_activation_from_desc(cudnnActivationDescriptor_t desc, const char *what,
                                        fdnn_activation_t *out);

#endif /* FDNN_CORE_ACTIVATION_H */

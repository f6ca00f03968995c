/* SPDX-License-Identifier: Apache-2.0
 * Activation descriptor flattening.  See activation.h. */
#include "core/activation.h"

#include "core/fail.h"

cudnnStatus_t
fdnn_activation_from_desc(cudnnActivationDescriptor_t desc, const char *what, fdnn_activation_t *out)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_ACTIVATION_MAGIC)
        return FDNN_BAD_PARAM("%s is not an activation descriptor (destroyed or never created)", what);
    out->mode = desc->mode;
    out->propagate_nan = desc->relu_nan == CUDNN_PROPAGATE_NAN;
    out->coef = desc->coef;
    out->swish_beta = desc->swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

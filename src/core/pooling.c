/* SPDX-License-Identifier: Apache-2.0
 * Pooling descriptor flattening.  See pooling.h. */
#include "core/pooling.h"

#include "core/fail.h"

cudnnStatus_t
fdnn_pooling_from_desc(cudnnPoolingDescriptor_t desc, const char *what, fdnn_pooling_t *out)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_POOLING_MAGIC)
        return FDNN_BAD_PARAM("%s is not a pooling descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was created but never set", what);
    out->mode = desc->mode;
    out->propagate_nan = desc->nan_opt == CUDNN_PROPAGATE_NAN;
    out->nsp = desc->nb_dims;
    for (int i = 0; i < FDNN_POOL_MAX_DIMS; i++) {
        out->window[i] = i < desc->nb_dims ? desc->window[i] : 1;
        out->padding[i] = i < desc->nb_dims ? desc->padding[i] : 0;
        out->stride[i] = i < desc->nb_dims ? desc->stride[i] : 1;
    }
    return CUDNN_STATUS_SUCCESS;
}

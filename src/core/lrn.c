/* SPDX-License-Identifier: Apache-2.0
 * LRN descriptor flattening.  See lrn.h. */
#include "core/lrn.h"

#include "core/fail.h"

cudnnStatus_t
fdnn_lrn_from_desc(cudnnLRNDescriptor_t desc, const char *what, fdnn_lrn_t *out)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_LRN_MAGIC)
        return FDNN_BAD_PARAM("%s is not an LRN descriptor (destroyed or never created)", what);
    out->n = (int)desc->n;
    out->alpha = desc->alpha;
    out->beta = desc->beta;
    out->k = desc->k;
    return CUDNN_STATUS_SUCCESS;
}

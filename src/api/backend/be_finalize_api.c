/* SPDX-License-Identifier: Apache-2.0
 * cudnnBackendFinalize (the generic and per-type checks are in be_core.c,
 * be_ops.c and be_graph.c).  Its own file so that docs/coverage.md
 * attributes the gaps of finalize (be_values.c) to this function only. */
#include "api/backend/be_desc.h"
#include "api_impl.h"
#include "core/fail.h"

cudnnStatus_t
fdnn_api_cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    fdnn_be_desc_t *d = NULL;
    RETURN_IF_ERROR(fdnn_be_check(descriptor, "descriptor", &d));
    return fdnn_be_finalize(d);
}

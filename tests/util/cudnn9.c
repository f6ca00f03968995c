/* SPDX-License-Identifier: Apache-2.0
 * See cudnn9.h. */
#include "cudnn9.h"

#include <stdlib.h>

#include "test_os.h"

void *
fdnn_cudnn9_sym(const char *name)
{
    const char *path = getenv("FDNN_CUDNN9_LIB");
    return fdnn_test_library_sym(path != NULL ? path : "/usr/local/cuda/lib64/libcudnn.so.9", name);
}

cudnnStatus_t
fdnn_cudnn9_category(int s)
{
    if (s == 0)
        return CUDNN_STATUS_SUCCESS;
    if (s == 1001)
        return CUDNN_STATUS_NOT_INITIALIZED;
    if (s == 1002 || s == 1003)
        return CUDNN_STATUS_VERSION_MISMATCH;
    if (s >= 2000 && s < 3000)
        return CUDNN_STATUS_BAD_PARAM;
    if (s >= 3000 && s < 4000)
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (s == 4003)
        return CUDNN_STATUS_ALLOC_FAILED;
    if (s >= 4000 && s < 5000)
        return CUDNN_STATUS_INTERNAL_ERROR;
    if (s >= 5000 && s < 6000)
        return CUDNN_STATUS_EXECUTION_FAILED;
    return CUDNN_STATUS_INTERNAL_ERROR;
}

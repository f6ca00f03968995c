/* SPDX-License-Identifier: Apache-2.0
 * See cudnn9.h. */
#include "cudnn9.h"

#include <dlfcn.h>
#include <stdlib.h>

void *
fdnn_cudnn9_sym(const char *name)
{
    static void *lib;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *path = getenv("FDNN_CUDNN9_LIB");
        lib = dlopen(path != NULL ? path : "/usr/local/cuda/lib64/libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    }
    return lib != NULL ? dlsym(lib, name) : NULL;
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

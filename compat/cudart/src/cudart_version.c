/* SPDX-License-Identifier: Apache-2.0
 * Version queries of the host CUDA runtime. */
#include "cuda_runtime.h"

int
fdnn_cudart_version(void)
{
    return CUDART_VERSION;
}

/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the header cuDNN programs include.  Like CUDA's,
 * it brings in the runtime API, the driver types and the library types. */
#ifndef FDNN_COMPAT_CUDA_RUNTIME_H
#define FDNN_COMPAT_CUDA_RUNTIME_H

#include "library_types.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"

#endif /* FDNN_COMPAT_CUDA_RUNTIME_H */

/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the header CUDA's cuda_runtime.h reaches the
 * built-in types through, which some programs include directly: the driver
 * types and the vector types (textures and surfaces do not exist here). */
#ifndef FDNN_COMPAT_BUILTIN_TYPES_H
#define FDNN_COMPAT_BUILTIN_TYPES_H

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"

#endif /* FDNN_COMPAT_BUILTIN_TYPES_H */

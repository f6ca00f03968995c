/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: function declarations (subset).  See
 * compat/cudart/README.md for what is covered. */
#ifndef FDNN_COMPAT_CUDA_RUNTIME_API_H
#define FDNN_COMPAT_CUDA_RUNTIME_API_H

#include "driver_types.h"

/* The runtime version this host runtime stands in for (CUDA 12.2). */
#define CUDART_VERSION 12020

#endif /* FDNN_COMPAT_CUDA_RUNTIME_API_H */

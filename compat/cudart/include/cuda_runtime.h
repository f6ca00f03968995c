/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the header cuDNN programs include. */
#ifndef FDNN_COMPAT_CUDA_RUNTIME_H
#define FDNN_COMPAT_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"

#endif /* FDNN_COMPAT_CUDA_RUNTIME_H */

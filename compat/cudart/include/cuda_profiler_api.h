/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host CUDA runtime: the profiler switches programs wrap their
 * timed regions in.  No CUDA profiler runs on the CPU; both calls succeed
 * and do nothing. */
#ifndef FDNN_COMPAT_CUDA_PROFILER_API_H
#define FDNN_COMPAT_CUDA_PROFILER_API_H

#include "driver_types.h"

#if defined(__cplusplus)
extern "C" {
#endif

cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

#if defined(__cplusplus)
}
#endif

#endif /* FDNN_COMPAT_CUDA_PROFILER_API_H */

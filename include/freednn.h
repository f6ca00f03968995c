/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN's own extensions to the cuDNN 8.9.4 API.  A program that uses only
 * cudnn.h never needs these; they exist for tests, benchmarks and programs
 * that want to steer the CPU execution explicitly.  Exported under the
 * symbol version node FREEDNN_1. */
#ifndef FREEDNN_H_
#define FREEDNN_H_

#include "cudnn.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Worker threads of a handle (>= 1).  A new handle has FREEDNN_NUM_THREADS
 * threads, or one per logical processor.  Results do not depend on it. */
cudnnStatus_t
freednnSetNumThreads(cudnnHandle_t handle, int threads);
cudnnStatus_t
freednnGetNumThreads(cudnnHandle_t handle, int *threads);

/* Highest instruction-set level the handle's kernels may use: "scalar",
 * "avx2" or "avx512" on x86-64, "scalar" or "neon" on AArch64.  Asking for
 * more than the CPU (or FREEDNN_MAX_ISA) allows, or for a level of another
 * architecture, gives NOT_SUPPORTED. */
cudnnStatus_t
freednnSetIsa(cudnnHandle_t handle, const char *isa);
cudnnStatus_t
freednnGetIsa(cudnnHandle_t handle, const char **isa);

#if defined(__cplusplus)
}
#endif

#endif /* FREEDNN_H_ */

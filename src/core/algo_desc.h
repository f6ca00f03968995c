/* SPDX-License-Identifier: Apache-2.0
 * Algorithm descriptors and performance objects (deprecated in 8.x, removed
 * in 9, still exported by 8.9).  An algorithm descriptor holds one
 * cudnnAlgorithm_t: a union of algorithm enums with no tag, so the meaning of
 * the value is up to the function that reads it. */
#ifndef FDNN_CORE_ALGO_DESC_H
#define FDNN_CORE_ALGO_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_ALGO_MAGIC 0x4f474c41u      /* "ALGO" */
#define FDNN_ALGO_PERF_MAGIC 0x46524550u /* "PERF" */

struct cudnnAlgorithmStruct {
    uint32_t magic;
    bool is_set;
    cudnnAlgorithm_t algorithm;
    bool in_perf; /* the `found` member of a performance object: not destroyable */
};

struct cudnnAlgorithmPerformanceStruct {
    uint32_t magic;
    cudnnAlgorithmDescriptor_t algo_desc; /* referenced, not owned; may be NULL, or &found */
    cudnnStatus_t status;
    float time;    /* milliseconds */
    size_t memory; /* bytes */
    /* The descriptor a Find*Algorithm call reports through algo_desc: part
     * of this object (it dies with it, the caller must not destroy it), so a
     * search never writes a descriptor the caller owns and never allocates. */
    struct cudnnAlgorithmStruct found;
};

/* Bytes cudnnSaveAlgorithm writes (see src/api/ops_infer/algorithm_desc.c for
 * the layout). */
#define FDNN_ALGO_SPACE_BYTES 16u

cudnnStatus_t fdnn_algo_desc_check(cudnnAlgorithmDescriptor_t desc, const char *what);

/* BAD_PARAM (with `what`) unless perf is a created performance object. */
cudnnStatus_t fdnn_algo_perf_check(cudnnAlgorithmPerformance_t perf, const char *what);

/* What a Find*Algorithm call reports in one performance object: algo_desc
 * becomes perf->found, set to `algorithm`.  perf must have passed
 * fdnn_algo_perf_check. */
void fdnn_algo_perf_set_found(cudnnAlgorithmPerformance_t perf, cudnnAlgorithm_t algorithm, cudnnStatus_t status,
                              float time, size_t memory);

#endif /* FDNN_CORE_ALGO_DESC_H */

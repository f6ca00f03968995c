/* SPDX-License-Identifier: Apache-2.0
 * Algorithm descriptors and algorithm performance objects (deprecated in
 * 8.x, removed in 9), with their serialisation to a user buffer.
 *
 * cudnnSaveAlgorithm writes FDNN_ALGO_SPACE_BYTES (16) bytes, in host byte
 * order:
 *     0..3    "FDAS" tag (0x53414446)
 *     4..7    CUDNN_VERSION of the writer (8904)
 *     8..11   the algorithm value (the int behind cudnnAlgorithm_t)
 *     12..15  FNV-1a hash of bytes 0..11
 * cudnnRestoreAlgorithm accepts only a buffer that passes all four checks. */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "core/algo_desc.h"
#include "core/fail.h"
#include "core/handle.h"

#define ALGO_SPACE_TAG 0x53414446u

cudnnStatus_t
fdnn_algo_desc_check(cudnnAlgorithmDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_ALGO_MAGIC)
        return FDNN_BAD_PARAM("%s is not an algorithm descriptor (destroyed or never created)", what);
    if (!desc->is_set)
        return FDNN_BAD_PARAM("%s was never set (cudnnSetAlgorithmDescriptor)", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_created(cudnnAlgorithmDescriptor_t desc, const char *what)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (desc->magic != FDNN_ALGO_MAGIC)
        return FDNN_BAD_PARAM("%s is not an algorithm descriptor (destroyed or never created)", what);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_algo_perf_check(cudnnAlgorithmPerformance_t perf, const char *what)
{
    if (perf == NULL)
        return FDNN_BAD_PARAM("%s is NULL", what);
    if (perf->magic != FDNN_ALGO_PERF_MAGIC)
        return FDNN_BAD_PARAM("%s is not an algorithm performance object (destroyed or never created)", what);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
check_perf(cudnnAlgorithmPerformance_t perf)
{
    return fdnn_algo_perf_check(perf, "algoPerf");
}

cudnnStatus_t
fdnn_api_cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *algoDesc)
{
    RETURN_IF_NULL(algoDesc);
    struct cudnnAlgorithmStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate an algorithm descriptor");
    d->magic = FDNN_ALGO_MAGIC;
    *algoDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc)
{
    if (algoDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(check_created(algoDesc, "algoDesc"));
    if (algoDesc->in_perf)
        return FDNN_BAD_PARAM("algoDesc belongs to an algorithm performance object (a Find result): destroy that "
                              "object instead");
    algoDesc->magic = 0;
    free(algoDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* The union has no tag, so any value is stored as given. */
cudnnStatus_t
fdnn_api_cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t algorithm)
{
    RETURN_IF_ERROR(check_created(algoDesc, "algoDesc"));
    algoDesc->algorithm = algorithm;
    algoDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t *algorithm)
{
    RETURN_IF_ERROR(fdnn_algo_desc_check(algoDesc, "algoDesc"));
    RETURN_IF_NULL(algorithm);
    *algorithm = algoDesc->algorithm;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t src, cudnnAlgorithmDescriptor_t dest)
{
    RETURN_IF_ERROR(fdnn_algo_desc_check(src, "src"));
    RETURN_IF_ERROR(check_created(dest, "dest"));
    dest->algorithm = src->algorithm;
    dest->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- performance objects ------------------------------------------------ */

/* algoPerf is an array of numberToCreate handles; all or none are created. */
cudnnStatus_t
fdnn_api_cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToCreate)
{
    RETURN_IF_NULL(algoPerf);
    if (numberToCreate <= 0)
        return FDNN_BAD_PARAM("numberToCreate is %d, must be positive", numberToCreate);
    for (int i = 0; i < numberToCreate; i++) {
        struct cudnnAlgorithmPerformanceStruct *p = calloc(1, sizeof(*p));
        if (p == NULL) {
            for (int j = 0; j < i; j++) {
                algoPerf[j]->magic = 0;
                free(algoPerf[j]);
                algoPerf[j] = NULL;
            }
            return FDNN_ALLOC_FAILED("cannot allocate algorithm performance object %d of %d", i, numberToCreate);
        }
        p->magic = FDNN_ALGO_PERF_MAGIC;
        p->status = CUDNN_STATUS_SUCCESS;
        algoPerf[i] = p;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Checks every handle first so that a bad one destroys nothing. */
cudnnStatus_t
fdnn_api_cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToDestroy)
{
    RETURN_IF_NULL(algoPerf);
    if (numberToDestroy <= 0)
        return FDNN_BAD_PARAM("numberToDestroy is %d, must be positive", numberToDestroy);
    for (int i = 0; i < numberToDestroy; i++)
        if (algoPerf[i] != NULL && algoPerf[i]->magic != FDNN_ALGO_PERF_MAGIC)
            return FDNN_BAD_PARAM("algoPerf[%d] is not an algorithm performance object", i);
    for (int i = 0; i < numberToDestroy; i++) {
        if (algoPerf[i] == NULL)
            continue;
        algoPerf[i]->magic = 0;
        algoPerf[i]->found.magic = 0;
        free(algoPerf[i]);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t algoPerf, cudnnAlgorithmDescriptor_t algoDesc,
                                      cudnnStatus_t status, float time, size_t memory)
{
    RETURN_IF_ERROR(check_perf(algoPerf));
    RETURN_IF_ERROR(check_created(algoDesc, "algoDesc"));
    algoPerf->algo_desc = algoDesc;
    algoPerf->status = status;
    algoPerf->time = time;
    algoPerf->memory = memory;
    return CUDNN_STATUS_SUCCESS;
}

void
fdnn_algo_perf_set_found(cudnnAlgorithmPerformance_t perf, cudnnAlgorithm_t algorithm, cudnnStatus_t status,
                         float time, size_t memory)
{
    perf->found.magic = FDNN_ALGO_MAGIC;
    perf->found.algorithm = algorithm;
    perf->found.is_set = true;
    perf->found.in_perf = true;
    perf->algo_desc = &perf->found;
    perf->status = status;
    perf->time = time;
    perf->memory = memory;
}

/* Any output may be NULL (not returned).  After a Find*Algorithm call,
 * *algoDesc is the object's own descriptor (valid until the object is
 * destroyed; not to be destroyed by the caller). */
cudnnStatus_t
fdnn_api_cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t algoPerf,
                                      cudnnAlgorithmDescriptor_t *algoDesc, cudnnStatus_t *status, float *time,
                                      size_t *memory)
{
    RETURN_IF_ERROR(check_perf(algoPerf));
    if (algoDesc != NULL)
        *algoDesc = algoPerf->algo_desc;
    if (status != NULL)
        *status = algoPerf->status;
    if (time != NULL)
        *time = algoPerf->time;
    if (memory != NULL)
        *memory = algoPerf->memory;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- saving and restoring ------------------------------------------------ */

static uint32_t
fnv1a(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

cudnnStatus_t
fdnn_api_cudnnGetAlgorithmSpaceSize(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                    size_t *algoSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_algo_desc_check(algoDesc, "algoDesc"));
    RETURN_IF_NULL(algoSpaceSizeInBytes);
    *algoSpaceSizeInBytes = FDNN_ALGO_SPACE_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnSaveAlgorithm(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc, void *algoSpace,
                            size_t algoSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_algo_desc_check(algoDesc, "algoDesc"));
    RETURN_IF_NULL(algoSpace);
    if (algoSpaceSizeInBytes < FDNN_ALGO_SPACE_BYTES)
        return FDNN_BAD_PARAM("algoSpaceSizeInBytes is %zu, cudnnGetAlgorithmSpaceSize asks for %u",
                              algoSpaceSizeInBytes, FDNN_ALGO_SPACE_BYTES);
    uint32_t words[4];
    int32_t value;
    memcpy(&value, &algoDesc->algorithm, sizeof(value));
    words[0] = ALGO_SPACE_TAG;
    words[1] = CUDNN_VERSION;
    words[2] = (uint32_t)value;
    words[3] = fnv1a((const unsigned char *)words, 12);
    memcpy(algoSpace, words, sizeof(words));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRestoreAlgorithm(cudnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                               cudnnAlgorithmDescriptor_t algoDesc)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(algoSpace);
    RETURN_IF_ERROR(check_created(algoDesc, "algoDesc"));
    if (algoSpaceSizeInBytes < FDNN_ALGO_SPACE_BYTES)
        return FDNN_BAD_PARAM("algoSpaceSizeInBytes is %zu, a saved algorithm has %u bytes", algoSpaceSizeInBytes,
                              FDNN_ALGO_SPACE_BYTES);
    uint32_t words[4];
    memcpy(words, algoSpace, sizeof(words));
    if (words[0] != ALGO_SPACE_TAG)
        return FDNN_BAD_PARAM("algoSpace does not hold an algorithm saved by cudnnSaveAlgorithm");
    if (words[3] != fnv1a((const unsigned char *)words, 12))
        return FDNN_BAD_PARAM("algoSpace is corrupted (checksum mismatch)");
    if (words[1] != CUDNN_VERSION)
        return FDNN_NOT_SUPPORTED("algoSpace was saved by library version %u, this is %d", words[1], CUDNN_VERSION);
    int32_t value = (int32_t)words[2];
    memcpy(&algoDesc->algorithm, &value, sizeof(value));
    algoDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
}

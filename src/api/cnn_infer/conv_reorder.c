/* SPDX-License-Identifier: Apache-2.0
 * cudnnReorderFilterAndBias: the INT8x32 NCHW_VECT_C filter (and its FLOAT
 * bias) in the order cuDNN's IMMA kernels read under CUDNN_NO_REORDER.
 * CUDNN_DEFAULT_REORDER permutes (src/cpu/tensor/reorder.c has the order
 * and its sources); CUDNN_NO_REORDER copies. */
#include <stdint.h>
#include <string.h>

#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "cpu/tensor/tensor_ops.h"

/* True when [a, a + an) and [b, b + bn) share a byte. */
static bool
overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bn && y < x + an;
}

cudnnStatus_t
fdnn_api_cudnnReorderFilterAndBias(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                   cudnnReorderType_t reorderType, const void *filterData, void *reorderedFilterData,
                                   int reorderBias, const void *biasData, void *reorderedBiasData)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_tensor_t w;
    RETURN_IF_ERROR(fdnn_tensor_from_filter(filterDesc, "filterDesc", &w));
    if (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER)
        return FDNN_BAD_PARAM("reorderType is %d, not a cudnnReorderType_t", (int)reorderType);
    /* The function exists for INT8x32 NCHW_VECT_C filters (cuDNN 8.9). */
    if (filterDesc->dtype != CUDNN_DATA_INT8x32 || filterDesc->format != CUDNN_TENSOR_NCHW_VECT_C)
        return FDNN_NOT_SUPPORTED("filterDesc is %s; cudnnReorderFilterAndBias takes INT8x32 NCHW_VECT_C filters",
                                  fdnn_dtype_name(filterDesc->dtype));
    const int64_t k = w.dims[0];
    int64_t row = 1; /* bytes per output channel: C * taps */
    for (int i = 1; i < w.ndim; i++)
        row *= w.dims[i];
    const size_t wbytes = (size_t)(k * row), bbytes = (size_t)k * sizeof(float);
    if (reorderType == CUDNN_DEFAULT_REORDER && k % 8 != 0)
        return FDNN_NOT_SUPPORTED("filterDesc has K = %lld; the reordered layout is established for K a multiple "
                                  "of 8",
                                  (long long)k);
    if (reorderBias > 0 && reorderType == CUDNN_DEFAULT_REORDER && k % 32 != 0)
        return FDNN_NOT_SUPPORTED("filterDesc has K = %lld; the reordered bias is established for K a multiple "
                                  "of 32",
                                  (long long)k);
    RETURN_IF_NULL(filterData);
    RETURN_IF_NULL(reorderedFilterData);
    if (reorderBias > 0) {
        RETURN_IF_NULL(biasData);
        RETURN_IF_NULL(reorderedBiasData);
    }
    /* A permutation cannot run in place; an identical copy can. */
    const bool copy = reorderType == CUDNN_NO_REORDER;
    if (overlap(filterData, wbytes, reorderedFilterData, wbytes) && !(copy && filterData == reorderedFilterData))
        return FDNN_BAD_PARAM("filterData and reorderedFilterData overlap");
    if (reorderBias > 0 && overlap(biasData, bbytes, reorderedBiasData, bbytes) &&
        !(copy && biasData == reorderedBiasData))
        return FDNN_BAD_PARAM("biasData and reorderedBiasData overlap");
    if (copy) {
        memmove(reorderedFilterData, filterData, wbytes);
        if (reorderBias > 0)
            memmove(reorderedBiasData, biasData, bbytes);
        return CUDNN_STATUS_SUCCESS;
    }
    fdnn_reorder_int8x32_filter(filterData, reorderedFilterData, k, row);
    if (reorderBias > 0)
        fdnn_reorder_int8x32_bias(biasData, reorderedBiasData, k, sizeof(float));
    return CUDNN_STATUS_SUCCESS;
}

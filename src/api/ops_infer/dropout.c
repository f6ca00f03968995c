/* SPDX-License-Identifier: Apache-2.0
 * Dropout: the descriptor (create, set, restore, get, destroy), the size
 * queries and the forward.  The op is src/cpu/dropout; the states layout is
 * src/core/dropout.h. */
#include <stdlib.h>
#include <string.h>

#include "api/ops_infer/dropout_common.h"
#include "api_impl.h"
#include "core/dropout.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/dropout/dropout.h"

cudnnStatus_t
fdnn_dropout_check_desc(cudnnDropoutDescriptor_t desc, bool need_set)
{
    if (desc == NULL)
        return FDNN_BAD_PARAM("dropoutDesc is NULL");
    if (desc->magic != FDNN_DROPOUT_MAGIC)
        return FDNN_BAD_PARAM("dropoutDesc is not a dropout descriptor (destroyed or never created)");
    if (need_set && !desc->is_set)
        return FDNN_BAD_PARAM("dropoutDesc was created but never set");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_dropout_check_pair(cudnnTensorDescriptor_t aDesc, const char *an, const void *a, cudnnTensorDescriptor_t bDesc,
                        const char *bn, const void *b, fdnn_tensor_t *at, fdnn_tensor_t *bt)
{
    RETURN_IF_ERROR(fdnn_tensor_from_desc(aDesc, an, at));
    RETURN_IF_ERROR(fdnn_output_from_desc(bDesc, bn, bt)); /* b is the output */
    if (a == NULL || b == NULL)
        return FDNN_BAD_PARAM("the %s pointer is NULL", a == NULL ? an : bn);
    cudnnDataType_t t = at->dtype;
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16)
        return FDNN_NOT_SUPPORTED("%s has data type %s; dropout takes f32, f64, f16 or bf16", an,
                                  fdnn_dtype_name(t));
    if (bt->dtype != t)
        return FDNN_BAD_PARAM("%s has data type %s, %s has %s", bn, fdnn_dtype_name(bt->dtype), an,
                              fdnn_dtype_name(t));
    /* cuDNN compares element counts, not shapes. */
    if (fdnn_tensor_elements(at) != fdnn_tensor_elements(bt))
        return FDNN_BAD_PARAM("%s has %lld elements, %s has %lld", an, (long long)fdnn_tensor_elements(at), bn,
                              (long long)fdnn_tensor_elements(bt));
    if (a == b) {
        bool same = at->ndim == bt->ndim;
        for (int d = 0; same && d < at->ndim; d++)
            same = at->dims[d] == bt->dims[d] && (at->dims[d] == 1 || at->strides[d] == bt->strides[d]);
        if (!same)
            return FDNN_BAD_PARAM("in-place dropout needs %s and %s with the same dims and strides", an, bn);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *dropoutDesc)
{
    RETURN_IF_NULL(dropoutDesc);
    struct cudnnDropoutStruct *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate a dropout descriptor");
    d->magic = FDNN_DROPOUT_MAGIC;
    *dropoutDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc)
{
    if (dropoutDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    RETURN_IF_ERROR(fdnn_dropout_check_desc(dropoutDesc, false));
    dropoutDesc->magic = 0;
    free(dropoutDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = FDNN_DROPOUT_STATES_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t *sizeInBytes)
{
    fdnn_tensor_t x;
    RETURN_IF_ERROR(fdnn_tensor_from_desc(xdesc, "xdesc", &x));
    RETURN_IF_NULL(sizeInBytes);
    *sizeInBytes = fdnn_dropout_reserve_bytes(fdnn_tensor_elements(&x));
    return CUDNN_STATUS_SUCCESS;
}

/* The checks Set and Restore share. */
static cudnnStatus_t
check_set(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float dropout, void *states, size_t bytes)
{
    RETURN_IF_ERROR(fdnn_dropout_check_desc(desc, false));
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    if (!(dropout >= 0.0f && dropout <= 1.0f))
        return FDNN_BAD_PARAM("dropout is %g, expected a probability from 0 to 1", (double)dropout);
    if (states != NULL && bytes < FDNN_DROPOUT_STATES_BYTES)
        return fdnn_fail(CUDNN_STATUS_INVALID_VALUE, "stateSizeInBytes is %zu, cudnnDropoutGetStatesSize gives %d",
                         bytes, FDNN_DROPOUT_STATES_BYTES);
    return CUDNN_STATUS_SUCCESS;
}

static void
store_desc(cudnnDropoutDescriptor_t desc, float dropout, void *states, size_t bytes, unsigned long long seed)
{
    desc->dropout = dropout;
    desc->states = states;
    desc->state_bytes = bytes;
    desc->seed = seed;
    desc->is_set = true;
}

cudnnStatus_t
fdnn_api_cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                   void *states, size_t stateSizeInBytes, unsigned long long seed)
{
    RETURN_IF_ERROR(check_set(dropoutDesc, handle, dropout, states, stateSizeInBytes));
    /* With states, they are initialised from the seed (the calls counter
     * restarts); without, the descriptor only records the probability (as
     * cuDNN allows for descriptors used where no dropout runs). */
    if (states != NULL) {
        fdnn_dropout_state_t st = {FDNN_DROPOUT_STATE_MAGIC, seed, 0};
        memset(states, 0, FDNN_DROPOUT_STATES_BYTES);
        memcpy(states, &st, sizeof(st));
    }
    store_desc(dropoutDesc, dropout, states, stateSizeInBytes, seed);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                       void *states, size_t stateSizeInBytes, unsigned long long seed)
{
    RETURN_IF_ERROR(check_set(dropoutDesc, handle, dropout, states, stateSizeInBytes));
    /* The states were initialised before (by Set, possibly in another
     * descriptor or process): they are adopted as they are. */
    if (states != NULL) {
        fdnn_dropout_state_t st;
        memcpy(&st, states, sizeof(st));
        if (st.magic != FDNN_DROPOUT_STATE_MAGIC)
            return FDNN_BAD_PARAM("states were never initialised by cudnnSetDropoutDescriptor");
    }
    store_desc(dropoutDesc, dropout, states, stateSizeInBytes, seed);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float *dropout,
                                   void **states, unsigned long long *seed)
{
    RETURN_IF_ERROR(fdnn_dropout_check_desc(dropoutDesc, true));
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_NULL(dropout);
    RETURN_IF_NULL(states);
    RETURN_IF_NULL(seed);
    *dropout = dropoutDesc->dropout;
    *states = dropoutDesc->states;
    *seed = dropoutDesc->seed;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                             const cudnnTensorDescriptor_t xdesc, const void *x, const cudnnTensorDescriptor_t ydesc,
                             void *y, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_dropout_check_desc(dropoutDesc, true));
    if (dropoutDesc->states == NULL)
        return FDNN_BAD_PARAM("dropoutDesc has no states (set it with a non-NULL states buffer)");
    fdnn_tensor_t xt, yt;
    RETURN_IF_ERROR(fdnn_dropout_check_pair(xdesc, "xdesc", x, ydesc, "ydesc", y, &xt, &yt));
    size_t need = fdnn_dropout_reserve_bytes(fdnn_tensor_elements(&xt));
    RETURN_IF_NULL(reserveSpace);
    if (reserveSpaceSizeInBytes < need)
        return FDNN_BAD_PARAM("reserveSpaceSizeInBytes is %zu, %zu needed", reserveSpaceSizeInBytes, need);
    fdnn_dropout_state_t st;
    memcpy(&st, dropoutDesc->states, sizeof(st));
    if (st.magic != FDNN_DROPOUT_STATE_MAGIC)
        return FDNN_BAD_PARAM("the dropout states were never initialised by cudnnSetDropoutDescriptor");
    fdnn_dropout_forward(handle, dropoutDesc->dropout, st.seed, st.calls, &xt, x, &yt, y, reserveSpace);
    st.calls++;
    memcpy(dropoutDesc->states, &st, sizeof(st));
    return CUDNN_STATUS_SUCCESS;
}

/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN algorithm searches of adv_train (deprecated in 8.x, removed
 * in 9): cudnnGetRNN{ForwardTraining,BackwardData,BackwardWeights}AlgorithmMaxCount
 * and cudnnFindRNN{ForwardTraining,BackwardData,BackwardWeights}AlgorithmEx.
 * One algorithm (STANDARD) each, timed on the caller's buffers; see
 * adv_infer/rnn_find.h.  findIntensity is accepted and ignored (there is one
 * algorithm to time).
 *
 * The searches write their outputs as the plain calls do (y, hy, cy and the
 * reserve; dx, dhx, dcx and the gate gradients in the reserve), except dw:
 * cudnnRNNBackwardWeights adds to it, so timing several runs would add the
 * gradient several times; the weights search restores dw to its value on
 * entry. */
#include <stdlib.h>
#include <string.h>

#include "api/adv_infer/rnn_common.h"
#include "api/adv_infer/rnn_find.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"

static cudnnStatus_t
max_count(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *count)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_NULL(count);
    *count = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnGetRNNForwardTrainingAlgorithmMaxCount(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                                     int *count)
{
    return max_count(handle, rnnDesc, count);
}

cudnnStatus_t
fdnn_api_cudnnGetRNNBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                                  int *count)
{
    return max_count(handle, rnnDesc, count);
}

cudnnStatus_t
fdnn_api_cudnnGetRNNBackwardWeightsAlgorithmMaxCount(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                                     int *count)
{
    return max_count(handle, rnnDesc, count);
}

cudnnStatus_t
fdnn_api_cudnnFindRNNForwardTrainingAlgorithmEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength, const cudnnTensorDescriptor_t *xDesc,
    const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t cxDesc,
    const void *cx, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc, void *y,
    const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
    const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    (void)findIntensity;
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_find_t f;
    RETURN_IF_ERROR(fdnn_rnn_find_start(&f, requestedAlgoCount, returnedAlgoCount, perfResults));
    while (fdnn_rnn_find_next(&f))
        RETURN_IF_ERROR(fdnn_rnn_legacy_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc,
                                                w, yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes,
                                                reserveSpace, reserveSpaceSizeInBytes, true));
    fdnn_rnn_find_finish(&f, fdnn_rnn_find_workspace(rnnDesc, seqLength, xDesc, true), returnedAlgoCount,
                         perfResults);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnFindRNNBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength, const cudnnTensorDescriptor_t *yDesc,
    const void *y, const cudnnTensorDescriptor_t *dyDesc, const void *dy, const cudnnTensorDescriptor_t dhyDesc,
    const void *dhy, const cudnnTensorDescriptor_t dcyDesc, const void *dcy, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t cxDesc,
    const void *cx, const cudnnTensorDescriptor_t *dxDesc, void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx,
    const cudnnTensorDescriptor_t dcxDesc, void *dcx, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    (void)findIntensity;
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_find_t f;
    RETURN_IF_ERROR(fdnn_rnn_find_start(&f, requestedAlgoCount, returnedAlgoCount, perfResults));
    /* Each run reads the forward's part of the reserve and rewrites the gate
     * gradients it stores there, so every run computes the same. */
    while (fdnn_rnn_find_next(&f))
        RETURN_IF_ERROR(fdnn_api_cudnnRNNBackwardData(handle, rnnDesc, seqLength, yDesc, y, dyDesc, dy, dhyDesc, dhy,
                                                      dcyDesc, dcy, wDesc, w, hxDesc, hx, cxDesc, cx, dxDesc, dx,
                                                      dhxDesc, dhx, dcxDesc, dcx, workspace, workSpaceSizeInBytes,
                                                      reserveSpace, reserveSpaceSizeInBytes));
    fdnn_rnn_find_finish(&f, fdnn_rnn_find_workspace(rnnDesc, seqLength, dxDesc, true), returnedAlgoCount,
                         perfResults);
    return CUDNN_STATUS_SUCCESS;
}

/* dw is saved before the runs and restored after them (see the top). */
cudnnStatus_t
fdnn_api_cudnnFindRNNBackwardWeightsAlgorithmEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength, const cudnnTensorDescriptor_t *xDesc,
    const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t *yDesc,
    const void *y, const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnAlgorithmPerformance_t *perfResults, const void *workspace, size_t workSpaceSizeInBytes,
    const cudnnFilterDescriptor_t dwDesc, void *dw, const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    (void)findIntensity;
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_find_t f;
    RETURN_IF_ERROR(fdnn_rnn_find_start(&f, requestedAlgoCount, returnedAlgoCount, perfResults));
    /* The size of dw to save: checked here before the first run reads or
     * writes it (the run checks everything else). */
    fdnn_rnn_problem_t p;
    int *lens;
    RETURN_IF_ERROR(fdnn_rnn_problem_legacy(rnnDesc, seqLength, xDesc, yDesc, &p, &lens));
    free(lens);
    RETURN_IF_ERROR(fdnn_rnn_check_wdesc(&p, dwDesc, "dwDesc"));
    RETURN_IF_NULL(dw);
    size_t bytes = fdnn_rnn_weight_bytes(&p);
    void *saved = malloc(bytes);
    if (saved == NULL)
        return FDNN_ALLOC_FAILED("cannot allocate %zu bytes to keep dw during the search", bytes);
    memcpy(saved, dw, bytes);
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    while (st == CUDNN_STATUS_SUCCESS && fdnn_rnn_find_next(&f))
        st = fdnn_api_cudnnRNNBackwardWeights(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, yDesc, y, workspace,
                                              workSpaceSizeInBytes, dwDesc, dw, reserveSpace, reserveSpaceSizeInBytes);
    memcpy(dw, saved, bytes);
    free(saved);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    fdnn_rnn_find_finish(&f, fdnn_rnn_find_workspace(rnnDesc, seqLength, xDesc, true), returnedAlgoCount,
                         perfResults);
    return CUDNN_STATUS_SUCCESS;
}

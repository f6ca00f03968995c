/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN algorithm interface of adv_infer (deprecated in 8.x, removed
 * in 9): cudnnSetRNNAlgorithmDescriptor,
 * cudnnGetRNNForwardInferenceAlgorithmMaxCount,
 * cudnnFindRNNForwardInferenceAlgorithmEx, and the search helpers of
 * rnn_find.h that the training searches share. */
#include "api/adv_infer/rnn_find.h"

#include <stdlib.h>

#include "api/adv_infer/rnn_common.h"
#include "api_impl.h"
#include "core/algo_desc.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/timing.h"

cudnnStatus_t
fdnn_rnn_find_start(fdnn_rnn_find_t *f, int requestedAlgoCount, const int *returnedAlgoCount,
                    cudnnAlgorithmPerformance_t *perfResults)
{
    if (requestedAlgoCount <= 0)
        return FDNN_BAD_PARAM("requestedAlgoCount is %d, must be positive", requestedAlgoCount);
    RETURN_IF_NULL(returnedAlgoCount);
    RETURN_IF_NULL(perfResults);
    RETURN_IF_ERROR(fdnn_algo_perf_check(perfResults[0], "perfResults[0]"));
    f->runs = 0;
    f->max_runs = FDNN_RNN_FIND_RUNS;
    f->running = false;
    f->t0 = 0.0;
    return CUDNN_STATUS_SUCCESS;
}

bool
fdnn_rnn_find_next(fdnn_rnn_find_t *f)
{
    double now = fdnn_now_ms();
    if (f->running) {
        f->ms[f->runs++] = now - f->t0;
        if (f->runs == 1 && f->ms[0] > FDNN_RNN_FIND_SLOW_MS)
            f->max_runs = 1;
        f->running = false;
    }
    if (f->runs >= f->max_runs)
        return false;
    f->running = true;
    f->t0 = fdnn_now_ms();
    return true;
}

void
fdnn_rnn_find_finish(fdnn_rnn_find_t *f, size_t memory, int *returnedAlgoCount,
                     cudnnAlgorithmPerformance_t *perfResults)
{
    double median = fdnn_median_ms(f->ms, (size_t)f->runs);
    cudnnAlgorithm_t algo;
    algo.algo.RNNAlgo = CUDNN_RNN_ALGO_STANDARD;
    fdnn_algo_perf_set_found(perfResults[0], algo, CUDNN_STATUS_SUCCESS, (float)median, memory);
    *returnedAlgoCount = 1;
}

size_t
fdnn_rnn_find_workspace(cudnnRNNDescriptor_t rnnDesc, int seqLength, const cudnnTensorDescriptor_t *xDesc,
                        bool training)
{
    fdnn_rnn_problem_t p;
    int *lens;
    if (fdnn_rnn_problem_legacy_x(rnnDesc, seqLength, xDesc, &p, &lens) != CUDNN_STATUS_SUCCESS)
        return 0;
    size_t bytes = fdnn_rnn_workspace_bytes(&p, training);
    free(lens);
    return bytes;
}

/* Sets the algorithm of rnnDesc from algoDesc's RNNAlgo (what a search
 * returned, or any cudnnRNNAlgo_t).  The CPU runs the same code for every
 * algorithm, so this changes only what cudnnGetRNNDescriptor_v8/v6 report and
 * what the persistent-RNN calls accept; it enforces the constraints the RNN
 * descriptor setters put on the algorithm (a projection or a bias mode other
 * than DOUBLE needs STANDARD: NOT_SUPPORTED).  A change of algorithm drops
 * the mini-batch recorded by cudnnBuildRNNDynamic or a persistent plan. */
cudnnStatus_t
fdnn_api_cudnnSetRNNAlgorithmDescriptor(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                        cudnnAlgorithmDescriptor_t algoDesc)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_ERROR(fdnn_algo_desc_check(algoDesc, "algoDesc"));
    cudnnRNNAlgo_t algo = algoDesc->algorithm.algo.RNNAlgo;
    if ((unsigned)algo >= CUDNN_RNN_ALGO_COUNT)
        return FDNN_BAD_PARAM("algoDesc holds RNN algorithm %d, not a cudnnRNNAlgo_t", (int)algo);
    if (algo != CUDNN_RNN_ALGO_STANDARD && rnnDesc->proj_size < rnnDesc->hidden_size)
        return FDNN_NOT_SUPPORTED("RNN algorithm %d with a projection (projSize %d < hiddenSize %d) needs "
                                  "CUDNN_RNN_ALGO_STANDARD",
                                  (int)algo, rnnDesc->proj_size, rnnDesc->hidden_size);
    if (algo != CUDNN_RNN_ALGO_STANDARD && rnnDesc->bias_mode != CUDNN_RNN_DOUBLE_BIAS)
        return FDNN_NOT_SUPPORTED("RNN algorithm %d with biasMode %d needs CUDNN_RNN_ALGO_STANDARD", (int)algo,
                                  (int)rnnDesc->bias_mode);
    if (algo != rnnDesc->algo)
        rnnDesc->dynamic_mini_batch = 0;
    rnnDesc->algo = algo;
    return CUDNN_STATUS_SUCCESS;
}

/* One algorithm can be searched (STANDARD), as in cuDNN 8. */
cudnnStatus_t
fdnn_api_cudnnGetRNNForwardInferenceAlgorithmMaxCount(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                                      int *count)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_rnn_desc_check(rnnDesc, "rnnDesc"));
    RETURN_IF_NULL(count);
    *count = 1;
    return CUDNN_STATUS_SUCCESS;
}

/* findIntensity chooses how much of cuDNN's search space to cover; with one
 * algorithm there is nothing to choose, so any value is accepted and
 * ignored.  y, hy and cy are written as by cudnnRNNForwardInference. */
cudnnStatus_t
fdnn_api_cudnnFindRNNForwardInferenceAlgorithmEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength, const cudnnTensorDescriptor_t *xDesc,
    const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t cxDesc,
    const void *cx, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc, void *y,
    const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
    const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes)
{
    (void)findIntensity;
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    fdnn_rnn_find_t f;
    RETURN_IF_ERROR(fdnn_rnn_find_start(&f, requestedAlgoCount, returnedAlgoCount, perfResults));
    while (fdnn_rnn_find_next(&f))
        RETURN_IF_ERROR(fdnn_rnn_legacy_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc,
                                                w, yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes,
                                                NULL, 0, false));
    fdnn_rnn_find_finish(&f, fdnn_rnn_find_workspace(rnnDesc, seqLength, xDesc, false), returnedAlgoCount,
                         perfResults);
    return CUDNN_STATUS_SUCCESS;
}

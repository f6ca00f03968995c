/* SPDX-License-Identifier: Apache-2.0
 * The legacy RNN algorithm searches (cudnnFindRNN*AlgorithmEx, deprecated in
 * 8.x, removed in 9), shared by adv_infer/rnn_find.c and
 * adv_train/rnn_find_bwd.c.
 *
 * cuDNN 8 searches only CUDNN_RNN_ALGO_STANDARD, and the CPU has one RNN
 * implementation, so a search reports one result: STANDARD, timed on the
 * caller's buffers (the median of up to FDNN_RNN_FIND_RUNS runs of the
 * operation itself), with the workspace it needs as its memory.  The
 * operation writes its outputs as a plain call would.  Usage:
 *
 *     fdnn_rnn_find_t f;
 *     RETURN_IF_ERROR(fdnn_rnn_find_start(&f, requestedAlgoCount, returnedAlgoCount, perfResults));
 *     while (fdnn_rnn_find_next(&f))
 *         RETURN_IF_ERROR(<the operation>);
 *     fdnn_rnn_find_finish(&f, memory, returnedAlgoCount, perfResults);
 *
 * The first run validates every argument of the operation, so a bad one
 * fails the search before anything is written. */
#ifndef FDNN_API_RNN_FIND_H
#define FDNN_API_RNN_FIND_H

#include <stdbool.h>
#include <stddef.h>

#include "cudnn.h"

/* Runs timed per search; one when the first run takes over
 * FDNN_RNN_FIND_SLOW_MS (one run measures a slow call well enough). */
#define FDNN_RNN_FIND_RUNS 3
#define FDNN_RNN_FIND_SLOW_MS 250.0

typedef struct fdnn_rnn_find {
    int runs;     /* completed runs */
    int max_runs; /* FDNN_RNN_FIND_RUNS, or 1 for a slow call */
    bool running; /* a run has started and is not yet recorded */
    double t0;    /* its start, milliseconds */
    double ms[FDNN_RNN_FIND_RUNS];
} fdnn_rnn_find_t;

/* Checks the search's own arguments: requestedAlgoCount >= 1,
 * returnedAlgoCount given, perfResults[0] a created performance object. */
cudnnStatus_t fdnn_rnn_find_start(fdnn_rnn_find_t *f, int requestedAlgoCount, const int *returnedAlgoCount,
                                  cudnnAlgorithmPerformance_t *perfResults);

/* Records the run in progress and starts the next one; false when enough
 * runs are done. */
bool fdnn_rnn_find_next(fdnn_rnn_find_t *f);

/* *returnedAlgoCount = 1 and perfResults[0] = (STANDARD, SUCCESS, median
 * time in ms, memory in bytes); perfResults[1..] are not touched. */
void fdnn_rnn_find_finish(fdnn_rnn_find_t *f, size_t memory, int *returnedAlgoCount,
                          cudnnAlgorithmPerformance_t *perfResults);

/* The workspace, in bytes, the legacy forward (training or not) or, with
 * training, backward calls need for these per-step descriptors; 0 when they
 * are not valid (the search has validated them already). */
size_t fdnn_rnn_find_workspace(cudnnRNNDescriptor_t rnnDesc, int seqLength, const cudnnTensorDescriptor_t *xDesc,
                               bool training);

#endif /* FDNN_API_RNN_FIND_H */

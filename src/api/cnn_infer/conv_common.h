/* SPDX-License-Identifier: Apache-2.0
 * What the convolution entry points of cnn_infer and cnn_train share: the
 * argument checks of an execution call, the algorithm lists of the _v7
 * queries and the timed Find. */
#ifndef FDNN_API_CONV_COMMON_H
#define FDNN_API_CONV_COMMON_H

#include "core/conv.h"
#include "core/conv_solver.h"

/* The perf structs of the three directions share one layout (algo enum,
 * status, time, memory, determinism, mathType, reserved[3]); the helpers
 * below write cudnnConvolutionFwdAlgoPerf_t records through it. */
typedef cudnnConvolutionFwdAlgoPerf_t fdnn_conv_perf_t;

/* With FREEDNN_LOG=1, prints "freednn: <problem string> algo=<algo>" to
 * stderr for each execution call. */
void fdnn_conv_log(const fdnn_conv_problem_t *p, int algo);

/* The checks of workSpace/workSpaceSizeInBytes every execution call makes. */
cudnnStatus_t fdnn_conv_check_workspace(const void *workspace, size_t bytes);

/* cudnnGet*Algorithm_v7: every algorithm of the direction, implemented and
 * within CUDNN_CONV_WSCAP_DBG first (heuristic order), the others after with
 * status NOT_SUPPORTED. */
cudnnStatus_t fdnn_conv_get_v7(cudnnHandle_t handle, const fdnn_conv_problem_t *p, int requested, int *returned,
                               fdnn_conv_perf_t *perf);

/* cudnnFind*Algorithm(Ex): times every algorithm (median of several runs)
 * and sorts by time.  With io NULL the operands (and workspaces, capped by
 * CUDNN_CONV_WSCAP_DBG) are allocated here; otherwise io gives the user's
 * operands and workspace (x_in, w_in, y_in, out, workspace,
 * workspace_bytes), an algorithm needing more workspace is reported with
 * ALLOC_FAILED, and the output operand is overwritten. */
cudnnStatus_t fdnn_conv_find(cudnnHandle_t handle, const fdnn_conv_problem_t *p, const fdnn_conv_exec_t *io,
                             int requested, int *returned, fdnn_conv_perf_t *perf);

#endif /* FDNN_API_CONV_COMMON_H */

/* SPDX-License-Identifier: Apache-2.0
 * What the convolution entry points of cnn_infer and cnn_train share: the
 * argument checks of an execution call, the algorithm lists of the _v7
 * queries and the timed Find. */
#ifndef FDNN_API_CONV_COMMON_H
#define FDNN_API_CONV_COMMON_H

#include <stdbool.h>

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

/* One convolution entry point's arguments by role, whatever the direction:
 * x_desc / x the activations on the input side of the forward convolution
 * (dx for backward data), w_desc / w the filter (dw for backward filter),
 * y_desc / y the output side (dy for both backward directions).  The
 * direction's two inputs are among x, w, y; out is its output (y, dx or
 * dw).  The cudnnConvolution* entry points of the three directions fill it
 * from their own argument order and hand it to the fdnn_conv_entry_* calls
 * below, which make the checks the three share. */
typedef struct fdnn_conv_call {
    cudnnHandle_t handle;
    fdnn_conv_dir_t dir;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    const void *x, *w, *y;
    void *out;
} fdnn_conv_call_t;

/* A call of direction dir on these descriptors, operands still NULL. */
static inline fdnn_conv_call_t
fdnn_conv_call(cudnnHandle_t handle, fdnn_conv_dir_t dir, cudnnTensorDescriptor_t x_desc,
               cudnnFilterDescriptor_t w_desc, cudnnConvolutionDescriptor_t conv_desc, cudnnTensorDescriptor_t y_desc)
{
    fdnn_conv_call_t c = {handle, dir, x_desc, y_desc, w_desc, conv_desc, NULL, NULL, NULL, NULL};
    return c;
}

/* cudnnConvolutionForward / BackwardData / BackwardFilter. */
cudnnStatus_t fdnn_conv_entry_execute(const fdnn_conv_call_t *c, const void *alpha, const void *beta, int algo,
                                      void *workspace, size_t workspace_bytes);

/* cudnnGetConvolution*WorkspaceSize (operands unused). */
cudnnStatus_t fdnn_conv_entry_workspace(const fdnn_conv_call_t *c, int algo, size_t *bytes);

/* cudnnGetConvolution*Algorithm_v7 (operands unused). */
cudnnStatus_t fdnn_conv_entry_get_v7(const fdnn_conv_call_t *c, int requested, int *returned, fdnn_conv_perf_t *perf);

/* cudnnFindConvolution*Algorithm (with_operands false: operands unused,
 * allocated inside) and cudnnFindConvolution*AlgorithmEx (with_operands
 * true: the user's operands and workspace). */
cudnnStatus_t fdnn_conv_entry_find(const fdnn_conv_call_t *c, bool with_operands, void *workspace,
                                   size_t workspace_bytes, int requested, int *returned, fdnn_conv_perf_t *perf);

#endif /* FDNN_API_CONV_COMMON_H */

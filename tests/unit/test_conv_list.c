/* SPDX-License-Identifier: Apache-2.0
 * The ordered list of convolution implementations (src/cpu/conv/conv_list.c):
 * ids are unique and found again by id; the heuristic order is a permutation
 * of the direction's algorithms; and its readers agree: the graph API's
 * convolution nodes (gx_conv_pick) choose the first algorithm that
 * cudnnGet*Algorithm_v7 reports as SUCCESS, for forward, backward data and
 * backward filter problems of several kinds (dense, 1x1, depthwise, NHWC,
 * HALF). */
#include <string.h>

#include "core/conv.h"
#include "core/conv_solver.h"
#include "cpu/graph/graph_exec.h"
#include "testutil.h"

static void
test_ids(void)
{
    int seen = 0;
    for (int id = 0; id < 256; id++) {
        const fdnn_conv_solver_t *s = fdnn_conv_solver_by_id(id);
        if (s == NULL)
            continue;
        seen++;
        CHECK(s->id == id);
        /* The algorithm's general solver is itself, or (a specialised
         * solver of the algorithm, such as the batch 1x1 GEMM on
         * channels-last tensors) another solver of the same algorithm. */
        const fdnn_conv_solver_t *t = fdnn_conv_solver_for(s->dir, s->algo, NULL);
        bool specialised = id >= 35 && id <= 43;
        CHECK_MSG(specialised ? t != NULL && t != s && t->dir == s->dir && t->algo == s->algo : t == s,
                  "solver %d (%s) is not the one listed for its algorithm", id, s->name);
    }
    CHECK(seen >= 15);
    /* Ids are stable: a few that plans and logs refer to. */
    CHECK(fdnn_conv_solver_by_id(1) != NULL && strcmp(fdnn_conv_solver_by_id(1)->name, "fwd_implicit_gemm") == 0);
    CHECK(fdnn_conv_solver_by_id(12) != NULL && strcmp(fdnn_conv_solver_by_id(12)->name, "bwd_data_gemm") == 0);
    CHECK(fdnn_conv_solver_by_id(22) != NULL && strcmp(fdnn_conv_solver_by_id(22)->name, "bwd_filter_gemm") == 0);
}

typedef struct shape {
    cudnnDataType_t dt;
    cudnnTensorFormat_t f;
    int n, c, h, w, k, r, pad, stride, groups;
} shape_t;

static void
check_readers_agree(cudnnHandle_t h, const shape_t *s)
{
    cudnnTensorDescriptor_t xD, yD;
    cudnnFilterDescriptor_t wD;
    cudnnConvolutionDescriptor_t cD;
    CHECK_OK(cudnnCreateTensorDescriptor(&xD));
    CHECK_OK(cudnnCreateTensorDescriptor(&yD));
    CHECK_OK(cudnnCreateFilterDescriptor(&wD));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cD));
    CHECK_OK(cudnnSetTensor4dDescriptor(xD, s->f, s->dt, s->n, s->c, s->h, s->w));
    CHECK_OK(cudnnSetFilter4dDescriptor(wD, s->dt, s->f, s->k, s->c / s->groups, s->r, s->r));
    cudnnDataType_t compute = s->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnSetConvolution2dDescriptor(cD, s->pad, s->pad, s->stride, s->stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                             compute));
    CHECK_OK(cudnnSetConvolutionGroupCount(cD, s->groups));
    int on, oc, oh, ow;
    CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cD, xD, wD, &on, &oc, &oh, &ow));
    CHECK_OK(cudnnSetTensor4dDescriptor(yD, s->f, s->dt, on, oc, oh, ow));
    for (int dir = 0; dir < 3; dir++) {
        fdnn_conv_problem_t p;
        CHECK_OK(fdnn_conv_problem_from_desc((fdnn_conv_dir_t)dir, xD, wD, cD, yD, &p));
        int order[16], count = fdnn_conv_algo_count(p.dir), hits[16] = {0};
        fdnn_conv_heuristic_order(&p, order);
        for (int i = 0; i < count; i++)
            if (order[i] >= 0 && order[i] < count)
                hits[order[i]]++;
        for (int i = 0; i < count; i++)
            CHECK_MSG(hits[i] == 1, "dir %d: algorithm %d appears %d times in the heuristic order", dir, i, hits[i]);
        int n = 0, first = -1;
        if (dir == FDNN_CONV_FWD) {
            cudnnConvolutionFwdAlgoPerf_t perf[16];
            CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xD, wD, cD, yD, 16, &n, perf));
            for (int i = 0; i < n && first < 0; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    first = (int)perf[i].algo;
        } else if (dir == FDNN_CONV_BWD_DATA) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[16];
            CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wD, yD, cD, xD, 16, &n, perf));
            for (int i = 0; i < n && first < 0; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    first = (int)perf[i].algo;
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[16];
            CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xD, yD, cD, wD, 16, &n, perf));
            for (int i = 0; i < n && first < 0; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    first = (int)perf[i].algo;
        }
        int algo = -1;
        size_t ws = 0;
        CHECK_OK(gx_conv_pick(&p, &algo, &ws));
        CHECK_MSG(algo == first, "dir %d, %s C=%d K=%d %dx%d g=%d: graph picks %d, _v7's first is %d", dir,
                  s->f == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW", s->c, s->k, s->r, s->r, s->groups, algo, first);
    }
    cudnnDestroyTensorDescriptor(xD);
    cudnnDestroyTensorDescriptor(yD);
    cudnnDestroyFilterDescriptor(wD);
    cudnnDestroyConvolutionDescriptor(cD);
}

int
main(void)
{
    test_ids();
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    const shape_t shapes[] = {
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 16, 14, 14, 32, 3, 1, 1, 1},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 16, 14, 14, 32, 3, 1, 2, 1},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 64, 7, 7, 32, 1, 0, 1, 1},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 32, 12, 12, 32, 3, 1, 1, 32},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 28, 28, 8, 5, 2, 1, 1},
        {CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 2, 16, 14, 14, 32, 3, 1, 1, 1},
        {CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 1, 8, 9, 9, 8, 3, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        check_readers_agree(h, &shapes[i]);
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_list");
}

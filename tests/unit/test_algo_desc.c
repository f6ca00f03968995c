/* SPDX-License-Identifier: Apache-2.0
 * Algorithm descriptors and performance objects (deprecated, removed in
 * cuDNN 9, so there is nothing to cross-check): set/get/copy, the
 * performance arrays, and saving to and restoring from a user buffer,
 * including truncated, corrupted and foreign buffers. */
#include <string.h>

#include "testutil.h"

static cudnnAlgorithm_t
algo(int v)
{
    cudnnAlgorithm_t a;
    memset(&a, 0, sizeof(a));
    a.algo.convFwdAlgo = (cudnnConvolutionFwdAlgo_t)v;
    return a;
}

static void
test_desc(void)
{
    cudnnAlgorithmDescriptor_t a, b;
    CHECK_STATUS(cudnnCreateAlgorithmDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&a));
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&b));
    cudnnAlgorithm_t got = algo(-1);
    CHECK_STATUS(cudnnGetAlgorithmDescriptor(a, &got), CUDNN_STATUS_BAD_PARAM); /* never set */
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(a, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetAlgorithmDescriptor(a, algo(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)));
    CHECK_OK(cudnnGetAlgorithmDescriptor(a, &got));
    CHECK(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);
    CHECK_OK(cudnnCopyAlgorithmDescriptor(a, b));
    got = algo(-1);
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);
    CHECK_STATUS(cudnnGetAlgorithmDescriptor(a, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmDescriptor(NULL, algo(0)), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(a, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(NULL, b), CUDNN_STATUS_BAD_PARAM);

    /* Performance objects: arrays, all optional outputs. */
    cudnnAlgorithmPerformance_t perf[3] = {NULL, NULL, NULL};
    CHECK_STATUS(cudnnCreateAlgorithmPerformance(perf, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateAlgorithmPerformance(NULL, 3), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateAlgorithmPerformance(perf, 3));
    CHECK(perf[0] != NULL && perf[1] != NULL && perf[2] != NULL && perf[0] != perf[1]);
    CHECK_OK(cudnnSetAlgorithmPerformance(perf[1], a, CUDNN_STATUS_NOT_SUPPORTED, 1.25f, 4096));
    cudnnAlgorithmDescriptor_t gd = NULL;
    cudnnStatus_t gs = CUDNN_STATUS_SUCCESS;
    float t = 0;
    size_t mem = 0;
    CHECK_OK(cudnnGetAlgorithmPerformance(perf[1], &gd, &gs, &t, &mem));
    CHECK(gd == a && gs == CUDNN_STATUS_NOT_SUPPORTED && t == 1.25f && mem == 4096);
    CHECK_OK(cudnnGetAlgorithmPerformance(perf[1], NULL, NULL, NULL, NULL));
    CHECK_OK(cudnnGetAlgorithmPerformance(perf[0], &gd, &gs, &t, &mem));
    CHECK(gd == NULL && gs == CUDNN_STATUS_SUCCESS && t == 0 && mem == 0);
    CHECK_STATUS(cudnnSetAlgorithmPerformance(perf[1], NULL, CUDNN_STATUS_SUCCESS, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmPerformance(NULL, a, CUDNN_STATUS_SUCCESS, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAlgorithmPerformance(perf, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyAlgorithmPerformance(perf, 3));

    CHECK_OK(cudnnDestroyAlgorithmDescriptor(a));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(b));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(NULL));
}

static void
test_save_restore(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnAlgorithmDescriptor_t a, b;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&a));
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&b));
    size_t size = 0;
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(h, a, &size), CUDNN_STATUS_BAD_PARAM); /* never set */
    cudnnAlgorithm_t v;
    memset(&v, 0, sizeof(v));
    v.algo.RNNAlgo = CUDNN_RNN_ALGO_PERSIST_DYNAMIC;
    CHECK_OK(cudnnSetAlgorithmDescriptor(a, v));
    CHECK_OK(cudnnGetAlgorithmSpaceSize(h, a, &size));
    CHECK(size > 0 && size <= 64);
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(NULL, a, &size), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(h, a, NULL), CUDNN_STATUS_BAD_PARAM);

    /* The save writes exactly `size` bytes into a guarded buffer. */
    unsigned char *space = fdnn_guarded_alloc(size);
    fdnn_poison_bytes(space, size);
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, space, size - 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, NULL, size), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSaveAlgorithm(NULL, a, space, size), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSaveAlgorithm(h, a, space, size));
    CHECK_OK(cudnnRestoreAlgorithm(h, space, size, b));
    cudnnAlgorithm_t got;
    memset(&got, 0xff, sizeof(got));
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK(got.algo.RNNAlgo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC);

    /* Truncated, corrupted and foreign buffers are refused, b unchanged. */
    CHECK_STATUS(cudnnRestoreAlgorithm(h, space, size - 1, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreAlgorithm(h, NULL, size, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreAlgorithm(h, space, size, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreAlgorithm(NULL, space, size, b), CUDNN_STATUS_BAD_PARAM);
    for (size_t i = 0; i < size; i++) {
        space[i] ^= 0x10;
        CHECK_MSG(cudnnRestoreAlgorithm(h, space, size, b) != CUDNN_STATUS_SUCCESS, "byte %zu flipped", i);
        space[i] ^= 0x10;
    }
    unsigned char zeros[64] = {0};
    CHECK_STATUS(cudnnRestoreAlgorithm(h, zeros, sizeof(zeros), b), CUDNN_STATUS_BAD_PARAM);
    memset(&got, 0xff, sizeof(got));
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK(got.algo.RNNAlgo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC);
    /* A restore into a never-set descriptor sets it. */
    cudnnAlgorithmDescriptor_t c;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&c));
    CHECK_OK(cudnnRestoreAlgorithm(h, space, size, c));
    CHECK_OK(cudnnGetAlgorithmDescriptor(c, &got));
    CHECK(got.algo.RNNAlgo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC);
    fdnn_guarded_free(space);
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(a));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(b));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(c));
    CHECK_OK(cudnnDestroy(h));
}

int
main(void)
{
    test_desc();
    test_save_restore();
    return fdnn_test_finish("test_algo_desc");
}

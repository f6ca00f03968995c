/* SPDX-License-Identifier: Apache-2.0
 * cuDNN's rule: a handle per thread.  THREADS threads, each with its own
 * handle (a pool of 2 workers each), run convolution, batch norm, pooling
 * and an LSTM at the same time, with the logging callback on and calls
 * that fail (so log records are written from every thread at once), and
 * must get bitwise the results one thread alone gets.  The TSan stage of
 * scripts/test.sh runs this test under -fsanitize=thread (docs/threads.md).
 *
 * Then a handle shared by two threads without synchronisation (the caller's
 * error: results on it are undefined) next to a third thread with its own
 * handle, which must still get exact results: handles hold no state in
 * common.  That part is a data race by design, so it is left out of the
 * TSan build. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "testutil.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define THREADS 4
#define ROUNDS 3

/* Problem sizes: small, but large enough that every operation goes
 * parallel on a 2-thread pool. */
enum { N = 4, C = 16, HW = 24, K = 16, T = 6, B = 4, IN = 16, H = 32 };

typedef struct outputs {
    float conv[N * K * HW * HW];
    float bn[N * C * HW * HW], bn_mean[C], bn_ivar[C];
    float pool[N * C * (HW / 2) * (HW / 2)];
    float rnn[T * B * H];
} outputs_t;

typedef struct problem {
    cudnnTensorDescriptor_t x, conv_y, bn_p, pool_y, h;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnPoolingDescriptor_t pool;
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t rx, ry;
    float x_data[N * C * HW * HW], w_data[K * C * 9], scale[C], bias[C];
    float rx_data[T * B * IN];
    int lens[B];
    size_t rnn_wbytes;
    float *rnn_w;
} problem_t;

static problem_t P;
static outputs_t expected;

static float
value(size_t i, unsigned salt)
{
    return (float)((i * 2654435761u + salt) % 2001) / 1000.0f - 1.0f;
}

static void
make_problem(cudnnHandle_t h)
{
    for (size_t i = 0; i < sizeof(P.x_data) / 4; i++)
        P.x_data[i] = value(i, 1);
    for (size_t i = 0; i < sizeof(P.w_data) / 4; i++)
        P.w_data[i] = value(i, 2) * 0.2f;
    for (int c = 0; c < C; c++) {
        P.scale[c] = 1.0f + value((size_t)c, 3) * 0.5f;
        P.bias[c] = value((size_t)c, 4);
    }
    for (size_t i = 0; i < sizeof(P.rx_data) / 4; i++)
        P.rx_data[i] = value(i, 5);
    for (int b = 0; b < B; b++)
        P.lens[b] = T - b;

    CHECK_OK(cudnnCreateTensorDescriptor(&P.x));
    CHECK_OK(cudnnSetTensor4dDescriptor(P.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, HW, HW));
    CHECK_OK(cudnnCreateFilterDescriptor(&P.w));
    CHECK_OK(cudnnSetFilter4dDescriptor(P.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&P.conv));
    CHECK_OK(cudnnSetConvolution2dDescriptor(P.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnCreateTensorDescriptor(&P.conv_y));
    CHECK_OK(cudnnSetTensor4dDescriptor(P.conv_y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, HW, HW));
    CHECK_OK(cudnnCreateTensorDescriptor(&P.bn_p));
    CHECK_OK(cudnnDeriveBNTensorDescriptor(P.bn_p, P.x, CUDNN_BATCHNORM_SPATIAL));
    CHECK_OK(cudnnCreatePoolingDescriptor(&P.pool));
    CHECK_OK(cudnnSetPooling2dDescriptor(P.pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    CHECK_OK(cudnnCreateTensorDescriptor(&P.pool_y));
    CHECK_OK(cudnnSetTensor4dDescriptor(P.pool_y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, HW / 2, HW / 2));

    CHECK_OK(cudnnCreateRNNDescriptor(&P.rnn));
    CHECK_OK(cudnnSetRNNDescriptor_v8(P.rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, IN, H, H, 1, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    float zero = 0;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&P.rx));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&P.ry));
    CHECK_OK(cudnnSetRNNDataDescriptor(P.rx, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, IN,
                                       P.lens, &zero));
    CHECK_OK(cudnnSetRNNDataDescriptor(P.ry, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, H,
                                       P.lens, &zero));
    int hdims[3] = {1, B, H}, hstr[3] = {B * H, H, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&P.h));
    CHECK_OK(cudnnSetTensorNdDescriptor(P.h, CUDNN_DATA_FLOAT, 3, hdims, hstr));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, P.rnn, &P.rnn_wbytes));
    P.rnn_w = malloc(P.rnn_wbytes);
    for (size_t i = 0; i < P.rnn_wbytes / 4; i++)
        P.rnn_w[i] = value(i, 6) * 0.3f;
}

static void
free_problem(void)
{
    free(P.rnn_w);
    cudnnDestroyTensorDescriptor(P.h);
    cudnnDestroyRNNDataDescriptor(P.ry);
    cudnnDestroyRNNDataDescriptor(P.rx);
    cudnnDestroyRNNDescriptor(P.rnn);
    cudnnDestroyTensorDescriptor(P.pool_y);
    cudnnDestroyPoolingDescriptor(P.pool);
    cudnnDestroyTensorDescriptor(P.bn_p);
    cudnnDestroyTensorDescriptor(P.conv_y);
    cudnnDestroyConvolutionDescriptor(P.conv);
    cudnnDestroyFilterDescriptor(P.w);
    cudnnDestroyTensorDescriptor(P.x);
}

/* One round of every operation on `h` into `o` (poisoned first).  The
 * descriptors are shared read-only, as cuDNN allows. */
static void
run_all(cudnnHandle_t h, outputs_t *o)
{
    fdnn_poison_bytes(o, sizeof(*o));
    float one = 1, zero = 0;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.x, P.w, P.conv, P.conv_y, algo, &ws_bytes));
    void *ws = malloc(ws_bytes + 1);
    CHECK_OK(cudnnConvolutionForward(h, &one, P.x, P.x_data, P.w, P.w_data, P.conv, algo, ws, ws_bytes, &zero,
                                     P.conv_y, o->conv));
    free(ws);
    /* A failing call: its error record goes through the callback. */
    CHECK_STATUS(cudnnConvolutionForward(h, &one, P.x, P.x_data, P.w, P.w_data, P.conv, algo, NULL, 0, &zero,
                                         P.pool_y, o->conv),
                 CUDNN_STATUS_BAD_PARAM);

    float run_mean[C] = {0}, run_var[C] = {0};
    CHECK_OK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, P.x, P.x_data, P.x,
                                                    o->bn, P.bn_p, P.scale, P.bias, 0.1, run_mean, run_var, 1e-5,
                                                    o->bn_mean, o->bn_ivar));
    CHECK_OK(cudnnPoolingForward(h, P.pool, &one, P.x, P.x_data, &zero, P.pool_y, o->pool));

    size_t ws_rnn = 0, rs_rnn = 0;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, P.rnn, CUDNN_FWD_MODE_INFERENCE, P.rx, &ws_rnn, &rs_rnn));
    void *wsr = malloc(ws_rnn + 1);
    CHECK_OK(cudnnRNNForward(h, P.rnn, CUDNN_FWD_MODE_INFERENCE, P.lens, P.rx, P.rx_data, P.ry, o->rnn, P.h, NULL,
                             NULL, P.h, NULL, NULL, P.rnn_wbytes, P.rnn_w, ws_rnn, wsr, 0, NULL));
    free(wsr);
}

static _Atomic long log_records;

static void
count_record(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev;
    (void)dbg;
    CHECK(msg != NULL);
    atomic_fetch_add((_Atomic long *)udata, 1);
}

static _Atomic int mismatches;

static void *
own_handle_thread(void *arg)
{
    (void)arg;
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    outputs_t *o = malloc(sizeof(*o));
    for (int r = 0; r < ROUNDS; r++) {
        run_all(h, o);
        if (memcmp(o, &expected, sizeof(*o)) != 0)
            atomic_fetch_add(&mismatches, 1);
    }
    free(o);
    CHECK_OK(cudnnDestroy(h));
    return NULL;
}

#if !UNDER_TSAN
/* Two threads on one handle, unsynchronised: the caller's error.  Only
 * that nothing crashes is asked of it (and nothing is checked here). */
static void *
shared_handle_thread(void *arg)
{
    cudnnHandle_t h = arg;
    outputs_t *o = malloc(sizeof(*o));
    for (int r = 0; r < ROUNDS; r++)
        run_all(h, o);
    free(o);
    return NULL;
}
#endif

int
main(void)
{
    setenv("FREEDNN_NUM_THREADS", "2", 1);
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    make_problem(h);
    run_all(h, &expected);

    CHECK_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN | CUDNN_SEV_INFO_EN, (void *)&log_records,
                              count_record));
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, own_handle_thread, NULL) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    CHECK_MSG(atomic_load(&mismatches) == 0, "%d of %d runs on their own handles differ from one thread alone",
              atomic_load(&mismatches), THREADS * ROUNDS);
    long records = atomic_load(&log_records);
    CHECK_MSG(records >= THREADS * ROUNDS, "only %ld log records reached the callback", records);
    CHECK_OK(cudnnSetCallback(0, NULL, NULL));

#if !UNDER_TSAN
    pthread_t sh[2], own;
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&sh[i], NULL, shared_handle_thread, h) == 0);
    atomic_store(&mismatches, 0);
    CHECK(pthread_create(&own, NULL, own_handle_thread, NULL) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(sh[i], NULL);
    pthread_join(own, NULL);
    CHECK_MSG(atomic_load(&mismatches) == 0, "a handle next to a shared one got different results");
#endif

    free_problem();
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_threads");
}

/* SPDX-License-Identifier: Apache-2.0
 * Client scenarios of issue #17, written the way programs for NVIDIA's
 * cuDNN 8 are written (only cudnn.h and the CUDA runtime):
 *
 *  1. A framework's out-of-memory fallback: the device has no memory left
 *     for a workspace, so for each convolution direction the program walks
 *     the _v7 heuristic list and takes the first algorithm whose reported
 *     memory is 0, then runs it with workSpace NULL and size 0.  cuDNN users
 *     rely on forward IMPLICIT_GEMM and backward ALGO_0/ALGO_1 for this.
 *     Results are checked against the program's own loops (small integers:
 *     exact).
 *  2. Batch normalization over a channel that holds a NaN: the saved
 *     inverse variance, the running variance and the outputs of that
 *     channel are NaN, the other channel is untouched by it.
 *  3. The CTC workspace query looks at shapes and lengths only: labels out
 *     of the alphabet do not make the size query fail (the loss itself
 *     refuses them).
 *
 * Prints "Test passed!" when every check holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cudnn.h>

static int failures;

#define CHECK_CUDNN(call)                                                                      \
    do {                                                                                       \
        cudnnStatus_t s_ = (call);                                                             \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                      \
            printf("%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_));   \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void
expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

/* ---- 1. zero-workspace fallback ------------------------------------- */

enum { N = 2, C = 3, H = 7, W = 6, K = 4, R = 3, S = 3, PAD = 1, STR = 2 };
enum { P = (H + 2 * PAD - R) / STR + 1, Q = (W + 2 * PAD - S) / STR + 1 };

static float *
dev_copy(const float *host, size_t count)
{
    float *d = NULL;
    if (cudaMalloc((void **)&d, count * sizeof(float)) != cudaSuccess)
        exit(1);
    if (host != NULL)
        cudaMemcpy(d, host, count * sizeof(float), cudaMemcpyHostToDevice);
    else
        cudaMemset(d, 0xff, count * sizeof(float)); /* NaN bytes: must be overwritten */
    return d;
}

static int
same(const float *dev, const float *want, size_t count)
{
    float *h = (float *)malloc(count * sizeof(float));
    cudaMemcpy(h, dev, count * sizeof(float), cudaMemcpyDeviceToHost);
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++)
        ok = h[i] == want[i];
    free(h);
    return ok;
}

/* Cross-correlation with padding and stride, in the three directions. */
static void
naive(const float *x, const float *w, const float *dy, float *y, float *dx, float *dw)
{
    memset(y, 0, sizeof(float) * N * K * P * Q);
    memset(dx, 0, sizeof(float) * N * C * H * W);
    memset(dw, 0, sizeof(float) * K * C * R * S);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++)
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int s = 0; s < S; s++) {
                                int h = p * STR - PAD + r, ww = q * STR - PAD + s;
                                if (h < 0 || h >= H || ww < 0 || ww >= W)
                                    continue;
                                int xi = ((n * C + c) * H + h) * W + ww, wi = ((k * C + c) * R + r) * S + s;
                                int yi = ((n * K + k) * P + p) * Q + q;
                                y[yi] += x[xi] * w[wi];
                                dx[xi] += dy[yi] * w[wi];
                                dw[wi] += dy[yi] * x[xi];
                            }
}

static void
scenario_zero_workspace(cudnnHandle_t handle)
{
    static float x[N * C * H * W], w[K * C * R * S], dy[N * K * P * Q];
    static float y_want[N * K * P * Q], dx_want[N * C * H * W], dw_want[K * C * R * S];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * C * R * S; i++)
        w[i] = (float)(i % 5 - 2);
    for (int i = 0; i < N * K * P * Q; i++)
        dy[i] = (float)(i % 3 - 1);
    naive(x, w, dy, y_want, dx_want, dw_want);

    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&xd));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&yd));
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&wd));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK_CUDNN(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(cd, PAD, PAD, STR, STR, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    int n, c, h, ww;
    CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &n, &c, &h, &ww));
    expect(n == N && c == K && h == P && ww == Q, "output dims");
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q));

    float *dx_ = dev_copy(x, N * C * H * W), *dw_ = dev_copy(w, K * C * R * S), *ddy = dev_copy(dy, N * K * P * Q);
    float *dy_out = dev_copy(NULL, N * K * P * Q), *ddx = dev_copy(NULL, N * C * H * W);
    float *ddw = dev_copy(NULL, K * C * R * S);
    const float one = 1.0f, zero = 0.0f;
    const size_t free_bytes = 0; /* what is left on the "device" */

    int count = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                       &count, fwd));
    int chosen = -1;
    for (int i = 0; i < count && chosen < 0; i++)
        if (fwd[i].status == CUDNN_STATUS_SUCCESS && fwd[i].memory <= free_bytes)
            chosen = i;
    expect(chosen >= 0, "a forward algorithm needs no workspace");
    if (chosen >= 0) {
        CHECK_CUDNN(cudnnConvolutionForward(handle, &one, xd, dx_, wd, dw_, cd, fwd[chosen].algo, NULL, 0, &zero,
                                            yd, dy_out));
        expect(same(dy_out, y_want, N * K * P * Q), "forward without a workspace");
    }
    /* IMPLICIT_GEMM by name, as an out-of-memory fallback hard-codes it. */
    cudaMemset(dy_out, 0xff, sizeof(float) * N * K * P * Q);
    CHECK_CUDNN(cudnnConvolutionForward(handle, &one, xd, dx_, wd, dw_, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                        NULL, 0, &zero, yd, dy_out));
    expect(same(dy_out, y_want, N * K * P * Q), "IMPLICIT_GEMM without a workspace");
    size_t ws = 1;
    CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, cd, yd,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
    expect(ws == 0, "IMPLICIT_GEMM reports no workspace");

    cudnnConvolutionBwdDataAlgoPerf_t bd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, wd, yd, cd, xd,
                                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, bd));
    chosen = -1;
    for (int i = 0; i < count && chosen < 0; i++)
        if (bd[i].status == CUDNN_STATUS_SUCCESS && bd[i].memory <= free_bytes)
            chosen = i;
    expect(chosen >= 0, "a backward-data algorithm needs no workspace");
    for (int a = 0; a < 2; a++) { /* ALGO_0, ALGO_1 */
        cudaMemset(ddx, 0xff, sizeof(float) * N * C * H * W);
        CHECK_CUDNN(cudnnConvolutionBackwardData(handle, &one, wd, dw_, yd, ddy, cd,
                                                 (cudnnConvolutionBwdDataAlgo_t)a, NULL, 0, &zero, xd, ddx));
        expect(same(ddx, dx_want, N * C * H * W), "backward data without a workspace");
    }

    cudnnConvolutionBwdFilterAlgoPerf_t bf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, xd, yd, cd, wd,
                                                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, bf));
    chosen = -1;
    for (int i = 0; i < count && chosen < 0; i++)
        if (bf[i].status == CUDNN_STATUS_SUCCESS && bf[i].memory <= free_bytes)
            chosen = i;
    expect(chosen >= 0, "a backward-filter algorithm needs no workspace");
    for (int a = 0; a < 2; a++) { /* ALGO_0, ALGO_1 */
        cudaMemset(ddw, 0xff, sizeof(float) * K * C * R * S);
        CHECK_CUDNN(cudnnConvolutionBackwardFilter(handle, &one, xd, dx_, yd, ddy, cd,
                                                   (cudnnConvolutionBwdFilterAlgo_t)a, NULL, 0, &zero, wd, ddw));
        expect(same(ddw, dw_want, K * C * R * S), "backward filter without a workspace");
    }

    cudaFree(dx_), cudaFree(dw_), cudaFree(ddy), cudaFree(dy_out), cudaFree(ddx), cudaFree(ddw);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(xd);
}

/* ---- 2. batch norm over a NaN channel --------------------------------- */

static void
scenario_bn_nan(cudnnHandle_t handle)
{
    enum { BN = 2, BC = 2, BH = 3, BW = 3 };
    float x[BN * BC * BH * BW];
    for (int i = 0; i < BN * BC * BH * BW; i++)
        x[i] = (float)(i % 4);
    x[(1 * BC + 1) * BH * BW + 4] = NAN; /* image 1, channel 1 */
    float scale[BC] = {1, 1}, bias[BC] = {0, 0}, run_mean[BC] = {0, 0}, run_var[BC] = {1, 1};
    float save_mean[BC], save_inv[BC], y[BN * BC * BH * BW];

    cudnnTensorDescriptor_t xd, pd;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&xd));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&pd));
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, BN, BC, BH, BW));
    CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(pd, xd, CUDNN_BATCHNORM_SPATIAL));
    const float one = 1.0f, zero = 0.0f;
    CHECK_CUDNN(cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd, y, pd,
                                                       scale, bias, 0.5, run_mean, run_var, 1e-5, save_mean,
                                                       save_inv));
    expect(!isnan(save_inv[0]) && !isnan(run_var[0]) && !isnan(y[0]), "the clean channel stays finite");
    expect(isnan(save_mean[1]) && isnan(save_inv[1]), "the NaN channel's saved statistics are NaN");
    expect(isnan(run_var[1]) && isnan(run_mean[1]), "the NaN channel's running statistics are NaN");
    expect(isnan(y[BH * BW]), "the NaN channel's outputs are NaN");
    cudnnDestroyTensorDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd);
}

/* ---- 3. the CTC size query looks at shapes only -------------------------- */

static void
scenario_ctc_query(cudnnHandle_t handle)
{
    enum { T = 6, B = 2, A = 5 };
    int dims[3] = {T, B, A}, strides[3] = {B * A, A, 1};
    cudnnTensorDescriptor_t probs, grads;
    cudnnCTCLossDescriptor_t ctc;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&probs));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&grads));
    CHECK_CUDNN(cudnnSetTensorNdDescriptor(probs, CUDNN_DATA_FLOAT, 3, dims, strides));
    CHECK_CUDNN(cudnnSetTensorNdDescriptor(grads, CUDNN_DATA_FLOAT, 3, dims, strides));
    CHECK_CUDNN(cudnnCreateCTCLossDescriptor(&ctc));
    CHECK_CUDNN(cudnnSetCTCLossDescriptor(ctc, CUDNN_DATA_FLOAT));
    int labels[4] = {1, A + 7, 0, 2}; /* out of the alphabet, and a blank */
    int label_lengths[B] = {2, 2}, input_lengths[B] = {T, T};
    size_t bytes = 0;
    cudnnStatus_t s = cudnnGetCTCLossWorkspaceSize(handle, probs, grads, labels, label_lengths, input_lengths,
                                                   CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &bytes);
    expect(s == CUDNN_STATUS_SUCCESS, "the CTC size query ignores label values");
    cudnnDestroyCTCLossDescriptor(ctc);
    cudnnDestroyTensorDescriptor(grads);
    cudnnDestroyTensorDescriptor(probs);
}

int
main(void)
{
    cudnnHandle_t handle;
    CHECK_CUDNN(cudnnCreate(&handle));
    scenario_zero_workspace(handle);
    scenario_bn_nan(handle);
    scenario_ctc_query(handle);
    CHECK_CUDNN(cudnnDestroy(handle));
    if (failures == 0)
        printf("Test passed!\n");
    return failures == 0 ? 0 : 1;
}

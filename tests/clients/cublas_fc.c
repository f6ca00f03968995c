/* SPDX-License-Identifier: Apache-2.0
 * A small network the way cuDNN programs write one, with cuBLAS for the
 * fully connected layer (as NVIDIA's mnistCUDNN sample does):
 *   convolution (cuDNN) -> bias (cudnnAddTensor) -> ReLU (cuDNN)
 *   -> fully connected: cublasSgemm over the batch, cublasSgemv for one
 *      image, cublasSgemmEx with FP16 weights and activations
 *   -> bias (cublasSaxpy) -> softmax (cuDNN)
 * on one stream shared by both handles, checked against plain loops in
 * double.  Written for NVIDIA's libraries; test_client_programs.sh builds it
 * against FreeDNN (-lcudnn -lcublas -lcudart) with gcc, g++ and clang and
 * runs it.  Prints "Test passed!" (exit 0) or the failed check (exit 1). */
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define checkCUDA(expr)                                                                          \
    do {                                                                                         \
        cudaError_t e_ = (expr);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorName(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define checkCUDNN(expr)                                                                         \
    do {                                                                                         \
        cudnnStatus_t s_ = (expr);                                                               \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudnnGetErrorString(s_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define checkCUBLAS(expr)                                                                        \
    do {                                                                                         \
        cublasStatus_t b_ = (expr);                                                              \
        if (b_ != CUBLAS_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cublasGetStatusName(b_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define require(cond)                                                                            \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

enum { N = 3, C = 2, HW = 6, K = 4, R = 3, FEAT = K * HW * HW, OUT = 10 };

static float
frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

int
main(void)
{
    unsigned seed = 7;
    static float h_x[N * C * HW * HW], h_w[K * C * R * R], h_cb[K], h_fw[FEAT * OUT], h_fb[OUT];
    for (size_t i = 0; i < sizeof(h_x) / sizeof(float); i++)
        h_x[i] = frand(&seed);
    for (size_t i = 0; i < sizeof(h_w) / sizeof(float); i++)
        h_w[i] = frand(&seed);
    for (int i = 0; i < K; i++)
        h_cb[i] = frand(&seed);
    for (int i = 0; i < FEAT * OUT; i++)
        h_fw[i] = frand(&seed) * 0.25f;
    for (int i = 0; i < OUT; i++)
        h_fb[i] = frand(&seed);

    cudaStream_t stream;
    checkCUDA(cudaStreamCreate(&stream));
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    checkCUDNN(cudnnCreate(&dnn));
    checkCUBLAS(cublasCreate(&blas));
    checkCUDNN(cudnnSetStream(dnn, stream));
    checkCUBLAS(cublasSetStream(blas, stream));

    float *x, *w, *cb, *conv, *fw, *fb, *fc, *prob, *fc1;
    checkCUDA(cudaMalloc((void **)&x, sizeof(h_x)));
    checkCUDA(cudaMalloc((void **)&w, sizeof(h_w)));
    checkCUDA(cudaMalloc((void **)&cb, sizeof(h_cb)));
    checkCUDA(cudaMalloc((void **)&conv, N * FEAT * sizeof(float)));
    checkCUDA(cudaMalloc((void **)&fw, sizeof(h_fw)));
    checkCUDA(cudaMalloc((void **)&fb, sizeof(h_fb)));
    checkCUDA(cudaMalloc((void **)&fc, N * OUT * sizeof(float)));
    checkCUDA(cudaMalloc((void **)&fc1, OUT * sizeof(float)));
    checkCUDA(cudaMalloc((void **)&prob, N * OUT * sizeof(float)));
    checkCUDA(cudaMemcpyAsync(x, h_x, sizeof(h_x), cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(w, h_w, sizeof(h_w), cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(cb, h_cb, sizeof(h_cb), cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(fw, h_fw, sizeof(h_fw), cudaMemcpyHostToDevice, stream));
    checkCUDA(cudaMemcpyAsync(fb, h_fb, sizeof(h_fb), cudaMemcpyHostToDevice, stream));

    /* Convolution, bias, ReLU. */
    cudnnTensorDescriptor_t xd, yd, bd, fcd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    checkCUDNN(cudnnCreateTensorDescriptor(&xd));
    checkCUDNN(cudnnCreateTensorDescriptor(&yd));
    checkCUDNN(cudnnCreateTensorDescriptor(&bd));
    checkCUDNN(cudnnCreateTensorDescriptor(&fcd));
    checkCUDNN(cudnnCreateFilterDescriptor(&wd));
    checkCUDNN(cudnnCreateConvolutionDescriptor(&cd));
    checkCUDNN(cudnnCreateActivationDescriptor(&ad));
    checkCUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, HW, HW));
    checkCUDNN(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R));
    checkCUDNN(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    int on, oc, oh, ow;
    checkCUDNN(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
    require(on == N && oc == K && oh == HW && ow == HW);
    checkCUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, HW, HW));
    checkCUDNN(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1));
    checkCUDNN(cudnnSetTensor4dDescriptor(fcd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, OUT, 1, 1));
    checkCUDNN(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    checkCUDNN(cudnnGetConvolutionForwardAlgorithm_v7(dnn, xd, wd, cd, yd, 8, &found, perf));
    require(found > 0);
    size_t ws_bytes = 0;
    checkCUDNN(cudnnGetConvolutionForwardWorkspaceSize(dnn, xd, wd, cd, yd, perf[0].algo, &ws_bytes));
    void *ws = NULL;
    if (ws_bytes > 0)
        checkCUDA(cudaMalloc(&ws, ws_bytes));
    float one = 1.0f, zero = 0.0f;
    checkCUDNN(cudnnConvolutionForward(dnn, &one, xd, x, wd, w, cd, perf[0].algo, ws, ws_bytes, &zero, yd, conv));
    checkCUDNN(cudnnAddTensor(dnn, &one, bd, cb, &one, yd, conv));
    checkCUDNN(cudnnActivationForward(dnn, ad, &one, yd, conv, &zero, yd, conv));

    /* Fully connected: fc (OUT x N) = fw^T (OUT x FEAT) * conv (FEAT x N),
     * weights stored FEAT x OUT column-major as mnistCUDNN stores them. */
    checkCUBLAS(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, OUT, N, FEAT, &one, fw, FEAT, conv, FEAT, &zero, fc, OUT));
    for (int b = 0; b < N; b++)
        checkCUBLAS(cublasSaxpy(blas, OUT, &one, fb, 1, fc + b * OUT, 1));
    /* The single-image path of mnistCUDNN: gemv, and the bias added by it. */
    checkCUDA(cudaMemcpyAsync(fc1, fb, OUT * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    checkCUBLAS(cublasSgemv(blas, CUBLAS_OP_T, FEAT, OUT, &one, fw, FEAT, conv + FEAT, 1, &one, fc1, 1));
    checkCUDNN(cudnnSoftmaxForward(dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, fcd, fc, &zero, fcd,
                                   prob));

    /* The FP16 layer: weights and activations in half, FP32 output. */
    __half *fw16, *conv16;
    float *fc16;
    checkCUDA(cudaMallocManaged((void **)&fw16, FEAT * OUT * sizeof(__half), cudaMemAttachGlobal));
    checkCUDA(cudaMallocManaged((void **)&conv16, N * FEAT * sizeof(__half), cudaMemAttachGlobal));
    checkCUDA(cudaMallocManaged((void **)&fc16, N * OUT * sizeof(float), cudaMemAttachGlobal));
    checkCUDA(cudaStreamSynchronize(stream));
    for (int i = 0; i < FEAT * OUT; i++)
        fw16[i] = __float2half(h_fw[i]);
    static float h_conv[N * FEAT];
    checkCUDA(cudaMemcpy(h_conv, conv, sizeof(h_conv), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N * FEAT; i++)
        conv16[i] = __float2half(h_conv[i]);
    checkCUBLAS(cublasSgemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, OUT, N, FEAT, &one, fw16, CUDA_R_16F, FEAT, conv16,
                              CUDA_R_16F, FEAT, &zero, fc16, CUDA_R_32F, OUT));

    /* Reference in double. */
    static double ref_conv[N * FEAT];
    double ref_fc[N * OUT];
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int y = 0; y < HW; y++)
                for (int xo = 0; xo < HW; xo++) {
                    double s = h_cb[k];
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int q = 0; q < R; q++) {
                                int iy = y + r - 1, ix = xo + q - 1;
                                if (iy >= 0 && iy < HW && ix >= 0 && ix < HW)
                                    s += (double)h_x[((n * C + c) * HW + iy) * HW + ix] *
                                         h_w[((k * C + c) * R + r) * R + q];
                            }
                    ref_conv[n * FEAT + (k * HW + y) * HW + xo] = s > 0 ? s : 0;
                }
    for (int n = 0; n < N; n++)
        for (int o = 0; o < OUT; o++) {
            double s = h_fb[o];
            for (int f = 0; f < FEAT; f++)
                s += (double)h_fw[o * FEAT + f] * ref_conv[n * FEAT + f];
            ref_fc[n * OUT + o] = s;
        }
    float h_fc[N * OUT], h_fc1[OUT], h_prob[N * OUT];
    checkCUDA(cudaMemcpy(h_fc, fc, sizeof(h_fc), cudaMemcpyDeviceToHost));
    checkCUDA(cudaMemcpy(h_fc1, fc1, sizeof(h_fc1), cudaMemcpyDeviceToHost));
    checkCUDA(cudaMemcpy(h_prob, prob, sizeof(h_prob), cudaMemcpyDeviceToHost));
    double err = 0, err1 = 0, err16 = 0, errp = 0;
    for (int n = 0; n < N; n++) {
        double mx = -1e300, sum = 0;
        for (int o = 0; o < OUT; o++)
            mx = fmax(mx, ref_fc[n * OUT + o]);
        for (int o = 0; o < OUT; o++)
            sum += exp(ref_fc[n * OUT + o] - mx);
        for (int o = 0; o < OUT; o++) {
            double v = ref_fc[n * OUT + o];
            err = fmax(err, fabs(h_fc[n * OUT + o] - v));
            err16 = fmax(err16, fabs(fc16[n * OUT + o] + h_fb[o] - v));
            errp = fmax(errp, fabs(h_prob[n * OUT + o] - exp(v - mx) / sum));
            if (n == 1)
                err1 = fmax(err1, fabs(h_fc1[o] - v));
        }
    }
    printf("fc max error: sgemm %.2e, sgemv %.2e, sgemmEx fp16 %.2e, softmax %.2e\n", err, err1, err16, errp);
    require(err < 1e-4 && err1 < 1e-4 && errp < 1e-5);
    require(err16 < 2e-3);

    checkCUBLAS(cublasDestroy(blas));
    checkCUDNN(cudnnDestroy(dnn));
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyTensorDescriptor(fcd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyActivationDescriptor(ad);
    cudaFree(x);
    cudaFree(w);
    cudaFree(cb);
    cudaFree(conv);
    cudaFree(fw);
    cudaFree(fb);
    cudaFree(fc);
    cudaFree(fc1);
    cudaFree(prob);
    cudaFree(fw16);
    cudaFree(conv16);
    cudaFree(fc16);
    if (ws != NULL)
        cudaFree(ws);
    checkCUDA(cudaStreamDestroy(stream));
    printf("Test passed!\n");
    return 0;
}

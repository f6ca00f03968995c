/* SPDX-License-Identifier: Apache-2.0
 * What the fused-ops scale/bias/ReLU + BN-stats passes cost around the
 * convolution: CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS against the
 * plain cudnnConvolutionForward with the same algorithm, 1 thread, thread
 * CPU time, median of 7 runs, interleaved.  Build (from the worktree root):
 *   gcc -O2 -Iinclude -Icompat/cudart/include bench/results/2026-12-04-fusedops/fusedops_overhead.c \
 *       -Lbuild -lcudnn -Wl,-rpath,$PWD/build -o /tmp/fo_bench && /tmp/fo_bench */
#include <cudnn.h>
#include <freednn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void
bench(cudnnTensorFormat_t f, int N, int C, int HW, int K, int R)
{
    cudnnHandle_t h;
    cudnnCreate(&h);
    freednnSetNumThreads(h, 1);
    cudnnTensorDescriptor_t xD, yD, eqD, stD;
    cudnnCreateTensorDescriptor(&xD);
    cudnnCreateTensorDescriptor(&yD);
    cudnnCreateTensorDescriptor(&eqD);
    cudnnCreateTensorDescriptor(&stD);
    cudnnSetTensor4dDescriptor(xD, f, CUDNN_DATA_FLOAT, N, C, HW, HW);
    cudnnSetTensor4dDescriptor(yD, f, CUDNN_DATA_FLOAT, N, K, HW, HW);
    cudnnSetTensor4dDescriptor(eqD, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, 1, 1);
    cudnnSetTensor4dDescriptor(stD, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1);
    cudnnFilterDescriptor_t wD;
    cudnnCreateFilterDescriptor(&wD);
    cudnnSetFilter4dDescriptor(wD, CUDNN_DATA_FLOAT, f, K, C, R, R);
    cudnnConvolutionDescriptor_t cD;
    cudnnCreateConvolutionDescriptor(&cD);
    cudnnSetConvolution2dDescriptor(cD, R / 2, R / 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnActivationDescriptor_t aD;
    cudnnCreateActivationDescriptor(&aD);
    cudnnSetActivationDescriptor(aD, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    size_t nx = (size_t)N * C * HW * HW, ny = (size_t)N * K * HW * HW, nw = (size_t)K * C * R * R;
    float *x = malloc(nx * 4), *y = malloc(ny * 4), *w = malloc(nw * 4), *s = malloc(C * 4), *b = malloc(C * 4);
    float *ys = malloc(K * 4), *yq = malloc(K * 4);
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)((i * 7919) % 13) / 13.0f - 0.5f;
    for (size_t i = 0; i < nw; i++)
        w[i] = (float)((i * 104729) % 11) / 11.0f - 0.5f;
    for (int c = 0; c < C; c++)
        s[c] = 1.0f + c * 0.01f, b[c] = 0.1f;
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int n = 0;
    cudnnGetConvolutionForwardAlgorithm_v7(h, xD, wD, cD, yD, 8, &n, perf);
    cudnnConvolutionFwdAlgo_t algo = perf[0].algo;
    size_t cws = perf[0].memory;
    void *cw = malloc(cws + 1);

    const cudnnFusedOpsPointerPlaceHolder_t el = CUDNN_PTR_ELEM_ALIGNED;
    const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    cudnnFusedOpsConstParamPack_t cp;
    cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, xD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, &mode);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_ACTIVATION_DESC, aD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_CONV_DESC, cD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_WDESC, wD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_YDESC, yD);
    cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_YSTATS_DESC, stD);
    const cudnnFusedOpsConstParamLabel_t phs[] = {
        CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,
        CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PARAM_YDATA_PLACEHOLDER,      CUDNN_PARAM_YSUM_PLACEHOLDER,
        CUDNN_PARAM_YSQSUM_PLACEHOLDER};
    for (int i = 0; i < 7; i++)
        cudnnSetFusedOpsConstParamPackAttribute(cp, phs[i], &el);
    cudnnFusedOpsPlan_t plan;
    cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    size_t fws = 0;
    if (cudnnMakeFusedOpsPlan(h, plan, cp, &fws) != CUDNN_STATUS_SUCCESS) {
        printf("make failed\n");
        exit(1);
    }
    void *fw = malloc(fws + 1);
    cudnnFusedOpsVariantParamPack_t vp;
    cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_XDATA, x);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_BN_EQSCALE, s);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_BN_EQBIAS, b);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_WDATA, w);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YDATA, y);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSUM, ys);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSQSUM, yq);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_WORKSPACE, fw);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &fws);
    enum { RUNS = 7 };
    double tc[RUNS], tf[RUNS];
    float one = 1, zero = 0;
    for (int r = 0; r < RUNS + 1; r++) {
        double t0 = now();
        cudnnConvolutionForward(h, &one, xD, x, wD, w, cD, algo, cw, cws, &zero, yD, y);
        double t1 = now();
        cudnnFusedOpsExecute(h, plan, vp);
        double t2 = now();
        if (r > 0)
            tc[r - 1] = t1 - t0, tf[r - 1] = t2 - t1;
    }
    qsort(tc, RUNS, sizeof(double), cmp);
    qsort(tf, RUNS, sizeof(double), cmp);
    printf("%s N=%d C=%d %dx%d K=%d %dx%d algo=%d: conv %.2f ms, fused scale+bias+relu+conv+stats %.2f ms (%.2fx)\n",
           f == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW", N, C, HW, HW, K, R, R, (int)algo, tc[RUNS / 2], tf[RUNS / 2],
           tf[RUNS / 2] / tc[RUNS / 2]);
    cudnnDestroy(h);
}

int
main(void)
{
    bench(CUDNN_TENSOR_NCHW, 4, 64, 56, 64, 3);
    bench(CUDNN_TENSOR_NHWC, 4, 64, 56, 64, 3);
    bench(CUDNN_TENSOR_NCHW, 4, 256, 28, 64, 1);
    bench(CUDNN_TENSOR_NHWC, 4, 256, 28, 64, 1);
    return 0;
}

#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* A tight loop of one depthwise 3x3 call (from /tmp/dw/loop.c, the
 * lead's; here: thread CPU time, min of 7 rounds of `iters` calls).
 * usage: loop C H S(stride) dir(0 fwd,1 bwd_d,2 bwd_w) nhwc iters N */
int main(int argc, char **argv) {
    int C = atoi(argv[1]), H = atoi(argv[2]), S = atoi(argv[3]), dir = atoi(argv[4]), nhwc = atoi(argv[5]), it = atoi(argv[6]);
    int N = argc > 7 ? atoi(argv[7]) : 1;
    cudnnHandle_t h; cudnnCreate(&h);
    cudnnTensorDescriptor_t xd, yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&yd); cudnnCreateFilterDescriptor(&wd); cudnnCreateConvolutionDescriptor(&cd);
    cudnnTensorFormat_t f = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnSetTensor4dDescriptor(xd, f, CUDNN_DATA_FLOAT, N, C, H, H);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, f, C, 1, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, S, S, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(cd, C);
    int n, c, oh, ow; cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &n, &c, &oh, &ow);
    cudnnSetTensor4dDescriptor(yd, f, CUDNN_DATA_FLOAT, n, c, oh, ow);
    size_t xs = (size_t)N*C*H*H, ys = (size_t)n*c*oh*ow, ws = (size_t)C*9;
    /* 256-byte aligned, as cudaMalloc and freednn-bench give (malloc: 16
     * bytes past a line, every vector on two lines). */
    float *x = aligned_alloc(256, (xs*4 + 255) / 256 * 256), *y = aligned_alloc(256, (ys*4 + 255) / 256 * 256), *w = aligned_alloc(256, (ws*4 + 255) / 256 * 256);
    for (size_t i = 0; i < xs; i++) x[i] = (float)(i % 13) * 0.1f;
    for (size_t i = 0; i < ys; i++) y[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < ws; i++) w[i] = (float)(i % 5) * 0.1f;
    size_t wsz = 1 << 26; void *wk = malloc(wsz);
    float a = 1, b = 0;
    double best = 1e30;
    for (int rep = 0; rep < 7; rep++) {
    struct timespec t0, t1; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int i = 0; i < it; i++) {
        cudnnStatus_t s;
        if (dir == 0) s = cudnnConvolutionForward(h, &a, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, wk, wsz, &b, yd, y);
        else if (dir == 1) s = cudnnConvolutionBackwardData(h, &a, wd, w, yd, y, cd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, wk, wsz, &b, xd, x);
        else s = cudnnConvolutionBackwardFilter(h, &a, xd, x, yd, y, cd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, wk, wsz, &b, wd, w);
        if (s) { printf("status %d\n", s); return 1; }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    double us = ((t1.tv_sec-t0.tv_sec)*1e9 + (t1.tv_nsec-t0.tv_nsec))/1e3/it;
    if (us < best) best = us;
    }
    printf("%.2f us/call (min of 7 rounds, thread CPU time)\n", best);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * dw error of backward-filter algorithm ALGO on an N x C x H x H 3x3 pad-1
 * layer (K = C) against a float64 sum: the worst error in float ulps of
 * sum |x dy| behind an element, and the bench's metric |d| / max(1, |ref|)
 * (tools/freednn-bench's fill).  Usage: errchk N ALGO C H */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cudnn.h>
static void fill(float *p, size_t n, unsigned seed) { for (size_t i = 0; i < n; i++) p[i] = (float)(((i + seed) * 2654435761u) % 2001) * 0.001f - 1.0f; }
int main(int argc, char **argv) {
    int N = atoi(argv[1]), algo = atoi(argv[2]), C = atoi(argv[3]), H = atoi(argv[4]), K = C, W = H;
    size_t xn = (size_t)N * C * H * W, yn = (size_t)N * K * H * W, wn = (size_t)K * C * 9;
    float *x = malloc(xn * 4), *y = malloc(yn * 4), *dw = malloc(wn * 4);
    fill(x, xn, 1); fill(y, yn, 3);
    cudnnHandle_t h; cudnnCreate(&h);
    cudnnTensorDescriptor_t xd, yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&yd); cudnnCreateFilterDescriptor(&wd); cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    size_t ws = 0; cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, algo, &ws);
    void *wsp = malloc(ws + 1); float a = 1, b = 0;
    int st = cudnnConvolutionBackwardFilter(h, &a, xd, x, yd, y, cd, algo, wsp, ws, &b, wd, dw);
    double worst_ulp = 0, worst_rel = 0, maxmag = 0;
    for (int k = 0; k < K; k++) for (int c = 0; c < C; c++) for (int r = 0; r < 3; r++) for (int q = 0; q < 3; q++) {
        double s = 0, m = 0;
        for (int n = 0; n < N; n++) for (int i = 0; i < H; i++) { int yy = i - 1 + r; if (yy < 0 || yy >= H) continue;
            const float *xr = x + (((size_t)n * C + c) * H + yy) * W, *dr = y + (((size_t)n * K + k) * H + i) * W;
            for (int j = 0; j < W; j++) { int xx = j - 1 + q; if (xx < 0 || xx >= W) continue; double p = (double)xr[xx] * dr[j]; s += p; m += fabs(p); } }
        double got = dw[((k * C + c) * 3 + r) * 3 + q], e = fabs(got - s);
        if (e / (m * 0x1p-24) > worst_ulp) worst_ulp = e / (m * 0x1p-24);
        if (e / fmax(1, fabs(s)) > worst_rel) worst_rel = e / fmax(1, fabs(s));
        if (m > maxmag) maxmag = m;
    }
    printf("N=%d C=%d H=%d algo %d status %d: worst %.2f ulps of sum|x dy| (max sum|x dy| %.3g), bench metric max|d|/max(1,|ref|) %.3g\n", N, C, H, algo, st, worst_ulp, maxmag, worst_rel);
    return 0;
}

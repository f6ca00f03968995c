/* dump N C K H W dir algo seed: runs one 3x3 pad-1 conv, writes the output's bytes to stdout */
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), c = atoi(argv[2]), k = atoi(argv[3]), hh = atoi(argv[4]), ww = atoi(argv[5]);
    int dir = atoi(argv[6]), algo = atoi(argv[7]);
    cudnnHandle_t h; cudnnCreate(&h);
    cudnnTensorDescriptor_t xd, yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&yd); cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, hh, ww);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    size_t nx = (size_t)n * c * hh * ww, ny = (size_t)n * k * hh * ww, nw = (size_t)k * c * 9;
    float *x = malloc(nx * 4), *y = malloc(ny * 4), *w = malloc(nw * 4);
    srand(7);
    for (size_t i = 0; i < nx; i++) x[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < ny; i++) y[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < nw; i++) w[i] = rand() / (float)RAND_MAX - 0.5f;
    size_t wsb = 0; cudnnStatus_t st;
    float a = 1, b = 0;
    if (dir == 0) {
        st = cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &wsb);
        void *ws = malloc(wsb + 1);
        st = cudnnConvolutionForward(h, &a, xd, x, wd, w, cd, algo, ws, wsb, &b, yd, y);
        fwrite(y, 4, ny, stdout);
    } else if (dir == 1) {
        st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, algo, &wsb);
        void *ws = malloc(wsb + 1);
        st = cudnnConvolutionBackwardData(h, &a, wd, w, yd, y, cd, algo, ws, wsb, &b, xd, x);
        fwrite(x, 4, nx, stdout);
    } else {
        st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, algo, &wsb);
        void *ws = malloc(wsb + 1);
        st = cudnnConvolutionBackwardFilter(h, &a, xd, x, yd, y, cd, algo, ws, wsb, &b, wd, w);
        fwrite(w, 4, nw, stdout);
    }
    if (st != CUDNN_STATUS_SUCCESS) { fprintf(stderr, "status %d\n", st); return 1; }
    return 0;
}

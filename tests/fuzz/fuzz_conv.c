/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, convolution: fuzzed input tensor, filter and convolution
 * descriptors (rank 3..5, pads, strides, dilations, groups, mode, compute
 * and math types), the output shape from cudnnGetConvolutionNdForwardOutputDim
 * (or an unrelated one), then one of forward, backward data, backward
 * filter, backward bias or fused bias+activation forward with a fuzzed
 * algorithm and the workspace size the library asks for. */
#include "fuzz_util.h"

/* A stride or dilation: mostly 1 or 2, sometimes any dimension value. */
static int
step(struct fz *in)
{
    uint8_t b = fz_u8(in);
    return b < 0xa0 ? 1 : b < 0xe0 ? 2 : fz_dim(in);
}

static double
product(const int *v, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnTensorDescriptor_t x, y, bias;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateTensorDescriptor(&bias);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnCreateActivationDescriptor(&act);

    uint8_t which = fz_u8(&in) % 5;
    int algo = fz_u8(&in) % 9; /* 8 is past the last forward algorithm */
    cudnnDataType_t dtype = fz_dtype(&in);
    uint8_t rank_byte = fz_u8(&in);
    int nb = rank_byte < 0xa0 ? 4 : rank_byte < 0xd0 ? 3 : rank_byte < 0xf8 ? 5 : rank_byte % 10;
    int xd[16] = {0}, wd[16] = {0}, yd[16] = {0};
    double s1[1], s2[1];
    const void *alpha = fz_scale(&in, dtype, s1), *beta = fz_scale(&in, dtype, s2);
    if (FZ(fz_tensor(&in, x, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS)
        goto out;

    int groups = fz_u8(&in) < 0xe0 ? 1 : fz_dim(&in);
    wd[0] = fz_dim(&in);
    wd[1] = fz_u8(&in) < 0xf0 && groups > 0 && xd[1] % groups == 0 ? xd[1] / groups : fz_dim(&in);
    if (groups > 1 && fz_u8(&in) < 0xf0)
        wd[0] = fz_sat((long long)groups * (wd[0] % 4 + 1));
    for (int i = 2; i < nb && i < 8; i++)
        wd[i] = fz_dim(&in) % 4 + (fz_u8(&in) < 0xf8 ? 1 : -1);
    cudnnTensorFormat_t wformat = fz_u8(&in) < 0xc0 ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    if (FZ(cudnnSetFilterNdDescriptor(w, dtype, wformat, nb, wd)) != CUDNN_STATUS_SUCCESS)
        goto out;

    int pads[16] = {0}, strides[16] = {0}, dilations[16] = {0}, n_sp = nb - 2 > 0 ? nb - 2 : 1;
    for (int i = 0; i < n_sp && i < 8; i++) {
        pads[i] = fz_small(&in);
        strides[i] = step(&in);
        dilations[i] = fz_u8(&in) < 0xc0 ? 1 : step(&in);
    }
    cudnnDataType_t ctype = fz_u8(&in) < 0xe0 ? dtype : fz_dtype(&in);
    if (FZ(cudnnSetConvolutionNdDescriptor(conv, n_sp, pads, strides, dilations,
                                           (cudnnConvolutionMode_t)(fz_u8(&in) % 3), ctype)) !=
        CUDNN_STATUS_SUCCESS)
        goto out;
    if (groups != 1 && FZ(cudnnSetConvolutionGroupCount(conv, groups)) != CUDNN_STATUS_SUCCESS)
        goto out;
    FZ(cudnnSetConvolutionMathType(conv, (cudnnMathType_t)(fz_u8(&in) % 5)));

    if (fz_u8(&in) < 0xf0) {
        if (FZ(cudnnGetConvolutionNdForwardOutputDim(conv, x, w, nb, yd)) != CUDNN_STATUS_SUCCESS)
            goto out;
        if (FZ(fz_tensor_dims(&in, y, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS)
            goto out;
    } else if (FZ(fz_tensor(&in, y, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS) {
        goto out;
    }

    /* Multiply-adds of the direct method; the fast algorithms cost less. */
    int cg = wd[1];
    double work = product(yd, nb) * cg * product(wd + 2, nb - 2);
    size_t ws = 0;
    void *px = NULL, *pw = NULL, *py = NULL, *pws = NULL;
    switch (which) {
    case 0:
    case 4:
        if (FZ(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, (cudnnConvolutionFwdAlgo_t)algo,
                                                       &ws)) != CUDNN_STATUS_SUCCESS ||
            !fz_cheap(work))
            break;
        px = fz_tensor_buf(x, 0), pw = fz_filter_buf(w, 0), py = fz_tensor_buf(y, 1), pws = fz_alloc(ws, 1);
        if (px == NULL || pw == NULL || py == NULL || pws == NULL)
            break;
        if (which == 0) {
            FZ(cudnnConvolutionForward(handle, alpha, x, px, w, pw, conv, (cudnnConvolutionFwdAlgo_t)algo, pws, ws,
                                       beta, y, py));
            break;
        }
        int bd[8];
        for (int i = 0; i < 8; i++)
            bd[i] = i == 1 ? yd[1] : 1;
        if (fz_u8(&in) >= 0xf0)
            bd[fz_u8(&in) % 8] = fz_dim(&in);
        if (FZ(fz_tensor_dims(&in, bias, dtype, nb, bd)) != CUDNN_STATUS_SUCCESS ||
            FZ(cudnnSetActivationDescriptor(act, (cudnnActivationMode_t)(fz_u8(&in) % 8),
                                            CUDNN_NOT_PROPAGATE_NAN, 1.0)) != CUDNN_STATUS_SUCCESS)
            break;
        void *pb = fz_tensor_buf(bias, 0);
        /* z is y (the documented in-place form) */
        if (pb != NULL)
            FZ(cudnnConvolutionBiasActivationForward(handle, alpha, x, px, w, pw, conv, (cudnnConvolutionFwdAlgo_t)algo,
                                                     pws, ws, beta, y, py, bias, pb, act, y, py));
        break;
    case 1:
        if (FZ(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x,
                                                            (cudnnConvolutionBwdDataAlgo_t)algo, &ws)) !=
                CUDNN_STATUS_SUCCESS ||
            !fz_cheap(work))
            break;
        px = fz_tensor_buf(x, 1), pw = fz_filter_buf(w, 0), py = fz_tensor_buf(y, 0), pws = fz_alloc(ws, 1);
        if (px != NULL && pw != NULL && py != NULL && pws != NULL)
            FZ(cudnnConvolutionBackwardData(handle, alpha, w, pw, y, py, conv, (cudnnConvolutionBwdDataAlgo_t)algo,
                                            pws, ws, beta, x, px));
        break;
    case 2:
        if (FZ(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x, y, conv, w,
                                                              (cudnnConvolutionBwdFilterAlgo_t)algo, &ws)) !=
                CUDNN_STATUS_SUCCESS ||
            !fz_cheap(work))
            break;
        px = fz_tensor_buf(x, 0), pw = fz_filter_buf(w, 1), py = fz_tensor_buf(y, 0), pws = fz_alloc(ws, 1);
        if (px != NULL && pw != NULL && py != NULL && pws != NULL)
            FZ(cudnnConvolutionBackwardFilter(handle, alpha, x, px, y, py, conv,
                                              (cudnnConvolutionBwdFilterAlgo_t)algo, pws, ws, beta, w, pw));
        break;
    default: {
        int bd[8];
        for (int i = 0; i < 8; i++)
            bd[i] = i == 1 ? yd[1] : 1;
        if (fz_u8(&in) >= 0xf0)
            bd[fz_u8(&in) % 8] = fz_dim(&in);
        if (FZ(fz_tensor_dims(&in, bias, dtype, nb, bd)) != CUDNN_STATUS_SUCCESS)
            break;
        /* One add per dy element: strides that alias (legal for an input)
         * make that count far larger than the buffer. */
        if (!fz_cheap(product(yd, nb)))
            break;
        py = fz_tensor_buf(y, 0);
        void *pb = fz_tensor_buf(bias, 1);
        if (py != NULL && pb != NULL)
            FZ(cudnnConvolutionBackwardBias(handle, alpha, y, py, beta, bias, pb));
        break;
    }
    }
out:
    fz_release();
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(bias);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
    return 0;
}

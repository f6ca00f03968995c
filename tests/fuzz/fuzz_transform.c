/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, layout transforms and folding: cudnnTransformTensor between
 * two fuzzed layouts and types of one shape; cudnnTransformTensorEx and
 * cudnnTransformFilter with a fuzzed transform descriptor (format, pads,
 * fold factors, direction) and the destination descriptor and size from
 * cudnnInitTransformDest; cudnnGetFoldedConvBackwardDataDescriptors on a
 * fuzzed convolution followed by the transforms it returns. */
#include "fuzz_util.h"

static cudnnTensorFormat_t
format(struct fz *in)
{
    uint8_t b = fz_u8(in);
    return b < 0xf0 ? (cudnnTensorFormat_t)(b % 3) : (cudnnTensorFormat_t)(b - 0xf0 - 2);
}

/* Runs a transform from src to dst (descriptor and buffer). */
static void
transform_ex(cudnnHandle_t handle, cudnnTensorTransformDescriptor_t t, const void *alpha, const void *beta,
             cudnnTensorDescriptor_t src, cudnnTensorDescriptor_t dst)
{
    void *ps = fz_tensor_buf(src, 0), *pd = fz_tensor_buf(dst, 1);
    if (ps != NULL && pd != NULL)
        FZ(cudnnTransformTensorEx(handle, t, alpha, src, ps, beta, dst, pd));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnTensorDescriptor_t x, y, dy, dx, fdy, fdx;
    cudnnFilterDescriptor_t w, fw;
    cudnnConvolutionDescriptor_t conv, fconv;
    cudnnTensorTransformDescriptor_t t, t_filter, t_diff, t_grad, t_ungrad;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateTensorDescriptor(&dy);
    cudnnCreateTensorDescriptor(&dx);
    cudnnCreateTensorDescriptor(&fdy);
    cudnnCreateTensorDescriptor(&fdx);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateFilterDescriptor(&fw);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnCreateConvolutionDescriptor(&fconv);
    cudnnCreateTensorTransformDescriptor(&t);
    cudnnCreateTensorTransformDescriptor(&t_filter);
    cudnnCreateTensorTransformDescriptor(&t_diff);
    cudnnCreateTensorTransformDescriptor(&t_grad);
    cudnnCreateTensorTransformDescriptor(&t_ungrad);

    uint8_t which = fz_u8(&in) % 4;
    cudnnDataType_t dtype = fz_dtype(&in);
    double s1[1], s2[1];
    const void *alpha = fz_scale(&in, dtype, s1), *beta = fz_scale(&in, dtype, s2);
    int xd[16] = {0};
    if (FZ(fz_tensor(&in, x, dtype, -1, xd)) != CUDNN_STATUS_SUCCESS)
        goto out;
    int nb = 0, got_dims[8], got_strides[8];
    cudnnDataType_t got_type;
    FZ(cudnnGetTensorNdDescriptor(x, 8, &got_type, &nb, got_dims, got_strides));

    switch (which) {
    case 0: { /* same shape, another layout and maybe another type */
        cudnnDataType_t ytype = fz_u8(&in) < 0xc0 ? dtype : fz_dtype(&in);
        if (FZ(fz_tensor_dims(&in, y, ytype, nb, xd)) != CUDNN_STATUS_SUCCESS)
            break;
        void *px = fz_tensor_buf(x, 0), *py = fz_tensor_buf(y, 1);
        if (px != NULL && py != NULL)
            FZ(cudnnTransformTensor(handle, alpha, x, px, beta, y, py));
        break;
    }
    case 1:   /* TransformTensorEx */
    case 2: { /* TransformFilter */
        int32_t before[16] = {0}, after[16] = {0};
        uint32_t fold[16] = {0};
        uint32_t tnb = fz_u8(&in) < 0xe0 ? (uint32_t)nb : (uint32_t)fz_range(&in, 0, 9);
        for (int i = 0; i < 8; i++) {
            before[i] = fz_u8(&in) < 0xc0 ? 0 : fz_small(&in);
            after[i] = fz_u8(&in) < 0xc0 ? 0 : fz_small(&in);
            fold[i] = fz_u8(&in) < 0xc0 ? 1 : (uint32_t)fz_dim(&in);
        }
        cudnnFoldingDirection_t dir = (cudnnFoldingDirection_t)(fz_u8(&in) % 3);
        if (FZ(cudnnSetTensorTransformDescriptor(t, tnb, format(&in), fz_u8(&in) & 1 ? before : NULL,
                                                 fz_u8(&in) & 1 ? after : NULL, fz_u8(&in) & 1 ? fold : NULL, dir)) !=
            CUDNN_STATUS_SUCCESS)
            break;
        size_t dest_bytes = 0;
        if (which == 1) {
            if (FZ(cudnnInitTransformDest(t, x, y, &dest_bytes)) != CUDNN_STATUS_SUCCESS)
                break;
            transform_ex(handle, t, alpha, beta, x, y);
            break;
        }
        int fd[16] = {0};
        for (int i = 0; i < 8; i++)
            fd[i] = xd[i];
        if (FZ(cudnnSetFilterNdDescriptor(w, dtype, format(&in), nb, fd)) != CUDNN_STATUS_SUCCESS ||
            FZ(cudnnSetFilterNdDescriptor(fw, fz_u8(&in) < 0xf0 ? dtype : fz_dtype(&in), format(&in), nb, fd)) !=
                CUDNN_STATUS_SUCCESS)
            break;
        void *pw = fz_filter_buf(w, 0), *pfw = fz_filter_buf(fw, 1);
        if (pw != NULL && pfw != NULL)
            FZ(cudnnTransformFilter(handle, t, alpha, w, pw, beta, fw, pfw));
        break;
    }
    default: { /* folded backward-data convolution: x is dx */
        int wd[16] = {0}, yd[16] = {0}, pads[16] = {0}, strides[16] = {0}, dil[16] = {0};
        wd[0] = fz_dim(&in), wd[1] = xd[1];
        for (int i = 2; i < nb && i < 8; i++)
            wd[i] = fz_dim(&in) % 4 + 1;
        for (int i = 0; i < 6; i++) {
            pads[i] = fz_small(&in);
            strides[i] = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 4) : fz_dim(&in);
            dil[i] = fz_u8(&in) < 0xf0 ? 1 : fz_dim(&in);
        }
        if (FZ(cudnnSetFilterNdDescriptor(w, dtype, format(&in), nb, wd)) != CUDNN_STATUS_SUCCESS ||
            FZ(cudnnSetConvolutionNdDescriptor(conv, nb - 2, pads, strides, dil,
                                               (cudnnConvolutionMode_t)(fz_u8(&in) % 2), dtype)) !=
                CUDNN_STATUS_SUCCESS ||
            FZ(cudnnGetConvolutionNdForwardOutputDim(conv, x, w, nb, yd)) != CUDNN_STATUS_SUCCESS ||
            FZ(fz_tensor_dims(&in, dy, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS)
            break;
        if (FZ(cudnnGetFoldedConvBackwardDataDescriptors(handle, w, dy, conv, x, format(&in), fw, fdy, fconv, fdx,
                                                         t_filter, t_diff, t_grad, t_ungrad)) !=
            CUDNN_STATUS_SUCCESS)
            break;
        /* The transforms it returned, each into a destination it sizes. */
        size_t bytes = 0;
        if (FZ(cudnnInitTransformDest(t_diff, dy, y, &bytes)) == CUDNN_STATUS_SUCCESS)
            transform_ex(handle, t_diff, alpha, beta, dy, y);
        if (FZ(cudnnInitTransformDest(t_grad, x, dx, &bytes)) == CUDNN_STATUS_SUCCESS)
            transform_ex(handle, t_grad, alpha, beta, x, dx);
        if (FZ(cudnnInitTransformDest(t_ungrad, fdx, dx, &bytes)) == CUDNN_STATUS_SUCCESS)
            transform_ex(handle, t_ungrad, alpha, beta, fdx, dx);
        break;
    }
    }
out:
    fz_release();
    cudnnDestroyTensorTransformDescriptor(t_ungrad);
    cudnnDestroyTensorTransformDescriptor(t_grad);
    cudnnDestroyTensorTransformDescriptor(t_diff);
    cudnnDestroyTensorTransformDescriptor(t_filter);
    cudnnDestroyTensorTransformDescriptor(t);
    cudnnDestroyConvolutionDescriptor(fconv);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(fw);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(fdx);
    cudnnDestroyTensorDescriptor(fdy);
    cudnnDestroyTensorDescriptor(dx);
    cudnnDestroyTensorDescriptor(dy);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
    return 0;
}

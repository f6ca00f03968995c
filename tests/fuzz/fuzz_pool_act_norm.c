/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, element-wise and window operations: pooling (forward and
 * backward, output shape from cudnnGetPoolingNdForwardOutputDim), activation,
 * softmax, LRN cross-channel, divisive normalisation and batch
 * normalisation (parameter descriptor from cudnnDeriveBNTensorDescriptor or
 * fuzzed), each forward and backward, on fuzzed descriptors. */
#include "fuzz_util.h"

static double
elements(const int *d, int n)
{
    double p = 1;
    for (int i = 0; i < n && i < 8; i++)
        p *= d[i];
    return p;
}

/* Second tensor (y, dy, ...): the same dims as x with fresh strides, or
 * unrelated dims. */
static cudnnStatus_t
like(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nb, const int xd[16])
{
    int d[16] = {0};
    if (fz_u8(in) >= 0xf0)
        return fz_tensor(in, desc, dtype, nb, d);
    return fz_tensor_dims(in, desc, dtype, nb, xd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnTensorDescriptor_t x, y, dy, dx, bn;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    cudnnLRNDescriptor_t lrn;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateTensorDescriptor(&dy);
    cudnnCreateTensorDescriptor(&dx);
    cudnnCreateTensorDescriptor(&bn);
    cudnnCreatePoolingDescriptor(&pool);
    cudnnCreateActivationDescriptor(&act);
    cudnnCreateLRNDescriptor(&lrn);

    uint8_t which = fz_u8(&in) % 12;
    int backward = which & 1;
    cudnnDataType_t dtype = fz_dtype(&in);
    double s1[1], s2[1], s3[1], s4[1];
    const void *alpha = fz_scale(&in, dtype, s1), *beta = fz_scale(&in, dtype, s2);
    int xd[16] = {0}, yd[16] = {0};
    int nb = fz_u8(&in) < 0xc0 ? 4 : fz_range(&in, 0, 9);
    if (FZ(fz_tensor(&in, x, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS)
        goto out;
    double n_x = elements(xd, nb);
    void *px, *py, *pdy, *pdx;

    switch (which / 2) {
    case 0: { /* pooling */
        int win[16] = {0}, pad[16] = {0}, str[16] = {0}, n_sp = nb > 2 ? nb - 2 : 1;
        for (int i = 0; i < n_sp && i < 8; i++) {
            win[i] = fz_dim(&in) % 4 + 1;
            pad[i] = fz_small(&in);
            str[i] = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 3) : fz_dim(&in);
        }
        if (fz_u8(&in) >= 0xf0)
            win[fz_u8(&in) % 8] = fz_dim(&in);
        if (FZ(cudnnSetPoolingNdDescriptor(pool, (cudnnPoolingMode_t)(fz_u8(&in) % 5),
                                           (cudnnNanPropagation_t)(fz_u8(&in) % 3), n_sp, win, pad, str)) !=
            CUDNN_STATUS_SUCCESS)
            break;
        if (fz_u8(&in) < 0xf0) {
            if (FZ(cudnnGetPoolingNdForwardOutputDim(pool, x, nb, yd)) != CUDNN_STATUS_SUCCESS ||
                FZ(fz_tensor_dims(&in, y, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS)
                break;
        } else if (FZ(fz_tensor(&in, y, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS) {
            break;
        }
        if (!fz_cheap(elements(yd, nb) * elements(win, n_sp) + n_x))
            break;
        px = fz_tensor_buf(x, 0), py = fz_tensor_buf(y, backward ? 0 : 1);
        if (px == NULL || py == NULL)
            break;
        if (!backward) {
            FZ(cudnnPoolingForward(handle, pool, alpha, x, px, beta, y, py));
            break;
        }
        if (FZ(fz_tensor_dims(&in, dy, dtype, nb, yd)) != CUDNN_STATUS_SUCCESS ||
            FZ(like(&in, dx, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS)
            break;
        pdy = fz_tensor_buf(dy, 0), pdx = fz_tensor_buf(dx, 1);
        if (pdy != NULL && pdx != NULL)
            FZ(cudnnPoolingBackward(handle, pool, alpha, y, py, dy, pdy, x, px, beta, dx, pdx));
        break;
    }
    case 1: /* activation */
    case 2: /* softmax */
    case 3: { /* LRN cross-channel */
        int mode = fz_u8(&in), algo = fz_u8(&in);
        if (which / 2 == 1) {
            static const double coefs[6] = {1.0, 0.0, -1.0, 6.0, 1e30, 0.5};
            if (FZ(cudnnSetActivationDescriptor(act, (cudnnActivationMode_t)(mode % 8),
                                                (cudnnNanPropagation_t)(algo % 3), coefs[fz_u8(&in) % 6])) !=
                CUDNN_STATUS_SUCCESS)
                break;
        } else if (which / 2 == 3) {
            unsigned n = fz_u8(&in) < 0xf0 ? (unsigned)fz_range(&in, 1, 16) : fz_u32(&in);
            if (FZ(cudnnSetLRNDescriptor(lrn, n, 1e-4, fz_u8(&in) < 0xf0 ? 0.75 : 0.0,
                                         fz_u8(&in) < 0xf0 ? 2.0 : 0.0)) != CUDNN_STATUS_SUCCESS)
                break;
        }
        if (FZ(like(&in, y, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS || !fz_cheap(n_x * 16))
            break;
        px = fz_tensor_buf(x, 0), py = fz_tensor_buf(y, backward ? 0 : 1);
        if (px == NULL || py == NULL)
            break;
        if (backward && (FZ(like(&in, dy, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS ||
                         FZ(like(&in, dx, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS))
            break;
        pdy = backward ? fz_tensor_buf(dy, 0) : NULL, pdx = backward ? fz_tensor_buf(dx, 1) : NULL;
        if (backward && (pdy == NULL || pdx == NULL))
            break;
        if (which / 2 == 1) {
            if (backward)
                FZ(cudnnActivationBackward(handle, act, alpha, y, py, dy, pdy, x, px, beta, dx, pdx));
            else
                FZ(cudnnActivationForward(handle, act, alpha, x, px, beta, y, py));
        } else if (which / 2 == 2) {
            if (backward)
                FZ(cudnnSoftmaxBackward(handle, (cudnnSoftmaxAlgorithm_t)(algo % 4), (cudnnSoftmaxMode_t)(mode % 3),
                                        alpha, y, py, dy, pdy, beta, dx, pdx));
            else
                FZ(cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)(algo % 4), (cudnnSoftmaxMode_t)(mode % 3),
                                       alpha, x, px, beta, y, py));
        } else if (backward) {
            FZ(cudnnLRNCrossChannelBackward(handle, lrn, (cudnnLRNMode_t)(mode % 2), alpha, y, py, dy, pdy, x, px,
                                            beta, dx, pdx));
        } else {
            FZ(cudnnLRNCrossChannelForward(handle, lrn, (cudnnLRNMode_t)(mode % 2), alpha, x, px, beta, y, py));
        }
        break;
    }
    case 4: { /* divisive normalisation: means, temp, temp2 shaped like x */
        unsigned n = (unsigned)fz_range(&in, 1, 7);
        if (FZ(cudnnSetLRNDescriptor(lrn, n, 1e-4, 0.75, 2.0)) != CUDNN_STATUS_SUCCESS ||
            FZ(like(&in, y, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS || !fz_cheap(n_x * 64))
            break;
        cudnnDivNormMode_t mode = (cudnnDivNormMode_t)(fz_u8(&in) % 2);
        px = fz_tensor_buf(x, 0), py = fz_tensor_buf(y, backward ? 0 : 1);
        void *means = fz_u8(&in) < 0xf0 ? fz_tensor_buf(x, 0) : NULL;
        void *t1 = fz_tensor_buf(x, 1), *t2 = fz_tensor_buf(x, 1);
        if (px == NULL || py == NULL || t1 == NULL || t2 == NULL)
            break;
        if (!backward) {
            FZ(cudnnDivisiveNormalizationForward(handle, lrn, mode, alpha, x, px, means, t1, t2, beta, y, py));
            break;
        }
        /* dy, dx and dMeans all have x's descriptor (the only one passed) */
        void *pdm = fz_tensor_buf(x, 1);
        pdy = fz_tensor_buf(x, 0), pdx = fz_tensor_buf(x, 1);
        if (pdm != NULL && pdy != NULL && pdx != NULL)
            FZ(cudnnDivisiveNormalizationBackward(handle, lrn, mode, alpha, x, px, means, pdy, t1, t2, beta, x, pdx,
                                                  pdm));
        break;
    }
    default: { /* batch normalisation */
        cudnnBatchNormMode_t mode = (cudnnBatchNormMode_t)(fz_u8(&in) % 4);
        if (fz_u8(&in) < 0xe0) {
            if (FZ(cudnnDeriveBNTensorDescriptor(bn, x, mode)) != CUDNN_STATUS_SUCCESS)
                break;
        } else {
            int bd[16] = {0};
            if (FZ(fz_tensor(&in, bn, fz_u8(&in) < 0xf0 ? dtype : fz_dtype(&in), nb, bd)) != CUDNN_STATUS_SUCCESS)
                break;
        }
        static const double eps_values[4] = {1e-5, 0.0, -1.0, 1e-3};
        double eps = eps_values[fz_u8(&in) % 4], factor = fz_u8(&in) < 0xf0 ? 0.1 : 2.0;
        if (FZ(like(&in, y, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS || !fz_cheap(n_x * 4))
            break;
        px = fz_tensor_buf(x, 0), py = fz_tensor_buf(y, backward ? 0 : 1);
        void *scale = fz_tensor_buf(bn, 0), *bias = fz_tensor_buf(bn, 0);
        void *mean = fz_u8(&in) < 0xf0 ? fz_tensor_buf(bn, 1) : NULL, *var = fz_tensor_buf(bn, 1);
        void *smean = fz_tensor_buf(bn, 1), *sinv = fz_tensor_buf(bn, 1);
        if (px == NULL || py == NULL || scale == NULL || bias == NULL || var == NULL || smean == NULL ||
            sinv == NULL)
            break;
        uint8_t kind = fz_u8(&in) % 3;
        if (!backward && kind == 0) {
            FZ(cudnnBatchNormalizationForwardTraining(handle, mode, alpha, beta, x, px, y, py, bn, scale, bias,
                                                      factor, mean, var, eps, smean, sinv));
        } else if (!backward) {
            FZ(cudnnBatchNormalizationForwardInference(handle, mode, alpha, beta, x, px, y, py, bn, scale, bias,
                                                       mean, var, eps));
        } else {
            if (FZ(like(&in, dx, dtype, nb, xd)) != CUDNN_STATUS_SUCCESS)
                break;
            pdx = fz_tensor_buf(dx, 1);
            const void *a2 = fz_scale(&in, dtype, s3), *b2 = fz_scale(&in, dtype, s4);
            if (pdx != NULL)
                FZ(cudnnBatchNormalizationBackward(handle, mode, alpha, beta, a2, b2, x, px, y, py, dx, pdx, bn,
                                                   scale, mean, var, eps, kind ? smean : NULL,
                                                   kind ? sinv : NULL));
        }
        break;
    }
    }
out:
    fz_release();
    cudnnDestroyLRNDescriptor(lrn);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyPoolingDescriptor(pool);
    cudnnDestroyTensorDescriptor(bn);
    cudnnDestroyTensorDescriptor(dx);
    cudnnDestroyTensorDescriptor(dy);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
    return 0;
}

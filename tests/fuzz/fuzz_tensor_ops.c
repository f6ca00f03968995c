/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, tensor operations: cudnnSetTensor, cudnnScaleTensor,
 * cudnnAddTensor, cudnnOpTensor and cudnnReduceTensor on fuzzed tensor
 * descriptors (any rank, type, dims, strides), with the second and output
 * tensors the same shape as the first, broadcast from it, or unrelated.
 * Input layout: op byte, then the descriptors' bytes (fuzz_util.c). */
#include "fuzz_util.h"

/* dims of b for a given relation to a: same, broadcast (dims dropped to 1
 * by the bits of a mask), or fuzzed independently. */
static cudnnStatus_t
related_tensor(struct fz *in, cudnnTensorDescriptor_t desc, cudnnDataType_t dtype, int nb, const int a_dims[8])
{
    int dims[8];
    uint8_t rel = fz_u8(in);
    if (rel >= 0xe0)
        return fz_tensor(in, desc, dtype, -1, dims);
    uint8_t mask = rel < 0x80 ? 0 : fz_u8(in);
    for (int i = 0; i < 8; i++)
        dims[i] = (mask >> i & 1) ? 1 : a_dims[i];
    return fz_tensor_dims(in, desc, dtype, nb, dims);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnTensorDescriptor_t a, b, c;
    cudnnOpTensorDescriptor_t op;
    cudnnReduceTensorDescriptor_t red;
    cudnnCreateTensorDescriptor(&a);
    cudnnCreateTensorDescriptor(&b);
    cudnnCreateTensorDescriptor(&c);
    cudnnCreateOpTensorDescriptor(&op);
    cudnnCreateReduceTensorDescriptor(&red);

    uint8_t which = fz_u8(&in) % 5;
    cudnnDataType_t dtype = fz_dtype(&in);
    int dims[8];
    double alpha_s[1], alpha2_s[1], beta_s[1];
    const void *alpha = fz_scale(&in, dtype, alpha_s);
    const void *alpha2 = fz_scale(&in, dtype, alpha2_s);
    const void *beta = fz_scale(&in, dtype, beta_s);
    if (FZ(fz_tensor(&in, a, dtype, -1, dims)) != CUDNN_STATUS_SUCCESS)
        goto out;
    int nb = 0;
    cudnnDataType_t got;
    int got_dims[8], got_strides[8];
    FZ(cudnnGetTensorNdDescriptor(a, 8, &got, &nb, got_dims, got_strides));
    void *pa = fz_tensor_buf(a, which <= 1);
    if (pa == NULL)
        goto out;

    switch (which) {
    case 0:
        FZ(cudnnSetTensor(handle, a, pa, alpha));
        break;
    case 1:
        FZ(cudnnScaleTensor(handle, a, pa, alpha));
        break;
    case 2: {
        if (FZ(related_tensor(&in, c, dtype, nb, dims)) != CUDNN_STATUS_SUCCESS)
            break;
        void *pc = fz_tensor_buf(c, 1);
        if (pc != NULL)
            FZ(cudnnAddTensor(handle, alpha, a, pa, beta, c, pc));
        break;
    }
    case 3: {
        uint8_t o = fz_u8(&in);
        if (FZ(cudnnSetOpTensorDescriptor(op, (cudnnOpTensorOp_t)(o % 8), fz_u8(&in) < 0xf0 ? dtype : fz_dtype(&in),
                                          (cudnnNanPropagation_t)(fz_u8(&in) % 3))) != CUDNN_STATUS_SUCCESS)
            break;
        if (FZ(related_tensor(&in, b, dtype, nb, dims)) != CUDNN_STATUS_SUCCESS ||
            FZ(related_tensor(&in, c, dtype, nb, dims)) != CUDNN_STATUS_SUCCESS)
            break;
        void *pb = fz_tensor_buf(b, 0), *pc = fz_tensor_buf(c, 1);
        if (pb != NULL && pc != NULL)
            FZ(cudnnOpTensor(handle, op, alpha, a, pa, alpha2, b, pb, beta, c, pc));
        break;
    }
    default: {
        uint8_t o = fz_u8(&in), ind = fz_u8(&in);
        if (FZ(cudnnSetReduceTensorDescriptor(red, (cudnnReduceTensorOp_t)(o % 10),
                                              fz_u8(&in) < 0xf0 ? CUDNN_DATA_FLOAT : fz_dtype(&in),
                                              (cudnnNanPropagation_t)(fz_u8(&in) % 3),
                                              (cudnnReduceTensorIndices_t)(ind % 3),
                                              (cudnnIndicesType_t)(fz_u8(&in) % 5))) != CUDNN_STATUS_SUCCESS)
            break;
        if (FZ(related_tensor(&in, c, dtype, nb, dims)) != CUDNN_STATUS_SUCCESS)
            break;
        size_t ws = 0, is = 0;
        if (FZ(cudnnGetReductionWorkspaceSize(handle, red, a, c, &ws)) != CUDNN_STATUS_SUCCESS ||
            FZ(cudnnGetReductionIndicesSize(handle, red, a, c, &is)) != CUDNN_STATUS_SUCCESS)
            break;
        void *pc = fz_tensor_buf(c, 1), *pw = fz_alloc(ws, 1), *pi = fz_alloc(is, 1);
        if (pc != NULL && pw != NULL && pi != NULL)
            FZ(cudnnReduceTensor(handle, red, pi, is, pw, ws, alpha, a, pa, beta, c, pc));
        break;
    }
    }
out:
    fz_release();
    cudnnDestroyReduceTensorDescriptor(red);
    cudnnDestroyOpTensorDescriptor(op);
    cudnnDestroyTensorDescriptor(c);
    cudnnDestroyTensorDescriptor(b);
    cudnnDestroyTensorDescriptor(a);
    return 0;
}

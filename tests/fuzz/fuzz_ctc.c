/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, CTC loss: fuzzed CTC descriptor (compute type,
 * normalisation, gradient NaN mode, maximum label length), probs and
 * gradients descriptors (T x N x A, any strides, or another rank), label,
 * label length and input length arrays (mostly valid, sometimes out of
 * range), then cudnnCTCLoss (host arrays) or cudnnCTCLoss_v8 ("device"
 * arrays) with the workspace size the matching query returns. */
#include "fuzz_util.h"

#include <string.h>

#define MAX_BATCH 16
#define MAX_LABELS 1024

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnCTCLossDescriptor_t ctc;
    cudnnTensorDescriptor_t probs, grads;
    cudnnCreateCTCLossDescriptor(&ctc);
    cudnnCreateTensorDescriptor(&probs);
    cudnnCreateTensorDescriptor(&grads);

    uint8_t flags = fz_u8(&in);
    int v8 = flags & 1;
    cudnnCTCLossAlgo_t algo = (cudnnCTCLossAlgo_t)(fz_u8(&in) % 3);
    cudnnDataType_t ctype = fz_u8(&in) < 0xf0 ? CUDNN_DATA_FLOAT : fz_dtype(&in);
    cudnnLossNormalizationMode_t norm = (cudnnLossNormalizationMode_t)(fz_u8(&in) % 3);
    cudnnNanPropagation_t grad_mode = (cudnnNanPropagation_t)(fz_u8(&in) % 3);
    int max_label = fz_u8(&in) < 0xc0 ? fz_range(&in, 0, 8) : fz_dim(&in);
    cudnnStatus_t st = v8 ? cudnnSetCTCLossDescriptor_v8(ctc, ctype, norm, grad_mode, max_label)
                          : cudnnSetCTCLossDescriptorEx(ctc, ctype, norm, grad_mode);
    if (FZ(st) != CUDNN_STATUS_SUCCESS)
        goto out;

    int pd[16] = {0};
    pd[0] = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 12) : fz_dim(&in);
    pd[1] = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 4) : fz_dim(&in);
    pd[2] = fz_u8(&in) < 0xf0 ? fz_range(&in, 2, 9) : fz_dim(&in);
    int nb = fz_u8(&in) < 0xf0 ? 3 : fz_range(&in, 0, 9);
    cudnnDataType_t dtype = fz_u8(&in) < 0xf0 ? CUDNN_DATA_FLOAT : fz_dtype(&in);
    if (FZ(fz_tensor_dims(&in, probs, dtype, nb, pd)) != CUDNN_STATUS_SUCCESS)
        goto out;
    if (fz_u8(&in) >= 0xf0)
        pd[fz_u8(&in) % 3] = fz_dim(&in);
    if (FZ(fz_tensor_dims(&in, grads, dtype, nb, pd)) != CUDNN_STATUS_SUCCESS)
        goto out;

    int T = pd[0], N = pd[1], A = pd[2];
    if (N < 1 || N > MAX_BATCH)
        goto out; /* the harness holds at most MAX_BATCH lengths */
    int label_len[MAX_BATCH], input_len[MAX_BATCH], labels[MAX_LABELS];
    int total = 0;
    for (int b = 0; b < N; b++) {
        label_len[b] = fz_u8(&in) < 0xf0 ? fz_range(&in, 0, 6) : fz_dim(&in);
        input_len[b] = fz_u8(&in) < 0xf0 ? (T > 0 ? 1 + fz_u8(&in) % T : 1) : fz_dim(&in);
        if (label_len[b] > 0 && total <= MAX_LABELS)
            total += label_len[b] < MAX_LABELS ? label_len[b] : MAX_LABELS + 1;
    }
    if (total > MAX_LABELS)
        goto out;
    for (int i = 0; i < total; i++)
        labels[i] = fz_u8(&in) < 0xf0 ? (A > 1 ? 1 + fz_u8(&in) % (A - 1) : 1) : fz_dim(&in);

    size_t ws = 0;
    st = v8 ? cudnnGetCTCLossWorkspaceSize_v8(handle, algo, ctc, probs, grads, &ws)
            : cudnnGetCTCLossWorkspaceSize(handle, probs, grads, labels, label_len, input_len, algo, ctc, &ws);
    if (FZ(st) != CUDNN_STATUS_SUCCESS)
        goto out;
    /* forward-backward over T x (2 x labels + 1) states per sample */
    if (!fz_cheap((double)T * N * ((double)A + 2 * 256 + 1)))
        goto out;
    void *p = fz_tensor_buf(probs, 0), *g = fz_tensor_buf(grads, 1);
    void *costs = fz_alloc((size_t)N * (ctype == CUDNN_DATA_DOUBLE ? 8 : 4), 1), *work = fz_alloc(ws, 1);
    int *dev_labels = fz_alloc((size_t)total * sizeof(int), 0);
    int *dev_label_len = fz_alloc((size_t)N * sizeof(int), 0), *dev_input_len = fz_alloc((size_t)N * sizeof(int), 0);
    if (p == NULL || g == NULL || costs == NULL || work == NULL || dev_labels == NULL || dev_label_len == NULL ||
        dev_input_len == NULL)
        goto out;
    memcpy(dev_labels, labels, (size_t)total * sizeof(int));
    memcpy(dev_label_len, label_len, (size_t)N * sizeof(int));
    memcpy(dev_input_len, input_len, (size_t)N * sizeof(int));
    if (flags & 2)
        g = NULL; /* costs only */
    if (v8)
        FZ(cudnnCTCLoss_v8(handle, algo, ctc, probs, p, dev_labels, dev_label_len, dev_input_len, costs, grads, g,
                           ws, work));
    else
        FZ(cudnnCTCLoss(handle, probs, p, dev_labels, dev_label_len, dev_input_len, costs, grads, g, algo, ctc, work,
                        ws));
out:
    fz_release();
    cudnnDestroyTensorDescriptor(grads);
    cudnnDestroyTensorDescriptor(probs);
    cudnnDestroyCTCLossDescriptor(ctc);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, RNN (v8 API): fuzzed RNN descriptor (cell, bias, direction,
 * input mode, types, sizes, projection, layers, padded I/O), RNN data
 * descriptors with fuzzed layouts and sequence lengths, h/c tensor
 * descriptors of the documented shape or fuzzed, then cudnnRNNForward
 * (inference or training) and, after training, cudnnRNNBackwardData_v8 and
 * cudnnRNNBackwardWeights_v8, with the weight, work and reserve spaces
 * the library asks for. */
#include "fuzz_util.h"

#include <string.h>

static size_t
type_size(cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ? 2 : 4;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    cudnnCreateRNNDescriptor(&rnn);
    cudnnCreateRNNDataDescriptor(&xd);
    cudnnCreateRNNDataDescriptor(&yd);
    cudnnCreateTensorDescriptor(&hd);
    cudnnCreateTensorDescriptor(&cd);

    uint8_t flags = fz_u8(&in);
    int training = flags & 1, backward = training && (flags & 2);
    cudnnRNNMode_t cell = (cudnnRNNMode_t)fz_enum(&in, 4);
    cudnnRNNBiasMode_t bias = (cudnnRNNBiasMode_t)fz_enum(&in, 4);
    cudnnDirectionMode_t dir = (cudnnDirectionMode_t)fz_enum(&in, 2);
    cudnnRNNInputMode_t imode = (cudnnRNNInputMode_t)fz_enum(&in, 2);
    cudnnDataType_t dtype = fz_dtype(&in);
    cudnnDataType_t mprec = fz_u8(&in) < 0xf0 ? (dtype == CUDNN_DATA_DOUBLE ? dtype : CUDNN_DATA_FLOAT) : fz_dtype(&in);
    int input = fz_dim(&in), hidden = fz_dim(&in);
    int proj = fz_u8(&in) < 0xe0 ? hidden : fz_dim(&in);
    int layers = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 3) : fz_dim(&in);
    uint32_t aux = fz_u8(&in) < 0xf0 ? (uint32_t)(fz_u8(&in) & 1) : fz_u32(&in);
    cudnnRNNAlgo_t algo = (cudnnRNNAlgo_t)(fz_u8(&in) < 0xf0 ? 0 : fz_range(&in, 0, 5));
    if (FZ(cudnnSetRNNDescriptor_v8(rnn, algo, cell, bias, dir, imode, dtype, mprec,
                                    (cudnnMathType_t)fz_enum(&in, 4), input, hidden, proj, layers, NULL, aux)) !=
        CUDNN_STATUS_SUCCESS)
        goto out;
    size_t wbytes = 0;
    if (FZ(cudnnGetRNNWeightSpaceSize(handle, rnn, &wbytes)) != CUDNN_STATUS_SUCCESS)
        goto out;

    int seq = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 6) : fz_dim(&in);
    int batch = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 4) : fz_dim(&in);
    cudnnRNNDataLayout_t layout = (cudnnRNNDataLayout_t)fz_enum(&in, 3);
    int lens[64];
    for (int i = 0; i < 64; i++)
        lens[i] = fz_u8(&in) < 0xf0 ? fz_sat((long long)seq - i > 1 ? (long long)seq - i : 1) : fz_dim(&in); /* non-increasing (packed) */
    if (batch > 64 || batch < 0)
        goto out; /* the harness holds at most 64 sequence lengths */
    int dirs = dir == CUDNN_BIDIRECTIONAL ? 2 : 1, out_size = fz_sat((long long)(proj < hidden ? proj : hidden) * dirs);
    double fill = 0; /* paddingFill points to one element of dataType: 8 bytes hold any */
    int x_vec = fz_u8(&in) < 0xf0 ? input : fz_dim(&in), y_vec = fz_u8(&in) < 0xf0 ? out_size : fz_dim(&in);
    if (FZ(cudnnSetRNNDataDescriptor(xd, dtype, layout, seq, batch, x_vec, lens, &fill)) != CUDNN_STATUS_SUCCESS ||
        FZ(cudnnSetRNNDataDescriptor(yd, dtype, layout, seq, batch, y_vec, lens, NULL)) != CUDNN_STATUS_SUCCESS)
        goto out;
    int hdims[16] = {fz_sat((long long)layers * dirs), batch, proj < hidden ? proj : hidden};
    int cdims[16] = {fz_sat((long long)layers * dirs), batch, hidden};
    if (fz_u8(&in) >= 0xf0)
        hdims[fz_u8(&in) % 3] = fz_dim(&in);
    if (FZ(fz_tensor_dims(&in, hd, dtype, 3, hdims)) != CUDNN_STATUS_SUCCESS ||
        FZ(fz_tensor_dims(&in, cd, dtype, 3, cdims)) != CUDNN_STATUS_SUCCESS)
        goto out;
    size_t ws = 0, rs = 0;
    cudnnForwardMode_t fmode = training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
    if (FZ(cudnnGetRNNTempSpaceSizes(handle, rnn, fmode, xd, &ws, &rs)) != CUDNN_STATUS_SUCCESS)
        goto out;

    /* Multiply-adds: every layer, direction, step and sequence runs a
     * gate-count x hidden x (input + hidden) product. */
    double work = (double)seq * batch * layers * dirs * 4 * hidden * ((double)input + hidden + proj);
    /* An RNN data buffer holds maxSeqLength x batchSize x vectorSize
     * elements whatever the layout (no size query exists for it). */
    size_t xbytes = (size_t)seq * (size_t)batch * (size_t)x_vec * type_size(dtype);
    size_t ybytes = (size_t)seq * (size_t)batch * (size_t)y_vec * type_size(dtype);
    if (!fz_cheap(work) || !fz_fits(xbytes) || !fz_fits(ybytes))
        goto out;
    int32_t *dev_lens = fz_alloc((size_t)batch * sizeof(int32_t), 0);
    void *x = fz_alloc(xbytes, 0), *y = fz_alloc(ybytes, 1);
    void *hx = fz_tensor_buf(hd, 0), *hy = fz_tensor_buf(hd, 1), *cx = fz_tensor_buf(cd, 0), *cy = fz_tensor_buf(cd, 1);
    void *w = fz_alloc(wbytes, 0), *work_space = fz_alloc(ws, 1), *reserve = fz_alloc(rs, 1);
    if (dev_lens == NULL || x == NULL || y == NULL || hx == NULL || hy == NULL || cx == NULL || cy == NULL ||
        w == NULL || work_space == NULL || reserve == NULL)
        goto out;
    memcpy(dev_lens, lens, (size_t)batch * sizeof(int32_t));
    uint8_t nulls = fz_u8(&in); /* hx, cx, hy, cy may be NULL */
    if (FZ(cudnnRNNForward(handle, rnn, fmode, dev_lens, xd, x, yd, y, hd, nulls & 1 ? NULL : hx,
                           nulls & 2 ? NULL : hy, cd, nulls & 4 ? NULL : cx, nulls & 8 ? NULL : cy, wbytes, w, ws,
                           work_space, rs, reserve)) != CUDNN_STATUS_SUCCESS ||
        !backward)
        goto out;
    void *dy = fz_alloc(ybytes, 0), *dx = fz_alloc(xbytes, 1), *dhy = fz_tensor_buf(hd, 0), *dhx = fz_tensor_buf(hd, 1);
    void *dcy = fz_tensor_buf(cd, 0), *dcx = fz_tensor_buf(cd, 1), *dw = fz_alloc(wbytes, 1);
    if (dy == NULL || dx == NULL || dhy == NULL || dhx == NULL || dcy == NULL || dcx == NULL || dw == NULL)
        goto out;
    if (FZ(cudnnRNNBackwardData_v8(handle, rnn, dev_lens, yd, y, dy, xd, dx, hd, hx, nulls & 16 ? NULL : dhy, dhx, cd,
                                   cx, nulls & 32 ? NULL : dcy, dcx, wbytes, w, ws, work_space, rs, reserve)) !=
        CUDNN_STATUS_SUCCESS)
        goto out;
    FZ(cudnnRNNBackwardWeights_v8(handle, rnn, (cudnnWgradMode_t)fz_enum(&in, 2), dev_lens, xd, x, hd,
                                  nulls & 64 ? NULL : hx, yd, y, wbytes, dw, ws, work_space, rs, reserve));
out:
    fz_release();
    cudnnDestroyTensorDescriptor(cd);
    cudnnDestroyTensorDescriptor(hd);
    cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDescriptor(rnn);
    return 0;
}

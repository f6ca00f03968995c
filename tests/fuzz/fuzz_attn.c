/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness, multi-head attention: fuzzed attention descriptor (mode,
 * heads, types, sizes, projections, maximum lengths, batch and beam),
 * sequence data descriptors for Q, K, V and O with fuzzed axis orders, dims
 * and lengths, attention windows, then cudnnMultiHeadAttnForward
 * (inference for one step or all steps, or training) and, in training,
 * cudnnMultiHeadAttnBackwardData and cudnnMultiHeadAttnBackwardWeights, with
 * the weight, work and reserve sizes from cudnnGetMultiHeadAttnBuffers. */
#include "fuzz_util.h"

#include <string.h>

#define MAX_SEQS 64

/* A sequence data descriptor of dims (time, batch, beam, vect) in one of
 * the 24 axis orders (mostly the two common ones); *bytes receives the
 * buffer size (the product of the dims: no size query exists). */
static cudnnStatus_t
seq_desc(struct fz *in, cudnnSeqDataDescriptor_t d, cudnnDataType_t dtype, int time, int batch, int beam, int vect,
         const int *lens, size_t *bytes)
{
    static const cudnnSeqDataAxis_t orders[2][4] = {
        {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM},
        {CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_VECT_DIM}};
    cudnnSeqDataAxis_t axes[4];
    uint8_t o = fz_u8(in);
    if (o < 0xf0) {
        memcpy(axes, orders[o & 1], sizeof axes);
    } else {
        for (int i = 0; i < 4; i++)
            axes[i] = (cudnnSeqDataAxis_t)(fz_u8(in) % 5);
    }
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = time, dims[CUDNN_SEQDATA_BATCH_DIM] = batch;
    dims[CUDNN_SEQDATA_BEAM_DIM] = beam, dims[CUDNN_SEQDATA_VECT_DIM] = vect;
    if (fz_u8(in) >= 0xf8)
        dims[fz_u8(in) % 4] = fz_dim(in);
    size_t n_lens = (size_t)dims[CUDNN_SEQDATA_BATCH_DIM] * (size_t)dims[CUDNN_SEQDATA_BEAM_DIM];
    if (dims[1] < 0 || dims[2] < 0 || n_lens > MAX_SEQS)
        return CUDNN_STATUS_BAD_PARAM; /* the harness holds at most MAX_SEQS lengths */
    size_t esize = dtype == CUDNN_DATA_DOUBLE ? 8 : dtype == CUDNN_DATA_HALF || dtype == CUDNN_DATA_BFLOAT16 ? 2 : 4;
    *bytes = esize;
    for (int i = 0; i < 4; i++)
        *bytes *= dims[i] > 0 ? (size_t)dims[i] : 0;
    /* paddingFill points to one value of dtype: room for the widest. */
    double fill = 0;
    return cudnnSetSeqDataDescriptor(d, dtype, 4, dims, axes, n_lens, lens, fz_u8(in) & 1 ? &fill : NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    cudnnAttnDescriptor_t attn;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    cudnnCreateAttnDescriptor(&attn);
    cudnnCreateSeqDataDescriptor(&qd);
    cudnnCreateSeqDataDescriptor(&kd);
    cudnnCreateSeqDataDescriptor(&vd);
    cudnnCreateSeqDataDescriptor(&od);

    uint8_t flags = fz_u8(&in);
    unsigned mode = fz_u8(&in) < 0xf0 ? flags & 3u : fz_u32(&in);
    int heads = fz_u8(&in) < 0xf0 ? fz_range(&in, 1, 3) : fz_dim(&in);
    cudnnDataType_t dtype = fz_dtype(&in);
    cudnnDataType_t cprec = fz_u8(&in) < 0xf0 ? dtype : fz_dtype(&in);
    int qs = fz_dim(&in), ks = fz_dim(&in), vs = fz_dim(&in);
    int qp = fz_u8(&in) < 0x80 ? 0 : fz_dim(&in), kp = fz_u8(&in) < 0x80 ? qp : fz_dim(&in);
    int vp = fz_u8(&in) < 0x80 ? 0 : fz_dim(&in), op = fz_u8(&in) < 0x80 ? 0 : fz_dim(&in);
    int qT = fz_dim(&in), kT = fz_dim(&in), batch = fz_range(&in, 1, 3), beam = fz_u8(&in) < 0xc0 ? 1 : 2;
    if (fz_u8(&in) >= 0xf0)
        batch = fz_dim(&in);
    if (FZ(cudnnSetAttnDescriptor(attn, mode, heads, fz_u8(&in) < 0xf0 ? 0.5 : -1.0, dtype, cprec,
                                  (cudnnMathType_t)(fz_u8(&in) % 4), NULL, NULL, qs, ks, vs, qp, kp, vp, op, qT, kT,
                                  batch, beam)) != CUDNN_STATUS_SUCCESS)
        goto out;
    size_t wbytes = 0, wsbytes = 0, rsbytes = 0;
    int training = flags & 4;
    if (FZ(cudnnGetMultiHeadAttnBuffers(handle, attn, &wbytes, &wsbytes, training ? &rsbytes : NULL)) !=
        CUDNN_STATUS_SUCCESS)
        goto out;

    int kv_beam = mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE ? beam : 1;
    int o_len = op > 0 ? op : fz_sat((long long)heads * (vp > 0 ? vp : vs));
    int lens_q[MAX_SEQS], lens_k[MAX_SEQS], lo[MAX_SEQS], hi[MAX_SEQS];
    for (int i = 0; i < MAX_SEQS; i++) {
        lens_q[i] = fz_u8(&in) < 0xf0 ? (qT > 0 ? 1 + i % qT : 1) : fz_dim(&in);
        lens_k[i] = fz_u8(&in) < 0xf0 ? (kT > 0 ? 1 + i % kT : 1) : fz_dim(&in);
        lo[i] = fz_u8(&in) < 0xe0 ? 0 : fz_small(&in);
        hi[i] = fz_u8(&in) < 0xe0 ? kT : fz_dim(&in);
    }
    if (qT > MAX_SEQS)
        goto out; /* the window arrays hold qoMaxSeqLength entries */
    size_t qb, kb, vb, ob;
    if (FZ(seq_desc(&in, qd, dtype, qT, batch, beam, qs, lens_q, &qb)) != CUDNN_STATUS_SUCCESS ||
        FZ(seq_desc(&in, od, dtype, qT, batch, beam, o_len, lens_q, &ob)) != CUDNN_STATUS_SUCCESS ||
        FZ(seq_desc(&in, kd, dtype, kT, batch, kv_beam, ks, lens_k, &kb)) != CUDNN_STATUS_SUCCESS ||
        FZ(seq_desc(&in, vd, dtype, kT, batch, kv_beam, vs, lens_k, &vb)) != CUDNN_STATUS_SUCCESS)
        goto out;

    /* Multiply-adds: projections of every row plus heads x qT x kT scores. */
    int pq = qp > 0 ? qp : qs, pv = vp > 0 ? vp : vs;
    double rows = (double)batch * beam * (qT > kT ? qT : kT);
    double work = rows * heads * ((double)qs * pq + (double)ks * pq + (double)vs * pv + (double)pv * o_len) +
                  (double)batch * beam * heads * qT * kT * ((double)pq + pv);
    if (!fz_cheap(3 * work))
        goto out;
    int *dev_q = fz_alloc(sizeof lens_q, 0), *dev_k = fz_alloc(sizeof lens_k, 0);
    void *q = fz_alloc(qb, 0), *k = fz_alloc(kb, 0), *v = fz_alloc(vb, 0), *o = fz_alloc(ob, 1);
    void *res = flags & 8 ? fz_alloc(qb, 0) : NULL;
    void *w = fz_alloc(wbytes, 0), *ws = fz_alloc(wsbytes, 1), *rs = fz_alloc(rsbytes, 1);
    if (dev_q == NULL || dev_k == NULL || q == NULL || k == NULL || v == NULL || o == NULL || w == NULL ||
        ws == NULL || rs == NULL)
        goto out;
    memcpy(dev_q, lens_q, sizeof lens_q);
    memcpy(dev_k, lens_k, sizeof lens_k);
    int curr = training ? -1 : fz_u8(&in) < 0x80 ? -1 : fz_small(&in);
    if (FZ(cudnnMultiHeadAttnForward(handle, attn, curr, lo, hi, dev_q, dev_k, qd, q, res, kd, k, vd, v, od, o,
                                     wbytes, w, wsbytes, ws, training ? rsbytes : 0, training ? rs : NULL)) !=
            CUDNN_STATUS_SUCCESS ||
        !training || !(flags & 16))
        goto out;
    void *dq = fz_alloc(qb, 1), *dk = fz_alloc(kb, 1), *dv = fz_alloc(vb, 1), *dout = fz_alloc(ob, 0);
    void *dw = fz_alloc(wbytes, 1);
    if (dq == NULL || dk == NULL || dv == NULL || dout == NULL || dw == NULL)
        goto out;
    if (FZ(cudnnMultiHeadAttnBackwardData(handle, attn, lo, hi, dev_q, dev_k, od, dout, qd, dq, q, kd, dk, k, vd, dv,
                                          v, wbytes, w, wsbytes, ws, rsbytes, rs)) != CUDNN_STATUS_SUCCESS)
        goto out;
    FZ(cudnnMultiHeadAttnBackwardWeights(handle, attn, (cudnnWgradMode_t)(fz_u8(&in) % 3), qd, q, kd, k, vd, v, od,
                                         dout, wbytes, w, dw, wsbytes, ws, rsbytes, rs));
out:
    fz_release();
    cudnnDestroySeqDataDescriptor(od);
    cudnnDestroySeqDataDescriptor(vd);
    cudnnDestroySeqDataDescriptor(kd);
    cudnnDestroySeqDataDescriptor(qd);
    cudnnDestroyAttnDescriptor(attn);
    return 0;
}

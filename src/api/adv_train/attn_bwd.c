/* SPDX-License-Identifier: Apache-2.0
 * cudnnMultiHeadAttnBackwardData and cudnnMultiHeadAttnBackwardWeights,
 * FP32, FP64, and HALF/BFLOAT16 staged through FP32 (src/cpu/attn/attn_stage.c).  Formulas: src/cpu/attn/attn_bwd.h; docs/attention.md.
 *
 * Both read the reserve space of a training cudnnMultiHeadAttnForward with
 * the same attention and sequence descriptors (the forward's qDesc, kDesc,
 * vDesc, oDesc play dqDesc, dkDesc, dvDesc, doDesc here) and inputs.
 * Backward data stores the gradients at the projection outputs in it, which
 * backward weights reads, so the order is forward, backward data, backward
 * weights (as cuDNN requires).  The reserve header records the last call
 * and fingerprints of its descriptors and windows; a reserve space that
 * another problem filled, or a call out of order, is BAD_PARAM with nothing
 * written.  The residual path is not included in dqueries (cuDNN leaves it
 * to the caller). */
#include <stdint.h>
#include <string.h>

#include "api/adv_infer/attn_common.h"
#include "api_impl.h"
#include "core/fail.h"
#include "core/handle.h"
#include "cpu/attn/attn_bwd.h"

static cudnnStatus_t
check_aligned(const void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((uintptr_t)ptrs[i] % sizeof(float) != 0)
            return FDNN_BAD_PARAM("a data or workspace pointer (%p) is not 4-byte aligned", ptrs[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* The padding fill of desc as a double (exact). */
static void
fill_of(cudnnSeqDataDescriptor_t desc, bool *fill, double *value)
{
    *fill = desc->has_padding_fill;
    *value = fdnn_attn_fill_value(desc);
}

cudnnStatus_t
fdnn_api_cudnnMultiHeadAttnBackwardData(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                        const int *loWinIdx, const int *hiWinIdx, const int *devSeqLengthsDQDO,
                                        const int *devSeqLengthsDKDV, const cudnnSeqDataDescriptor_t doDesc,
                                        const void *dout, const cudnnSeqDataDescriptor_t dqDesc, void *dqueries,
                                        const void *queries, const cudnnSeqDataDescriptor_t dkDesc, void *dkeys,
                                        const void *keys, const cudnnSeqDataDescriptor_t dvDesc, void *dvalues,
                                        const void *values, size_t weightSizeInBytes, const void *weights,
                                        size_t workSpaceSizeInBytes, void *workSpace, size_t reserveSpaceSizeInBytes,
                                        void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    const struct cudnnAttnStruct *d = attnDesc;
    RETURN_IF_ERROR(fdnn_attn_check_compute(d, true));
    RETURN_IF_ERROR(fdnn_attn_check_magnitudes(d));
    fdnn_attn_shape_t s;
    fdnn_attn_shape_of(d, &s);
    fdnn_attn_seqs_t x = {dqDesc, dkDesc, dvDesc, doDesc, {"dqDesc", "dkDesc", "dvDesc", "doDesc"}};
    fdnn_attn_problem_t p;
    RETURN_IF_ERROR(fdnn_attn_problem_init(d, &s, &x, &p));
    RETURN_IF_NULL(loWinIdx);
    RETURN_IF_NULL(hiWinIdx);
    RETURN_IF_ERROR(fdnn_attn_check_lengths(devSeqLengthsDQDO, dqDesc, "devSeqLengthsDQDO", "dqDesc"));
    RETURN_IF_ERROR(fdnn_attn_check_lengths(devSeqLengthsDKDV, dkDesc, "devSeqLengthsDKDV", "dkDesc"));
    RETURN_IF_NULL(dout);
    RETURN_IF_NULL(dqueries);
    RETURN_IF_NULL(queries);
    RETURN_IF_NULL(dkeys);
    RETURN_IF_NULL(keys);
    RETURN_IF_NULL(dvalues);
    RETURN_IF_NULL(values);
    RETURN_IF_ERROR(fdnn_attn_check_spaces(handle, d, &s, weightSizeInBytes, weights, "weights",
                                           workSpaceSizeInBytes, workSpace));
    RETURN_IF_ERROR(fdnn_attn_check_reserve_space(d, &s, reserveSpaceSizeInBytes, reserveSpace));
    const void *ptrs[] = {dout, dqueries, queries, dkeys, keys, dvalues, values, weights, workSpace};
    RETURN_IF_ERROR(check_aligned(ptrs, sizeof(ptrs) / sizeof(ptrs[0])));
    uint64_t shape_hash = fdnn_attn_shape_hash(d, &x), window_hash = fdnn_attn_window_hash(loWinIdx, hiWinIdx, p.qT);
    RETURN_IF_ERROR(
        fdnn_attn_check_reserve_stage(reserveSpace, FDNN_ATTN_STAGE_FORWARD, shape_hash, true, window_hash));

    fdnn_attn_problem_weights(&p, &s, weights);
    p.lo = loWinIdx, p.hi = hiWinIdx, p.curr = -1;
    fdnn_attn_reserve_get_dropout(reserveSpace, d, &p);
    fdnn_attn_bwd_data_t a = {.dout = dout, .q = queries, .k = keys, .v = values, .dq = dqueries, .dk = dkeys,
                              .dv = dvalues};
    fill_of(dqDesc, &a.fill[0], &a.fill_value[0]);
    fill_of(dkDesc, &a.fill[1], &a.fill_value[1]);
    fill_of(dvDesc, &a.fill[2], &a.fill_value[2]);
    /* the gradients in the reserve are stale from here until this call completes */
    fdnn_attn_write_reserve_header(reserveSpace, FDNN_ATTN_STAGE_FORWARD, shape_hash, window_hash);
    if (!fdnn_attn_backward_data(handle, &p, &a, workSpace, reserveSpace))
        return FDNN_ALLOC_FAILED("cannot allocate GEMM packing buffers");
    fdnn_attn_write_reserve_header(reserveSpace, FDNN_ATTN_STAGE_BWD_DATA, shape_hash, window_hash);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_api_cudnnMultiHeadAttnBackwardWeights(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                           cudnnWgradMode_t addGrad, const cudnnSeqDataDescriptor_t qDesc,
                                           const void *queries, const cudnnSeqDataDescriptor_t kDesc,
                                           const void *keys, const cudnnSeqDataDescriptor_t vDesc,
                                           const void *values, const cudnnSeqDataDescriptor_t doDesc,
                                           const void *dout, size_t weightSizeInBytes, const void *weights,
                                           void *dweights, size_t workSpaceSizeInBytes, void *workSpace,
                                           size_t reserveSpaceSizeInBytes, void *reserveSpace)
{
    RETURN_IF_ERROR(fdnn_handle_check(handle));
    RETURN_IF_ERROR(fdnn_attn_desc_check(attnDesc, "attnDesc"));
    const struct cudnnAttnStruct *d = attnDesc;
    if (addGrad != CUDNN_WGRAD_MODE_ADD && addGrad != CUDNN_WGRAD_MODE_SET)
        return FDNN_BAD_PARAM("addGrad is %d, not a cudnnWgradMode_t", (int)addGrad);
    RETURN_IF_ERROR(fdnn_attn_check_compute(d, true));
    RETURN_IF_ERROR(fdnn_attn_check_magnitudes(d));
    fdnn_attn_shape_t s;
    fdnn_attn_shape_of(d, &s);
    fdnn_attn_seqs_t x = {qDesc, kDesc, vDesc, doDesc, {"qDesc", "kDesc", "vDesc", "doDesc"}};
    fdnn_attn_problem_t p;
    RETURN_IF_ERROR(fdnn_attn_problem_init(d, &s, &x, &p));
    RETURN_IF_NULL(queries);
    RETURN_IF_NULL(keys);
    RETURN_IF_NULL(values);
    RETURN_IF_NULL(dout);
    RETURN_IF_ERROR(fdnn_attn_check_spaces(handle, d, &s, weightSizeInBytes, weights, "weights",
                                           workSpaceSizeInBytes, workSpace));
    if (s.total > 0 && dweights == NULL)
        return FDNN_BAD_PARAM("dweights is NULL");
    RETURN_IF_ERROR(fdnn_attn_check_reserve_space(d, &s, reserveSpaceSizeInBytes, reserveSpace));
    const void *ptrs[] = {queries, keys, values, dout, weights, dweights, workSpace};
    RETURN_IF_ERROR(check_aligned(ptrs, sizeof(ptrs) / sizeof(ptrs[0])));
    RETURN_IF_ERROR(fdnn_attn_check_reserve_stage(reserveSpace, FDNN_ATTN_STAGE_BWD_DATA,
                                                  fdnn_attn_shape_hash(d, &x), false, 0));

    /* the gradients take the weights' places */
    fdnn_attn_problem_weights(&p, &s, dweights);
    fdnn_attn_dweights_t dw = {(void *)p.wq, (void *)p.wk, (void *)p.wv, (void *)p.wo,
                               (void *)p.bq, (void *)p.bk, (void *)p.bv, (void *)p.bo};
    fdnn_attn_problem_weights(&p, &s, weights);
    p.curr = -1;
    fdnn_attn_reserve_get_dropout(reserveSpace, d, &p);
    if (!fdnn_attn_backward_weights(handle, &p, addGrad == CUDNN_WGRAD_MODE_ADD, queries, keys, values, dout, &dw,
                                    workSpace, reserveSpace))
        return FDNN_ALLOC_FAILED("cannot allocate GEMM packing buffers");
    return CUDNN_STATUS_SUCCESS;
}

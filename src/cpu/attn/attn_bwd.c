/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention backward: dispatch to the typed code
 * (attn_bwd_t.inc via attn_bwd_f32.c and attn_bwd_f64.c). */
#include "cpu/attn/attn_bwd.h"
#include "cpu/rnn/stage_io.h"

size_t
fdnn_attn_bwd_workspace_bytes(const fdnn_attn_sizes_t *z, fdnn_isa_t isa)
{
    if (z->esize == 8)
        return fdnn_attn_bwd_workspace_bytes_f64(z, isa);
    return fdnn_attn_stage_offset(fdnn_attn_bwd_workspace_bytes_f32(z, isa)) + fdnn_attn_stage_bytes(z);
}

bool
fdnn_attn_backward_data(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const fdnn_attn_bwd_data_t *a,
                        void *workspace, void *reserve)
{
    if (fdnn_stage_is_16(p->dtype))
        return fdnn_attn_backward_data_staged(handle, p, a, workspace, reserve);
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_attn_backward_data_f64(handle, p, a, workspace, reserve)
                                         : fdnn_attn_backward_data_f32(handle, p, a, workspace, reserve);
}

bool
fdnn_attn_backward_weights(cudnnHandle_t handle, const fdnn_attn_problem_t *p, bool add, const void *q,
                           const void *k, const void *v, const void *dout, const fdnn_attn_dweights_t *dw,
                           void *workspace, void *reserve)
{
    if (fdnn_stage_is_16(p->dtype))
        return fdnn_attn_backward_weights_staged(handle, p, add, q, k, v, dout, dw, workspace, reserve);
    (void)workspace;
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_attn_backward_weights_f64(handle, p, add, q, k, v, dout, dw, reserve)
                                         : fdnn_attn_backward_weights_f32(handle, p, add, q, k, v, dout, dw, reserve);
}

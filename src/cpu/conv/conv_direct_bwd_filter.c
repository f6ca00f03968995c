/* SPDX-License-Identifier: Apache-2.0
 * Backward filter (FP32) of the DIRECT solver on the blocked forward kernels
 * (conv_direct_blocked.h), with the roles of the operands exchanged:
 *
 *   dw[k][c][r] = sum_n sum_p dy[n][k][p] * x[n][c][p*stride - pad + r*dil]
 *
 * is, per group, the forward correlation y'[i][o][r] = sum_j sum_q
 * x'[i][j][r*stride' - pad + q*dil'] * w'[o][j][q] of
 *   images i       = the group's input channels c   (x' = x with N and C swapped),
 *   channels j     = the batch n,
 *   outputs o      = the group's output channels k  (w' = dy with N and K swapped),
 *   filter taps q  = dy's positions p, stride' = dil, dil' = stride,
 *   output pixels r = the filter taps               (y' = dw with K and C swapped).
 * Only tensor views change: no copy of x, dy or dw beyond what the blocked
 * kernels make of any forward problem.  CONVOLUTION mode stores the taps
 * reversed: y' then walks dw's spatial dims backwards (negative strides).
 * Each filter element is one kernel sum in a fixed order, whatever the
 * thread count. */
#include "cpu/conv/conv_direct_blocked.h"

#include "core/fail.h"

bool
fdnn_conv_direct_blocked_bwd_filter_applies(const fdnn_conv_problem_t *p)
{
    return p->dir == FDNN_CONV_BWD_FILTER && p->dtype == CUDNN_DATA_FLOAT;
}

/* t with its dims 0 and 1 (and their strides) exchanged. */
static fdnn_tensor_t
swap01(const fdnn_tensor_t *t, int64_t d0, int64_t d1)
{
    fdnn_tensor_t s = *t;
    s.dims[0] = d0;
    s.dims[1] = d1;
    s.strides[0] = t->strides[1];
    s.strides[1] = t->strides[0];
    return s;
}

cudnnStatus_t
fdnn_conv_direct_blocked_bwd_filter(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    const int64_t cg = fdnn_conv_cg(p), kg = fdnn_conv_kg(p);
    fdnn_conv_problem_t f = *p;
    f.dir = FDNN_CONV_FWD;
    f.g = 1;
    f.n = cg;
    f.c = p->n;
    f.k = kg;
    f.flip = false;
    for (int i = 0; i < 3; i++) {
        f.ker[i] = p->out[i];
        f.out[i] = p->ker[i];
        f.stride[i] = p->dil[i];
        f.dil[i] = p->stride[i];
    }
    f.x = swap01(&p->x, cg, p->n);
    f.w = swap01(&p->y, kg, p->n);
    f.y = swap01(&p->w, cg, kg);
    int64_t tap0 = 0; /* offset of y' pixel 0 in dw */
    if (p->flip)
        for (int d = 2; d < 5; d++) {
            tap0 += (p->w.dims[d] - 1) * p->w.strides[d];
            f.y.strides[d] = -f.y.strides[d];
        }
    f.w_format = CUDNN_TENSOR_NCHW; /* the views' strides say where things are */
    fdnn_conv_exec_t fe = *e;
    fe.p = &f;
    fe.y_in = NULL;
    fe.bias = NULL;
    fe.relu = false;
    for (int64_t g = 0; g < p->g; g++) {
        fe.x_in = (const float *)e->x_in + g * cg * p->x.strides[1];
        fe.w_in = (const float *)e->y_in + g * kg * p->y.strides[1];
        fe.out = (float *)e->out + g * kg * p->w.strides[0] + tap0;
        RETURN_IF_ERROR(fdnn_conv_direct_blocked_execute(&fe));
    }
    return CUDNN_STATUS_SUCCESS;
}

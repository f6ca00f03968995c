/* SPDX-License-Identifier: Apache-2.0
 * RNN forward, backward data and backward weights: the weight layout,
 * the sizes and the sequence map shared by both precisions (the typed code
 * is rnn_t.inc, compiled by rnn_f32.c and rnn_f64.c); contract and layouts
 * in rnn.h.
 *
 * Per layer and direction: one GEMM gives the input part of every gate for
 * every time step (G = bW + X W^T, plus bR except for GRU); then each step is one GEMM with the
 * recurrent matrices (h R^T + bR) and a fused elementwise kernel over the
 * batch rows.  Backward runs the steps in reverse, producing the
 * pre-activation gate gradients dG (kept in the reserve space), and the
 * input gradient and weight gradients are again whole-sequence GEMMs.
 *
 * Reserve space per layer (elements): Y [TB][D*P] layer output; then per
 * direction A [TB][gH] activated gates, C [TB][H] cell states (LSTM), Rh
 * [TB][H] recurrent part of the h' gate (GRU), dGi [TB][gH] gate gradients,
 * dGr [TB][gH] recurrent gate gradients (GRU; the others use dGi), and with
 * a projection M [TB][H] unprojected outputs and dHs [TB][P] gradients at
 * h; last, with dropout, S [TB][D*P] mask scales (0 or 1/(1-p)) and Yd
 * [TB][D*P] the dropped output that the next layer reads. */
#include "cpu/rnn/rnn.h"
#include "cpu/rnn/rnn_internal.h"

#include <string.h>


void
fdnn_rnn_weight_offsets(const fdnn_rnn_problem_t *p, int pseudo, fdnn_rnn_wofs_t *o)
{
    int64_t H = p->hidden, P = p->proj, g = p->gates, base = 0;
    for (int q = 0; q <= pseudo; q++) {
        int layer = q / p->dirs;
        int64_t in = layer == 0 ? p->input : p->dirs * P;
        bool has_w = !(layer == 0 && p->skip_input);
        o->in = in;
        o->w = has_w ? base : -1;
        base += has_w ? g * H * in : 0;
        o->r = base;
        base += g * H * P;
        o->bw = p->bias_w ? base : -1;
        base += p->bias_w ? g * H : 0;
        o->br = p->bias_r ? base : -1;
        base += p->bias_r ? g * H : 0;
        o->pm = P < H ? base : -1;
        base += P < H ? P * H : 0;
    }
}

int64_t
fdnn_rnn_weight_elems(const fdnn_rnn_problem_t *p)
{
    int last = p->layers * p->dirs - 1;
    fdnn_rnn_wofs_t o;
    fdnn_rnn_weight_offsets(p, last, &o);
    return o.r + p->gates * p->hidden * p->proj + (p->bias_w ? gh(p) : 0) + (p->bias_r ? gh(p) : 0) +
           (o.pm >= 0 ? p->proj * p->hidden : 0);
}

size_t
fdnn_rnn_weight_bytes(const fdnn_rnn_problem_t *p)
{
    return (size_t)fdnn_rnn_weight_elems(p) * fdnn_rnn_esize(p);
}

/* ---- sizes ---- */

int64_t
fdnn_rnn_reserve_layer_elems(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p), H = p->hidden, P = p->proj, g = gh(p);
    int64_t per_dir = tb * g * 2 + (p->cell == CUDNN_LSTM ? tb * H : 0) + (p->cell == CUDNN_GRU ? tb * H + tb * g : 0);
    if (P < H)
        per_dir += tb * H + tb * P; /* M, dHs */
    /* Dropout mask and dropped output (unused in the last layer, which
     * keeps every layer the same size). */
    int64_t drop = p->drop > 0.0f && p->layers > 1 ? 2 * tb * p->dirs * P : 0;
    return tb * p->dirs * P + p->dirs * per_dir + drop;
}

size_t
fdnn_rnn_reserve_bytes(const fdnn_rnn_problem_t *p)
{
    return (size_t)(p->layers * fdnn_rnn_reserve_layer_elems(p)) * fdnn_rnn_esize(p);
}

/* Forward workspace: umap TB, xin TB*in, G TB*gH, Gr B*gH, h B*H, c B*H,
 * M and Hn B*H (projection), plus two layer-output buffers for inference
 * (P <= H, so H bounds every width). */
static int64_t
fwd_ws_elems(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden;
    int64_t n = tb + tb * p->input + tb * gh(p) + B * gh(p) + 4 * B * H;
    return n + (training ? 0 : 2 * tb * p->dirs * H);
}

/* Backward data: umap TB, two gradient buffers TB*max(in, D*H), dh, dd, dc
 * and dm (projection) B*H each. */
static int64_t
bwd_ws_elems(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden;
    return tb + 2 * tb * imax(p->input, p->dirs * H) + 4 * B * H;
}

/* Backward weights: umap TB, xin TB*in, Hprev TB*H. */
static int64_t
wgt_ws_elems(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p);
    return tb + tb * p->input + tb * p->hidden;
}

size_t
fdnn_rnn_workspace_bytes(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t n = fwd_ws_elems(p, training);
    if (training)
        n = imax(n, imax(bwd_ws_elems(p), wgt_ws_elems(p)));
    return (size_t)n * fdnn_rnn_esize(p);
}

/* Row of (t, b) in the user's buffer (in vectors), -1 for padding; int32
 * entries stored in the first TB elements of the workspace. */
int32_t *
fdnn_rnn_make_umap(const fdnn_rnn_problem_t *p, void *ws)
{
    int32_t *m = ws;
    int64_t T = p->T, B = p->B, base = 0;
    for (int64_t t = 0; t < T; t++) {
        int64_t active = 0;
        for (int64_t b = 0; b < B; b++) {
            int32_t row = -1;
            if (t < p->lens[b]) {
                if (p->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
                    row = (int32_t)(t * B + b);
                else if (p->layout == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
                    row = (int32_t)(b * T + t);
                else
                    row = (int32_t)(base + b); /* packed: active sequences are a prefix */
                active++;
            }
            m[t * B + b] = row;
        }
        base += active;
    }
    return m;
}


bool
fdnn_rnn_forward(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *x, void *y, const void *hx,
                 void *hy, const void *cx, void *cy, const void *w, void *ws, void *reserve)
{
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_rnn_forward_f64(ctx, p, x, y, hx, hy, cx, cy, w, ws, reserve)
                                         : fdnn_rnn_forward_f32(ctx, p, x, y, hx, hy, cx, cy, w, ws, reserve);
}

bool
fdnn_rnn_backward_data(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *dy, void *dx,
                       const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx,
                       const void *w, void *ws, void *reserve)
{
    return p->dtype == CUDNN_DATA_DOUBLE
               ? fdnn_rnn_backward_data_f64(ctx, p, dy, dx, hx, dhy, dhx, cx, dcy, dcx, w, ws, reserve)
               : fdnn_rnn_backward_data_f32(ctx, p, dy, dx, hx, dhy, dhx, cx, dcy, dcx, w, ws, reserve);
}

bool
fdnn_rnn_backward_weights(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add, const void *x,
                          const void *hx, void *dw, void *ws, const void *reserve)
{
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_rnn_backward_weights_f64(ctx, p, add, x, hx, dw, ws, reserve)
                                         : fdnn_rnn_backward_weights_f32(ctx, p, add, x, hx, dw, ws, reserve);
}

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

#include <assert.h>
#include <string.h>

#include "core/ckd.h"


/* ---- sizes ------------------------------------------------------------
 * Every size is computed once, here, with the checked arithmetic of
 * src/core/ckd.h: the static functions return false when an element count
 * overflows int64_t or its bytes pass PTRDIFF_MAX.  The API layer calls
 * fdnn_rnn_weight_sizes_fit (after the descriptor) and
 * fdnn_rnn_seq_sizes_fit (after the sequences) before any size is read, so
 * the accessors below, which the kernels use, never see an overflow (they
 * assert it).  Small factors are exact by construction: gates <= 4,
 * dirs <= 2, hidden and input < 2^31, T*B < 2^30 (fdnn_rnn_problem_seq). */

/* One pseudo layer's block of layer `layer`: the offsets of its parts from
 * the start of the block, and the block's size. */
static bool
block_parts(const fdnn_rnn_problem_t *p, int layer, fdnn_rnn_wofs_t *o, int64_t *size)
{
    const int64_t H = p->hidden, P = p->proj, g = gh(p);
    int64_t n = 0;
    bool has_w = !(layer == 0 && p->skip_input);
    o->in = layer == 0 ? p->input : p->dirs * P;
    o->w = has_w ? 0 : -1;
    if (has_w && !fdnn_ckd_madd_i64(&n, g, o->in))
        return false;
    o->r = n;
    if (!fdnn_ckd_madd_i64(&n, g, P))
        return false;
    o->bw = p->bias_w ? n : -1;
    if (p->bias_w && !fdnn_ckd_add_i64(n, g, &n))
        return false;
    o->br = p->bias_r ? n : -1;
    if (p->bias_r && !fdnn_ckd_add_i64(n, g, &n))
        return false;
    o->pm = P < H ? n : -1;
    if (P < H && !fdnn_ckd_madd_i64(&n, P, H))
        return false;
    *size = n;
    return true;
}

/* Offsets of pseudo layer `pseudo` and the end of its block.  Every layer
 * above layer 0 has blocks of one size, so the start of a block is a
 * closed form: walking the layers one by one took minutes for numLayers
 * near INT_MAX (fuzz corpus), and numLayers x dirs is counted in int64_t
 * (it passes INT_MAX for a bidirectional INT_MAX-layer RNN). */
static bool
weight_walk(const fdnn_rnn_problem_t *p, int64_t pseudo, fdnn_rnn_wofs_t *o, int64_t *end)
{
    fdnn_rnn_wofs_t upper;
    int64_t s0 = 0, s1 = 0, base = 0;
    bool layer0 = pseudo < p->dirs;
    if (!block_parts(p, 0, o, &s0) || (!layer0 && !block_parts(p, 1, &upper, &s1)))
        return false;
    if (layer0) {
        if (!fdnn_ckd_mul_i64(pseudo, s0, &base) || !fdnn_ckd_add_i64(base, s0, end))
            return false;
    } else {
        if (!fdnn_ckd_mul_i64(p->dirs, s0, &base) || !fdnn_ckd_madd_i64(&base, pseudo - p->dirs, s1) ||
            !fdnn_ckd_add_i64(base, s1, end))
            return false;
        *o = upper;
    }
    /* Each part starts inside the block, so base + offset < *end. */
    int64_t *part[5] = {&o->w, &o->r, &o->bw, &o->br, &o->pm};
    for (int i = 0; i < 5; i++)
        if (*part[i] >= 0)
            *part[i] += base;
    return true;
}

static bool
weight_elems(const fdnn_rnn_problem_t *p, int64_t *n)
{
    fdnn_rnn_wofs_t o;
    return weight_walk(p, (int64_t)p->layers * p->dirs - 1, &o, n);
}

bool
fdnn_rnn_weight_sizes_fit(const fdnn_rnn_problem_t *p)
{
    int64_t n;
    size_t bytes;
    return weight_elems(p, &n) && fdnn_ckd_bytes(n, fdnn_rnn_esize(p), &bytes);
}

void
fdnn_rnn_weight_offsets(const fdnn_rnn_problem_t *p, int pseudo, fdnn_rnn_wofs_t *o)
{
    int64_t end;
    bool ok = weight_walk(p, pseudo, o, &end);
    assert(ok && "fdnn_rnn_weight_sizes_fit was not checked");
    (void)ok;
}

int64_t
fdnn_rnn_weight_elems(const fdnn_rnn_problem_t *p)
{
    int64_t n = 0;
    bool ok = weight_elems(p, &n);
    assert(ok && "fdnn_rnn_weight_sizes_fit was not checked");
    (void)ok;
    return n;
}

size_t
fdnn_rnn_weight_bytes(const fdnn_rnn_problem_t *p)
{
    size_t bytes = 0;
    bool ok = fdnn_ckd_bytes(fdnn_rnn_weight_elems(p), fdnn_rnn_esize(p), &bytes);
    assert(ok && "fdnn_rnn_weight_sizes_fit was not checked");
    (void)ok;
    return bytes;
}

/* Reserve space per layer: Y tb*D*P; per direction A and dGi tb*gH each,
 * C tb*H (LSTM), Rh tb*H and dGr tb*gH (GRU), M tb*H and dHs tb*P
 * (projection); the dropout mask and dropped output, 2*tb*D*P, when
 * dropout runs between layers (unused in the last layer, which keeps every
 * layer the same size). */
static bool
reserve_layer(const fdnn_rnn_problem_t *p, int64_t *n)
{
    const int64_t tb = TB(p), H = p->hidden, P = p->proj, g = gh(p);
    int64_t per_dir = 0, y = 0;
    bool ok = fdnn_ckd_madd_i64(&per_dir, 2 * tb, g);
    if (p->cell == CUDNN_LSTM)
        ok = ok && fdnn_ckd_madd_i64(&per_dir, tb, H);
    if (p->cell == CUDNN_GRU)
        ok = ok && fdnn_ckd_madd_i64(&per_dir, tb, H) && fdnn_ckd_madd_i64(&per_dir, tb, g);
    if (P < H)
        ok = ok && fdnn_ckd_madd_i64(&per_dir, tb, H) && fdnn_ckd_madd_i64(&per_dir, tb, P);
    ok = ok && fdnn_ckd_mul3_i64(tb, p->dirs, P, &y) && fdnn_ckd_madd_i64(&y, p->dirs, per_dir);
    if (p->drop > 0.0f && p->layers > 1)
        ok = ok && fdnn_ckd_madd_i64(&y, 2 * tb, p->dirs * P);
    *n = y;
    return ok;
}

static bool
reserve_elems(const fdnn_rnn_problem_t *p, int64_t *n)
{
    int64_t layer;
    return reserve_layer(p, &layer) && fdnn_ckd_mul_i64(p->layers, layer, n);
}

/* Forward workspace: umap TB, xin TB*in, G TB*gH, Gr B*gH, h B*H, c B*H,
 * M and Hn B*H (projection), two layer-output buffers for inference
 * (P <= H, so H bounds every width), then (gH + 63)*max(in, D*P) + 16
 * for the input matrix W, then the recurrent matrix R, packed (or R
 * transposed) once per layer and direction (rnn_t.inc, input_gemm and
 * recur_init). */
static bool
fwd_ws_elems(const fdnn_rnn_problem_t *p, bool training, int64_t *n)
{
    const int64_t tb = TB(p), B = p->B, H = p->hidden, g = gh(p);
    *n = tb;
    return fdnn_ckd_madd_i64(n, tb, p->input) && fdnn_ckd_madd_i64(n, tb, g) && fdnn_ckd_madd_i64(n, B, g) &&
           fdnn_ckd_madd_i64(n, 4 * B, H) && (training || fdnn_ckd_madd_i64(n, 2 * tb, p->dirs * H)) &&
           fdnn_ckd_madd_i64(n, g + 63, imax(p->input, p->dirs * p->proj)) && fdnn_ckd_add_i64(*n, 16, n);
}

/* Backward data: umap TB, two gradient buffers TB*max(in, D*H), dh, dd, dc
 * and dm (projection) B*H each, then (max(P, in, D*P) + 63)*gH + 16 for
 * the recurrent matrix R, then the input matrix W, packed once per layer
 * and direction (rnn_t.inc, recur_init and input_grad_gemm). */
static bool
bwd_ws_elems(const fdnn_rnn_problem_t *p, int64_t *n)
{
    const int64_t tb = TB(p);
    *n = tb;
    return fdnn_ckd_madd_i64(n, 2 * tb, imax(p->input, p->dirs * p->hidden)) &&
           fdnn_ckd_madd_i64(n, 4 * p->B, p->hidden) && fdnn_ckd_madd_i64(n, imax(p->input, p->dirs * p->proj) + 63, gh(p)) &&
           fdnn_ckd_add_i64(*n, 16, n);
}

/* Backward weights: umap TB, xin TB*in, Hprev TB*H. */
static bool
wgt_ws_elems(const fdnn_rnn_problem_t *p, int64_t *n)
{
    const int64_t tb = TB(p);
    *n = tb;
    return fdnn_ckd_madd_i64(n, tb, p->input) && fdnn_ckd_madd_i64(n, tb, p->hidden);
}

/* The FP32/FP64 kernels' workspace. */
static bool
kernel_ws_elems(const fdnn_rnn_problem_t *p, bool training, int64_t *n)
{
    int64_t b = 0, w = 0;
    if (!fwd_ws_elems(p, training, n))
        return false;
    if (training && !(bwd_ws_elems(p, &b) && wgt_ws_elems(p, &w)))
        return false;
    *n = imax(*n, imax(b, w));
    return true;
}

/* The kernels' workspace, then for HALF/BFLOAT16 data the staging
 * buffers (rnn_stage.c), in elements of the compute type. */
static bool
workspace_elems(const fdnn_rnn_problem_t *p, bool training, int64_t *n)
{
    int64_t stage = 0;
    if (!kernel_ws_elems(p, training, n))
        return false;
    return !fdnn_rnn_staged(p) || (fdnn_rnn_stage_elems(p, &stage) && fdnn_ckd_add_i64(*n, stage, n));
}

size_t
fdnn_rnn_kernel_ws_bytes(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t n = 0;
    size_t bytes = 0;
    bool ok = kernel_ws_elems(p, training, &n) && fdnn_ckd_bytes(n, fdnn_rnn_csize(p), &bytes);
    assert(ok && "fdnn_rnn_seq_sizes_fit was not checked");
    (void)ok;
    return bytes;
}

bool
fdnn_rnn_seq_sizes_fit(const fdnn_rnn_problem_t *p)
{
    const size_t es = fdnn_rnn_esize(p), cs = fdnn_rnn_csize(p);
    const int64_t tb = TB(p);
    int64_t n;
    size_t bytes;
    for (int training = 0; training < 2; training++)
        if (!workspace_elems(p, training, &n) || !fdnn_ckd_bytes(n, cs, &bytes))
            return false;
    if (!reserve_elems(p, &n) || !fdnn_ckd_bytes(n, cs, &bytes))
        return false;
    /* The user's x, y (and dx, dy) and state buffers, which the kernels
     * address with int64_t element offsets. */
    return fdnn_ckd_mul_i64(tb, p->input, &n) && fdnn_ckd_bytes(n, es, &bytes) &&
           fdnn_ckd_mul3_i64(tb, p->dirs, p->hidden, &n) && fdnn_ckd_bytes(n, es, &bytes) &&
           fdnn_ckd_mul3_i64((int64_t)p->layers * p->dirs, p->B, p->hidden, &n) && fdnn_ckd_bytes(n, es, &bytes);
}

int64_t
fdnn_rnn_reserve_layer_elems(const fdnn_rnn_problem_t *p)
{
    int64_t n = 0;
    bool ok = reserve_layer(p, &n);
    assert(ok && "fdnn_rnn_seq_sizes_fit was not checked");
    (void)ok;
    return n;
}

size_t
fdnn_rnn_reserve_bytes(const fdnn_rnn_problem_t *p)
{
    int64_t n = 0;
    size_t bytes = 0;
    bool ok = reserve_elems(p, &n) && fdnn_ckd_bytes(n, fdnn_rnn_csize(p), &bytes);
    assert(ok && "fdnn_rnn_seq_sizes_fit was not checked");
    (void)ok;
    return bytes;
}

size_t
fdnn_rnn_workspace_bytes(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t n = 0;
    size_t bytes = 0;
    bool ok = workspace_elems(p, training, &n) && fdnn_ckd_bytes(n, fdnn_rnn_csize(p), &bytes);
    assert(ok && "fdnn_rnn_seq_sizes_fit was not checked");
    (void)ok;
    return bytes;
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
    if (fdnn_rnn_staged(p))
        return fdnn_rnn_forward_staged(ctx, p, x, y, hx, hy, cx, cy, w, ws, reserve);
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_rnn_forward_f64(ctx, p, x, y, hx, hy, cx, cy, w, ws, reserve)
                                         : fdnn_rnn_forward_f32(ctx, p, x, y, hx, hy, cx, cy, w, ws, reserve);
}

bool
fdnn_rnn_backward_data(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *dy, void *dx,
                       const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx,
                       const void *w, void *ws, void *reserve)
{
    if (fdnn_rnn_staged(p))
        return fdnn_rnn_backward_data_staged(ctx, p, dy, dx, hx, dhy, dhx, cx, dcy, dcx, w, ws, reserve);
    return p->dtype == CUDNN_DATA_DOUBLE
               ? fdnn_rnn_backward_data_f64(ctx, p, dy, dx, hx, dhy, dhx, cx, dcy, dcx, w, ws, reserve)
               : fdnn_rnn_backward_data_f32(ctx, p, dy, dx, hx, dhy, dhx, cx, dcy, dcx, w, ws, reserve);
}

bool
fdnn_rnn_backward_weights(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add, const void *x,
                          const void *hx, void *dw, void *ws, const void *reserve)
{
    if (fdnn_rnn_staged(p))
        return fdnn_rnn_backward_weights_staged(ctx, p, add, x, hx, dw, ws, reserve);
    return p->dtype == CUDNN_DATA_DOUBLE ? fdnn_rnn_backward_weights_f64(ctx, p, add, x, hx, dw, ws, reserve)
                                         : fdnn_rnn_backward_weights_f32(ctx, p, add, x, hx, dw, ws, reserve);
}

/* SPDX-License-Identifier: Apache-2.0
 * RNN forward, backward data and backward weights (FP32); contract and
 * layouts in rnn.h.
 *
 * Per layer and direction: one GEMM gives the input part of every gate for
 * every time step (G = bW + X W^T, plus bR except for GRU); then each step is one GEMM with the
 * recurrent matrices (h R^T + bR) and a fused elementwise kernel over the
 * batch rows.  Backward runs the steps in reverse, producing the
 * pre-activation gate gradients dG (kept in the reserve space), and the
 * input gradient and weight gradients are again whole-sequence GEMMs.
 *
 * Reserve space per layer (floats): Y [TB][D*H] layer output; then per
 * direction A [TB][gH] activated gates, C [TB][H] cell states (LSTM), Rh
 * [TB][H] recurrent part of the h' gate (GRU), dGi [TB][gH] gate gradients,
 * dGr [TB][gH] recurrent gate gradients (GRU; the others use dGi). */
#include "cpu/rnn/rnn.h"

#include <math.h>
#include <string.h>

#include "core/handle.h"
#include "cpu/gemm/gemm.h"

#define TB(p) ((p)->T * (p)->B)

static int64_t
gh(const fdnn_rnn_problem_t *p)
{
    return p->gates * p->hidden;
}

void
fdnn_rnn_weight_offsets(const fdnn_rnn_problem_t *p, int pseudo, fdnn_rnn_wofs_t *o)
{
    int64_t H = p->hidden, g = p->gates, base = 0;
    for (int q = 0; q <= pseudo; q++) {
        int layer = q / p->dirs;
        int64_t in = layer == 0 ? p->input : p->dirs * H;
        bool has_w = !(layer == 0 && p->skip_input);
        o->in = in;
        o->w = has_w ? base : -1;
        base += has_w ? g * H * in : 0;
        o->r = base;
        base += g * H * H;
        o->bw = p->bias_w ? base : -1;
        base += p->bias_w ? g * H : 0;
        o->br = p->bias_r ? base : -1;
        base += p->bias_r ? g * H : 0;
    }
}

int64_t
fdnn_rnn_weight_floats(const fdnn_rnn_problem_t *p)
{
    int last = p->layers * p->dirs - 1;
    fdnn_rnn_wofs_t o;
    fdnn_rnn_weight_offsets(p, last, &o);
    return o.r + p->gates * p->hidden * p->hidden + (p->bias_w ? gh(p) : 0) + (p->bias_r ? gh(p) : 0);
}

/* ---- sizes and carving ---- */

static int64_t
reserve_layer_floats(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p), H = p->hidden, g = gh(p);
    int64_t per_dir = tb * g * 2 + (p->cell == CUDNN_LSTM ? tb * H : 0) + (p->cell == CUDNN_GRU ? tb * H + tb * g : 0);
    return tb * p->dirs * H + p->dirs * per_dir;
}

size_t
fdnn_rnn_reserve_bytes(const fdnn_rnn_problem_t *p)
{
    return (size_t)(p->layers * reserve_layer_floats(p)) * sizeof(float);
}

typedef struct rlayer {
    float *Y;
    float *A[2], *C[2], *Rh[2], *dGi[2], *dGr[2];
} rlayer_t;

static void
carve_layer(const fdnn_rnn_problem_t *p, float *reserve, int l, rlayer_t *r)
{
    int64_t tb = TB(p), H = p->hidden, g = gh(p);
    float *q = reserve + l * reserve_layer_floats(p);
    r->Y = q;
    q += tb * p->dirs * H;
    for (int d = 0; d < p->dirs; d++) {
        r->A[d] = q, q += tb * g;
        r->C[d] = NULL, r->Rh[d] = NULL;
        if (p->cell == CUDNN_LSTM)
            r->C[d] = q, q += tb * H;
        if (p->cell == CUDNN_GRU)
            r->Rh[d] = q, q += tb * H;
        r->dGi[d] = q, q += tb * g;
        r->dGr[d] = r->dGi[d];
        if (p->cell == CUDNN_GRU)
            r->dGr[d] = q, q += tb * g;
    }
}

static int64_t
imax(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Forward workspace: umap TB, xin TB*in, G TB*gH, Gr B*gH, h B*H, c B*H,
 * plus two layer-output buffers for inference. */
static int64_t
fwd_ws_floats(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden;
    int64_t n = tb + tb * p->input + tb * gh(p) + B * gh(p) + 2 * B * H;
    return n + (training ? 0 : 2 * tb * p->dirs * H);
}

/* Backward data: umap TB, two gradient buffers TB*max(in, D*H), dh, dd, dc
 * B*H each. */
static int64_t
bwd_ws_floats(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden;
    return tb + 2 * tb * imax(p->input, p->dirs * H) + 3 * B * H;
}

/* Backward weights: umap TB, xin TB*in, Hprev TB*H. */
static int64_t
wgt_ws_floats(const fdnn_rnn_problem_t *p)
{
    int64_t tb = TB(p);
    return tb + tb * p->input + tb * p->hidden;
}

size_t
fdnn_rnn_workspace_bytes(const fdnn_rnn_problem_t *p, bool training)
{
    int64_t n = fwd_ws_floats(p, training);
    if (training)
        n = imax(n, imax(bwd_ws_floats(p), wgt_ws_floats(p)));
    return (size_t)n * sizeof(float);
}

/* Row of (t, b) in the user's buffer (in vectors), -1 for padding; int32
 * entries stored in the first TB floats of the workspace. */
static int32_t *
make_umap(const fdnn_rnn_problem_t *p, float *ws)
{
    int32_t *m = (int32_t *)(void *)ws;
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

/* Internal [TB][v] from the user layout, zero on padding rows. */
static void
gather(const int32_t *umap, int64_t tb, int64_t v, const float *user, float *out)
{
    for (int64_t r = 0; r < tb; r++) {
        if (umap[r] >= 0)
            memcpy(out + r * v, user + (int64_t)umap[r] * v, (size_t)v * sizeof(float));
        else
            memset(out + r * v, 0, (size_t)v * sizeof(float));
    }
}

static void
scatter(const int32_t *umap, int64_t tb, int64_t v, const float *in, float *user)
{
    for (int64_t r = 0; r < tb; r++)
        if (umap[r] >= 0)
            memcpy(user + (int64_t)umap[r] * v, in + r * v, (size_t)v * sizeof(float));
}

static bool
gemm(const fdnn_rnn_ctx_t *ctx, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
     const float *b, int64_t ldb, float beta, float *c, int64_t ldc, const float *bias_col)
{
    fdnn_sgemm_args_t g = {
        .trans_a = ta, .trans_b = tb, .m = (size_t)m, .n = (size_t)n, .k = (size_t)k, .alpha = 1.0f,
        .a = a, .lda = (size_t)lda, .b = b, .ldb = (size_t)ldb, .beta = beta, .c = c, .ldc = (size_t)ldc,
        .bias_row = NULL, .bias_col = bias_col, .act = FDNN_GEMM_ACT_NONE,
    };
    size_t threads = ctx->pool ? pthreadpool_get_threads_count(ctx->pool) : 1;
    size_t bytes = fdnn_sgemm_scratch_size(&g, threads, ctx->isa);
    void *scratch = ctx->handle ? fdnn_handle_scratch(ctx->handle, bytes) : NULL;
    return fdnn_sgemm(&g, ctx->pool, ctx->isa, scratch, scratch ? bytes : 0);
}

static inline float
sigm(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

static inline float
clipc(const fdnn_rnn_problem_t *p, float c)
{
    if (!p->clip)
        return c;
    if (c != c)
        return p->clip_nan ? c : p->rclip;
    return c < p->lclip ? p->lclip : c > p->rclip ? p->rclip : c;
}

/* Input rows of step t for direction d: previous row in the same sequence, or
 * -1 when the step starts from hx/cx. */
static inline int64_t
prev_t(const fdnn_rnn_problem_t *p, int d, int64_t t, int64_t b)
{
    if (d == 0)
        return t > 0 ? t - 1 : -1;
    return t + 1 < p->lens[b] ? t + 1 : -1;
}

/* ---- forward ---- */

typedef struct fstep {
    const fdnn_rnn_problem_t *p;
    int64_t t;
    int d;
    const float *G;  /* step rows [B][gH]: input part (+ recurrent unless GRU) */
    const float *Gr; /* GRU recurrent part [B][gH] */
    float *h, *c;    /* states [B][H] */
    float *Y;        /* layer output base, [TB][D*H] */
    float *A, *C, *Rh; /* reserve slices of step t, or NULL */
} fstep_t;

static void
fstep_row(void *arg, size_t bi)
{
    const fstep_t *j = arg;
    const fdnn_rnn_problem_t *p = j->p;
    int64_t b = (int64_t)bi, H = p->hidden, g = gh(p), DH = p->dirs * H;
    float *y = j->Y + (j->t * p->B + b) * DH + j->d * H;
    float *A = j->A ? j->A + b * g : NULL;
    if (j->t >= p->lens[b]) {
        memset(y, 0, (size_t)H * sizeof(float));
        if (A)
            memset(A, 0, (size_t)g * sizeof(float));
        if (j->C)
            memset(j->C + b * H, 0, (size_t)H * sizeof(float));
        if (j->Rh)
            memset(j->Rh + b * H, 0, (size_t)H * sizeof(float));
        return;
    }
    const float *G = j->G + b * g;
    float *h = j->h + b * H;
    for (int64_t k = 0; k < H; k++) {
        float hn;
        if (p->cell == CUDNN_LSTM) {
            float i = sigm(G[k]), f = sigm(G[H + k]), gg = tanhf(G[2 * H + k]), o = sigm(G[3 * H + k]);
            float c = clipc(p, f * j->c[b * H + k] + i * gg);
            hn = o * tanhf(c);
            j->c[b * H + k] = c;
            if (A)
                A[k] = i, A[H + k] = f, A[2 * H + k] = gg, A[3 * H + k] = o, j->C[b * H + k] = c;
        } else if (p->cell == CUDNN_GRU) {
            const float *R = j->Gr + b * g;
            float r = sigm(G[k] + R[k]), z = sigm(G[H + k] + R[H + k]);
            float n = tanhf(G[2 * H + k] + r * R[2 * H + k]);
            hn = (1.0f - z) * n + z * h[k];
            if (A)
                A[k] = r, A[H + k] = z, A[2 * H + k] = n, j->Rh[b * H + k] = R[2 * H + k];
        } else {
            hn = p->cell == CUDNN_RNN_TANH ? tanhf(G[k]) : (G[k] > 0.0f ? G[k] : 0.0f);
            if (A)
                A[k] = hn;
        }
        h[k] = hn;
        y[k] = hn;
    }
}

static void
load_state(float *dst, const float *src, int pseudo, int64_t B, int64_t H)
{
    if (src)
        memcpy(dst, src + (int64_t)pseudo * B * H, (size_t)(B * H) * sizeof(float));
    else
        memset(dst, 0, (size_t)(B * H) * sizeof(float));
}

static void
store_state(float *dst, const float *src, int pseudo, int64_t B, int64_t H)
{
    if (dst)
        memcpy(dst + (int64_t)pseudo * B * H, src, (size_t)(B * H) * sizeof(float));
}

bool
fdnn_rnn_forward(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const float *x, float *y,
                 const float *hx, float *hy, const float *cx, float *cy, const float *w, float *ws,
                 float *reserve)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden, g = gh(p), D = p->dirs, DH = D * H;
    int32_t *umap = make_umap(p, ws);
    float *xin = ws + tb, *G = xin + tb * p->input, *Gr = G + tb * g, *h = Gr + B * g, *c = h + B * H;
    float *ybuf[2] = {c + B * H, c + B * H + tb * DH};
    gather(umap, tb, p->input, x, xin);
    const float *in = xin;
    for (int l = 0; l < p->layers; l++) {
        rlayer_t rl;
        float *Y;
        if (reserve) {
            carve_layer(p, reserve, l, &rl);
            Y = rl.Y;
        } else {
            Y = ybuf[l & 1];
        }
        for (int d = 0; d < D; d++) {
            int pseudo = l * D + d;
            fdnn_rnn_wofs_t o;
            fdnn_rnn_weight_offsets(p, pseudo, &o);
            const float *bw = o.bw >= 0 ? w + o.bw : NULL, *br = o.br >= 0 ? w + o.br : NULL;
            /* G starts as the biases (bW, and bR too except for GRU whose
             * recurrent part is kept apart), then accumulates X W^T.  The
             * biases are added here rather than through the GEMM epilogue. */
            bool gru = p->cell == CUDNN_GRU;
            for (int64_t q = 0; q < g; q++)
                G[q] = (bw ? bw[q] : 0.0f) + (br && !gru ? br[q] : 0.0f);
            for (int64_t r = 1; r < tb; r++)
                memcpy(G + r * g, G, (size_t)g * sizeof(float));
            if (o.w >= 0) {
                if (!gemm(ctx, false, true, tb, g, o.in, in, o.in, w + o.w, o.in, 1.0f, G, g, NULL))
                    return false;
            } else { /* SKIP_INPUT: x (input == H) feeds every gate */
                for (int64_t r = 0; r < tb; r++)
                    for (int64_t q = 0; q < g; q++)
                        G[r * g + q] += in[r * o.in + q % H];
            }
            load_state(h, hx, pseudo, B, H);
            load_state(c, cx, pseudo, B, H);
            for (int64_t s = 0; s < p->T; s++) {
                int64_t t = d == 0 ? s : p->T - 1 - s;
                float *Gt = G + t * B * g;
                if (gru)
                    for (int64_t b = 0; b < B; b++)
                        for (int64_t q = 0; q < g; q++)
                            Gr[b * g + q] = br ? br[q] : 0.0f;
                bool ok = gemm(ctx, false, true, B, g, H, h, H, w + o.r, H, 1.0f, gru ? Gr : Gt, g, NULL);
                if (!ok)
                    return false;
                fstep_t j = {.p = p, .t = t, .d = d, .G = Gt, .Gr = Gr, .h = h, .c = c, .Y = Y};
                if (reserve) {
                    j.A = rl.A[d] + t * B * g;
                    j.C = rl.C[d] ? rl.C[d] + t * B * H : NULL;
                    j.Rh = rl.Rh[d] ? rl.Rh[d] + t * B * H : NULL;
                }
                pthreadpool_parallelize_1d(ctx->pool, fstep_row, &j, (size_t)B, 0);
            }
            store_state(hy, h, pseudo, B, H);
            if (p->cell == CUDNN_LSTM)
                store_state(cy, c, pseudo, B, H);
        }
        in = Y;
        if (l == p->layers - 1)
            scatter(umap, tb, DH, Y, y);
    }
    return true;
}

/* ---- backward data ---- */

typedef struct bstep {
    const fdnn_rnn_problem_t *p;
    int64_t t;
    int d;
    const float *dY;   /* gradient of the layer output [TB][D*H] */
    const float *Y;    /* layer output (h of previous steps) */
    const float *A, *C, *Rh; /* reserve, whole direction [TB][..] */
    const float *hx, *cx;    /* this pseudo-layer's initial states or NULL */
    float *dh, *dc, *dd;     /* dd: next dh before the recurrent GEMM adds in */
    float *dGi, *dGr;        /* step rows [B][gH] */
} bstep_t;

static void
bstep_row(void *arg, size_t bi)
{
    const bstep_t *j = arg;
    const fdnn_rnn_problem_t *p = j->p;
    int64_t b = (int64_t)bi, H = p->hidden, g = gh(p), B = p->B, DH = p->dirs * H, t = j->t;
    float *dGi = j->dGi + b * g, *dGr = j->dGr + b * g;
    if (t >= p->lens[b]) {
        memset(dGi, 0, (size_t)g * sizeof(float));
        if (dGr != dGi)
            memset(dGr, 0, (size_t)g * sizeof(float));
        memcpy(j->dd + b * H, j->dh + b * H, (size_t)H * sizeof(float));
        return;
    }
    int64_t row = t * B + b, pt = prev_t(p, j->d, t, b);
    const float *A = j->A + row * g;
    const float *dy = j->dY + row * DH + j->d * H;
    for (int64_t k = 0; k < H; k++) {
        float dht = dy[k] + j->dh[b * H + k];
        float direct = 0.0f;
        if (p->cell == CUDNN_LSTM) {
            float i = A[k], f = A[H + k], gg = A[2 * H + k], o = A[3 * H + k];
            float c = j->C[row * H + k];
            float cp = pt >= 0 ? j->C[(pt * B + b) * H + k] : j->cx ? j->cx[b * H + k] : 0.0f;
            float tc = tanhf(c);
            float dc = j->dc[b * H + k] + dht * o * (1.0f - tc * tc);
            if (p->clip && !(c > p->lclip && c < p->rclip))
                dc = 0.0f; /* clipped: no gradient to the raw cell value */
            dGi[k] = dc * gg * i * (1.0f - i);
            dGi[H + k] = dc * cp * f * (1.0f - f);
            dGi[2 * H + k] = dc * i * (1.0f - gg * gg);
            dGi[3 * H + k] = dht * tc * o * (1.0f - o);
            j->dc[b * H + k] = dc * f;
        } else if (p->cell == CUDNN_GRU) {
            float r = A[k], z = A[H + k], n = A[2 * H + k];
            float hp = pt >= 0 ? j->Y[(pt * B + b) * DH + j->d * H + k] : j->hx ? j->hx[b * H + k] : 0.0f;
            float dn = dht * (1.0f - z) * (1.0f - n * n);
            float dz = dht * (hp - n) * z * (1.0f - z);
            float dr = dn * j->Rh[row * H + k] * r * (1.0f - r);
            dGi[k] = dr, dGr[k] = dr;
            dGi[H + k] = dz, dGr[H + k] = dz;
            dGi[2 * H + k] = dn, dGr[2 * H + k] = dn * r;
            direct = dht * z;
        } else {
            float hv = A[k];
            dGi[k] = p->cell == CUDNN_RNN_TANH ? dht * (1.0f - hv * hv) : (hv > 0.0f ? dht : 0.0f);
        }
        j->dd[b * H + k] = direct;
    }
}

bool
fdnn_rnn_backward_data(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const float *dy, float *dx,
                       const float *hx, const float *dhy, float *dhx, const float *cx, const float *dcy,
                       float *dcx, const float *w, float *ws, float *reserve)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden, g = gh(p), D = p->dirs, DH = D * H;
    int64_t wide = imax(p->input, DH);
    int32_t *umap = make_umap(p, ws);
    float *bufs[2] = {ws + tb, ws + tb + tb * wide};
    float *dh = bufs[1] + tb * wide, *dd = dh + B * H, *dc = dd + B * H;
    float *dcur = bufs[0], *dprev = bufs[1];
    gather(umap, tb, DH, dy, dcur);
    for (int l = p->layers - 1; l >= 0; l--) {
        rlayer_t rl;
        carve_layer(p, reserve, l, &rl);
        for (int d = 0; d < D; d++) {
            int pseudo = l * D + d;
            fdnn_rnn_wofs_t o;
            fdnn_rnn_weight_offsets(p, pseudo, &o);
            load_state(dh, dhy, pseudo, B, H);
            load_state(dc, p->cell == CUDNN_LSTM ? dcy : NULL, pseudo, B, H);
            bstep_t j = {.p = p, .d = d, .dY = dcur, .Y = rl.Y, .A = rl.A[d], .C = rl.C[d], .Rh = rl.Rh[d],
                         .hx = hx ? hx + pseudo * B * H : NULL, .cx = cx ? cx + pseudo * B * H : NULL, .dc = dc};
            for (int64_t s = 0; s < p->T; s++) {
                int64_t t = d == 0 ? p->T - 1 - s : s;
                j.t = t;
                j.dh = dh, j.dd = dd;
                j.dGi = rl.dGi[d] + t * B * g;
                j.dGr = rl.dGr[d] + t * B * g;
                pthreadpool_parallelize_1d(ctx->pool, bstep_row, &j, (size_t)B, 0);
                /* dd += dGr R (rows of finished or not yet started sequences
                 * are zero in dGr, so their dd = dh is kept exactly). */
                if (!gemm(ctx, false, false, B, H, g, j.dGr, g, w + o.r, H, 1.0f, dd, H, NULL))
                    return false;
                float *tmp = dh;
                dh = dd, dd = tmp;
            }
            store_state(dhx, dh, pseudo, B, H);
            if (p->cell == CUDNN_LSTM)
                store_state(dcx, dc, pseudo, B, H);
            /* Gradient of the layer input, summed over directions. */
            if (o.w >= 0) {
                if (!gemm(ctx, false, false, tb, o.in, g, rl.dGi[d], g, w + o.w, o.in, d == 0 ? 0.0f : 1.0f, dprev,
                          o.in, NULL))
                    return false;
            } else {
                for (int64_t r = 0; r < tb; r++)
                    for (int64_t k = 0; k < H; k++) {
                        float s = d == 0 ? 0.0f : dprev[r * H + k];
                        for (int q = 0; q < p->gates; q++)
                            s += rl.dGi[d][r * g + q * H + k];
                        dprev[r * H + k] = s;
                    }
            }
        }
        float *tmp = dcur;
        dcur = dprev, dprev = tmp;
    }
    scatter(umap, tb, p->input, dcur, dx);
    return true;
}

/* ---- backward weights ---- */

typedef struct colsum {
    const float *m; /* [rows][ld] */
    int64_t rows, ld;
    float *out;
    bool add;
} colsum_t;

static void
colsum_col(void *arg, size_t col)
{
    const colsum_t *j = arg;
    float s = 0.0f;
    for (int64_t r = 0; r < j->rows; r++)
        s += j->m[r * j->ld + (int64_t)col];
    j->out[col] = j->add ? j->out[col] + s : s;
}

bool
fdnn_rnn_backward_weights(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add, const float *x,
                          const float *hx, float *dw, float *ws, const float *reserve)
{
    int64_t tb = TB(p), B = p->B, H = p->hidden, g = gh(p), D = p->dirs, DH = D * H;
    int32_t *umap = make_umap(p, ws);
    float *xin = ws + tb, *hp = xin + tb * p->input;
    gather(umap, tb, p->input, x, xin);
    float beta = add ? 1.0f : 0.0f;
    for (int l = 0; l < p->layers; l++) {
        rlayer_t rl, below;
        carve_layer(p, (float *)reserve, l, &rl);
        const float *in = xin;
        if (l > 0) {
            carve_layer(p, (float *)reserve, l - 1, &below);
            in = below.Y;
        }
        for (int d = 0; d < D; d++) {
            int pseudo = l * D + d;
            fdnn_rnn_wofs_t o;
            fdnn_rnn_weight_offsets(p, pseudo, &o);
            if (o.w >= 0 && !gemm(ctx, true, false, g, o.in, tb, rl.dGi[d], g, in, o.in, beta, dw + o.w, o.in, NULL))
                return false;
            for (int64_t t = 0; t < p->T; t++)
                for (int64_t b = 0; b < B; b++) {
                    float *dst = hp + (t * B + b) * H;
                    int64_t pt = prev_t(p, d, t, b);
                    if (t >= p->lens[b] || (pt < 0 && hx == NULL))
                        memset(dst, 0, (size_t)H * sizeof(float));
                    else if (pt < 0)
                        memcpy(dst, hx + (pseudo * B + b) * H, (size_t)H * sizeof(float));
                    else
                        memcpy(dst, rl.Y + (pt * B + b) * DH + d * H, (size_t)H * sizeof(float));
                }
            if (!gemm(ctx, true, false, g, H, tb, rl.dGr[d], g, hp, H, beta, dw + o.r, H, NULL))
                return false;
            if (o.bw >= 0) {
                colsum_t j = {rl.dGi[d], tb, g, dw + o.bw, add};
                pthreadpool_parallelize_1d(ctx->pool, colsum_col, &j, (size_t)g, 0);
            }
            if (o.br >= 0) {
                colsum_t j = {rl.dGr[d], tb, g, dw + o.br, add};
                pthreadpool_parallelize_1d(ctx->pool, colsum_col, &j, (size_t)g, 0);
            }
        }
    }
    return true;
}

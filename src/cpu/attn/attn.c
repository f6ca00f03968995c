/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention forward (formulas and layouts in attn.h).
 *
 * Workspace (floats): Qp nq x H*qP (Q projection on), Kp nk x H*qP (K on),
 * Vp nk x H*vP (V on), Hc nq x H*vP (head outputs in query-row order),
 * Ob nq x oLen (O projection on), then one score row of kT per
 * (sequence, head) task. */
#include "cpu/attn/attn.h"

#include <math.h>
#include <string.h>

#include "cpu/gemm/gemm.h"

typedef struct attn_ws {
    float *qp, *kp, *vp, *hc, *ob, *scores;
} attn_ws_t;

static size_t
layout(int H, int qP, int vP, int oLen, bool q_proj, bool k_proj, bool v_proj, bool o_proj, int64_t nq, int64_t nk,
       int64_t seqs, int kT, float *base, attn_ws_t *w)
{
    size_t off = 0;
#define TAKE(field, n)                                   \
    do {                                                 \
        w->field = base ? base + off : NULL;             \
        off += (size_t)(n);                              \
    } while (0)
    TAKE(qp, q_proj ? nq * H * qP : 0);
    TAKE(kp, k_proj ? nk * H * qP : 0);
    TAKE(vp, v_proj ? nk * H * vP : 0);
    TAKE(hc, nq * H * vP);
    TAKE(ob, o_proj ? nq * oLen : 0);
    TAKE(scores, seqs * H * kT);
#undef TAKE
    return off * sizeof(float);
}

size_t
fdnn_attn_workspace_bytes(int H, int qP, int vP, int oLen, bool q_proj, bool k_proj, bool v_proj, int64_t nq,
                          int64_t nk, int64_t seqs, int kT)
{
    attn_ws_t w;
    return layout(H, qP, vP, oLen, q_proj, k_proj, v_proj, true, nq, nk, seqs, kT, NULL, &w);
}

static bool
project(cudnnHandle_t handle, const float *x, int64_t rows, int in, const float *w, const float *bias, int out_cols,
        float *y)
{
    fdnn_sgemm_args_t g = {.m = (size_t)rows, .n = (size_t)out_cols, .k = (size_t)in, .alpha = 1.0f, .a = x,
                           .lda = (size_t)in, .b = w, .ldb = (size_t)out_cols, .beta = 0.0f, .c = y,
                           .ldc = (size_t)out_cols, .bias_col = bias};
    return fdnn_sgemm(&g, handle->pool, handle->isa, NULL, 0);
}

typedef struct attn_job {
    const fdnn_attn_problem_t *p;
    const float *q, *k, *v;
    attn_ws_t w;
} attn_job_t;

/* One (sequence, head): every query time step of the sequence. */
static void
attn_task(void *arg, size_t task)
{
    const attn_job_t *j = arg;
    const fdnn_attn_problem_t *p = j->p;
    int H = p->H, h = (int)(task % (size_t)H);
    int64_t seq = (int64_t)(task / (size_t)H), b = seq / p->beam, m = seq % p->beam;
    int64_t kvm = p->one_to_one ? m : 0;
    int Lq = p->q_len[seq], Lk = p->k_len[b * p->kv_beam + kvm];
    float *sc = j->w.scores + (int64_t)task * p->kT;
    int t0 = p->curr < 0 ? 0 : p->curr, t1 = p->curr < 0 ? Lq : (p->curr < Lq ? p->curr + 1 : 0);
    for (int t = t0; t < t1; t++) {
        int64_t qrow = t * p->q_st[0] + b * p->q_st[1] + m * p->q_st[2];
        const float *qv = p->q_proj ? j->w.qp + qrow * H * p->qP + (int64_t)h * p->qP : j->q + qrow * p->qS;
        int lo = p->lo[t] > 0 ? p->lo[t] : 0, hi = p->hi[t] < Lk ? p->hi[t] : Lk;
        float *hv = j->w.hc + qrow * H * p->vP + (int64_t)h * p->vP;
        for (int d = 0; d < p->vP; d++)
            hv[d] = 0;
        if (lo >= hi)
            continue;
        double mx = -INFINITY;
        for (int kj = lo; kj < hi; kj++) {
            int64_t krow = kj * p->k_st[0] + b * p->k_st[1] + kvm * p->k_st[2];
            const float *kv = p->k_proj ? j->w.kp + krow * H * p->qP + (int64_t)h * p->qP : j->k + krow * p->kS;
            double dot = 0;
            for (int d = 0; d < p->qP; d++)
                dot += (double)qv[d] * kv[d];
            sc[kj - lo] = (float)(p->scaler * dot);
            mx = fmax(mx, sc[kj - lo]);
        }
        double sum = 0;
        for (int kj = lo; kj < hi; kj++) {
            double e = exp(sc[kj - lo] - mx);
            sc[kj - lo] = (float)e;
            sum += e;
        }
        for (int d = 0; d < p->vP; d++) {
            double acc = 0;
            for (int kj = lo; kj < hi; kj++) {
                int64_t krow = kj * p->k_st[0] + b * p->k_st[1] + kvm * p->k_st[2];
                const float *vv =
                    p->v_proj ? j->w.vp + krow * H * p->vP + (int64_t)h * p->vP : j->v + krow * p->vS;
                acc += (double)sc[kj - lo] * vv[d];
            }
            hv[d] = (float)(acc / sum);
        }
    }
}

bool
fdnn_attn_forward(cudnnHandle_t handle, const fdnn_attn_problem_t *p, const float *q, const float *residuals,
                  const float *k, const float *v, float *out, void *workspace)
{
    attn_job_t j = {.p = p, .q = q, .k = k, .v = v};
    layout(p->H, p->qP, p->vP, p->oLen, p->q_proj, p->k_proj, p->v_proj, p->o_proj, p->nq, p->nk,
           (int64_t)p->batch * p->beam, p->kT, workspace, &j.w);
    int H = p->H;
    if (p->q_proj && !project(handle, q, p->nq, p->qS, p->wq, p->bq, H * p->qP, j.w.qp))
        return false;
    if (p->k_proj && !project(handle, k, p->nk, p->kS, p->wk, p->bk, H * p->qP, j.w.kp))
        return false;
    if (p->v_proj && !project(handle, v, p->nk, p->vS, p->wv, p->bv, H * p->vP, j.w.vp))
        return false;
    pthreadpool_parallelize_1d(handle->pool, attn_task, &j, (size_t)p->batch * p->beam * H, 0);
    const float *res = j.w.hc;
    if (p->o_proj) {
        if (!project(handle, j.w.hc, p->nq, H * p->vP, p->wo, p->bo, p->oLen, j.w.ob))
            return false;
        res = j.w.ob;
    }
    /* copy the computed vectors out (plus residuals), fill the padding */
    for (int64_t seq = 0; seq < (int64_t)p->batch * p->beam; seq++) {
        int64_t b = seq / p->beam, m = seq % p->beam;
        int Lq = p->q_len[seq];
        int t0 = p->curr < 0 ? 0 : p->curr, t1 = p->curr < 0 ? p->qT : p->curr + 1;
        for (int t = t0; t < t1; t++) {
            int64_t qrow = t * p->q_st[0] + b * p->q_st[1] + m * p->q_st[2];
            float *o = out + (t * p->o_st[0] + b * p->o_st[1] + m * p->o_st[2]) * p->oLen;
            if (t >= Lq) {
                if (p->fill)
                    for (int i = 0; i < p->oLen; i++)
                        o[i] = p->fill_value;
                continue;
            }
            const float *r = res + qrow * p->oLen;
            for (int i = 0; i < p->oLen; i++)
                o[i] = residuals ? r[i] + residuals[qrow * p->qS + i] : r[i];
        }
    }
    return true;
}

/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference multi-head attention backward (formulas in
 * attn_ref.h): one sequence and one head at a time, the head's forward
 * recomputed, then the chain rule written out loop by loop. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/attn_ref.h"

/* y = W_h x + b_h (x itself without projection), W column-major (H*P) x S:
 * element (h, p, s) at (h*P + p) + s*H*P. */
static void
head_in(const double *w, const double *bias, bool proj, int H, int h, int P, int S, const double *x, double *y)
{
    for (int p = 0; p < P; p++) {
        if (!proj) {
            y[p] = x[p];
            continue;
        }
        double acc = bias ? bias[h * P + p] : 0;
        for (int s = 0; s < S; s++)
            acc += w[(int64_t)(h * P + p) + (int64_t)s * H * P] * x[s];
        y[p] = acc;
    }
}

/* Back through head_in: g = dL/dy adds W_h^T g to dx, g x^T to dW_h and g
 * to db_h (g itself to dx without projection). */
static void
head_in_back(const double *w, double *dw, double *db, bool proj, int H, int h, int P, int S, const double *x,
             const double *g, double *dx)
{
    for (int p = 0; p < P; p++) {
        if (!proj) {
            dx[p] += g[p];
            continue;
        }
        for (int s = 0; s < S; s++) {
            int64_t e = (int64_t)(h * P + p) + (int64_t)s * H * P;
            dx[s] += w[e] * g[p];
            dw[e] += g[p] * x[s];
        }
        if (db)
            db[h * P + p] += g[p];
    }
}

void
fdnn_ref_attn_backward(const fdnn_ref_attn_t *a, const double *w, const double *q, const double *k,
                       const double *v, const double *dout, double *dq, double *dk, double *dv, double *dw)
{
    assert(a->curr < 0);
    int H = a->H, kv_beam = a->one_to_one ? a->beam : 1, qT = a->qT, kT = a->kT;
    int qP = a->qProj ? a->qProj : a->qS, vP = a->vProj ? a->vProj : a->vS;
    int oLen = a->oProj ? a->oProj : H * vP, HvP = H * vP;
    int64_t off[8];
    fdnn_ref_attn_weight_offsets(a, off);
    int64_t nq = (int64_t)qT * a->batch * a->beam, nk = (int64_t)kT * a->batch * kv_beam;
    memset(dq, 0, sizeof(double) * (size_t)(nq * a->qS));
    memset(dk, 0, sizeof(double) * (size_t)(nk * a->kS));
    memset(dv, 0, sizeof(double) * (size_t)(nk * a->vS));
    memset(dw, 0, sizeof(double) * (size_t)fdnn_ref_attn_weight_count(a));
    const double *bq = a->biases ? w + off[4] : NULL, *bk = a->biases ? w + off[5] : NULL;
    const double *bv = a->biases ? w + off[6] : NULL;
    double *dbq = a->biases ? dw + off[4] : NULL, *dbk = a->biases ? dw + off[5] : NULL;
    double *dbv = a->biases ? dw + off[6] : NULL, *dbo = a->biases ? dw + off[7] : NULL;
    double *qh = malloc(sizeof(double) * (size_t)qT * qP), *kh = malloc(sizeof(double) * (size_t)kT * qP);
    double *vh = malloc(sizeof(double) * (size_t)kT * vP), *pr = malloc(sizeof(double) * (size_t)qT * kT);
    double *dh = malloc(sizeof(double) * (size_t)qT * vP), *hcat = malloc(sizeof(double) * (size_t)qT * HvP);
    double *ds = malloc(sizeof(double) * (size_t)kT), *dqh = malloc(sizeof(double) * (size_t)qP);
    double *dkh = malloc(sizeof(double) * (size_t)kT * qP), *dvh = malloc(sizeof(double) * (size_t)kT * vP);
    for (int b = 0; b < a->batch; b++)
        for (int m = 0; m < a->beam; m++) {
            int mk = a->one_to_one ? m : 0, Lq = a->q_len[b * a->beam + m], Lk = a->k_len[b * kv_beam + mk];
#define QROW(t) ((t) * a->q_st[0] + b * a->q_st[1] + m * a->q_st[2])
#define OROW(t) ((t) * a->o_st[0] + b * a->o_st[1] + m * a->o_st[2])
#define KROW(j) ((j) * a->k_st[0] + b * a->k_st[1] + mk * a->k_st[2])
            for (int h = 0; h < H; h++) {
                /* this head's forward */
                for (int t = 0; t < Lq; t++)
                    head_in(w + off[0], bq, a->qProj, H, h, qP, a->qS, q + QROW(t) * a->qS, qh + t * qP);
                for (int j = 0; j < Lk; j++) {
                    head_in(w + off[1], bk, a->kProj, H, h, qP, a->kS, k + KROW(j) * a->kS, kh + j * qP);
                    head_in(w + off[2], bv, a->vProj, H, h, vP, a->vS, v + KROW(j) * a->vS, vh + j * vP);
                }
                for (int t = 0; t < Lq; t++) {
                    int lo = a->lo[t] > 0 ? a->lo[t] : 0, hi = a->hi[t] < Lk ? a->hi[t] : Lk;
                    double *prow = pr + t * kT, mx = -INFINITY, sum = 0;
                    for (int j = 0; j < Lk; j++) {
                        double dot = 0;
                        for (int i = 0; i < qP; i++)
                            dot += qh[t * qP + i] * kh[j * qP + i];
                        prow[j] = a->scaler * dot;
                        if (j >= lo && j < hi)
                            mx = fmax(mx, prow[j]);
                    }
                    for (int j = lo; j < hi; j++)
                        sum += exp(prow[j] - mx);
                    for (int j = 0; j < Lk; j++)
                        prow[j] = j >= lo && j < hi ? exp(prow[j] - mx) / sum : 0;
                    for (int i = 0; i < vP; i++) {
                        double acc = 0;
                        for (int j = 0; j < Lk; j++)
                            acc += prow[j] * vh[j * vP + i];
                        hcat[t * HvP + h * vP + i] = acc;
                    }
                    /* dh_h: the head's part of dout through W_O (column-major oLen x H*vP) */
                    const double *go = dout + OROW(t) * oLen;
                    for (int i = 0; i < vP; i++) {
                        double acc = 0;
                        if (a->oProj)
                            for (int o = 0; o < oLen; o++)
                                acc += w[off[3] + o + (int64_t)(h * vP + i) * oLen] * go[o];
                        else
                            acc = go[h * vP + i];
                        dh[t * vP + i] = acc;
                    }
                }
                /* through the softmax and the two products */
                memset(dkh, 0, sizeof(double) * (size_t)Lk * qP);
                memset(dvh, 0, sizeof(double) * (size_t)Lk * vP);
                for (int t = 0; t < Lq; t++) {
                    const double *prow = pr + t * kT;
                    double pdp = 0;
                    for (int j = 0; j < Lk; j++) {
                        double dp = 0;
                        for (int i = 0; i < vP; i++)
                            dp += dh[t * vP + i] * vh[j * vP + i];
                        ds[j] = dp;
                        pdp += prow[j] * dp;
                    }
                    for (int j = 0; j < Lk; j++) {
                        ds[j] = prow[j] * (ds[j] - pdp);
                        for (int i = 0; i < vP; i++)
                            dvh[j * vP + i] += prow[j] * dh[t * vP + i];
                        for (int i = 0; i < qP; i++)
                            dkh[j * qP + i] += a->scaler * ds[j] * qh[t * qP + i];
                    }
                    for (int i = 0; i < qP; i++) {
                        double acc = 0;
                        for (int j = 0; j < Lk; j++)
                            acc += ds[j] * kh[j * qP + i];
                        dqh[i] = a->scaler * acc;
                    }
                    head_in_back(w + off[0], dw + off[0], dbq, a->qProj, H, h, qP, a->qS, q + QROW(t) * a->qS, dqh,
                                 dq + QROW(t) * a->qS);
                }
                for (int j = 0; j < Lk; j++) {
                    head_in_back(w + off[1], dw + off[1], dbk, a->kProj, H, h, qP, a->kS, k + KROW(j) * a->kS,
                                 dkh + j * qP, dk + KROW(j) * a->kS);
                    head_in_back(w + off[2], dw + off[2], dbv, a->vProj, H, h, vP, a->vS, v + KROW(j) * a->vS,
                                 dvh + j * vP, dv + KROW(j) * a->vS);
                }
            }
            if (a->oProj) /* out = W_O hcat + b_O */
                for (int t = 0; t < Lq; t++) {
                    const double *go = dout + OROW(t) * oLen;
                    for (int o = 0; o < oLen; o++) {
                        for (int c = 0; c < HvP; c++)
                            dw[off[3] + o + (int64_t)c * oLen] += go[o] * hcat[t * HvP + c];
                        if (dbo)
                            dbo[o] += go[o];
                    }
                }
#undef QROW
#undef OROW
#undef KROW
        }
    free(qh), free(kh), free(vh), free(pr), free(dh), free(hcat), free(ds), free(dqh), free(dkh), free(dvh);
}

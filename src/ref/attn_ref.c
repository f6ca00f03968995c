/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference multi-head attention forward (formulas in attn_ref.h):
 * one query vector and one head at a time, every projection recomputed. */
#include "ref/attn_ref.h"

#include <math.h>
#include <stdlib.h>

typedef struct sizes {
    int qP, vP, oLen;
    int64_t wq, wk, wv, wo, bq, bk, bv, bo, total; /* offsets into the weight buffer */
} sizes_t;

static sizes_t
sizes_of(const fdnn_ref_attn_t *a)
{
    sizes_t s;
    int64_t H = a->H;
    s.qP = a->qProj ? a->qProj : a->qS;
    s.vP = a->vProj ? a->vProj : a->vS;
    s.oLen = a->oProj ? a->oProj : a->H * s.vP;
    s.wq = 0;
    s.wk = s.wq + (a->qProj ? H * a->qProj * a->qS : 0);
    s.wv = s.wk + (a->kProj ? H * a->kProj * a->kS : 0);
    s.wo = s.wv + (a->vProj ? H * a->vProj * a->vS : 0);
    s.bq = s.wo + (a->oProj ? a->oProj * H * s.vP : 0);
    s.bk = s.bq + (a->biases && a->qProj ? H * a->qProj : 0);
    s.bv = s.bk + (a->biases && a->kProj ? H * a->kProj : 0);
    s.bo = s.bv + (a->biases && a->vProj ? H * a->vProj : 0);
    s.total = s.bo + (a->biases && a->oProj ? a->oProj : 0);
    return s;
}

int64_t
fdnn_ref_attn_weight_count(const fdnn_ref_attn_t *a)
{
    return sizes_of(a).total;
}

void
fdnn_ref_attn_weight_offsets(const fdnn_ref_attn_t *a, int64_t off[8])
{
    sizes_t s = sizes_of(a);
    int64_t o[8] = {s.wq, s.wk, s.wv, s.wo, s.bq, s.bk, s.bv, s.bo};
    for (int i = 0; i < 8; i++)
        off[i] = o[i];
}

/* y = W_h x + b_h for one head of a projection stored column-major
 * (H*P) x S: element (h, p, s) at (h*P + p) + s*H*P. */
static void
proj(const double *w, const double *bias, int H, int h, int P, int S, const double *x, double *y)
{
    for (int p = 0; p < P; p++) {
        double acc = bias ? bias[h * P + p] : 0;
        for (int s = 0; s < S; s++)
            acc += w[(int64_t)(h * P + p) + (int64_t)s * H * P] * x[s];
        y[p] = acc;
    }
}

void
fdnn_ref_attn_forward(const fdnn_ref_attn_t *a, const double *w, const double *q, const double *residual,
                      const double *k, const double *v, double *out, bool *written)
{
    sizes_t s = sizes_of(a);
    int H = a->H, kv_beam = a->one_to_one ? a->beam : 1;
    double *qh = malloc(sizeof(double) * (size_t)s.qP), *kh = malloc(sizeof(double) * (size_t)s.qP);
    double *vh = malloc(sizeof(double) * (size_t)s.vP), *hcat = malloc(sizeof(double) * (size_t)H * s.vP);
    double *sc = malloc(sizeof(double) * (size_t)(a->kT + 1));
    for (int b = 0; b < a->batch; b++)
        for (int m = 0; m < a->beam; m++) {
            int mk = a->one_to_one ? m : 0, Lq = a->q_len[b * a->beam + m], Lk = a->k_len[b * kv_beam + mk];
            for (int t = 0; t < a->qT; t++) {
                int64_t orow = t * a->o_st[0] + b * a->o_st[1] + m * a->o_st[2];
                bool on = t < Lq && (a->curr < 0 || t == a->curr);
                written[orow] = on;
                if (!on)
                    continue;
                const double *qv = q + (t * a->q_st[0] + b * a->q_st[1] + m * a->q_st[2]) * a->qS;
                int lo = a->lo[t] > 0 ? a->lo[t] : 0, hi = a->hi[t] < Lk ? a->hi[t] : Lk;
                for (int h = 0; h < H; h++) {
                    if (a->qProj)
                        proj(w + s.wq, a->biases ? w + s.bq : NULL, H, h, s.qP, a->qS, qv, qh);
                    else
                        for (int i = 0; i < s.qP; i++)
                            qh[i] = qv[i];
                    double mx = -INFINITY;
                    for (int j = lo; j < hi; j++) {
                        const double *kv = k + (j * a->k_st[0] + b * a->k_st[1] + mk * a->k_st[2]) * a->kS;
                        if (a->kProj)
                            proj(w + s.wk, a->biases ? w + s.bk : NULL, H, h, s.qP, a->kS, kv, kh);
                        else
                            for (int i = 0; i < s.qP; i++)
                                kh[i] = kv[i];
                        double dot = 0;
                        for (int i = 0; i < s.qP; i++)
                            dot += qh[i] * kh[i];
                        sc[j - lo] = a->scaler * dot;
                        mx = fmax(mx, sc[j - lo]);
                    }
                    double sum = 0;
                    for (int j = lo; j < hi; j++)
                        sum += exp(sc[j - lo] - mx);
                    double *hv = hcat + (int64_t)h * s.vP;
                    for (int i = 0; i < s.vP; i++)
                        hv[i] = 0;
                    for (int j = lo; j < hi; j++) {
                        const double *vv = v + (j * a->k_st[0] + b * a->k_st[1] + mk * a->k_st[2]) * a->vS;
                        if (a->vProj)
                            proj(w + s.wv, a->biases ? w + s.bv : NULL, H, h, s.vP, a->vS, vv, vh);
                        else
                            for (int i = 0; i < s.vP; i++)
                                vh[i] = vv[i];
                        double aj = exp(sc[j - lo] - mx) / sum;
                        if (a->attn_drop)
                            aj *= a->attn_drop[(((int64_t)(b * a->beam + m) * H + h) * a->qT + t) * a->kT + j];
                        for (int i = 0; i < s.vP; i++)
                            hv[i] += aj * vh[i];
                    }
                }
                double *o = out + orow * s.oLen;
                for (int i = 0; i < s.oLen; i++) {
                    double acc;
                    if (a->oProj) {
                        /* W_O column-major oLen x (H*vP): element (o, c) at o + c*oLen */
                        acc = a->biases ? w[s.bo + i] : 0;
                        for (int c = 0; c < H * s.vP; c++)
                            acc += w[s.wo + i + (int64_t)c * s.oLen] * hcat[c];
                    } else {
                        acc = hcat[i];
                    }
                    int64_t qrow = t * a->q_st[0] + b * a->q_st[1] + m * a->q_st[2];
                    if (a->post_drop)
                        acc *= a->post_drop[qrow * s.oLen + i];
                    if (residual)
                        acc += residual[qrow * a->qS + i];
                    o[i] = acc;
                }
            }
        }
    free(qh), free(kh), free(vh), free(hcat), free(sc);
}

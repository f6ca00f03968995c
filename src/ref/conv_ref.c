/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference convolution.  See conv_ref.h for the formulas; every
 * function below is the formula with the loops written out. */
#include "ref/conv_ref.h"

#include <string.h>

/* Offset of tap q (d, h, w) in a packed K,C/g,D,H,W filter, honouring the
 * CONVOLUTION mode's reversed kernel. */
static int64_t
tap_offset(const fdnn_conv_problem_t *p, int64_t qd, int64_t qh, int64_t qw)
{
    if (p->flip) {
        qd = p->ker[0] - 1 - qd;
        qh = p->ker[1] - 1 - qh;
        qw = p->ker[2] - 1 - qw;
    }
    return (qd * p->ker[1] + qh) * p->ker[2] + qw;
}

/* Calls term(ctx, yi, xi, wi) for every (n, k, c, o, q) whose input
 * position o*stride - pad + q*dil lies inside the input, with yi, xi, wi the
 * packed indices of the y, x and w elements of that term: the one loop nest
 * the three directions share. */
typedef struct terms {
    const double *a, *b;
    double *out;
} terms_t;

static void
for_each_term(const fdnn_conv_problem_t *p, void (*term)(terms_t *, int64_t, int64_t, int64_t), terms_t *t)
{
    int64_t cg = p->c / p->g, kg = p->k / p->g;
    int64_t taps = p->ker[0] * p->ker[1] * p->ker[2];
    int64_t osp = p->out[0] * p->out[1] * p->out[2];
    int64_t isp = p->in[0] * p->in[1] * p->in[2];
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t c = 0; c < cg; c++) {
                int64_t ci = (k / kg) * cg + c; /* input channel of group g(k) */
                for (int64_t od = 0; od < p->out[0]; od++)
                    for (int64_t oh = 0; oh < p->out[1]; oh++)
                        for (int64_t ow = 0; ow < p->out[2]; ow++)
                            for (int64_t qd = 0; qd < p->ker[0]; qd++)
                                for (int64_t qh = 0; qh < p->ker[1]; qh++)
                                    for (int64_t qw = 0; qw < p->ker[2]; qw++) {
                                        int64_t id = od * p->stride[0] - p->pad[0] + qd * p->dil[0];
                                        int64_t ih = oh * p->stride[1] - p->pad[1] + qh * p->dil[1];
                                        int64_t iw = ow * p->stride[2] - p->pad[2] + qw * p->dil[2];
                                        if (id < 0 || id >= p->in[0] || ih < 0 || ih >= p->in[1] || iw < 0 ||
                                            iw >= p->in[2])
                                            continue; /* zero padding */
                                        int64_t yi = (n * p->k + k) * osp + (od * p->out[1] + oh) * p->out[2] + ow;
                                        int64_t xi = (n * p->c + ci) * isp + (id * p->in[1] + ih) * p->in[2] + iw;
                                        int64_t wi = (k * cg + c) * taps + tap_offset(p, qd, qh, qw);
                                        term(t, yi, xi, wi);
                                    }
            }
}

static void
fwd_term(terms_t *t, int64_t yi, int64_t xi, int64_t wi)
{
    t->out[yi] += t->a[xi] * t->b[wi]; /* a = x, b = w */
}

static void
bwd_data_term(terms_t *t, int64_t yi, int64_t xi, int64_t wi)
{
    t->out[xi] += t->a[yi] * t->b[wi]; /* a = dy, b = w */
}

static void
bwd_filter_term(terms_t *t, int64_t yi, int64_t xi, int64_t wi)
{
    t->out[wi] += t->a[yi] * t->b[xi]; /* a = dy, b = x */
}

void
fdnn_ref_conv_fwd(const fdnn_conv_problem_t *p, const double *x, const double *w, double *y)
{
    memset(y, 0, sizeof(double) * (size_t)(p->n * p->k * p->out[0] * p->out[1] * p->out[2]));
    terms_t t = {x, w, y};
    for_each_term(p, fwd_term, &t);
}

void
fdnn_ref_conv_bwd_data(const fdnn_conv_problem_t *p, const double *dy, const double *w, double *dx)
{
    memset(dx, 0, sizeof(double) * (size_t)(p->n * p->c * p->in[0] * p->in[1] * p->in[2]));
    terms_t t = {dy, w, dx};
    for_each_term(p, bwd_data_term, &t);
}

void
fdnn_ref_conv_bwd_filter(const fdnn_conv_problem_t *p, const double *x, const double *dy, double *dw)
{
    memset(dw, 0, sizeof(double) * (size_t)(p->k * (p->c / p->g) * p->ker[0] * p->ker[1] * p->ker[2]));
    terms_t t = {dy, x, dw};
    for_each_term(p, bwd_filter_term, &t);
}

void
fdnn_ref_conv_bwd_bias(const fdnn_conv_problem_t *p, const double *dy, double *db)
{
    int64_t osp = p->out[0] * p->out[1] * p->out[2];
    for (int64_t k = 0; k < p->k; k++) {
        double s = 0;
        for (int64_t n = 0; n < p->n; n++)
            for (int64_t o = 0; o < osp; o++)
                s += dy[(n * p->k + k) * osp + o];
        db[k] = s;
    }
}

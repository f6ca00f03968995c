/* SPDX-License-Identifier: Apache-2.0
 * CTC loss: the log-space alpha-beta recursion of ctc.h, one sample per task.
 *
 * Workspace: N label offsets (int64), then one slot per sample of
 *   log y   T x A doubles   (log-probabilities of the sample's time steps)
 *   alpha   T x S doubles   (S = 2 * max_label + 1)
 *   beta    2 x S doubles   (the rows t and t + 1)
 *   occ     A doubles       (posterior occupancy of each class at t)
 * The recursion is a chain of exp/log over the extended label sequence, so
 * it is plain portable C: there is no ISA-specific path (libm dominates). */
#include "cpu/ctc/ctc.h"

#include <math.h>
#include <string.h>

#include "core/ckd.h"

size_t
fdnn_ctc_workspace_bytes(int64_t T, int64_t N, int64_t A, int max_label)
{
    /* Checked (src/core/ckd.h): SIZE_MAX when it does not fit, which the
     * API reports as BAD_PARAM.  max_label < 2^31, so S fits. */
    const int64_t S = 2 * (int64_t)max_label + 1;
    int64_t slot = 0, elems;
    size_t total;
    if (!fdnn_ckd_madd_i64(&slot, T, S + A) || !fdnn_ckd_add_i64(slot, 2 * S + A, &slot) ||
        !fdnn_ckd_mul_i64(slot, N, &elems) || !fdnn_ckd_add_i64(elems, N, &elems) ||
        !fdnn_ckd_bytes(elems, sizeof(double), &total))
        return SIZE_MAX;
    return total;
}

/* log(e^a + e^b).  Both -inf gives -inf; a NaN operand gives NaN (it is
 * either the max or goes through exp). */
static inline double
lse2(double a, double b)
{
    double m = a > b ? a : b, d = a > b ? b : a;
    if (d == -INFINITY)
        return m;
    return m + log1p(exp(d - m));
}

/* log(e^a + e^b + e^c), same conventions. */
static inline double
lse3(double a, double b, double c)
{
    double m = a > b ? a : b;
    m = m > c ? m : c;
    if (m == -INFINITY)
        return a + b + c; /* -inf, or NaN when one is NaN */
    return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

/* The states s of time t that lie on some complete path: at most 2t + 1
 * (reached from the start) and at least S - 2 (Tb - t) (can still reach the
 * end).  Outside [lo, hi) alpha and beta are -inf; skipping them is exact. */
static inline void
live_states(int64_t t, int64_t Tb, int64_t S, int64_t *lo, int64_t *hi)
{
    int64_t l = S - 2 * (Tb - t), h = 2 * t + 2;
    *lo = l > 0 ? l : 0;
    *hi = h < S ? h : S;
}

typedef struct ctc_job {
    const fdnn_ctc_problem_t *p;
    const float *probs;
    float *costs, *grads;
    const int64_t *offsets;
    double *slots;
    int64_t slot_doubles;
} ctc_job_t;

/* l'_s: blanks at even s, the labels at odd s. */
static inline int
ext(const int *lab, int64_t s)
{
    return (s & 1) ? lab[s >> 1] : 0;
}

/* May l'_s be reached from l'_{s-2} (skipping the blank between)? */
static inline bool
skip_ok(const int *lab, int64_t s)
{
    return s >= 2 && (s & 1) && lab[s >> 1] != lab[(s >> 1) - 1];
}

static void
log_probs(const fdnn_ctc_problem_t *p, const float *probs, int64_t b, int64_t Tb, double *logy)
{
    int64_t A = p->A;
    for (int64_t t = 0; t < Tb; t++) {
        const float *x = probs + t * p->ps[0] + b * p->ps[1];
        double *ly = logy + t * A;
        if (!p->softmax) {
            for (int64_t a = 0; a < A; a++)
                ly[a] = log((double)x[a * p->ps[2]]);
            continue;
        }
        double m = -INFINITY, sum = 0;
        for (int64_t a = 0; a < A; a++)
            m = fmax(m, (double)x[a * p->ps[2]]);
        for (int64_t a = 0; a < A; a++)
            sum += exp((double)x[a * p->ps[2]] - m);
        double lz = m + log(sum);
        for (int64_t a = 0; a < A; a++)
            ly[a] = (double)x[a * p->ps[2]] - lz;
    }
}

static void
zero_rows(const fdnn_ctc_problem_t *p, float *grads, int64_t b, int64_t t0, int64_t t1, float value)
{
    for (int64_t t = t0; t < t1; t++)
        for (int64_t a = 0; a < p->A; a++)
            grads[t * p->gs[0] + b * p->gs[1] + a * p->gs[2]] = value;
}

static void
ctc_sample(void *arg, size_t bi)
{
    const ctc_job_t *j = arg;
    const fdnn_ctc_problem_t *p = j->p;
    int64_t b = (int64_t)bi, A = p->A, Tb = p->input_lengths[b], L = p->label_lengths[b], S = 2 * L + 1;
    int64_t Smax = 2 * (int64_t)p->max_label + 1;
    const int *lab = p->labels + j->offsets[b];
    double *logy = j->slots + b * j->slot_doubles, *alpha = logy + p->T * A, *beta = alpha + p->T * Smax;
    double *occ = beta + 2 * Smax;

    zero_rows(p, j->grads, b, Tb, p->T, 0.0f);
    if (Tb == 0) { /* the empty input emits exactly the empty label */
        j->costs[b] = L == 0 ? 0.0f : INFINITY;
        return;
    }
    log_probs(p, j->probs, b, Tb, logy);

    /* forward */
    int64_t lo, hi;
    live_states(0, Tb, S, &lo, &hi);
    for (int64_t s = 0; s < S; s++)
        alpha[s] = s < lo || s >= hi ? -INFINITY : s == 0 ? logy[0] : logy[lab[0]];
    for (int64_t t = 1; t < Tb; t++) {
        const double *prev = alpha + (t - 1) * Smax, *ly = logy + t * A;
        double *cur = alpha + t * Smax;
        live_states(t, Tb, S, &lo, &hi);
        for (int64_t s = 0; s < lo; s++)
            cur[s] = -INFINITY;
        for (int64_t s = lo; s < hi; s++) {
            double v = s == 0 ? prev[0] : skip_ok(lab, s) ? lse3(prev[s], prev[s - 1], prev[s - 2])
                                                          : lse2(prev[s], prev[s - 1]);
            cur[s] = v + ly[ext(lab, s)];
        }
        for (int64_t s = hi; s < S; s++)
            cur[s] = -INFINITY;
    }
    const double *last = alpha + (Tb - 1) * Smax;
    double logp = lse3(last[S - 1], S >= 2 ? last[S - 2] : -INFINITY, -INFINITY);
    j->costs[b] = (float)-logp;
    if (!isfinite(logp)) { /* no alignment (or NaN input): no usable gradient */
        zero_rows(p, j->grads, b, 0, Tb, p->propagate_nan ? NAN : 0.0f);
        return;
    }

    /* backward, with the gradient of each time step as soon as beta[t] is known */
    double *cur = beta, *nxt = beta + Smax;
    for (int64_t s = 0; s < S; s++)
        cur[s] = s >= S - 2 ? 0.0 : -INFINITY;
    for (int64_t a = 0; a < A; a++)
        occ[a] = 0;
    for (int64_t t = Tb - 1;; t--) {
        const double *al = alpha + t * Smax, *ly = logy + t * A;
        live_states(t, Tb, S, &lo, &hi);
        for (int64_t s = lo; s < hi; s++)
            occ[ext(lab, s)] += exp(al[s] + cur[s] - logp);
        float *g = j->grads + t * p->gs[0] + b * p->gs[1];
        for (int64_t a = 0; a < A; a++) {
            g[a * p->gs[2]] = (float)(exp(ly[a]) - occ[a]);
            occ[a] = 0;
        }
        if (t == 0)
            break;
        /* beta[t-1][s] from beta[t][s'] + log y[t][l'_s'] */
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
        for (int64_t s = lo; s < hi; s++)
            nxt[s] += ly[ext(lab, s)];
        live_states(t - 1, Tb, S, &lo, &hi);
        for (int64_t s = 0; s < S; s++) {
            if (s < lo || s >= hi)
                cur[s] = -INFINITY;
            else if (s + 2 < S && skip_ok(lab, s + 2))
                cur[s] = lse3(nxt[s], nxt[s + 1], nxt[s + 2]);
            else
                cur[s] = s + 1 < S ? lse2(nxt[s], nxt[s + 1]) : nxt[s];
        }
    }
}

void
fdnn_ctc_loss(cudnnHandle_t handle, const fdnn_ctc_problem_t *p, const float *probs, float *costs, float *grads,
              void *workspace)
{
    int64_t *offsets = workspace, off = 0;
    for (int64_t b = 0; b < p->N; b++) {
        offsets[b] = off;
        off += p->label_lengths[b];
    }
    int64_t Smax = 2 * (int64_t)p->max_label + 1; /* the slot layout of fdnn_ctc_workspace_bytes */
    ctc_job_t j = {.p = p, .probs = probs, .costs = costs, .grads = grads, .offsets = offsets,
                   .slots = (double *)(offsets + p->N), .slot_doubles = p->T * (Smax + p->A) + 2 * Smax + p->A};
    fdnn_parallelize_1d(fdnn_handle_pool(handle), ctc_sample, &j, (size_t)p->N, 0);
}

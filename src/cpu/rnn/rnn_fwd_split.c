/* SPDX-License-Identifier: Apache-2.0
 * fdnn_rnn_fwd_split: the FP32 forward time loop with the hidden units
 * split over the threads (see rnn_fwd_split.h for why and the contract).
 *
 * Thread t's columns: the gates of its units, gate-major ("local column"
 * c = q * nu + (u - u0)), packed once into strips of the tile's nr columns
 * (a strip may span two gates); its recurrent gates go to its own
 * Gr [B][cols].  The cells then read G (input part, shared rows, disjoint
 * columns) and Gr and write the new h into the other h buffer.  The
 * parts are the items of one parallel step, one per thread; they meet
 * once per time step (split_task). */
#include "cpu/rnn/rnn_fwd_split.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define split_relax() _mm_pause()
#else
#define split_relax() ((void)0)
#endif

#include "core/handle.h"
#include "core/memory.h"
#include "core/os.h"
#include "cpu/config/config.h"
#include "cpu/kernels/gemm_ukernel.h"
#include "cpu/rnn/rnn_internal.h"
#include "cpu/rnn/stage_io.h"
#include "cpu/simd/simd.h"

/* Units are handed out in blocks of 16 (a vector of the widest level), so
 * the SIMD functions see the same lanes whatever the split. */
#define UNIT_BLOCK 16
/* Spins of a wait before it yields the core. */
#define WAIT_SPINS 2000

static void
wait_a_little(unsigned n)
{
    if (n < WAIT_SPINS)
        split_relax();
    else
        fdnn_os_yield();
}

typedef struct split_part {
    int64_t u0, nu, cols, strips;
    float *pk;   /* strips x [P][nr], zero padded */
    float *gr;   /* [B][cols] recurrent gates */
    float *bias; /* [strips * nr] GRU bR of the local columns, or NULL */
    float *tmp;  /* [nr][P] rows of a strip that spans two gates */
    bool packed; /* pk (and bias) filled: by the part's first claimer */
    /* The last step claimed and the last step done (-1: none); joined:
     * the owner (the thread running item i) is in the loop. */
    _Atomic int64_t claimed, done;
    _Atomic bool joined;
} split_part_t;

typedef struct split_job {
    const fdnn_rnn_problem_t *p;
    const fdnn_rnn_ctx_t *ctx;
    const fdnn_rnn_split_dir_t *a;
    fdnn_sgemm_tile_t tile;
    float *hb[2];
    split_part_t *parts;
    size_t nparts;
    _Atomic int64_t step; /* the step being run: every part done before it */
} split_job_t;

static fdnn_sgemm_tile_t
recur_tile(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p)
{
    /* The probe of fdnn_sgemm_bpack_init for the generic loop's product
     * (m = B, n = gH, k = H, op(B) = R^T): the same tile, so the same
     * arithmetic. */
    size_t g = (size_t)gh(p), k = (size_t)p->proj;
    fdnn_sgemm_args_t probe = {.m = (size_t)p->B, .n = g, .k = k, .trans_b = true, .alpha = 1.0f, .lda = k,
                               .ldb = k, .ldc = g};
    return fdnn_isa_config(ctx->isa)->sgemm_tile(&probe);
}

bool
fdnn_rnn_fwd_split_ok(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p)
{
    if (p->dtype == CUDNN_DATA_DOUBLE || p->lowp != NULL || p->proj != p->hidden || p->B < 1 || p->T < 1)
        return false;
    fdnn_sgemm_tile_t t = recur_tile(ctx, p);
    return t.pack_b == NULL && t.arows != NULL && t.nr > 0 && t.nr <= 64 && t.mr > 0;
}

static inline float
clip_cell(const fdnn_rnn_problem_t *p, float c)
{
    if (!p->clip)
        return c;
    if (c != c)
        return p->clip_nan ? c : p->rclip;
    return c < p->lclip ? p->lclip : c > p->rclip ? p->rclip : c;
}

static inline void
round_h(const fdnn_rnn_problem_t *p, float *v, int64_t n)
{
    if (p->round_half)
        fdnn_stage_round_f16(v, n);
}

/* R row of thread part's local column c. */
static const float *
local_row(const split_job_t *j, const split_part_t *pt, int64_t c)
{
    int64_t H = j->p->hidden;
    return j->a->R + ((c / pt->nu) * H + pt->u0 + c % pt->nu) * j->p->proj;
}

/* Packs the part's strips: dst[p * nr + r] = R row (local column s*nr+r)[p]. */
static void
pack_part(const split_job_t *j, split_part_t *pt)
{
    size_t nr = j->tile.nr, k = (size_t)j->p->proj;
    for (int64_t s = 0; s < pt->strips; s++) {
        int64_t c0 = s * (int64_t)nr, w = pt->cols - c0 < (int64_t)nr ? pt->cols - c0 : (int64_t)nr;
        float *dst = pt->pk + (size_t)s * k * nr;
        const float *src = local_row(j, pt, c0);
        if (c0 / pt->nu != (c0 + w - 1) / pt->nu) { /* spans two gates: gather the rows first */
            for (int64_t r = 0; r < w; r++)
                memcpy(pt->tmp + (size_t)r * k, local_row(j, pt, c0 + r), k * sizeof(float));
            src = pt->tmp;
        }
        if (j->tile.pack_t != NULL) {
            j->tile.pack_t((size_t)w, k, src, k, dst, nr);
            continue;
        }
        for (size_t q = 0; q < k; q++)
            for (size_t r = 0; r < nr; r++)
                dst[q * nr + r] = (int64_t)r < w ? src[r * k + q] : 0.0f;
    }
    if (pt->bias != NULL) {
        memset(pt->bias, 0, (size_t)pt->strips * nr * sizeof(float));
        int64_t H = j->p->hidden;
        for (int64_t c = 0; c < pt->cols; c++)
            pt->bias[c] = j->a->br[(c / pt->nu) * H + pt->u0 + c % pt->nu];
    }
}

/* gr [B][cols] = hc [B][P] (local columns of R)^T (+ bias). */
static void
recur_part(const split_job_t *j, const split_part_t *pt, const float *hc)
{
    size_t nr = j->tile.nr, mr = j->tile.mr, k = (size_t)j->p->proj, B = (size_t)j->p->B;
    for (int64_t s = 0; s < pt->strips; s++) {
        size_t c0 = (size_t)s * nr, w = (size_t)pt->cols - c0 < nr ? (size_t)pt->cols - c0 : nr;
        fdnn_f32_gemm_arows_ukernel_fn uk =
            w <= nr / 2 && j->tile.arows_half != NULL ? j->tile.arows_half : j->tile.arows;
        fdnn_f32_gemm_epilogue_t ep = {.alpha = 1.0f, .beta = 0.0f,
                                       .bias_col = pt->bias != NULL ? pt->bias + c0 : NULL};
        const float *bp = pt->pk + (size_t)s * k * nr;
        for (size_t i0 = 0; i0 < B; i0 += mr) {
            size_t rows = B - i0 < mr ? B - i0 : mr;
            uk(rows, w, k, hc + i0 * k, k, bp, nr, pt->gr + i0 * (size_t)pt->cols + c0, (size_t)pt->cols, &ep);
        }
    }
}

static void
sigm_n(const split_job_t *j, float *v, int64_t n)
{
    fdnn_simd_f32_apply(j->ctx->isa, FDNN_SIMD_SIGMOID, v, v, (size_t)n);
}

static void
tanh_n(const split_job_t *j, float *v, int64_t n)
{
    fdnn_simd_f32_apply(j->ctx->isa, FDNN_SIMD_TANH, v, v, (size_t)n);
}

/* The cells of the part's units at time t, every batch row: rnn_t.inc's
 * fstep_row on the columns [u0, u0 + nu) of each gate. */
static void
cells_part(const split_job_t *j, const split_part_t *pt, int64_t t, const float *hc, float *hn)
{
    const fdnn_rnn_problem_t *p = j->p;
    const fdnn_rnn_split_dir_t *a = j->a;
    int64_t H = p->hidden, g = gh(p), DP = p->dirs * H, u0 = pt->u0, nu = pt->nu, gates = p->gates;
    size_t bytes = (size_t)nu * sizeof(float);
    for (int64_t b = 0; b < p->B; b++) {
        int64_t row = t * p->B + b;
        float *y = a->Y + row * DP + a->d * H + u0;
        float *G = a->G + row * g;
        float *hnb = hn + b * H + u0;
        const float *hcb = hc + b * H + u0;
        if (t >= p->lens[b]) { /* padding: outputs zero, the state carries on */
            memset(y, 0, bytes);
            memcpy(hnb, hcb, bytes);
            if (a->A != NULL)
                for (int64_t q = 0; q < gates; q++)
                    memset(a->A + row * g + q * H + u0, 0, bytes);
            if (a->C != NULL)
                memset(a->C + row * H + u0, 0, bytes);
            if (a->Rh != NULL)
                memset(a->Rh + row * H + u0, 0, bytes);
            continue;
        }
        const float *Rg = pt->gr + b * pt->cols;
        if (p->cell == CUDNN_LSTM) {
            float *gi = G + u0, *gf = G + H + u0, *gg = G + 2 * H + u0, *go = G + 3 * H + u0;
            for (int64_t q = 0; q < 4; q++) {
                float *gq = G + q * H + u0;
                const float *rq = Rg + q * nu;
                for (int64_t k = 0; k < nu; k++)
                    gq[k] += rq[k];
                round_h(p, gq, nu);
            }
            sigm_n(j, gi, nu);
            sigm_n(j, gf, nu);
            tanh_n(j, gg, nu);
            sigm_n(j, go, nu);
            float *c = a->c + b * H + u0;
            for (int64_t k = 0; k < nu; k++)
                c[k] = clip_cell(p, gf[k] * c[k] + gi[k] * gg[k]);
            round_h(p, c, nu);
            memcpy(y, c, bytes);
            tanh_n(j, y, nu);
            for (int64_t k = 0; k < nu; k++)
                y[k] = go[k] * y[k];
            round_h(p, y, nu);
            memcpy(hnb, y, bytes);
            if (a->C != NULL)
                memcpy(a->C + row * H + u0, c, bytes);
        } else if (p->cell == CUDNN_GRU) {
            float *gr = G + u0, *gz = G + H + u0, *gn = G + 2 * H + u0;
            const float *rr = Rg, *rz = Rg + nu, *rn = Rg + 2 * nu;
            for (int64_t k = 0; k < nu; k++)
                gr[k] += rr[k];
            for (int64_t k = 0; k < nu; k++)
                gz[k] += rz[k];
            round_h(p, gr, nu);
            round_h(p, gz, nu);
            sigm_n(j, gr, nu);
            sigm_n(j, gz, nu);
            for (int64_t k = 0; k < nu; k++)
                gn[k] += gr[k] * rn[k];
            round_h(p, gn, nu);
            tanh_n(j, gn, nu);
            for (int64_t k = 0; k < nu; k++)
                hnb[k] = (1.0f - gz[k]) * gn[k] + gz[k] * hcb[k];
            round_h(p, hnb, nu);
            memcpy(y, hnb, bytes);
            if (a->Rh != NULL)
                memcpy(a->Rh + row * H + u0, rn, bytes);
        } else {
            float *g0 = G + u0;
            for (int64_t k = 0; k < nu; k++)
                g0[k] += Rg[k];
            round_h(p, g0, nu);
            if (p->cell == CUDNN_RNN_TANH)
                tanh_n(j, g0, nu);
            else
                for (int64_t k = 0; k < nu; k++)
                    g0[k] = g0[k] > 0.0f ? g0[k] : 0.0f;
            round_h(p, g0, nu);
            memcpy(hnb, g0, bytes);
            memcpy(y, g0, bytes);
        }
    }
}

/* Part i of step s (claimed by the caller). */
static void
run_part(split_job_t *j, split_part_t *pt, int64_t s)
{
    const fdnn_rnn_problem_t *p = j->p;
    if (pt->nu > 0) {
        if (!pt->packed) {
            pack_part(j, pt);
            pt->packed = true;
        }
        int64_t t = j->a->d == 0 ? s : p->T - 1 - s;
        const float *hc = j->hb[s & 1];
        recur_part(j, pt, hc);
        cells_part(j, pt, t, hc, j->hb[(s + 1) & 1]);
    }
    atomic_store(&pt->done, s);
}

static bool
claim(split_part_t *pt, int64_t s)
{
    int64_t prev = s - 1;
    return atomic_compare_exchange_strong(&pt->claimed, &prev, s);
}

/* Item `it`: the owner of part `it`.  Each step, a thread runs its own part,
 * then waits until every part is done; a part whose owner has not joined
 * (the pool hands items to threads that come and go, and a thread may start
 * the item only after the others have finished: an item must never wait
 * for an item nobody runs), or has not claimed it within the spins, is run
 * by whoever waits for it.  Parts are
 * claimed by compare-and-swap, so each runs once per step.  Step s reads
 * h from hb[s & 1] and writes hb[(s + 1) & 1]; no part starts step s + 1
 * before every part finished step s (every read of hb[s & 1] done). */
static void
split_task(void *arg, size_t it)
{
    split_job_t *j = arg;
    const fdnn_rnn_problem_t *p = j->p;
    split_part_t *own = &j->parts[it];
    atomic_store(&own->joined, true);
    for (;;) {
        int64_t s = atomic_load(&j->step);
        if (s >= p->T)
            break;
        if (claim(own, s))
            run_part(j, own, s);
        for (unsigned n = 0;; n++) {
            bool all = true;
            for (size_t i = 0; i < j->nparts; i++) {
                split_part_t *pt = &j->parts[i];
                if (atomic_load(&pt->done) >= s)
                    continue;
                all = false;
                /* Another owner's part only when it has not joined, or
                 * has kept it waiting past the spins (descheduled: more
                 * threads than free cores). */
                if ((n >= WAIT_SPINS || !atomic_load(&pt->joined)) && claim(pt, s))
                    run_part(j, pt, s);
            }
            if (all)
                break;
            wait_a_little(n);
        }
        int64_t cur = s;
        atomic_compare_exchange_strong(&j->step, &cur, s + 1);
    }
}

static size_t
up16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

bool
fdnn_rnn_fwd_split(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const fdnn_rnn_split_dir_t *a)
{
    size_t nth = fdnn_pool_threads(ctx->pool);
    split_job_t j = {.p = p, .ctx = ctx, .a = a, .tile = recur_tile(ctx, p)};
    j.parts = calloc(nth, sizeof(*j.parts));
    if (j.parts == NULL)
        return false;
    int64_t H = p->hidden, B = p->B, nb = (H + UNIT_BLOCK - 1) / UNIT_BLOCK;
    size_t nr = j.tile.nr, k = (size_t)H, floats = up16((size_t)(B * H));
    for (size_t t = 0; t < nth; t++) {
        split_part_t *pt = &j.parts[t];
        int64_t b0 = nb * (int64_t)t / (int64_t)nth, b1 = nb * (int64_t)(t + 1) / (int64_t)nth;
        int64_t u1 = b1 * UNIT_BLOCK < H ? b1 * UNIT_BLOCK : H;
        pt->u0 = b0 * UNIT_BLOCK < H ? b0 * UNIT_BLOCK : H;
        pt->nu = u1 - pt->u0;
        pt->cols = p->gates * pt->nu;
        pt->strips = (pt->cols + (int64_t)nr - 1) / (int64_t)nr;
        floats += up16((size_t)pt->strips * nr * k) + up16((size_t)(B * pt->cols)) + up16(nr * k) +
                  (p->cell == CUDNN_GRU && a->br != NULL ? up16((size_t)pt->strips * nr) : 0);
    }
    size_t bytes = floats * sizeof(float) + 64;
    void *own = NULL;
    float *buf = ctx->handle != NULL ? fdnn_handle_scratch(ctx->handle, bytes) : NULL;
    if (buf == NULL) {
        own = fdnn_aligned_alloc(bytes);
        if (own == NULL) {
            free(j.parts);
            return false;
        }
        buf = own;
    }
    float *q = (float *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    j.hb[0] = a->h;
    j.hb[1] = q, q += up16((size_t)(B * H));
    for (size_t t = 0; t < nth; t++) {
        split_part_t *pt = &j.parts[t];
        pt->pk = q, q += up16((size_t)pt->strips * nr * k);
        pt->gr = q, q += up16((size_t)(B * pt->cols));
        pt->tmp = q, q += up16(nr * k);
        pt->bias = NULL;
        if (p->cell == CUDNN_GRU && a->br != NULL)
            pt->bias = q, q += up16((size_t)pt->strips * nr);
    }
    j.nparts = nth;
    for (size_t t = 0; t < nth; t++) {
        atomic_init(&j.parts[t].claimed, -1);
        atomic_init(&j.parts[t].done, -1);
        atomic_init(&j.parts[t].joined, false);
    }
    atomic_init(&j.step, 0);
    fdnn_parallelize_1d(ctx->pool, split_task, &j, nth, 0);
    if (p->T & 1)
        memcpy(a->h, j.hb[1], (size_t)(B * H) * sizeof(float));
    free(j.parts);
    fdnn_aligned_free(own);
    return true;
}

/* SPDX-License-Identifier: Apache-2.0
 * The batch-norm pass engine.  See bn_engine.h.
 *
 * Planning: the row dimension is the one with the smallest x stride; every
 * other dimension whose strides (in all tensors, the mask and the feature
 * index) continue the row's is merged into it, so packed NCHW rows cover
 * H*W and packed NHWC rows cover C.  The remaining dimensions enumerate the
 * rows.  Long rows are cut into segments of BN_SEGMENT elements; an item is
 * one segment, and items are dealt to chunks in contiguous ranges. */
#include "cpu/batchnorm/bn_engine.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/tensor.h"
#include "cpu/config/config.h"

/* Reduction chunks keep 2*F partial sums each; their number is capped so
 * that the partials stay within this many doubles (16 MiB). */
#define BN_PARTIAL_BUDGET ((int64_t)1 << 21)
#define BN_BUFFERS 3
/* Below this many elements a pass runs on the calling thread: waking the
 * pool costs more than the work (and the chunking, hence the result, is the
 * same either way). */
#define BN_PARALLEL_MIN_ELEMENTS 32768

typedef struct layout {
    int64_t len, fs, rs[BN_NT];
    int no;
    int64_t od[CUDNN_DIM_MAX], ofs[CUDNN_DIM_MAX], os[BN_NT][CUDNN_DIM_MAX];
    int64_t rows, nseg, items;
} layout_t;

static void
plan(const bn_walk_t *w, layout_t *L)
{
    memset(L, 0, sizeof(*L));
    int r = -1;
    for (int d = 0; d < w->nd; d++)
        if (w->dims[d] > 1 && (r < 0 || w->stride[BN_X][d] <= w->stride[BN_X][r]))
            r = d;
    bool used[CUDNN_DIM_MAX] = {false};
    L->len = 1;
    if (r >= 0) {
        used[r] = true;
        L->len = w->dims[r];
        L->fs = w->fstride[r];
        for (int t = 0; t < BN_NT; t++)
            L->rs[t] = w->stride[t][r];
        for (bool merged = true; merged;) {
            merged = false;
            for (int d = 0; d < w->nd; d++) {
                if (used[d] || w->dims[d] == 1)
                    continue;
                bool ok = w->fstride[d] == L->fs * L->len;
                for (int t = 0; t < BN_NT; t++)
                    ok = ok && w->stride[t][d] == L->rs[t] * L->len;
                if (ok) {
                    L->len *= w->dims[d];
                    used[d] = true;
                    merged = true;
                }
            }
        }
    }
    L->rows = 1;
    for (int d = 0; d < w->nd; d++) {
        if (used[d] || w->dims[d] == 1)
            continue;
        int k = L->no++;
        L->od[k] = w->dims[d];
        L->ofs[k] = w->fstride[d];
        for (int t = 0; t < BN_NT; t++)
            L->os[t][k] = w->stride[t][d];
        L->rows *= w->dims[d];
    }
    L->nseg = (L->len + BN_SEGMENT - 1) / BN_SEGMENT;
    L->items = L->rows * L->nseg;
}

static int64_t
reduction_chunks(const layout_t *L, int64_t features)
{
    int64_t k = L->items < BN_MAX_CHUNKS ? L->items : BN_MAX_CHUNKS;
    int64_t cap = BN_PARTIAL_BUDGET / (2 * features);
    if (k > cap)
        k = cap;
    return k < 1 ? 1 : k;
}

static int64_t
apply_chunks(const layout_t *L)
{
    return L->items < BN_MAX_CHUNKS ? L->items : BN_MAX_CHUNKS;
}

size_t
fdnn_bn_engine_scratch(const bn_walk_t *w)
{
    layout_t L;
    plan(w, &L);
    int64_t k = reduction_chunks(&L, w->features);
    size_t bytes = fdnn_align_up((size_t)BN_MAX_CHUNKS * BN_BUFFERS * BN_SEGMENT * sizeof(double));
    return bytes + fdnn_align_up((size_t)k * 2 * (size_t)w->features * sizeof(double));
}

typedef struct task {
    const layout_t *L;
    const bn_pass_t *p;
    const fdnn_bn_kernels_t *k;
    int64_t chunks, features;
    double *bufs;
    double *partials;
    size_t esize[BN_NT];
    bool fast; /* FP32 fast path: kernels read and write the floats directly */
} task_t;

static const char *
at(const void *base, int64_t off, size_t esize)
{
    return (const char *)base + off * (int64_t)esize;
}

/* Zeroes dy' where the forward activation was inactive.  A select, not a
 * product: dy may be Inf or NaN where the gradient is cut. */
static void
apply_mask(double *dy, int64_t n, const uint8_t *mask, int64_t mstride)
{
    for (int64_t i = 0; i < n; i++)
        dy[i] = mask[i * mstride] ? dy[i] : 0.0;
}

/* Whether a pass runs on the FP32 fast path: every tensor it touches is
 * FLOAT and it has none of the fused extras (z, ReLU, mask, dz). */
static bool
fast_path(const bn_pass_t *p)
{
    if (p->dtype[BN_X] != CUDNN_DATA_FLOAT)
        return false;
    switch (p->kind) {
    case BN_PASS_STATS: return true;
    case BN_PASS_APPLY: return p->z == NULL && !p->relu && p->dtype[BN_Y] == CUDNN_DATA_FLOAT;
    case BN_PASS_BSTATS: return !p->use_mask && p->dz == NULL && p->dtype[BN_DY] == CUDNN_DATA_FLOAT;
    case BN_PASS_BAPPLY:
        return !p->use_mask && p->dtype[BN_DY] == CUDNN_DATA_FLOAT && p->dtype[BN_DX] == CUDNN_DATA_FLOAT;
    }
    return false;
}

static void
run_chunk(void *ctx, size_t chunk)
{
    const task_t *T = ctx;
    const layout_t *L = T->L;
    const bn_pass_t *p = T->p;
    const fdnn_bn_kernels_t *k = T->k;
    const int64_t F = T->features;
    int64_t i0 = L->items * (int64_t)chunk / T->chunks;
    int64_t i1 = L->items * ((int64_t)chunk + 1) / T->chunks;
    double *b0 = T->bufs + (size_t)chunk * BN_BUFFERS * BN_SEGMENT;
    double *b1 = b0 + BN_SEGMENT, *b2 = b1 + BN_SEGMENT;
    double *s1 = NULL, *s2 = NULL;
    if (T->partials != NULL) {
        s1 = T->partials + (size_t)chunk * 2 * (size_t)F;
        s2 = s1 + F;
        memset(s1, 0, 2 * (size_t)F * sizeof(double));
    }
    for (int64_t it = i0; it < i1; it++) {
        int64_t row = it / L->nseg, seg = it % L->nseg;
        int64_t off[BN_NT] = {0}, f0 = 0;
        for (int d = L->no - 1; d >= 0; d--) {
            int64_t idx = row % L->od[d];
            row /= L->od[d];
            f0 += idx * L->ofs[d];
            for (int t = 0; t < BN_NT; t++)
                off[t] += idx * L->os[t][d];
        }
        int64_t e0 = seg * BN_SEGMENT;
        int64_t n = L->len - e0 < BN_SEGMENT ? L->len - e0 : BN_SEGMENT;
        f0 += e0 * L->fs;
        for (int t = 0; t < BN_NT; t++)
            off[t] += e0 * L->rs[t];
        const uint8_t *mrow = p->mask != NULL ? p->mask + off[BN_MASK] : NULL;

        if (T->fast) {
            const float *x = (const float *)p->x + off[BN_X];
            switch (p->kind) {
            case BN_PASS_STATS: k->stats_f32(x, L->rs[BN_X], n, p->fa + f0, L->fs, s1 + f0, s2 + f0); break;
            case BN_PASS_APPLY:
                k->affine_f32((float *)p->y + off[BN_Y], L->rs[BN_Y], x, L->rs[BN_X], n, p->fa + f0, p->fb + f0,
                              L->fs, p->alpha, p->beta);
                break;
            case BN_PASS_BSTATS:
                k->bstats_f32((const float *)p->dy + off[BN_DY], L->rs[BN_DY], x, L->rs[BN_X], n, p->fa + f0,
                              L->fs, s1 + f0, s2 + f0);
                break;
            case BN_PASS_BAPPLY:
                k->affine3_f32((float *)p->dx + off[BN_DX], L->rs[BN_DX], (const float *)p->dy + off[BN_DY],
                               L->rs[BN_DY], x, L->rs[BN_X], n, p->fa + f0, p->fb + f0, p->fc + f0, L->fs, p->alpha,
                               p->beta);
                break;
            }
            continue;
        }
        k->load(b0, at(p->x, off[BN_X], T->esize[BN_X]), p->dtype[BN_X], n, L->rs[BN_X]);
        switch (p->kind) {
        case BN_PASS_STATS: k->stats(b0, n, p->fa + f0, L->fs, s1 + f0, s2 + f0); break;
        case BN_PASS_APPLY:
            k->affine(b1, b0, n, p->fa + f0, p->fb + f0, L->fs);
            if (p->z != NULL) {
                k->load(b2, at(p->z, off[BN_Z], T->esize[BN_Z]), p->dtype[BN_Z], n, L->rs[BN_Z]);
                for (int64_t i = 0; i < n; i++)
                    b1[i] += b2[i];
            }
            if (p->relu) {
                /* The mask records "passed" before the clamp; with NaN
                 * propagation a NaN passes (and its gradient too). */
                if (p->mask != NULL) {
                    uint8_t *m = p->mask + off[BN_MASK];
                    for (int64_t i = 0; i < n; i++)
                        m[i * L->rs[BN_MASK]] = b1[i] > 0.0 || (p->relu_nan && isnan(b1[i]));
                }
                if (p->relu_nan)
                    for (int64_t i = 0; i < n; i++)
                        b1[i] = b1[i] > 0.0 || isnan(b1[i]) ? b1[i] : 0.0;
                else
                    for (int64_t i = 0; i < n; i++)
                        b1[i] = b1[i] > 0.0 ? b1[i] : 0.0;
            }
            k->store((char *)p->y + off[BN_Y] * (int64_t)T->esize[BN_Y], p->dtype[BN_Y], L->rs[BN_Y], b1, n,
                     p->alpha, p->beta);
            break;
        case BN_PASS_BSTATS:
            k->load(b1, at(p->dy, off[BN_DY], T->esize[BN_DY]), p->dtype[BN_DY], n, L->rs[BN_DY]);
            if (p->use_mask)
                apply_mask(b1, n, mrow, L->rs[BN_MASK]);
            if (p->dz != NULL)
                k->store((char *)p->dz + off[BN_Z] * (int64_t)T->esize[BN_Z], p->dtype[BN_Z], L->rs[BN_Z], b1, n,
                         1.0, 0.0);
            k->bstats(b1, b0, n, p->fa + f0, L->fs, s1 + f0, s2 + f0);
            break;
        case BN_PASS_BAPPLY:
            k->load(b1, at(p->dy, off[BN_DY], T->esize[BN_DY]), p->dtype[BN_DY], n, L->rs[BN_DY]);
            if (p->use_mask)
                apply_mask(b1, n, mrow, L->rs[BN_MASK]);
            k->affine3(b2, b1, b0, n, p->fa + f0, p->fb + f0, p->fc + f0, L->fs);
            k->store((char *)p->dx + off[BN_DX] * (int64_t)T->esize[BN_DX], p->dtype[BN_DX], L->rs[BN_DX], b2, n,
                     p->alpha, p->beta);
            break;
        }
    }
}

void
fdnn_bn_engine_run(cudnnHandle_t handle, const bn_walk_t *w, const bn_pass_t *p, void *scratch)
{
    layout_t L;
    plan(w, &L);
    bool reduce = p->kind == BN_PASS_STATS || p->kind == BN_PASS_BSTATS;
    task_t T = {
        .L = &L,
        .p = p,
        .k = fdnn_bn_kernels_for(handle->isa),
        .chunks = reduce ? reduction_chunks(&L, w->features) : apply_chunks(&L),
        .features = w->features,
        .bufs = scratch,
    };
    if (reduce)
        T.partials = (double *)((char *)scratch +
                                fdnn_align_up((size_t)BN_MAX_CHUNKS * BN_BUFFERS * BN_SEGMENT * sizeof(double)));
    for (int t = 0; t < BN_NT; t++)
        T.esize[t] = t == BN_MASK ? 1 : fdnn_dtype_size(p->dtype[t]);
    T.fast = fast_path(p);
    fdnn_pool_t pool = L.rows * L.len >= BN_PARALLEL_MIN_ELEMENTS ? fdnn_handle_pool(handle) : NULL;
    if (L.items > 0)
        fdnn_parallelize_1d(pool, run_chunk, &T, (size_t)T.chunks, 0);
    if (!reduce)
        return;
    /* Chunk partials added in chunk order: the thread-count-independent
     * combination. */
    for (int64_t f = 0; f < w->features; f++) {
        double a = 0.0, b = 0.0;
        for (int64_t c = 0; c < T.chunks; c++) {
            a += T.partials[c * 2 * w->features + f];
            b += T.partials[c * 2 * w->features + w->features + f];
        }
        p->s1[f] = a;
        p->s2[f] = b;
    }
}

const fdnn_bn_kernels_t *
fdnn_bn_kernels_for(fdnn_isa_t isa)
{
    return fdnn_isa_config(isa)->bn;
}

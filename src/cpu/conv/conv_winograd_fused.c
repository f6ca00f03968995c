/* SPDX-License-Identifier: Apache-2.0
 * Fused Winograd F(4x4, 3x3): CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD and
 * CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD (the latter as the forward
 * convolution of dy, conv_winograd_engine.h).
 *
 * Unlike WINOGRAD_NONFUSED, no transformed input or product tensor goes
 * through memory: the work is cut into blocks of 32 consecutive tiles of one
 * group (counted over the whole batch, so small images still fill the
 * lanes), and one per-ISA kernel (conv_winograd_fused.inc) transforms the
 * block's 6x6 input patches (36 x C/g x 32 floats), multiplies them with the
 * transformed filter for 96 output channels at a time and transforms those
 * back to 4x4 outputs while they are in cache.  Only the transformed filter
 * (36 x K x C/g, once per call) and the per-slot scratch are in the
 * workspace.
 *
 * Threads: the blocks are dealt round-robin to a fixed number of slots
 * (min(blocks, MAX_SLOTS)), each with its own scratch; slots run in
 * parallel.  Every block is computed the same way whichever slot takes it,
 * so the result does not depend on the thread count.
 *
 * Split mode, where the transformed filter is large (SPLIT_MIN_U_BYTES:
 * ResNet-50 res4 9.4 MB, res5 38 MB): every block reading all of u made u
 * the traffic (res5 at mb=32: 4 blocks, 151 MB from memory per call, both
 * cores at once at 2 threads).  Instead one step transforms every block's
 * patches into the workspace (v_all), and a second step's items each take
 * up to FDNN_WINO_FUSED_MAXSUB consecutive blocks and SPLIT_ROWS output
 * channels: u is read once per MAXSUB blocks, and the threads split the
 * output channels where there are few blocks.  Each output is the same
 * product row summed in the same order as in the block mode, so both modes
 * give the same bits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_winograd.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/conv/conv_winograd_prof.h"
#include "cpu/config/config.h"

#define MAX_SLOTS 16
#define MAX_WORKSPACE ((double)(1ull << 46))
#define TB FDNN_WINO_FUSED_TB
#define NSUB FDNN_WINO_FUSED_MAXSUB
/* Split mode from this transformed filter size on: ResNet-50 res4 (9.4 MB)
 * and res5 (38 MB) at mb=32 were 10-25% faster in it at 1 thread (CPU
 * time, loaded host), res2 (0.6 MB) and res3 (2.4 MB) slower (their u
 * stays in cache; v_all does not). */
#define SPLIT_MIN_U_BYTES ((double)(8u << 20))
/* FREEDNN_WINO_FUSED_SPLIT=1 forces the split mode, =0 the block mode
 * (tests: both modes on small shapes; benches: A/B on one layer); the
 * workspace query and the call must see the same value. */
static int
split_forced(void)
{
    const char *v = getenv("FREEDNN_WINO_FUSED_SPLIT");
    return v == NULL || v[0] == 0 ? -1 : v[0] == '1';
}

/* Output channels per split-mode item (res5: 8 items, 4 per thread).
 * Where one item takes all of a group's blocks (sblocks == 1: res5 at
 * mb=32, 4 blocks), u is never written whole: each item transforms its
 * own rows of the filter into its slot (36 x 64 x cin floats, 4.7 MB on
 * res5, read back from cache) instead of the call writing 38 MB to
 * memory and reading it back. */
#define SPLIT_ROWS 64

typedef struct fplan {
    fdnn_wino_geom_t g;
    int64_t tblocks, items; /* tile blocks per group (over the batch); all blocks */
    int slots;
    size_t off_slots, v_bytes, slot_bytes, total;
    double total_d;
    /* split mode: v_all at off_vall (every block's patches, vblk floats
     * each), items of up to NSUB blocks (sblocks per group) x SPLIT_ROWS
     * channels (kitems per group); slots then hold m only */
    bool split, ffuse; /* ffuse: items transform their own filter rows */
    int64_t sblocks, kitems;
    size_t off_vall, vblk, off_uchunk; /* off_uchunk: in a slot, ffuse */
} fplan_t;

static void
make_plan(const fdnn_conv_problem_t *p, const fdnn_conv_exec_t *e, fplan_t *w)
{
    memset(w, 0, sizeof(*w));
    fdnn_wino_geom_init(&w->g, p, FDNN_WINO_FUSED_M, e);
    const fdnn_wino_geom_t *g = &w->g;
    w->tblocks = (g->batch * g->tiles + TB - 1) / TB;
    w->items = g->groups * w->tblocks;
    w->slots = (int)(w->items < MAX_SLOTS ? w->items : MAX_SLOTS);
    double u = (double)FDNN_WINO_FUSED_NN * (double)(g->groups * g->cout) * (double)g->cin * 4;
    double v = (double)FDNN_WINO_FUSED_NN * (double)g->cin * TB * 4;
    double m = (double)FDNN_WINO_FUSED_NN * FDNN_WINO_FUSED_KB * TB * 4;
    int forced = split_forced();
    w->split = forced >= 0 ? forced == 1 : u >= SPLIT_MIN_U_BYTES;
    if (w->split) {
        w->sblocks = (w->tblocks + NSUB - 1) / NSUB;
        w->kitems = (g->cout + SPLIT_ROWS - 1) / SPLIT_ROWS;
        int64_t items2 = g->groups * w->sblocks * w->kitems;
        w->slots = (int)(items2 < MAX_SLOTS ? items2 : MAX_SLOTS);
        w->ffuse = w->sblocks == 1;
        double uchunk = w->ffuse ? (double)FDNN_WINO_FUSED_NN * SPLIT_ROWS * (double)g->cin * 4 : 0;
        w->total_d = (w->ffuse ? 0 : u) + v * (double)w->items + (m * NSUB + uchunk) * w->slots;
    } else {
        w->total_d = u + (v + m) * w->slots;
    }
    if (w->total_d > MAX_WORKSPACE)
        return;
    w->off_slots = fdnn_align_up((size_t)u);
    if (w->split) {
        /* v is a multiple of 64 bytes (TB floats per channel), so block
         * b's patches start at b * vblk floats, contiguous for a call's
         * consecutive blocks */
        w->vblk = (size_t)v / 4;
        w->off_vall = w->ffuse ? 0 : w->off_slots;
        w->off_slots = w->off_vall + fdnn_align_up((size_t)v * (size_t)w->items);
        w->v_bytes = 0;
        w->off_uchunk = fdnn_align_up((size_t)m * NSUB);
        w->slot_bytes = w->off_uchunk +
                        (w->ffuse ? fdnn_align_up((size_t)FDNN_WINO_FUSED_NN * SPLIT_ROWS * (size_t)g->cin * 4) : 0);
    } else {
        w->v_bytes = fdnn_align_up((size_t)v);
        w->slot_bytes = w->v_bytes + fdnn_align_up((size_t)m);
    }
    w->total = w->off_slots + w->slot_bytes * (size_t)w->slots;
}

static const int fused_sizes[] = {3};

cudnnStatus_t
fdnn_conv_winograd_fused_applicable(const fdnn_conv_problem_t *p)
{
    if (p->dir == FDNN_CONV_BWD_FILTER)
        return FDNN_NOT_SUPPORTED("backward-filter WINOGRAD is not implemented (cuDNN does not implement it either)");
    return fdnn_wino_check(p, "WINOGRAD", fused_sizes, 1);
}

cudnnStatus_t
fdnn_conv_winograd_fused_workspace(const fdnn_conv_problem_t *p, size_t *bytes)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_fused_applicable(p));
    fplan_t w;
    make_plan(p, NULL, &w);
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD would need %.3g bytes of workspace", w.total_d);
    *bytes = w.total;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct fctx {
    const fplan_t *w;
    const float *u;
    char *slots;
    float *vall; /* split mode */
    float *uw;   /* u, written by filter_item */
    fdnn_wino_fused_block_fn block;
} fctx_t;

/* Slot s computes blocks s, s + slots, s + 2*slots, ... */
static void
run_slot(void *arg, size_t s)
{
    const fctx_t *c = arg;
    const fplan_t *w = c->w;
    float *v = (float *)(c->slots + s * w->slot_bytes), *m = (float *)(c->slots + s * w->slot_bytes + w->v_bytes);
    for (int64_t it = (int64_t)s; it < w->items; it += w->slots) {
        c->block(&w->g, c->u, it / w->tblocks, (it % w->tblocks) * TB, v, m);
    }
}

/* Output channels per filter transform item. */
#define FILTER_ROWS 8

/* Filter transform slot s: the filters of output channels
 * [FILTER_ROWS * i, ...) (over all groups) for i = s, s + slots, ... into
 * u, by the level's kernel (fdnn_wino_filter_transform's bits), staged in
 * the slot's scratch when it holds them. */
static void
filter_slot(void *arg, size_t s)
{
    const fctx_t *c = arg;
    const fplan_t *w = c->w;
    fdnn_wino_geom_t g = w->g;
    int64_t all = g.groups * g.cout, items = (all + FILTER_ROWS - 1) / FILTER_ROWS;
    bool staged = (double)FDNN_WINO_FUSED_NN * FILTER_ROWS * (double)g.cin * 4 <= (double)w->slot_bytes;
    float *stage = staged ? (float *)(c->slots + s * w->slot_bytes) : NULL;
    g.fs_filter = true;
    for (int64_t i = (int64_t)s; i < items; i += w->slots) {
        g.fs_k0 = i * FILTER_ROWS;
        g.fs_k1 = all - g.fs_k0 < FILTER_ROWS ? all : g.fs_k0 + FILTER_ROWS;
        c->block(&g, NULL, 0, 0, c->uw, stage);
    }
}

/* Split mode, first step: the patches of block it (over all groups) into
 * v_all. */
static void
input_item(void *arg, size_t it)
{
    const fctx_t *c = arg;
    const fplan_t *w = c->w;
    fdnn_wino_geom_t g = w->g;
    g.fs_input_only = true;
    int64_t i = (int64_t)it;
    c->block(&g, c->u, i / w->tblocks, (i % w->tblocks) * TB, c->vall + (size_t)i * w->vblk, NULL);
}

/* Split mode, second step: slot s computes items s, s + slots, ...; item
 * (group, block group, channel range) multiplies up to NSUB blocks'
 * patches from v_all by SPLIT_ROWS rows of u and writes those outputs. */
static void
product_slot(void *arg, size_t s)
{
    const fctx_t *c = arg;
    const fplan_t *w = c->w;
    float *m = (float *)(c->slots + s * w->slot_bytes);
    int64_t items = w->g.groups * w->sblocks * w->kitems;
    for (int64_t it = (int64_t)s; it < items; it += w->slots) {
        int64_t grp = it / (w->sblocks * w->kitems), sb = it / w->kitems % w->sblocks, kit = it % w->kitems;
        int64_t b0 = sb * NSUB, nb = w->tblocks - b0 < NSUB ? w->tblocks - b0 : NSUB;
        fdnn_wino_geom_t g = w->g;
        int64_t k0 = kit * SPLIT_ROWS, k1 = g.cout - k0 < SPLIT_ROWS ? g.cout : k0 + SPLIT_ROWS;
        const float *u = c->u;
        if (w->ffuse) {
            float *uchunk = (float *)(c->slots + s * w->slot_bytes + w->off_uchunk);
            g.fs_filter = true;
            g.fs_k0 = grp * g.cout + k0;
            g.fs_k1 = grp * g.cout + k1;
            c->block(&g, NULL, 0, 0, NULL, uchunk);
            g.fs_filter = false;
            g.fs_u_rows = k1 - k0;
            u = uchunk;
        }
        g.fs_v_ready = true;
        g.fs_nsub = (int)nb;
        g.fs_k0 = k0;
        g.fs_k1 = k1;
        c->block(&g, u, grp, b0 * TB, c->vall + (size_t)(grp * w->tblocks + b0) * w->vblk, m);
    }
}

/* The planned call w (its geometry's pointers set) on e's workspace and
 * pool. */
static cudnnStatus_t
run_plan(const fdnn_conv_exec_t *e, const fplan_t *wp)
{
    const fplan_t w = *wp;
    if (w.total_d > MAX_WORKSPACE)
        return FDNN_NOT_SUPPORTED("WINOGRAD would need %.3g bytes of workspace", w.total_d);
    if (e->workspace_bytes < w.total || e->workspace == NULL)
        return FDNN_BAD_PARAM("workspace is %zu bytes, WINOGRAD needs %zu", e->workspace_bytes, w.total);
    /* the level's block kernel, never one the CPU lacks */
    fdnn_wino_fused_block_fn block = fdnn_isa_config(e->handle->isa)->wino_fused_block;
    float *u = (float *)e->workspace;
    WPROF_BEGIN(t_call);
    fctx_t c = {&w, u, (char *)e->workspace + w.off_slots, (float *)((char *)e->workspace + w.off_vall), u, block};
    WPROF_BEGIN(t_filter);
    if (w.ffuse)
        ; /* product_slot's items transform their own rows */
    else if (e->pool != NULL)
        fdnn_parallelize_1d(e->pool, filter_slot, &c, (size_t)w.slots, 0);
    else
        for (int s = 0; s < w.slots; s++)
            filter_slot(&c, (size_t)s);
    WPROF_END(t_filter, WPROF_F_FILTER);
    if (w.split) {
        if (e->pool != NULL) {
            fdnn_parallelize_1d(e->pool, input_item, &c, (size_t)w.items, 0);
            fdnn_parallelize_1d(e->pool, product_slot, &c, (size_t)w.slots, 0);
        } else {
            for (int64_t i = 0; i < w.items; i++)
                input_item(&c, (size_t)i);
            for (int s = 0; s < w.slots; s++)
                product_slot(&c, (size_t)s);
        }
    } else if (e->pool != NULL)
        fdnn_parallelize_1d(e->pool, run_slot, &c, (size_t)w.slots, 0);
    else
        for (int s = 0; s < w.slots; s++)
            run_slot(&c, (size_t)s);
    WPROF_END(t_call, WPROF_F_CALL);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
fdnn_conv_winograd_fused_execute(const fdnn_conv_exec_t *e)
{
    RETURN_IF_ERROR(fdnn_conv_winograd_fused_applicable(e->p));
    fplan_t w;
    make_plan(e->p, e, &w);
    return run_plan(e, &w);
}

cudnnStatus_t
fdnn_conv_winograd_fused_execute_f16(const fdnn_conv_exec_t *e, const fdnn_conv_problem_t *shadow)
{
    const fdnn_conv_problem_t *p = e->p;
    if (p->dir == FDNN_CONV_BWD_FILTER || p->x.dtype != CUDNN_DATA_HALF || p->w.dtype != CUDNN_DATA_HALF ||
        p->y.dtype != CUDNN_DATA_HALF)
        return FDNN_NOT_SUPPORTED("WINOGRAD on half storage takes forward and backward-data problems with HALF x, "
                                  "w and y only");
    RETURN_IF_ERROR(fdnn_conv_winograd_fused_applicable(shadow));
    fdnn_conv_exec_t e32 = *e;
    e32.p = shadow;
    fplan_t w;
    make_plan(shadow, &e32, &w);
    w.g.in = w.g.w = w.g.bias = NULL;
    w.g.out = NULL;
    bool fwd = p->dir == FDNN_CONV_FWD; /* backward data reads dy (conv_winograd_engine.h) */
    w.g.in16 = fwd ? e->x_in : e->y_in;
    w.g.w16 = e->w_in;
    w.g.bias16 = fwd ? e->bias : NULL;
    w.g.out16 = e->out;
    return run_plan(e, &w);
}

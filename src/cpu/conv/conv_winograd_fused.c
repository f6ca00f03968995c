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
 * so the result does not depend on the thread count. */
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_winograd.h"
#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/config/config.h"

#define MAX_SLOTS 16
#define MAX_WORKSPACE ((double)(1ull << 46))
#define TB FDNN_WINO_FUSED_TB

typedef struct fplan {
    fdnn_wino_geom_t g;
    int64_t tblocks, items; /* tile blocks per group (over the batch); all blocks */
    int slots;
    size_t off_slots, v_bytes, slot_bytes, total;
    double total_d;
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
    w->total_d = u + (v + m) * w->slots;
    if (w->total_d > MAX_WORKSPACE)
        return;
    w->off_slots = fdnn_align_up((size_t)u);
    w->v_bytes = fdnn_align_up((size_t)v);
    w->slot_bytes = w->v_bytes + fdnn_align_up((size_t)m);
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
    fdnn_wino_filter_transform(&w.g, u, e->pool);
    fctx_t c = {&w, u, (char *)e->workspace + w.off_slots, block};
    if (e->pool != NULL)
        fdnn_parallelize_1d(e->pool, run_slot, &c, (size_t)w.slots, 0);
    else
        for (int s = 0; s < w.slots; s++)
            run_slot(&c, (size_t)s);
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

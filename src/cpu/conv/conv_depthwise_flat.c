/* SPDX-License-Identifier: Apache-2.0
 * Flat-plane depthwise convolution (the contract is in
 * conv_depthwise_flat.h; the kernels in src/cpu/kernels/dwflat.h).
 *
 * Per tap q (q order, W fastest), the shift (dh, dw) of the plane read:
 *   backward data    dx[i] = sum_q w[q] * dy[i + pad - q*dil]: dh = pad_h - qh*dil_h
 *   backward filter  dw[q] = sum_o dy[o] * x[o - pad + q*dil]: dh = qh*dil_h - pad_h
 * (and dw alike), the flat shift dh*W + dw: with stride 1 and equal input
 * and output planes, position p = h*W + w reads p + dh*W + dw where the
 * mask says (h + dh, w + dw) is inside the plane. */
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "cpu/config/config.h"
#include "cpu/conv/conv_depthwise_flat.h"
#include "cpu/kernels/dwflat.h"

/* The most taps (the shifts live on the stack), and the largest mask
 * table (bytes). */
#define MAX_TAPS 64
#define MAX_MASK_BYTES ((size_t)64 << 20)

/* The smallest plane this path takes: min of 200 calls, 1 thread,
 * base (the other paths) / flat, ms (bench/results/2026-12-06-dwnchw):
 * 28x28 backward data 0.152 / 0.083 and filter 0.122 / 0.103 (256
 * channels), but 14x14 filter 0.065 / 0.106 (512) and 7x7 data 0.033 /
 * 0.064 (1024): with under 50 vectors a plane, its first and last rows'
 * masked vectors, the per-plane calls and (filter) the lanes' sums cost
 * more than the channel-blocked path's transposes. */
#define MIN_POSITIONS 784

/* Positions a task covers at least (planes or channels per task): small
 * planes are run several to a task so a task is worth a pool step. */
#define TASK_POSITIONS 8192

typedef struct flat_job {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    const fdnn_f32_dwflat_kernels_t *k;
    const uint16_t *masks;
    int64_t off[MAX_TAPS];
    size_t taps, nv, in0, in1, per_task, items;
} flat_job_t;

cudnnStatus_t
fdnn_conv_dwflat_applicable(const fdnn_conv_problem_t *p, cudnnHandle_t handle)
{
    if (p->dtype != CUDNN_DATA_FLOAT || fdnn_conv_cg(p) != 1 || fdnn_conv_kg(p) != 1)
        return FDNN_NOT_SUPPORTED("dwflat: not FP32 with one input channel and one filter per group");
    if (p->dir == FDNN_CONV_FWD)
        return FDNN_NOT_SUPPORTED("dwflat: forward runs the other paths (bias and ReLU)");
    if (fdnn_isa_config(handle->isa)->dwflat == NULL)
        return FDNN_NOT_SUPPORTED("dwflat: no flat-plane kernels at this ISA level");
    if (p->in[0] != 1 || p->ker[0] != 1 || p->out[0] != 1 || p->pad[0] != 0)
        return FDNN_NOT_SUPPORTED("dwflat: not 2-D");
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->out[1] != p->in[1] || p->out[2] != p->in[2])
        return FDNN_NOT_SUPPORTED("dwflat: not stride 1 with the output plane of the input's size");
    if (fdnn_conv_taps(p) > MAX_TAPS)
        return FDNN_NOT_SUPPORTED("dwflat: %lld taps (at most %d)", (long long)fdnn_conv_taps(p), MAX_TAPS);
    int64_t h = p->in[1], w = p->in[2];
    if (p->x.strides[4] != 1 || p->x.strides[3] != w || p->y.strides[4] != 1 || p->y.strides[3] != w)
        return FDNN_NOT_SUPPORTED("dwflat: planes of x or y not stored contiguously (NCHW)");
    if (h * w < MIN_POSITIONS)
        return FDNN_NOT_SUPPORTED("dwflat: a %lld x %lld plane (under %d positions)", (long long)h, (long long)w,
                                  MIN_POSITIONS);
    double nv = ((double)h * (double)w + FDNN_DWFLAT_VL - 1) / FDNN_DWFLAT_VL;
    if ((double)h * (double)w > 1e9 || nv * (double)(fdnn_conv_taps(p) + 1) * 2.0 > (double)MAX_MASK_BYTES)
        return FDNN_NOT_SUPPORTED("dwflat: a %lld x %lld plane's mask table is too large", (long long)h, (long long)w);
    return CUDNN_STATUS_SUCCESS;
}

/* The taps of channel k in q order, as the formula multiplies them. */
static void
load_taps(const fdnn_conv_problem_t *p, const float *w, int64_t k, float *wt)
{
    size_t t = 0;
    for (int64_t qh = 0; qh < p->ker[1]; qh++)
        for (int64_t qw = 0; qw < p->ker[2]; qw++)
            wt[t++] = w[fdnn_conv_w_off(p, k, 0, 0, qh, qw)];
}

/* Backward data, planes [first, first + count) of dx (plane = n*C + c). */
static void
bwd_data_task(void *arg, size_t first, size_t count)
{
    const flat_job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    float wt[MAX_TAPS];
    for (size_t i = first; i < first + count; i++) {
        int64_t n = (int64_t)i / p->c, c = (int64_t)i % p->c;
        load_taps(p, e->w_in, c, wt);
        fdnn_f32_dwflat_args_t a = {
            .src = (const float *)e->y_in + fdnn_conv_off5(&p->y, n, c, 0, 0, 0),
            .off = j->off,
            .w = wt,
            .masks = j->masks,
            .ld = j->taps + 1,
            .taps = j->taps,
            .nv = j->nv,
            .in0 = j->in0,
            .in1 = j->in1,
            .kw = (size_t)p->ker[2],
            .out = (float *)e->out + fdnn_conv_off5(&p->x, n, c, 0, 0, 0),
            .alpha = (float)e->alpha,
            .beta = (float)e->beta,
        };
        j->k->rows(&a);
    }
}

/* Backward filter, channels [first, first + count): every image in order
 * into each tap's 16 lanes, the lanes added in order, blended into dw. */
static void
bwd_filter_task(void *arg, size_t first, size_t count)
{
    const flat_job_t *j = arg;
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    float lanes[MAX_TAPS * FDNN_DWFLAT_VL];
    for (size_t i = first; i < first + count; i++) {
        int64_t k = (int64_t)i;
        memset(lanes, 0, j->taps * FDNN_DWFLAT_VL * sizeof(float));
        for (int64_t n = 0; n < p->n; n++) {
            const float *x = (const float *)e->x_in + fdnn_conv_off5(&p->x, n, k, 0, 0, 0);
            const float *dy = (const float *)e->y_in + fdnn_conv_off5(&p->y, n, k, 0, 0, 0);
            /* Taps in groups of equal size (9 taps: one pass; 25: 9+8+8). */
            size_t groups = (j->taps + FDNN_DWFLAT_MAX_TAPS - 1) / FDNN_DWFLAT_MAX_TAPS;
            size_t gsize = (j->taps + groups - 1) / groups;
            for (size_t t0 = 0; t0 < j->taps; t0 += gsize) {
                fdnn_f32_dwflat_args_t a = {
                    .src = x,
                    .dy = dy,
                    .off = j->off + t0,
                    .masks = j->masks,
                    .ld = j->taps + 1,
                    .taps = j->taps - t0 < gsize ? j->taps - t0 : gsize,
                    .t0 = t0,
                    .nv = j->nv,
                    .in0 = j->in0,
                    .in1 = j->in1,
                    .kw = (size_t)p->ker[2],
                    .lanes = lanes + t0 * FDNN_DWFLAT_VL,
                };
                j->k->grad(&a);
            }
        }
        float alpha = (float)e->alpha, beta = (float)e->beta;
        size_t t = 0;
        for (int64_t qh = 0; qh < p->ker[1]; qh++)
            for (int64_t qw = 0; qw < p->ker[2]; qw++, t++) {
                /* The 16 lanes by halves (a fixed tree the compiler
                 * vectorises; a serial sum took 144 dependent adds per
                 * channel, as long as a 7x7 plane's products). */
                float *l = lanes + t * FDNN_DWFLAT_VL, *dst = (float *)e->out + fdnn_conv_w_off(p, k, 0, 0, qh, qw);
                for (int half = FDNN_DWFLAT_VL / 2; half > 0; half /= 2)
                    for (int i = 0; i < half; i++)
                        l[i] += l[i + half];
                *dst = fdnn_conv_epilogue_f32(l[0], alpha, beta, dst, NULL, false);
            }
    }
}

cudnnStatus_t
fdnn_conv_dwflat_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    RETURN_IF_ERROR(fdnn_conv_dwflat_applicable(p, e->handle));
    flat_job_t j;
    memset(&j, 0, sizeof(j));
    j.e = e;
    j.p = p;
    j.k = fdnn_isa_config(e->handle->isa)->dwflat;
    int64_t h = p->in[1], w = p->in[2], dh[MAX_TAPS], dw[MAX_TAPS];
    bool bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    for (int64_t qh = 0; qh < p->ker[1]; qh++)
        for (int64_t qw = 0; qw < p->ker[2]; qw++, j.taps++) {
            int64_t sh = qh * p->dil[1] - p->pad[1], sw = qw * p->dil[2] - p->pad[2];
            dh[j.taps] = bwd_data ? -sh : sh;
            dw[j.taps] = bwd_data ? -sw : sw;
            j.off[j.taps] = dh[j.taps] * w + dw[j.taps];
        }
    j.nv = (size_t)((h * w + FDNN_DWFLAT_VL - 1) / FDNN_DWFLAT_VL);
    /* Interior vectors (dwflat.h): every lane's row r with r + dh inside
     * the plane for every tap (rows [rlo, h - rhi)), every lane's source
     * p + off inside the plane's memory. */
    int64_t rlo = 0, rhi = 0, omin = 0, omax = 0, hw = h * w;
    for (size_t t = 0; t < j.taps; t++) {
        rlo = -dh[t] > rlo ? -dh[t] : rlo;
        rhi = dh[t] > rhi ? dh[t] : rhi;
        omin = j.off[t] < omin ? j.off[t] : omin;
        omax = j.off[t] > omax ? j.off[t] : omax;
    }
    int64_t first = rlo * w > -omin ? rlo * w : -omin; /* first position */
    int64_t last = (h - rhi) * w - 1 < hw - 1 - omax ? (h - rhi) * w - 1 : hw - 1 - omax;
    int64_t in0 = (first + FDNN_DWFLAT_VL - 1) / FDNN_DWFLAT_VL;
    int64_t in1 = last + 1 >= FDNN_DWFLAT_VL ? (last + 1) / FDNN_DWFLAT_VL : 0; /* vectors ending by last */
    j.in0 = (size_t)in0;
    j.in1 = (size_t)(in1 > in0 ? in1 : in0);
    uint16_t *masks = fdnn_handle_scratch(e->handle, j.nv * (j.taps + 1) * sizeof(uint16_t));
    if (masks == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    j.k->masks(h, w, dh, dw, j.taps, masks, j.taps + 1);
    j.masks = masks;
    /* Items: dx planes (n*C), or channels (each over every image). */
    int64_t positions = bwd_data ? h * w : p->n * h * w;
    j.items = (size_t)(bwd_data ? p->n * p->c : p->k);
    j.per_task = positions >= TASK_POSITIONS ? 1 : (size_t)(TASK_POSITIONS / positions);
    fdnn_parallelize_1d_tile_1d(e->pool, bwd_data ? bwd_data_task : bwd_filter_task, &j, j.items, j.per_task, 0);
    return CUDNN_STATUS_SUCCESS;
}

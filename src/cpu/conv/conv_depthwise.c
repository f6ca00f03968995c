/* SPDX-License-Identifier: Apache-2.0
 * Depthwise convolution on the plane kernels of src/cpu/kernels/dwconv.h
 * (the contract is in conv_depthwise.h).
 *
 * The buffered plane.  A source plane (dims S, element strides) is written
 * into a zero-filled buffer of extents E (depth, height, width) in which
 * source element i of a dimension lands at F + i (F zeros in front).  The
 * width is stored in `phases` interleaved parts: position z at part
 * z % phases, index z / phases, so a read with stride `phases` along W
 * becomes a unit-stride read of one part.  Layout [E_d][E_h][phases][wq],
 * wq = ceil(E_w / phases), then FDNN_DWCONV_VL_MAX zeros for the kernels'
 * whole-vector reads past a row.
 *
 * Forward and backward filter: x's plane with F = pad and the forward
 * stride's W phases; output o and tap q read position o*stride + q*dil.
 *
 * Backward data: dx[i] sums dy[o] * w[q] over o*stride - pad + q*dil == i.
 * Per dimension the positions i = a + stride*m of one phase a (0 <= a <
 * stride) are reached by the taps q with (a + pad - q*dil) divisible by
 * the stride, each from dy[m + c], c = (a + pad - q*dil) / stride: a
 * stride-1 correlation of dy with that phase's taps.  dy is buffered
 * without phases, F = the largest -c; each phase is one kernel pass over
 * ceil(dx / stride) positions per dimension, whose first m_a are blended
 * into dx with the stride.  A phase no tap reaches gets alpha*0 + beta*dx.
 * Forward and backward filter are the one phase a = 0 with every tap.
 *
 * The kernels see, per computed row, row_off (od, oh) plus tap_off (q)
 * plus the position along W. */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_depthwise.h"
#include "cpu/conv/conv_depthwise_cb.h"
#include "cpu/conv/conv_depthwise_flat.h"
#include "cpu/kernels/dwconv.h"
#include "cpu/config/config.h"

/* Scratch above this is declined (the caller falls back to the blocked
 * path, which buffers one image). */
#define MAX_SCRATCH_BYTES ((size_t)1 << 30)

/* Chunks of tasks per thread (each with its own slot of scratch): enough
 * to even out planes of unequal cost, few enough to keep scratch small. */
#define CHUNKS_PER_THREAD 4

/* Most planes a task buffers (forward, backward data with K/g == 1), and
 * the floats they may take together: 16 planes up to 28x28, fewer above,
 * one from 91x91 (the buffers stay in L1/L2). */
#define FDNN_DWCONV_MAX_PLANES 16
#define PLANES_FLOATS 16384
#define CHLAST_PLANES_FLOATS (16.0 * 262144)

typedef struct plane_geom {
    int64_t ext[3], front[3];
    int64_t phases, wq;
    size_t floats; /* E_d * E_h * phases * wq + FDNN_DWCONV_VL_MAX */
} plane_geom_t;

/* One phase of the output (see the top of the file). */
typedef struct dw_phase {
    int64_t a[3], step[3]; /* its positions a + step*m of the output */
    int64_t m[3];          /* how many per dimension */
    int64_t taps;          /* taps that reach it; 0: alpha*0 + beta*output */
    const int64_t *tap_off; /* taps entries of the job's shared offsets */
    const int64_t *widx;    /* the tap index (q order) of each */
    size_t out_offset;      /* floats: its first output plane buffer in a slot */
} dw_phase_t;

typedef struct dw_job {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    plane_geom_t g;
    fdnn_f32_dwconv_rows_fn rows_fn;
    fdnn_f32_dwconv_grad_fn grad_fn;
    int64_t taps;
    int64_t out_dims[3]; /* a phase's computed plane: y's, or ceil(dx / stride) */
    /* The rows kernel's view of a computed plane: kernel rows of k_ow
     * positions, ld_out floats apart.  A flat plane (stride-1 reads, no W
     * phases, short rows) is one kernel row per depth slice: its H rows
     * follow each other at the buffered row pitch, and the columns between
     * them are computed and never read (10/16 of a vector idle for 7-wide
     * rows otherwise).  Output (d, h, w) is at d*ld_d + h*ld_h + w. */
    bool flat;
    int64_t k_rows, k_ow, ld_out, ld_d, ld_h;
    /* Forward and backward data with K/g == 1: a task takes `planes`
     * channels, their planes plane_stride floats apart, and one kernel call
     * runs all their rows (small planes would otherwise leave most of a
     * tile's vectors to repeated rows, and pay a call per plane). */
    int64_t planes, plane_stride, plane_groups;
    int64_t nphases;
    const dw_phase_t *phases;
    bool dy_in_place; /* backward filter: dy rows read from dy itself */
    const int64_t *row_off, *dy_off; /* shared, read-only */
    char *slots;
    size_t slot_bytes, out_offset, w_offset, wph_offset, w_rows_offset, sums_offset, dy_offset, row_offset;
    size_t tasks, chunks;
} dw_job_t;

bool
fdnn_conv_depthwise_applies(const fdnn_conv_problem_t *p)
{
    return p->dtype == CUDNN_DATA_FLOAT && fdnn_conv_cg(p) == 1;
}

static int64_t
ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The buffer geometry and the computed plane of p's direction. */
static void
make_geom(const fdnn_conv_problem_t *p, plane_geom_t *g, int64_t out_dims[3])
{
    bool bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    for (int d = 0; d < 3; d++) {
        int64_t span = (p->ker[d] - 1) * p->dil[d], s = p->stride[d];
        if (bwd_data) {
            /* -c <= (span - pad) / stride; c <= (stride - 1 + pad) / stride. */
            out_dims[d] = ceil_div(p->in[d], s);
            g->front[d] = span > p->pad[d] ? ceil_div(span - p->pad[d], s) : 0;
            g->ext[d] = g->front[d] + out_dims[d] + (s - 1 + p->pad[d]) / s;
        } else {
            out_dims[d] = p->out[d];
            g->front[d] = p->pad[d];
            g->ext[d] = (p->out[d] - 1) * s + span + 1;
        }
    }
    g->phases = bwd_data ? 1 : p->stride[2];
    g->wq = ceil_div(g->ext[2], g->phases);
}

/* Source row -> buffered row, stride 1, no phases: a loop rather than
 * memcpy, which costs more than the copy for the 7..30-wide rows of
 * late layers (CMakeLists.txt keeps GCC from turning the loop back into
 * the call). */
static inline void
copy_row(float *restrict dst, const float *restrict src, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* One source row (n elements, stride st) into its places in a buffered
 * row per g. */
static void
copy_plane_row(const plane_geom_t *g, float *drow, const float *srow, int64_t n, int64_t st)
{
    int64_t z = g->front[2];
    if (g->phases == 1 && st == 1) {
        copy_row(drow + z, srow, n);
    } else if (g->phases == 1) {
        for (int64_t i = 0; i < n; i++)
            drow[z + i] = srow[i * st];
    } else if (g->phases == 2 && st == 1) {
        /* Pairs to parts 0 and 1 (a loop compilers vectorise). */
        int64_t i = 0;
        if (z & 1) {
            drow[g->wq + z / 2] = srow[0];
            i = 1;
            z++;
        }
        float *restrict d0 = drow + z / 2, *restrict d1 = drow + g->wq + z / 2;
        int64_t m = 0;
        for (; i + 1 < n; i += 2, m++) {
            d0[m] = srow[i];
            d1[m] = srow[i + 1];
        }
        if (i < n)
            d0[m] = srow[i];
    } else {
        /* Element i lands in part (z + i) % phases at index (z + i) /
         * phases, so one part holds i0, i0 + phases, ...  Only the first
         * min(n, phases) elements start a part: with a W stride wider than
         * the row (one output along W) most parts stay empty, and a loop
         * over every part cost O(stride) per row (fuzz_conv: a 1x1 image,
         * W stride 65536 and 65536 filters took minutes). */
        int64_t starts = n < g->phases ? n : g->phases;
        for (int64_t i0 = 0; i0 < starts; i0++) {
            float *dpart = drow + (z + i0) % g->phases * g->wq + (z + i0) / g->phases;
            for (int64_t i = i0, m = 0; i < n; i += g->phases, m++)
                dpart[m] = srow[i * st];
        }
    }
}

/* Writes the elements of `planes` source planes (plane i at src + i*cstride;
 * dims, element strides) into their places in the buffers dst + i*dstride
 * per g.  Only those places: every other float of a buffer is a zero that
 * run_chunk wrote once, the same for every plane of the geometry.  Rows
 * outside, planes inside: with channels innermost (NHWC) a row of all the
 * planes is one stretch of memory, read while it is in cache. */
static void
copy_planes(const plane_geom_t *g, const float *src, int64_t cstride, int64_t planes, const int64_t dims[3],
            const int64_t strides[3], float *dst, int64_t dstride)
{
    size_t row = (size_t)(g->phases * g->wq);
    /* Source elements of a row that land inside the extent. */
    int64_t n = g->ext[2] > g->front[2] ? g->ext[2] - g->front[2] : 0;
    n = n < dims[2] ? n : dims[2];
    for (int64_t i0 = 0; i0 < dims[0]; i0++) {
        int64_t z0 = g->front[0] + i0;
        if (z0 >= g->ext[0])
            break;
        for (int64_t i1 = 0; i1 < dims[1]; i1++) {
            int64_t z1 = g->front[1] + i1;
            if (z1 >= g->ext[1])
                break;
            size_t at = (size_t)(z0 * g->ext[1] + z1) * row;
            for (int64_t i = 0; i < planes; i++)
                copy_plane_row(g, dst + i * dstride + at, src + i * cstride + i0 * strides[0] + i1 * strides[1], n,
                               strides[2]);
        }
    }
}

/* The taps of filter k in q order (q0, q1, q2, W fastest) as they multiply
 * the data: reversed for CONVOLUTION mode. */
static void
load_taps(const fdnn_conv_problem_t *p, const float *w, int64_t k, float *wt)
{
    const int64_t *st = p->w.strides;
    int64_t taps = p->ker[0] * p->ker[1] * p->ker[2];
    if (st[4] == 1 && st[3] == p->ker[2] && st[2] == p->ker[1] * p->ker[2]) {
        /* Packed taps (NCHW filters): a copy, reversed for CONVOLUTION. */
        const float *src = w + k * st[0];
        for (int64_t t = 0; t < taps; t++)
            wt[t] = src[p->flip ? taps - 1 - t : t];
        return;
    }
    int64_t t = 0;
    for (int64_t q0 = 0; q0 < p->ker[0]; q0++)
        for (int64_t q1 = 0; q1 < p->ker[1]; q1++)
            for (int64_t q2 = 0; q2 < p->ker[2]; q2++) {
                wt[t++] = w[fdnn_conv_w_off(p, k, 0, q0, q1, q2)];
            }
}

/* dst[j*stride] through the convolution epilogue (fdnn_conv_epilogue_f32)
 * of src[j], for j < count; src NULL means zeros (alpha*0 + beta*dst). */
static void
blend_row(float *dst, int64_t stride, const float *src, int64_t count, float alpha, float beta, const float *bias,
          bool relu)
{
    if (src != NULL && alpha == 1.0f && beta == 0.0f && bias == NULL && !relu && stride == 1) {
        copy_row(dst, src, count);
        return;
    }
    for (int64_t j = 0; j < count; j++)
        dst[j * stride] = fdnn_conv_epilogue_f32(src != NULL ? src[j] : 0.0f, alpha, beta, dst + j * stride, bias, relu);
}

/* The output plane buffer of plane i in phase ph. */
static const float *
out_plane(const dw_job_t *j, char *slot, const dw_phase_t *ph, int64_t i)
{
    return (const float *)(slot + j->out_offset) + ph->out_offset + (size_t)(i * j->k_rows * j->ld_out);
}

/* Blends the forward output plane buffers of `planes` planes into y:
 * plane i into channel k0 + i*kstep of image n.  Rows outside, planes
 * inside (see copy_planes). */
static void
blend_forward(const dw_job_t *j, char *slot, int64_t planes, int64_t n, int64_t k0, int64_t kstep)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    const dw_phase_t *ph = &j->phases[0];
    const float *bias = e->bias;
    for (int64_t d = 0; d < p->out[0]; d++)
        for (int64_t h = 0; h < p->out[1]; h++)
            for (int64_t i = 0; i < planes; i++) {
                int64_t k = k0 + i * kstep;
                blend_row((float *)e->out + fdnn_conv_off5(&p->y, n, k, d, h, 0), p->y.strides[4],
                          out_plane(j, slot, ph, i) + (size_t)(d * j->ld_d + h * j->ld_h), p->out[2],
                          (float)e->alpha, (float)e->beta, bias != NULL ? bias + k : NULL, e->relu);
            }
}

/* One kernel pass of phase ph over the first `planes` planes of the slot,
 * plane i with the filter taps at wt + i*taps (load_taps), into the
 * phase's output plane buffers. */
static void
run_rows(const dw_job_t *j, char *slot, int64_t planes, const dw_phase_t *ph, bool accumulate)
{
    const float *wt = (const float *)(slot + j->w_offset);
    float *wph = (float *)(slot + j->wph_offset);
    const float **w_rows = (const float **)(slot + j->w_rows_offset);
    for (int64_t i = 0; i < planes; i++) {
        for (int64_t t = 0; t < ph->taps; t++)
            wph[i * j->taps + t] = wt[i * j->taps + ph->widx[t]];
        for (int64_t r = 0; r < j->k_rows; r++)
            w_rows[i * j->k_rows + r] = wph + i * j->taps;
    }
    fdnn_f32_dwconv_rows_args_t a = {
        .src = (const float *)slot,
        .row_off = j->row_off,
        .tap_off = ph->tap_off,
        .w_rows = w_rows,
        .rows = (size_t)(planes * j->k_rows),
        .taps = (size_t)ph->taps,
        .ow = (size_t)j->k_ow,
        .out = (float *)(slot + j->out_offset) + ph->out_offset,
        .ld_out = (size_t)j->ld_out,
        .accumulate = accumulate,
    };
    j->rows_fn(&a);
}

/* Forward, task = n * plane_groups + group: the group's planes of x, then
 * per filter of a group (K/g of them; a group holds one channel when K/g >
 * 1) one pass. */
static void
forward_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    const dw_phase_t *ph = &j->phases[0];
    int64_t kg = fdnn_conv_kg(p), n = (int64_t)task / j->plane_groups;
    int64_t g0 = (int64_t)task % j->plane_groups * j->planes;
    int64_t planes = p->g - g0 < j->planes ? p->g - g0 : j->planes;
    const float *x = e->x_in;
    float *wt = (float *)(slot + j->w_offset);
    copy_planes(&j->g, x + fdnn_conv_off5(&p->x, n, g0, 0, 0, 0), p->x.strides[1], planes, p->in, p->x.strides + 2,
                (float *)slot, j->plane_stride);
    for (int64_t kk = 0; kk < kg; kk++) {
        for (int64_t i = 0; i < planes; i++)
            load_taps(p, e->w_in, (g0 + i) * kg + kk, wt + i * j->taps);
        run_rows(j, slot, planes, ph, false);
        blend_forward(j, slot, planes, n, g0 * kg + kk, kg);
    }
}

/* dst[2m] = a[m], dst[2m+1] = b[m] for 2m, 2m+1 < width (NULL: zeros);
 * the common case a loop compilers vectorise. */
static void
zip2(float *restrict dst, const float *restrict a, const float *restrict b, int64_t width)
{
    int64_t pairs = width / 2;
    if (a != NULL && b != NULL) {
        for (int64_t m = 0; m < pairs; m++) {
            dst[2 * m] = a[m];
            dst[2 * m + 1] = b[m];
        }
    } else {
        for (int64_t m = 0; m < pairs; m++) {
            dst[2 * m] = a != NULL ? a[m] : 0.0f;
            dst[2 * m + 1] = b != NULL ? b[m] : 0.0f;
        }
    }
    if (width & 1)
        dst[width - 1] = a != NULL ? a[pairs] : 0.0f;
}

/* Backward data's stride phases along dimension d that hold dx positions:
 * a phase a < stride exists for a < dx's size only, so a stride larger
 * than dx (legal) costs no phases beyond dx's own positions.  1 for the
 * other directions. */
static int64_t
phase_grid(const fdnn_conv_problem_t *p, int d)
{
    if (p->dir != FDNN_CONV_BWD_DATA)
        return 1;
    return p->stride[d] < p->in[d] ? p->stride[d] : p->in[d];
}

/* dx's planes c0 .. c0+planes-1 of image n, row by row (rows outside,
 * planes inside, see copy_planes), each row from its phases' buffers: the
 * s_w phase rows interleaved into a contiguous row (a phase no tap reaches
 * gives zeros), then one blend.  One pass over dx with unit-stride stores; blending each
 * phase with stride s_w took two thirds of a stride-2 layer. */
static void
blend_bwd_data(const dw_job_t *j, char *slot, int64_t planes, int64_t n, int64_t c0)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t s0 = p->stride[0], s1 = p->stride[1], s2 = p->stride[2], width = p->in[2];
    /* The phase grid (phase_grid): id % s0 < c0 and so on. */
    int64_t c1 = phase_grid(p, 1), c2 = phase_grid(p, 2);
    /* Plain results into a dense row: interleaved straight into dx. */
    bool direct = e->alpha == 1.0 && e->beta == 0.0 && p->x.strides[4] == 1;
    for (int64_t id = 0; id < p->in[0]; id++)
        for (int64_t ih = 0; ih < p->in[1]; ih++)
            for (int64_t i = 0; i < planes; i++) {
                float *dst = (float *)e->out + fdnn_conv_off5(&p->x, n, c0 + i, id, ih, 0);
                float *tmp = direct ? dst : (float *)(slot + j->row_offset);
                const dw_phase_t *ph = &j->phases[((id % s0) * c1 + ih % s1) * c2];
                size_t at = (size_t)(id / s0 * j->ld_d + ih / s1 * j->ld_h);
                const float *src = ph->taps > 0 ? out_plane(j, slot, ph, i) + at : NULL, *line = tmp;
                if (s2 == 1 && src != NULL) {
                    line = src;
                } else if (s2 == 2 && c2 == 2) {
                    const float *src1 = ph[1].taps > 0 ? out_plane(j, slot, &ph[1], i) + at : NULL;
                    zip2(tmp, src, src1, width);
                } else {
                    for (int64_t a2 = 0; a2 < s2 && a2 < width; a2++) {
                        const float *sa = ph[a2].taps > 0 ? out_plane(j, slot, &ph[a2], i) + at : NULL;
                        for (int64_t w = a2, m = 0; w < width; w += s2, m++)
                            tmp[w] = sa != NULL ? sa[m] : 0.0f;
                    }
                }
                if (line != dst)
                    blend_row(dst, p->x.strides[4], line, width, (float)e->alpha, (float)e->beta, NULL, false);
            }
}

/* Backward data, task as forward: per filter of a group the planes of dy
 * and one pass per phase, the K/g filters summed in order; then every
 * phase blended into dx. */
static void
bwd_data_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t kg = fdnn_conv_kg(p), n = (int64_t)task / j->plane_groups;
    int64_t g0 = (int64_t)task % j->plane_groups * j->planes;
    int64_t planes = p->g - g0 < j->planes ? p->g - g0 : j->planes;
    const float *dy = e->y_in;
    float *wt = (float *)(slot + j->w_offset);
    for (int64_t kk = 0; kk < kg; kk++) {
        copy_planes(&j->g, dy + fdnn_conv_off5(&p->y, n, g0 * kg + kk, 0, 0, 0), p->y.strides[1] * kg, planes, p->out,
                    p->y.strides + 2, (float *)slot, j->plane_stride);
        for (int64_t i = 0; i < planes; i++)
            load_taps(p, e->w_in, (g0 + i) * kg + kk, wt + i * j->taps);
        for (int64_t a = 0; a < j->nphases; a++)
            if (j->phases[a].taps > 0)
                run_rows(j, slot, planes, &j->phases[a], kk > 0);
    }
    blend_bwd_data(j, slot, planes, n, g0);
}

/* Backward filter, task = a group of `planes` output channels (one when
 * K/g > 1): every image in order into each channel's taps' lanes. */
static void
bwd_filter_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t kg = fdnn_conv_kg(p), k0 = (int64_t)task * j->planes;
    int64_t planes = p->k - k0 < j->planes ? p->k - k0 : j->planes;
    size_t lane_floats = (size_t)j->taps * FDNN_DWCONV_VL_MAX;
    int64_t dy_plane_floats = fdnn_conv_out_spatial(p);
    float *lanes = (float *)(slot + j->sums_offset), *dy_buf = (float *)(slot + j->dy_offset);
    const float *x = e->x_in, *dy = e->y_in;
    memset(lanes, 0, (size_t)planes * lane_floats * sizeof(float));
    for (int64_t n = 0; n < p->n; n++) {
        /* The planes of x (channel k / kg of each filter k: K/g == 1 here
         * when planes > 1) and, unless dy is read in place, of dy. */
        copy_planes(&j->g, x + fdnn_conv_off5(&p->x, n, k0 / kg, 0, 0, 0), p->x.strides[1], planes, p->in, p->x.strides + 2,
                    (float *)slot, j->plane_stride);
        if (!j->dy_in_place)
            for (int64_t d = 0; d < p->out[0]; d++)
                for (int64_t h = 0; h < p->out[1]; h++)
                    for (int64_t i = 0; i < planes; i++) {
                        const float *src = dy + fdnn_conv_off5(&p->y, n, k0 + i, d, h, 0);
                        float *dst = dy_buf + i * dy_plane_floats + (d * p->out[1] + h) * p->out[2];
                        for (int64_t w = 0; w < p->out[2]; w++)
                            dst[w] = src[w * p->y.strides[4]];
                    }
        for (int64_t i = 0; i < planes; i++) {
            fdnn_f32_dwconv_grad_args_t a = {
                .src = (const float *)slot + i * j->plane_stride,
                .dy = j->dy_in_place ? dy + fdnn_conv_off5(&p->y, n, k0 + i, 0, 0, 0) : dy_buf + i * dy_plane_floats,
                .row_off = j->row_off,
                .dy_off = j->dy_off,
                .tap_off = j->phases[0].tap_off,
                .rows = (size_t)(p->out[0] * p->out[1]),
                .taps = (size_t)j->taps,
                .ow = (size_t)p->out[2],
                .lanes = lanes + (size_t)i * lane_floats,
            };
            j->grad_fn(&a);
        }
    }
    /* dw[k, 0, tap]: each tap's lanes added in order; the sums are in q
     * order, CONVOLUTION mode stores the taps reversed. */
    float *dw = e->out;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    for (int64_t i = 0; i < planes; i++) {
        const float *kl = lanes + (size_t)i * lane_floats;
        int64_t t = 0;
        for (int64_t q0 = 0; q0 < p->ker[0]; q0++)
            for (int64_t q1 = 0; q1 < p->ker[1]; q1++)
                for (int64_t q2 = 0; q2 < p->ker[2]; q2++) {
                    float *dst = dw + fdnn_conv_w_off(p, k0 + i, 0, q0, q1, q2), sum = 0;
                    for (int l = 0; l < FDNN_DWCONV_VL_MAX; l++)
                        sum += kl[t * FDNN_DWCONV_VL_MAX + l];
                    t++;
                    *dst = fdnn_conv_epilogue_f32(sum, alpha, beta, dst, NULL, false);
                }
    }
}

static void
run_chunk(void *arg, size_t chunk)
{
    const dw_job_t *j = arg;
    char *slot = j->slots + chunk * j->slot_bytes;
    /* The buffer's zeros (padding, phase gaps, the slack past the last
     * row) are the same for every plane: written once. */
    memset(slot, 0, (size_t)(j->planes * j->plane_stride) * sizeof(float));
    size_t first = chunk * j->tasks / j->chunks, last = (chunk + 1) * j->tasks / j->chunks;
    for (size_t task = first; task < last; task++) {
        if (j->p->dir == FDNN_CONV_FWD)
            forward_task(j, slot, task);
        else if (j->p->dir == FDNN_CONV_BWD_DATA)
            bwd_data_task(j, slot, task);
        else
            bwd_filter_task(j, slot, task);
    }
}

/* Shared, read-only: row_off per kernel row (every plane of a task), dy_off
 * per dy row (backward filter), and the phases with their taps' offsets
 * (see the top of the file). */
static void
make_offsets(dw_job_t *j, int64_t *row_off, int64_t *dy_off, dw_phase_t *phases, int64_t *tap_off, int64_t *widx)
{
    const fdnn_conv_problem_t *p = j->p;
    const plane_geom_t *g = &j->g;
    bool bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    int64_t row = g->phases * g->wq;
    for (int64_t d = 0; d < j->out_dims[0]; d++)
        for (int64_t h = 0; h < j->out_dims[1]; h++) {
            int64_t zd = bwd_data ? d : d * p->stride[0], zh = bwd_data ? h : h * p->stride[1];
            for (int64_t i = 0; i < j->planes; i++) {
                int64_t base = i * j->plane_stride;
                if (!j->flat)
                    row_off[i * j->k_rows + d * j->out_dims[1] + h] = base + (zd * g->ext[1] + zh) * row;
                else if (h == 0)
                    row_off[i * j->k_rows + d] = base + zd * g->ext[1] * row;
            }
            if (dy_off != NULL)
                dy_off[d * j->out_dims[1] + h] =
                    j->dy_in_place ? fdnn_conv_off5(&p->y, 0, 0, d, h, 0) : (d * p->out[1] + h) * p->out[2];
        }
    int64_t a[3], q[3], used = 0, nph = 0;
    size_t phase_floats = (size_t)(j->planes * j->k_rows * j->ld_out);
    for (a[0] = 0; a[0] < phase_grid(p, 0); a[0]++)
        for (a[1] = 0; a[1] < phase_grid(p, 1); a[1]++)
            for (a[2] = 0; a[2] < phase_grid(p, 2); a[2]++) {
                dw_phase_t *ph = &phases[nph];
                bool empty = false;
                for (int d = 0; d < 3; d++) {
                    ph->a[d] = a[d];
                    ph->step[d] = bwd_data ? p->stride[d] : 1;
                    ph->m[d] = bwd_data ? ceil_div(p->in[d] - a[d], p->stride[d]) : p->out[d];
                    empty |= ph->m[d] <= 0;
                }
                ph->tap_off = tap_off + used;
                ph->widx = widx + used;
                ph->out_offset = (size_t)nph * phase_floats;
                ph->taps = 0;
                nph++;
                if (empty)
                    continue; /* dx smaller than the stride: no positions, no taps */
                int64_t t = 0;
                for (q[0] = 0; q[0] < p->ker[0]; q[0]++)
                    for (q[1] = 0; q[1] < p->ker[1]; q[1]++)
                        for (q[2] = 0; q[2] < p->ker[2]; q[2]++, t++) {
                            int64_t z[3];
                            bool reaches = true;
                            for (int d = 0; d < 3; d++) {
                                if (bwd_data) {
                                    int64_t num = a[d] + p->pad[d] - q[d] * p->dil[d];
                                    reaches &= num % p->stride[d] == 0;
                                    z[d] = num / p->stride[d] + g->front[d];
                                } else {
                                    z[d] = q[d] * p->dil[d];
                                }
                            }
                            if (!reaches)
                                continue;
                            tap_off[used] = (z[0] * g->ext[1] + z[1]) * row + z[2] % g->phases * g->wq +
                                            z[2] / g->phases;
                            widx[used++] = t;
                            ph->taps++;
                        }
            }
    j->nphases = nph;
}

static cudnnStatus_t
dwcb_applicable(const fdnn_conv_problem_t *p, cudnnHandle_t handle)
{
    if (!fdnn_conv_dwcb_applies(p, handle))
        return FDNN_NOT_SUPPORTED("dwcb: not channels innermost nor a small NCHW plane (fdnn_conv_dwcb_applies)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t planes_execute(const fdnn_conv_exec_t *e);

static cudnnStatus_t
planes_applicable(const fdnn_conv_problem_t *p, cudnnHandle_t handle)
{
    (void)p, (void)handle;
    return CUDNN_STATUS_SUCCESS;
}

/* The depthwise paths in order of preference, the first applicable one
 * runs: flat NCHW planes read in place (stride-1 backward data and
 * filter), channels innermost or small NCHW planes 16 channels per vector,
 * then the plane buffers of this file (any problem). */
static const struct {
    const char *name;
    cudnnStatus_t (*applicable)(const fdnn_conv_problem_t *p, cudnnHandle_t handle);
    cudnnStatus_t (*execute)(const fdnn_conv_exec_t *e);
} paths[] = {
    {"flat", fdnn_conv_dwflat_applicable, fdnn_conv_dwflat_execute},
    {"channel-blocked", dwcb_applicable, fdnn_conv_dwcb_execute},
    {"planes", planes_applicable, planes_execute},
};

cudnnStatus_t
fdnn_conv_depthwise_execute(const fdnn_conv_exec_t *e)
{
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        if (paths[i].applicable(e->p, e->handle) == CUDNN_STATUS_SUCCESS)
            return paths[i].execute(e);
        fdnn_fail_clear(); /* declined, the reason logged: the next one */
    }
    return FDNN_NOT_SUPPORTED("depthwise convolution: no path applies");
}

static cudnnStatus_t
planes_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    dw_job_t j;
    memset(&j, 0, sizeof(j));
    j.e = e;
    j.p = p;
    make_geom(p, &j.g, j.out_dims);
    j.taps = fdnn_conv_taps(p);
    bool bwd_filter = p->dir == FDNN_CONV_BWD_FILTER, bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    int64_t pitch = j.g.phases * j.g.wq, vec = FDNN_DWCONV_VL_MAX;
    j.flat = !bwd_filter && j.g.phases == 1 && (bwd_data || p->stride[1] == 1) && j.out_dims[1] > 1 &&
             pitch < ceil_div(j.out_dims[2], vec) * vec;
    if (j.flat) {
        j.k_rows = j.out_dims[0];
        j.k_ow = (j.out_dims[1] - 1) * pitch + j.out_dims[2];
        j.ld_out = ceil_div(j.out_dims[1] * pitch, vec) * vec;
        j.ld_d = j.ld_out;
        j.ld_h = pitch;
    } else {
        j.k_rows = j.out_dims[0] * j.out_dims[1];
        j.k_ow = j.out_dims[2];
        j.ld_out = ceil_div(j.out_dims[2], vec) * vec;
        j.ld_d = j.out_dims[1] * j.ld_out;
        j.ld_h = j.ld_out;
    }
    j.dy_in_place = bwd_filter && p->y.strides[4] == 1;

    /* Sizes in doubles first: a plane too large to buffer is declined
     * before anything is computed in size_t. */
    double plane_f = (double)j.g.ext[0] * (double)j.g.ext[1] * (double)j.g.phases * (double)j.g.wq +
                     FDNN_DWCONV_VL_MAX;
    double max_phases = (double)phase_grid(p, 0) * (double)phase_grid(p, 1) * (double)phase_grid(p, 2);
    if (plane_f > (double)MAX_SCRATCH_BYTES || max_phases > (double)MAX_SCRATCH_BYTES / 64)
        return FDNN_NOT_SUPPORTED("depthwise convolution: a plane buffer of %.3g floats is too large", plane_f);
    double stride_f = (double)ceil_div((int64_t)plane_f, vec) * vec;
    j.planes = 1;
    if (fdnn_conv_kg(p) == 1) {
        /* Channels innermost (NHWC): copies and blends read and write a
         * row of 16 channels together whatever the plane size. */
        const fdnn_tensor_t *in = bwd_data ? &p->y : &p->x; /* backward filter: dy too, alike */
        bool chlast = in->strides[1] < in->strides[4];
        double fit = floor((chlast ? CHLAST_PLANES_FLOATS : PLANES_FLOATS) / stride_f);
        j.planes = fit < 1 ? 1 : fit > FDNN_DWCONV_MAX_PLANES ? FDNN_DWCONV_MAX_PLANES : (int64_t)fit;
        j.planes = j.planes < p->g ? j.planes : p->g;
    }
    /* Backward filter groups output channels (K of them), the others input ones. */
    j.plane_groups = ceil_div(bwd_filter ? p->k : p->g, j.planes);
    j.tasks = (size_t)(bwd_filter ? j.plane_groups : p->n * j.plane_groups);
    double rows = (double)j.out_dims[0] * (double)j.out_dims[1];
    double kernel_rows = (double)j.planes * (double)j.k_rows;
    double out_f = bwd_filter ? 0 : max_phases * kernel_rows * (double)j.ld_out;
    double dy_f = bwd_filter && !j.dy_in_place ? (double)j.planes * rows * (double)p->out[2] : 0;
    double slot_d = 4.0 * ((double)j.planes * stride_f + out_f + dy_f + 18.0 * (double)j.planes * (double)j.taps) +
                    4.0 * (double)p->in[2] + 8.0 * kernel_rows + 7.0 * FDNN_ALIGNMENT;
    double shared_d = 8.0 * (kernel_rows + rows + 2.0 * (double)j.taps) + max_phases * sizeof(dw_phase_t) +
                      5.0 * FDNN_ALIGNMENT;
    if (slot_d + shared_d > (double)MAX_SCRATCH_BYTES)
        return FDNN_NOT_SUPPORTED("depthwise convolution: a plane buffer of %.3g bytes is too large", slot_d);
    j.g.floats = (size_t)plane_f;
    j.plane_stride = (int64_t)stride_f;
    j.out_offset = fdnn_align_up((size_t)(j.planes * j.plane_stride) * sizeof(float));
    j.w_offset = j.out_offset + fdnn_align_up((size_t)out_f * sizeof(float));
    j.wph_offset = j.w_offset + fdnn_align_up((size_t)(j.planes * j.taps) * sizeof(float));
    j.w_rows_offset = j.wph_offset + fdnn_align_up((size_t)(j.planes * j.taps) * sizeof(float));
    j.sums_offset = j.w_rows_offset + fdnn_align_up((size_t)kernel_rows * sizeof(float *));
    j.dy_offset = j.sums_offset + fdnn_align_up((size_t)(j.planes * j.taps * FDNN_DWCONV_VL_MAX) * sizeof(float));
    j.row_offset = j.dy_offset + fdnn_align_up((size_t)dy_f * sizeof(float));
    j.slot_bytes = j.row_offset + fdnn_align_up((size_t)p->in[2] * sizeof(float));

    size_t threads = e->pool != NULL ? fdnn_pool_threads(e->pool) : 1;
    j.chunks = threads * CHUNKS_PER_THREAD;
    j.chunks = j.chunks < j.tasks ? j.chunks : j.tasks;
    while (j.chunks > 1 && (double)j.chunks * (double)j.slot_bytes + shared_d > (double)MAX_SCRATCH_BYTES)
        j.chunks--;
    size_t row_bytes = fdnn_align_up((size_t)kernel_rows * sizeof(int64_t));
    size_t dy_bytes = fdnn_align_up((size_t)rows * sizeof(int64_t));
    size_t tap_bytes = fdnn_align_up((size_t)j.taps * sizeof(int64_t));
    size_t phase_bytes = fdnn_align_up((size_t)max_phases * sizeof(dw_phase_t));
    size_t shared = row_bytes + dy_bytes + 2 * tap_bytes + phase_bytes;
    char *scratch = fdnn_handle_scratch(e->handle, shared + j.chunks * j.slot_bytes);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    int64_t *row_off = (int64_t *)scratch, *dy_off = (int64_t *)(scratch + row_bytes);
    int64_t *tap_off = (int64_t *)(scratch + row_bytes + dy_bytes);
    int64_t *widx = (int64_t *)(scratch + row_bytes + dy_bytes + tap_bytes);
    dw_phase_t *phases = (dw_phase_t *)(scratch + row_bytes + dy_bytes + 2 * tap_bytes);
    make_offsets(&j, row_off, bwd_filter ? dy_off : NULL, phases, tap_off, widx);
    j.row_off = row_off;
    j.dy_off = dy_off;
    j.phases = phases;
    j.slots = scratch + shared;

    const fdnn_isa_config_t *level = fdnn_isa_config(e->handle->isa); /* never a kernel the CPU lacks */
    j.rows_fn = level->dwconv_rows;
    j.grad_fn = level->dwconv_grad;
    if (e->pool != NULL && j.chunks > 1)
        fdnn_parallelize_1d(e->pool, run_chunk, &j, j.chunks, 0);
    else
        for (size_t c = 0; c < j.chunks; c++)
            run_chunk(&j, c);
    return CUDNN_STATUS_SUCCESS;
}

/* SPDX-License-Identifier: Apache-2.0
 * Depthwise convolution on the plane kernels of src/cpu/kernels/dwconv.h
 * (the contract is in conv_depthwise.h).
 *
 * The buffered plane.  A source plane (dims S, element strides) is written
 * into a zero-filled buffer of extents E (depth, height, width) in which
 * source element i of a dimension lands at F + i*u (F zeros in front,
 * upsampling u: 1 for forward and backward filter, the stride for backward
 * data).  The width is stored in `phases` interleaved parts: position z
 * at part z % phases, index z / phases, so a read with stride `phases`
 * along W becomes a unit-stride read of one part.  Layout
 * [E_d][E_h][phases][wq], wq = ceil(E_w / phases), then FDNN_DWCONV_VL_MAX
 * zeros for the kernels' whole-vector reads past a row.
 *
 * Reads.  Output position o (od, oh, ow) and tap (q0, q1, q2) read
 * buffer position o*read_stride + q*dil + shift, per dimension:
 *   forward, backward filter: read_stride = stride, shift 0, F = pad;
 *   backward data: read_stride 1, taps reversed (r = ker-1-q), shift =
 *   F - lo with lo = (ker-1)*dil - pad and F = max(lo, 0): dx[i] sums
 *   dy[o] * w[q] over o*stride - pad + q*dil == i, and with dy upsampled
 *   (dy[o] at F + o*stride) that is buffer position i + r*dil + shift.
 * Since o*read_stride keeps the W part, the kernels see row_off (od, oh)
 * plus tap_off (q) plus ow. */
#include <string.h>

#include "core/cpu.h"
#include "core/fail.h"
#include "core/handle.h"
#include "core/memory.h"
#include "cpu/conv/conv_depthwise.h"
#include "cpu/kernels/dwconv.h"

/* Scratch above this is declined (the caller falls back to the blocked
 * path, which buffers one image). */
#define MAX_SCRATCH_BYTES ((size_t)1 << 30)

/* Chunks of tasks per thread (each with its own slot of scratch): enough
 * to even out planes of unequal cost, few enough to keep scratch small. */
#define CHUNKS_PER_THREAD 4

typedef struct plane_geom {
    int64_t ext[3], front[3], up[3];
    int64_t phases, wq;
    size_t floats; /* E_d * E_h * phases * wq + FDNN_DWCONV_VL_MAX */
} plane_geom_t;

typedef struct dw_job {
    const fdnn_conv_exec_t *e;
    const fdnn_conv_problem_t *p;
    plane_geom_t g;
    fdnn_f32_dwconv_rows_fn rows_fn;
    fdnn_f32_dwconv_grad_fn grad_fn;
    int64_t taps;
    int64_t out_dims[3]; /* the computed plane: y's (fwd, bwd filter's dy) or dx's */
    /* The rows kernel's view of the output plane: kernel rows of k_ow
     * positions, ld_out floats apart.  A flat plane (stride-1 reads, no W
     * phases, short rows) is one kernel row per depth slice: its H rows
     * follow each other at the buffered row pitch, and the columns between
     * them are computed and never read (10/16 of a vector idle for 7-wide
     * rows otherwise).  Output (d, h, w) is at d*ld_d + h*ld_h + w. */
    bool flat;
    int64_t k_rows, k_ow, ld_out, ld_d, ld_h;
    bool dy_in_place;    /* backward filter: dy rows read from dy itself */
    const int64_t *row_off, *tap_off, *dy_off; /* shared, read-only */
    char *slots;
    size_t slot_bytes, out_offset, w_offset, sums_offset, dy_offset;
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

/* The buffer geometry for p's direction (see the top of the file) and the
 * per-dimension shift of its reads. */
static void
make_geom(const fdnn_conv_problem_t *p, plane_geom_t *g, int64_t shift[3])
{
    bool bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    for (int d = 0; d < 3; d++) {
        int64_t span = (p->ker[d] - 1) * p->dil[d];
        if (bwd_data) {
            int64_t lo = span - p->pad[d];
            g->front[d] = lo > 0 ? lo : 0;
            g->up[d] = p->stride[d];
            shift[d] = g->front[d] - lo;
            g->ext[d] = p->in[d] - 1 + span + shift[d] + 1;
        } else {
            g->front[d] = p->pad[d];
            g->up[d] = 1;
            shift[d] = 0;
            g->ext[d] = (p->out[d] - 1) * p->stride[d] + span + 1;
        }
    }
    g->phases = bwd_data ? 1 : p->stride[2];
    g->wq = ceil_div(g->ext[2], g->phases);
}

/* Writes the plane src (dims, element strides) into dst per g. */
static void
fill_plane(const plane_geom_t *g, const float *src, const int64_t dims[3], const int64_t strides[3], float *dst)
{
    size_t row = (size_t)(g->phases * g->wq);
    for (int64_t z0 = 0; z0 < g->ext[0]; z0++) {
        int64_t i0 = z0 - g->front[0];
        bool in0 = i0 >= 0 && i0 % g->up[0] == 0 && i0 / g->up[0] < dims[0];
        for (int64_t z1 = 0; z1 < g->ext[1]; z1++) {
            float *drow = dst + (size_t)(z0 * g->ext[1] + z1) * row;
            int64_t i1 = z1 - g->front[1];
            bool in1 = i1 >= 0 && i1 % g->up[1] == 0 && i1 / g->up[1] < dims[1];
            if (!in0 || !in1) {
                memset(drow, 0, row * sizeof(float));
                continue;
            }
            const float *srow = src + i0 / g->up[0] * strides[0] + i1 / g->up[1] * strides[1];
            /* Source elements that land inside the extent. */
            int64_t n = g->ext[2] > g->front[2] ? ceil_div(g->ext[2] - g->front[2], g->up[2]) : 0;
            n = n < dims[2] ? n : dims[2];
            if (g->phases == 1 && g->up[2] == 1 && strides[2] == 1) {
                memset(drow, 0, (size_t)g->front[2] * sizeof(float) * (n > 0));
                if (n > 0)
                    memcpy(drow + g->front[2], srow, (size_t)n * sizeof(float));
                size_t used = n > 0 ? (size_t)(g->front[2] + n) : 0;
                memset(drow + used, 0, (row - used) * sizeof(float));
                continue;
            }
            memset(drow, 0, row * sizeof(float));
            if (g->phases == 1) {
                for (int64_t i = 0; i < n; i++)
                    drow[g->front[2] + i * g->up[2]] = srow[i * strides[2]];
                continue;
            }
            /* Phases come with up == 1 (forward, backward filter): part p
             * holds the elements i = p - front (mod phases), one apart. */
            for (int64_t part = 0; part < g->phases; part++) {
                int64_t i = ((part - g->front[2]) % g->phases + g->phases) % g->phases;
                float *dpart = drow + part * g->wq + (g->front[2] + i) / g->phases;
                for (int64_t m = 0; i < n; i += g->phases, m++)
                    dpart[m] = srow[i * strides[2]];
            }
        }
    }
    memset(dst + (size_t)(g->ext[0] * g->ext[1]) * row, 0, FDNN_DWCONV_VL_MAX * sizeof(float));
}

/* Element (n, c, d, h, w) of t. */
static inline int64_t
off5(const fdnn_tensor_t *t, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w)
{
    return n * t->strides[0] + c * t->strides[1] + d * t->strides[2] + h * t->strides[3] + w * t->strides[4];
}

/* The taps of filter k in the kernels' order (q0, q1, q2, W fastest):
 * reversed once for CONVOLUTION mode and once more for backward data. */
static void
load_taps(const fdnn_conv_problem_t *p, const float *w, int64_t k, float *wt)
{
    bool reverse = p->flip != (p->dir == FDNN_CONV_BWD_DATA);
    int64_t t = 0;
    for (int64_t q0 = 0; q0 < p->ker[0]; q0++)
        for (int64_t q1 = 0; q1 < p->ker[1]; q1++)
            for (int64_t q2 = 0; q2 < p->ker[2]; q2++) {
                int64_t a0 = reverse ? p->ker[0] - 1 - q0 : q0, a1 = reverse ? p->ker[1] - 1 - q1 : q1,
                        a2 = reverse ? p->ker[2] - 1 - q2 : q2;
                wt[t++] = w[off5(&p->w, k, 0, a0, a1, a2)];
            }
}

/* dst[j*stride] = alpha*src[j] + beta*dst[j*stride] (+ bias, ReLU) for
 * j < count; dst is not read when beta is 0.  ReLU keeps NaN, as the
 * blocked path does. */
static void
blend_row(float *dst, int64_t stride, const float *src, int64_t count, float alpha, float beta, const float *bias,
          bool relu)
{
    if (alpha == 1.0f && beta == 0.0f && bias == NULL && !relu && stride == 1) {
        memcpy(dst, src, (size_t)count * sizeof(float));
        return;
    }
    for (int64_t j = 0; j < count; j++) {
        float v = alpha * src[j];
        if (beta != 0.0f)
            v += beta * dst[j * stride];
        if (bias != NULL)
            v += *bias;
        if (relu && !(v > 0))
            v = v != v ? v : 0;
        dst[j * stride] = v;
    }
}

/* Blends the output plane buffer into channel c of image n of t. */
static void
blend_plane(const dw_job_t *j, const float *buf, const fdnn_tensor_t *t, float *base, int64_t n, int64_t c,
            const float *bias)
{
    const fdnn_conv_exec_t *e = j->e;
    for (int64_t d = 0; d < j->out_dims[0]; d++)
        for (int64_t h = 0; h < j->out_dims[1]; h++)
            blend_row(base + off5(t, n, c, d, h, 0), t->strides[4], buf + (size_t)(d * j->ld_d + h * j->ld_h),
                      j->out_dims[2], (float)e->alpha, (float)e->beta, bias, e->relu);
}

static void
run_rows(const dw_job_t *j, const float *plane, const float *wt, float *out, bool accumulate)
{
    fdnn_f32_dwconv_rows_args_t a = {
        .src = plane,
        .row_off = j->row_off,
        .tap_off = j->tap_off,
        .w = wt,
        .rows = (size_t)j->k_rows,
        .taps = (size_t)j->taps,
        .ow = (size_t)j->k_ow,
        .out = out,
        .ld_out = (size_t)j->ld_out,
        .accumulate = accumulate,
    };
    j->rows_fn(&a);
}

/* Forward, task = n*G + g: x's plane once, then the K/g filters. */
static void
forward_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t kg = fdnn_conv_kg(p), n = (int64_t)task / p->g, g = (int64_t)task % p->g;
    float *plane = (float *)slot, *out = (float *)(slot + j->out_offset), *wt = (float *)(slot + j->w_offset);
    const float *x = e->x_in;
    fill_plane(&j->g, x + off5(&p->x, n, g, 0, 0, 0), p->in, p->x.strides + 2, plane);
    for (int64_t kk = 0; kk < kg; kk++) {
        int64_t k = g * kg + kk;
        load_taps(p, e->w_in, k, wt);
        run_rows(j, plane, wt, out, false);
        blend_plane(j, out, &p->y, e->out, n, k, e->bias != NULL ? (const float *)e->bias + k : NULL);
    }
}

/* Backward data, task = n*G + g: the K/g filters' passes summed in order. */
static void
bwd_data_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t kg = fdnn_conv_kg(p), n = (int64_t)task / p->g, g = (int64_t)task % p->g;
    float *plane = (float *)slot, *out = (float *)(slot + j->out_offset), *wt = (float *)(slot + j->w_offset);
    const float *dy = e->y_in;
    for (int64_t kk = 0; kk < kg; kk++) {
        int64_t k = g * kg + kk;
        fill_plane(&j->g, dy + off5(&p->y, n, k, 0, 0, 0), p->out, p->y.strides + 2, plane);
        load_taps(p, e->w_in, k, wt);
        run_rows(j, plane, wt, out, kk > 0);
    }
    blend_plane(j, out, &p->x, e->out, n, g, NULL);
}

/* Backward filter, task = k: every image in order into the taps' sums. */
static void
bwd_filter_task(const dw_job_t *j, char *slot, size_t task)
{
    const fdnn_conv_problem_t *p = j->p;
    const fdnn_conv_exec_t *e = j->e;
    int64_t k = (int64_t)task, g = k / fdnn_conv_kg(p);
    float *plane = (float *)slot, *sums = (float *)(slot + j->sums_offset);
    float *dy_buf = (float *)(slot + j->dy_offset);
    const float *x = e->x_in, *dy = e->y_in;
    memset(sums, 0, (size_t)j->taps * sizeof(float));
    for (int64_t n = 0; n < p->n; n++) {
        fill_plane(&j->g, x + off5(&p->x, n, g, 0, 0, 0), p->in, p->x.strides + 2, plane);
        const float *dy_plane = dy + off5(&p->y, n, k, 0, 0, 0);
        if (!j->dy_in_place) {
            for (int64_t d = 0; d < p->out[0]; d++)
                for (int64_t h = 0; h < p->out[1]; h++)
                    for (int64_t w = 0; w < p->out[2]; w++)
                        dy_buf[(d * p->out[1] + h) * p->out[2] + w] = dy_plane[off5(&p->y, 0, 0, d, h, w)];
            dy_plane = dy_buf;
        }
        fdnn_f32_dwconv_grad_args_t a = {
            .src = plane,
            .dy = dy_plane,
            .row_off = j->row_off,
            .dy_off = j->dy_off,
            .tap_off = j->tap_off,
            .rows = (size_t)(p->out[0] * p->out[1]),
            .taps = (size_t)j->taps,
            .ow = (size_t)p->out[2],
            .sums = sums,
        };
        j->grad_fn(&a);
    }
    /* dw[k, 0, tap]: the sums are in q order, CONVOLUTION mode stores the
     * taps reversed. */
    float *dw = e->out;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t t = 0;
    for (int64_t q0 = 0; q0 < p->ker[0]; q0++)
        for (int64_t q1 = 0; q1 < p->ker[1]; q1++)
            for (int64_t q2 = 0; q2 < p->ker[2]; q2++) {
                int64_t a0 = p->flip ? p->ker[0] - 1 - q0 : q0, a1 = p->flip ? p->ker[1] - 1 - q1 : q1,
                        a2 = p->flip ? p->ker[2] - 1 - q2 : q2;
                float *dst = dw + off5(&p->w, k, 0, a0, a1, a2);
                float v = alpha * sums[t++];
                if (beta != 0.0f)
                    v += beta * *dst;
                *dst = v;
            }
}

static void
run_chunk(void *arg, size_t chunk)
{
    const dw_job_t *j = arg;
    char *slot = j->slots + chunk * j->slot_bytes;
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

/* Offsets shared by every task: row_off per computed row, tap_off per tap
 * (see the top of the file), and for backward filter dy_off per dy row. */
static void
make_offsets(const dw_job_t *j, const int64_t shift[3], int64_t *row_off, int64_t *tap_off, int64_t *dy_off)
{
    const fdnn_conv_problem_t *p = j->p;
    const plane_geom_t *g = &j->g;
    bool bwd_data = p->dir == FDNN_CONV_BWD_DATA;
    int64_t row = g->phases * g->wq;
    for (int64_t d = 0; d < j->out_dims[0]; d++)
        for (int64_t h = 0; h < j->out_dims[1]; h++) {
            int64_t zd = bwd_data ? d : d * p->stride[0], zh = bwd_data ? h : h * p->stride[1];
            if (!j->flat)
                row_off[d * j->out_dims[1] + h] = (zd * g->ext[1] + zh) * row;
            else if (h == 0)
                row_off[d] = zd * g->ext[1] * row;
            if (dy_off != NULL)
                dy_off[d * j->out_dims[1] + h] =
                    j->dy_in_place ? off5(&p->y, 0, 0, d, h, 0) : (d * p->out[1] + h) * p->out[2];
        }
    int64_t t = 0;
    for (int64_t q0 = 0; q0 < p->ker[0]; q0++)
        for (int64_t q1 = 0; q1 < p->ker[1]; q1++)
            for (int64_t q2 = 0; q2 < p->ker[2]; q2++) {
                int64_t z0 = q0 * p->dil[0] + shift[0], z1 = q1 * p->dil[1] + shift[1],
                        z2 = q2 * p->dil[2] + shift[2];
                tap_off[t++] = (z0 * g->ext[1] + z1) * row + z2 % g->phases * g->wq + z2 / g->phases;
            }
}

cudnnStatus_t
fdnn_conv_depthwise_execute(const fdnn_conv_exec_t *e)
{
    const fdnn_conv_problem_t *p = e->p;
    dw_job_t j;
    memset(&j, 0, sizeof(j));
    j.e = e;
    j.p = p;
    int64_t shift[3];
    make_geom(p, &j.g, shift);
    j.taps = fdnn_conv_taps(p);
    bool bwd_filter = p->dir == FDNN_CONV_BWD_FILTER;
    memcpy(j.out_dims, p->dir == FDNN_CONV_BWD_DATA ? p->in : p->out, sizeof(j.out_dims));
    int64_t pitch = j.g.phases * j.g.wq, vec = FDNN_DWCONV_VL_MAX;
    j.flat = !bwd_filter && j.g.phases == 1 && (p->dir == FDNN_CONV_BWD_DATA || p->stride[1] == 1) &&
             j.out_dims[1] > 1 && pitch < ceil_div(j.out_dims[2], vec) * vec;
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
    j.tasks = (size_t)(bwd_filter ? p->k : p->n * p->g);

    /* Sizes in doubles first: a plane too large to buffer is declined
     * before anything is computed in size_t. */
    double plane_f = (double)j.g.ext[0] * (double)j.g.ext[1] * (double)j.g.phases * (double)j.g.wq +
                     FDNN_DWCONV_VL_MAX;
    double rows = (double)j.out_dims[0] * (double)j.out_dims[1];
    double out_f = bwd_filter ? 0 : (double)j.k_rows * (double)j.ld_out;
    double dy_f = bwd_filter && !j.dy_in_place ? rows * (double)p->out[2] : 0;
    double slot_d = 4.0 * (plane_f + out_f + dy_f + 2.0 * (double)j.taps) + 4.0 * FDNN_ALIGNMENT;
    double shared_d = 8.0 * (2.0 * rows + (double)j.taps) + 3.0 * FDNN_ALIGNMENT;
    if (slot_d + shared_d > (double)MAX_SCRATCH_BYTES)
        return FDNN_NOT_SUPPORTED("depthwise convolution: a plane buffer of %.3g bytes is too large", slot_d);
    j.g.floats = (size_t)plane_f;
    j.out_offset = fdnn_align_up(j.g.floats * sizeof(float));
    j.w_offset = j.out_offset + fdnn_align_up((size_t)out_f * sizeof(float));
    j.sums_offset = j.w_offset + fdnn_align_up((size_t)j.taps * sizeof(float));
    j.dy_offset = j.sums_offset + fdnn_align_up((size_t)j.taps * sizeof(float));
    j.slot_bytes = j.dy_offset + fdnn_align_up((size_t)dy_f * sizeof(float));

    size_t threads = e->pool != NULL ? pthreadpool_get_threads_count(e->pool) : 1;
    j.chunks = threads * CHUNKS_PER_THREAD;
    j.chunks = j.chunks < j.tasks ? j.chunks : j.tasks;
    while (j.chunks > 1 && (double)j.chunks * (double)j.slot_bytes + shared_d > (double)MAX_SCRATCH_BYTES)
        j.chunks--;
    size_t rows_n = (size_t)rows, row_bytes = fdnn_align_up(rows_n * sizeof(int64_t));
    size_t shared = 2 * row_bytes + fdnn_align_up((size_t)j.taps * sizeof(int64_t));
    char *scratch = fdnn_handle_scratch(e->handle, shared + j.chunks * j.slot_bytes);
    if (scratch == NULL)
        return CUDNN_STATUS_ALLOC_FAILED; /* the reason is recorded by fdnn_handle_scratch */
    int64_t *row_off = (int64_t *)scratch, *dy_off = (int64_t *)(scratch + row_bytes);
    int64_t *tap_off = (int64_t *)(scratch + 2 * row_bytes);
    make_offsets(&j, shift, row_off, tap_off, bwd_filter ? dy_off : NULL);
    j.row_off = row_off;
    j.tap_off = tap_off;
    j.dy_off = dy_off;
    j.slots = scratch + shared;

    static const fdnn_f32_dwconv_rows_fn rows_fns[FDNN_ISA_COUNT] = {
        fdnn_f32_dwconv_rows__scalar, fdnn_f32_dwconv_rows__avx2, fdnn_f32_dwconv_rows__avx512};
    static const fdnn_f32_dwconv_grad_fn grad_fns[FDNN_ISA_COUNT] = {
        fdnn_f32_dwconv_grad__scalar, fdnn_f32_dwconv_grad__avx2, fdnn_f32_dwconv_grad__avx512};
    fdnn_isa_t isa = e->handle->isa;
    if (isa > fdnn_cpu_detected_isa())
        isa = fdnn_cpu_detected_isa(); /* never run instructions the CPU lacks */
    j.rows_fn = rows_fns[isa];
    j.grad_fn = grad_fns[isa];
    if (e->pool != NULL && j.chunks > 1)
        pthreadpool_parallelize_1d(e->pool, run_chunk, &j, j.chunks, 0);
    else
        for (size_t c = 0; c < j.chunks; c++)
            run_chunk(&j, c);
    return CUDNN_STATUS_SUCCESS;
}

/* SPDX-License-Identifier: Apache-2.0
 * The transform engine (see fdnn_transform_t in tensor_ops.h): padding,
 * cropping, folding and unfolding, all as strided copies on the elementwise
 * engine.
 *
 * dst is cut into pieces that each map onto src with a fixed step per dim:
 * for a fold, the block of C_U channels of each phase; for an unfold, the
 * elements of dst of one phase (every f-th along each folded dim).  Within a
 * piece the elements with a source form one box (copied with alpha and
 * beta); the rest of the piece is padding, cut into disjoint slabs.  Every
 * element of dst is written by exactly one elementwise call, so the result
 * is what the elementwise engine makes of it: the same for any thread
 * count.  Copies that are dense FLOAT <-> HALF / BFLOAT16 conversions
 * (alpha 1, beta 0) take the row kernels instead (fdnn_tensor_convert_dense,
 * also used by the API layer for cudnnTransformTensor): the same bits. */
#include <assert.h>

#include "core/handle.h"
#include "core/pool.h"
#include "cpu/tensor/convert_row.h"
#include "cpu/tensor/tensor_ops.h"

/* ---- the dense conversion fast path ------------------------------------------- */

/* Elements per task of a dense conversion: a fixed split (the bits do not
 * depend on it anyway: each element is converted alone). */
#define DENSE_TILE 32768

typedef struct dense_ctx {
    fdnn_convert_row_fn fn;
    const char *src;
    char *dst;
    size_t ses, des;
} dense_ctx_t;

static void
dense_tile(void *arg, size_t start, size_t len)
{
    const dense_ctx_t *c = arg;
    c->fn(c->src + start * c->ses, c->dst + start * c->des, len);
}

/* True when a and c address their elements in the same order and the
 * elements fill [0, elements) without gaps: one row in memory. */
static bool
same_dense_layout(const fdnn_tensor_t *a, const fdnn_tensor_t *c)
{
    if (a->ndim != c->ndim)
        return false;
    for (int i = 0; i < c->ndim; i++)
        if (a->dims[i] != c->dims[i] || (c->dims[i] > 1 && a->strides[i] != c->strides[i]))
            return false;
    return fdnn_tensor_span(c) == fdnn_tensor_elements(c);
}

bool
fdnn_tensor_convert_dense(cudnnHandle_t handle, const fdnn_eltwise_t *p)
{
    /* With alpha 1 and beta 0 the engine's result is the plain conversion
     * (1 * x is x, NaNs quiet in both), which the row kernels give. */
    if (p->op != FDNN_ELT_COPY || p->alpha1 != 1.0 || p->beta != 0.0)
        return false;
    if (!fdnn_convert_row_supported(p->a.dtype, p->c.dtype) || !same_dense_layout(&p->a, &p->c))
        return false;
    const size_t n = (size_t)fdnn_tensor_elements(&p->c);
    dense_ctx_t ctx = {fdnn_convert_row_kernel(fdnn_convert_row_path(handle->isa), p->a.dtype, p->c.dtype),
                       p->a_data, p->c_data, fdnn_dtype_size(p->a.dtype), fdnn_dtype_size(p->c.dtype)};
    fdnn_pool_t pool = n < 2 * DENSE_TILE ? NULL : fdnn_handle_pool(handle);
    fdnn_parallelize_1d_tile_1d(pool, dense_tile, &ctx, n, DENSE_TILE, 0);
    return true;
}

/* ---- the transform engine ------------------------------------------------------ */

/* Floor division for a positive divisor. */
static int64_t
floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The sub-box of `t` from `start` with extents `ext`. */
static void
sub_box(const fdnn_tensor_t *t, void *data, const int64_t *start, const int64_t *ext, fdnn_tensor_t *box,
        void **box_data)
{
    *box = *t;
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++) {
        off += start[i] * t->strides[i];
        box->dims[i] = ext[i];
    }
    *box_data = (char *)data + off * (int64_t)fdnn_dtype_size(t->dtype);
}

/* dst = beta * dst (0 when beta is 0, without reading dst) over a box. */
static void
fill_padding(cudnnHandle_t handle, const fdnn_transform_t *p, const fdnn_tensor_t *box, void *data)
{
    fdnn_eltwise_t q = {.f64 = p->f64, .c = *box, .c_data = data};
    if (p->beta == 0.0) {
        q.op = FDNN_ELT_SET;
        q.value = 0.0;
    } else {
        q.op = FDNN_ELT_COPY;
        q.alpha1 = p->beta;
        q.a = *box;
        q.a_data = data;
    }
    fdnn_tensor_eltwise(handle, &q);
}

/* One piece: element t of the view `v` (at `vdata`) takes src element
 * start + t * step (per dim) when that lies inside src, else it is
 * padding. */
static void
copy_piece(cudnnHandle_t handle, const fdnn_transform_t *p, const fdnn_tensor_t *v, void *vdata,
           const int64_t *start, const int64_t *step)
{
    const fdnn_tensor_t *s = &p->src;
    const int nd = v->ndim;
    int64_t lo[CUDNN_DIM_MAX], ext[CUDNN_DIM_MAX];
    bool empty = false;
    for (int i = 0; i < nd; i++) {
        /* t in [lo, hi) keeps 0 <= start + t * step < src dim. */
        int64_t tlo = start[i] >= 0 ? 0 : (-start[i] + step[i] - 1) / step[i];
        int64_t last = s->dims[i] - 1 - start[i];
        int64_t thi = last < 0 ? 0 : last / step[i] + 1;
        if (thi > v->dims[i])
            thi = v->dims[i];
        lo[i] = tlo;
        ext[i] = thi - tlo;
        if (ext[i] <= 0)
            empty = true;
    }
    if (empty) {
        fill_padding(handle, p, v, vdata);
        return;
    }
    /* The interior. */
    fdnn_eltwise_t q = {.op = FDNN_ELT_COPY, .f64 = p->f64, .alpha1 = p->alpha, .beta = p->beta};
    void *cdata;
    sub_box(v, vdata, lo, ext, &q.c, &cdata);
    q.c_data = cdata;
    q.a = *s;
    int64_t off = 0;
    for (int i = 0; i < nd; i++) {
        off += (start[i] + lo[i] * step[i]) * s->strides[i];
        q.a.dims[i] = ext[i];
        q.a.strides[i] = s->strides[i] * step[i];
    }
    q.a_data = (const char *)p->src_data + off * (int64_t)fdnn_dtype_size(s->dtype);
    if (!fdnn_tensor_convert_dense(handle, &q))
        fdnn_tensor_eltwise(handle, &q);
    /* The border, in disjoint slabs: for dim d, the parts before and after
     * the interior along d, interior along the dims before d, whole along
     * the dims after. */
    for (int d = 0; d < nd; d++) {
        for (int side = 0; side < 2; side++) {
            int64_t bs[CUDNN_DIM_MAX], be[CUDNN_DIM_MAX];
            for (int i = 0; i < nd; i++) {
                bs[i] = i < d ? lo[i] : 0;
                be[i] = i < d ? ext[i] : v->dims[i];
            }
            bs[d] = side == 0 ? 0 : lo[d] + ext[d];
            be[d] = side == 0 ? lo[d] : v->dims[d] - bs[d];
            if (be[d] <= 0)
                continue;
            fdnn_tensor_t box;
            void *bdata;
            sub_box(v, vdata, bs, be, &box, &bdata);
            fill_padding(handle, p, &box, bdata);
        }
    }
}

/* The phase of `off` along each dim: row-major over the folded dims (the
 * last fastest); 0 along the dims that are not folded. */
static void
phases(const fdnn_transform_t *p, int nd, int64_t off, int64_t *ph)
{
    for (int i = nd - 1; i >= 0; i--) {
        ph[i] = off % p->fold[i];
        off /= p->fold[i];
    }
}

void
fdnn_tensor_transform(cudnnHandle_t handle, const fdnn_transform_t *p)
{
    const int nd = p->dst.ndim;
    assert(p->src.ndim == nd && nd >= 2);
    assert(p->fold[0] == 1 && p->fold[1] == 1);
    const fdnn_tensor_t *u = p->unfold ? &p->dst : &p->src;
    int64_t pad[CUDNN_DIM_MAX], nphase = 1;
    for (int i = 0; i < nd; i++) {
        pad[i] = p->unfold ? -(int64_t)p->pad_before[i] : p->pad_before[i];
        nphase *= p->fold[i];
    }
    const int64_t cu = u->dims[1];
    for (int64_t off = 0; off < nphase; off++) {
        int64_t ph[CUDNN_DIM_MAX], start[CUDNN_DIM_MAX], step[CUDNN_DIM_MAX], vs[CUDNN_DIM_MAX],
            ve[CUDNN_DIM_MAX];
        phases(p, nd, off, ph);
        fdnn_tensor_t v = p->dst;
        void *vdata = p->dst_data;
        if (!p->unfold) {
            /* dst = F: the channels [c0, c0 + C_U) of this phase. */
            const int64_t c0 = pad[1] + off * cu;
            const int64_t clo = c0 < 0 ? 0 : c0;
            const int64_t chi = c0 + cu > p->dst.dims[1] ? p->dst.dims[1] : c0 + cu;
            if (clo >= chi)
                continue;
            for (int i = 0; i < nd; i++) {
                vs[i] = i == 1 ? clo : 0;
                ve[i] = i == 1 ? chi - clo : p->dst.dims[i];
                step[i] = p->fold[i];
                start[i] = i == 1 ? clo - c0 : ph[i] - pad[i];
            }
            sub_box(&p->dst, p->dst_data, vs, ve, &v, &vdata);
        } else {
            /* dst = U: the elements h = h0 + t * f with (h + p) mod f equal
             * to the phase; they come from F at (h0 + p) / f + t. */
            bool empty = false;
            int64_t off_elems = 0;
            for (int i = 0; i < nd; i++) {
                const int64_t f = p->fold[i];
                const int64_t h0 = ((ph[i] - pad[i]) % f + f) % f;
                v.dims[i] = h0 < p->dst.dims[i] ? (p->dst.dims[i] - h0 + f - 1) / f : 0;
                v.strides[i] = p->dst.strides[i] * f;
                off_elems += h0 * p->dst.strides[i];
                step[i] = 1;
                start[i] = i == 1 ? pad[1] + off * cu : floor_div(h0 + pad[i], f);
                if (v.dims[i] == 0)
                    empty = true;
            }
            if (empty)
                continue;
            vdata = (char *)p->dst_data + off_elems * (int64_t)fdnn_dtype_size(p->dst.dtype);
        }
        copy_piece(handle, p, &v, vdata, start, step);
    }
    if (!p->unfold) {
        /* The channels of F outside every phase's block: padding. */
        const int64_t ends[2][2] = {{0, pad[1]}, {pad[1] + nphase * cu, p->dst.dims[1]}};
        for (int k = 0; k < 2; k++) {
            int64_t clo = ends[k][0] < 0 ? 0 : ends[k][0];
            int64_t chi = ends[k][1] > p->dst.dims[1] ? p->dst.dims[1] : ends[k][1];
            if (clo >= chi)
                continue;
            int64_t vs[CUDNN_DIM_MAX], ve[CUDNN_DIM_MAX];
            for (int i = 0; i < nd; i++) {
                vs[i] = i == 1 ? clo : 0;
                ve[i] = i == 1 ? chi - clo : p->dst.dims[i];
            }
            fdnn_tensor_t box;
            void *bdata;
            sub_box(&p->dst, p->dst_data, vs, ve, &box, &bdata);
            fill_padding(handle, p, &box, bdata);
        }
    }
}

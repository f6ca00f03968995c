/* SPDX-License-Identifier: Apache-2.0
 * See tensor_ops_ref.h.  Deliberately plain: one logical index at a time. */
#include "ref/tensor_ops_ref.h"

#include <math.h>

/* Unravels the row-major position `pos` over dims into idx. */
static void
unravel(int64_t pos, int n, const int64_t *dims, int64_t *idx)
{
    for (int i = n - 1; i >= 0; i--) {
        idx[i] = pos % dims[i];
        pos /= dims[i];
    }
}

/* Offset of idx in t, reading index 0 along t's dims of extent 1. */
static int64_t
offset_bcast(const fdnn_tensor_t *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++)
        off += (t->dims[i] == 1 ? 0 : idx[i]) * t->strides[i];
    return off;
}

static double
pick_min_max(bool is_min, bool propagate_nan, double x, double y)
{
    if (isnan(x) || isnan(y)) {
        if (propagate_nan)
            return NAN;
        return isnan(x) ? y : x;
    }
    if (is_min)
        return x < y ? x : y;
    return x > y ? x : y;
}

void
fdnn_ref_op_tensor(cudnnOpTensorOp_t op, bool propagate_nan, double alpha1, const fdnn_tensor_t *a,
                   const double *A, double alpha2, const fdnn_tensor_t *b, const double *B, double beta,
                   const fdnn_tensor_t *c, double *C)
{
    int64_t n = fdnn_tensor_elements(c);
    int64_t idx[CUDNN_DIM_MAX];
    for (int64_t pos = 0; pos < n; pos++) {
        unravel(pos, c->ndim, c->dims, idx);
        double x = alpha1 * A[offset_bcast(a, idx)];
        double y = 0.0;
        if (op <= CUDNN_OP_TENSOR_MAX)
            y = alpha2 * B[offset_bcast(b, idx)];
        double r = 0.0;
        switch (op) {
        case CUDNN_OP_TENSOR_ADD: r = x + y; break;
        case CUDNN_OP_TENSOR_MUL: r = x * y; break;
        case CUDNN_OP_TENSOR_MIN: r = pick_min_max(true, propagate_nan, x, y); break;
        case CUDNN_OP_TENSOR_MAX: r = pick_min_max(false, propagate_nan, x, y); break;
        case CUDNN_OP_TENSOR_SQRT: r = sqrt(x); break;
        case CUDNN_OP_TENSOR_NOT: r = 1.0 - x; break;
        }
        int64_t co = offset_bcast(c, idx);
        C[co] = beta == 0.0 ? r : r + beta * C[co];
    }
}

void
fdnn_ref_reduce(cudnnReduceTensorOp_t op, bool propagate_nan, double alpha, const fdnn_tensor_t *a,
                const double *A, double beta, const fdnn_tensor_t *c, double *C, int64_t *indices)
{
    /* The reduced dims, in a's order. */
    int nr = 0;
    int64_t rdims[CUDNN_DIM_MAX];
    int rmap[CUDNN_DIM_MAX];
    for (int i = 0; i < a->ndim; i++)
        if (c->dims[i] != a->dims[i]) {
            rdims[nr] = a->dims[i];
            rmap[nr++] = i;
        }
    int64_t rcount = 1;
    for (int j = 0; j < nr; j++)
        rcount *= rdims[j];
    int64_t outputs = fdnn_tensor_elements(c);
    int64_t cidx[CUDNN_DIM_MAX], ridx[CUDNN_DIM_MAX], aidx[CUDNN_DIM_MAX];
    for (int64_t o = 0; o < outputs; o++) {
        unravel(o, c->ndim, c->dims, cidx);
        double acc = (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) ? 1.0 : 0.0;
        double best = NAN;
        int64_t best_at = -1;
        for (int64_t r = 0; r < rcount; r++) {
            unravel(r, nr, rdims, ridx);
            for (int i = 0; i < a->ndim; i++)
                aidx[i] = cidx[i];
            for (int j = 0; j < nr; j++)
                aidx[rmap[j]] = ridx[j];
            double x = A[offset_bcast(a, aidx)];
            switch (op) {
            case CUDNN_REDUCE_TENSOR_ADD:
            case CUDNN_REDUCE_TENSOR_AVG: acc += x; break;
            case CUDNN_REDUCE_TENSOR_NORM1: acc += fabs(x); break;
            case CUDNN_REDUCE_TENSOR_NORM2: acc += x * x; break;
            case CUDNN_REDUCE_TENSOR_MUL: acc *= x; break;
            case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
                if (x != 0.0)
                    acc *= x;
                break;
            case CUDNN_REDUCE_TENSOR_MIN:
            case CUDNN_REDUCE_TENSOR_MAX:
            case CUDNN_REDUCE_TENSOR_AMAX: {
                double v = op == CUDNN_REDUCE_TENSOR_AMAX ? fabs(x) : x;
                bool take;
                if (best_at < 0)
                    take = true;
                else if (propagate_nan)
                    take = !isnan(best) && (isnan(v) || (op == CUDNN_REDUCE_TENSOR_MIN ? v < best : v > best));
                else
                    take = !isnan(v) && (isnan(best) || (op == CUDNN_REDUCE_TENSOR_MIN ? v < best : v > best));
                if (take) {
                    best = v;
                    best_at = r;
                }
                break;
            }
            }
        }
        double v;
        switch (op) {
        case CUDNN_REDUCE_TENSOR_AVG: v = acc / (double)rcount; break;
        case CUDNN_REDUCE_TENSOR_NORM2: v = sqrt(acc); break;
        case CUDNN_REDUCE_TENSOR_MIN:
        case CUDNN_REDUCE_TENSOR_MAX:
        case CUDNN_REDUCE_TENSOR_AMAX: v = best; break;
        default: v = acc; break;
        }
        int64_t co = offset_bcast(c, cidx);
        C[co] = beta == 0.0 ? alpha * v : alpha * v + beta * C[co];
        if (indices != NULL)
            indices[o] = best_at < 0 ? 0 : best_at;
    }
}

void
fdnn_ref_transform(double alpha, const fdnn_tensor_t *s, const double *S, double beta, const fdnn_tensor_t *d,
                   double *D, const int *pad_before)
{
    int64_t n = fdnn_tensor_elements(d);
    int64_t idx[CUDNN_DIM_MAX];
    for (int64_t pos = 0; pos < n; pos++) {
        unravel(pos, d->ndim, d->dims, idx);
        double x = 0.0;
        bool inside = true;
        int64_t so = 0;
        for (int i = 0; i < d->ndim; i++) {
            /* without padding, extent-1 dims of s broadcast (cudnnAddTensor) */
            int64_t si = pad_before != NULL ? idx[i] - pad_before[i] : s->dims[i] == 1 ? 0 : idx[i];
            if (si < 0 || si >= s->dims[i])
                inside = false;
            else
                so += (s->dims[i] == 1 ? 0 : si) * s->strides[i];
        }
        if (inside)
            x = S[so];
        int64_t dof = offset_bcast(d, idx);
        D[dof] = beta == 0.0 ? alpha * x : alpha * x + beta * D[dof];
    }
}

/* Floor division and modulo for a positive divisor. */
static int64_t
fdiv(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

void
fdnn_ref_fold_transform(double alpha, const fdnn_tensor_t *s, const double *S, double beta, const fdnn_tensor_t *d,
                        double *D, const int *pad_before, const int *pad_after, const unsigned *fold,
                        bool unfold)
{
    const int nd = d->ndim;
    /* Channels: negative C pads crop U's channels before a fold (skip
     * first ones, drop last ones), positive ones lie around the phase
     * blocks of F; cu counts the channels of U that take part. */
    const int64_t lead = pad_before[1] > 0 ? pad_before[1] : 0, skip = pad_before[1] < 0 ? -pad_before[1] : 0;
    const int64_t cu = unfold ? d->dims[1] - lead - (pad_after[1] > 0 ? pad_after[1] : 0)
                              : s->dims[1] - skip + (pad_after[1] < 0 ? pad_after[1] : 0);
    int64_t nphase = 1;
    for (int i = 2; i < nd; i++)
        nphase *= fold[i];
    int64_t n = fdnn_tensor_elements(d);
    int64_t idx[CUDNN_DIM_MAX], si[CUDNN_DIM_MAX];
    for (int64_t pos = 0; pos < n; pos++) {
        unravel(pos, nd, d->dims, idx);
        bool inside = true;
        if (!unfold) {
            int64_t rel = idx[1] - lead;
            int64_t off = fdiv(rel, cu);
            inside = off >= 0 && off < nphase;
            si[0] = idx[0] - pad_before[0];
            si[1] = skip + rel - off * cu;
            for (int i = nd - 1; i >= 2; i--) {
                int64_t ph = off % fold[i];
                off /= fold[i];
                si[i] = idx[i] * fold[i] + ph - pad_before[i];
            }
        } else {
            int64_t off = 0;
            for (int i = 2; i < nd; i++) {
                int64_t hp = idx[i] - pad_before[i];
                si[i] = fdiv(hp, fold[i]);
                off = off * fold[i] + (hp - si[i] * fold[i]);
            }
            si[0] = idx[0] - pad_before[0];
            const int64_t c = idx[1] - lead;
            inside = c >= 0 && c < cu;
            si[1] = skip + off * cu + c;
        }
        int64_t so = 0;
        for (int i = 0; i < nd; i++) {
            int64_t end = s->dims[i];
            if (!unfold && pad_after[i] < 0)
                end += pad_after[i];
            if (si[i] < 0 || si[i] >= end)
                inside = false;
            else
                so += si[i] * s->strides[i];
        }
        double x = inside ? S[so] : 0.0;
        int64_t dof = offset_bcast(d, idx);
        D[dof] = beta == 0.0 ? alpha * x : alpha * x + beta * D[dof];
    }
}

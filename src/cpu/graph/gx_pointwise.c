/* SPDX-License-Identifier: Apache-2.0
 * The pointwise node of the generic engine: every mode of
 * cudnnPointwiseMode_t (8.9.4 has 50), inputs broadcast to the output
 * (dims of extent 1), math precision FLOAT or DOUBLE, any storage type of
 * gx_load/gx_store.  The walk goes row by row along the output's unit-stride
 * dim, GX_CHUNK elements at a time: load (convert) the inputs, one row
 * kernel, store (convert).  Rows are independent, so the split over threads
 * cannot change a bit. */
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/handle.h"
#include "core/pool.h"
#include "cpu/config/config.h"
#include "cpu/graph/graph_exec.h"

/* The row kernels of pw's ISA level (src/cpu/config). */
void
gx_pw_row_f32(const gx_pw_t *pw, int64_t n, float *y, const float *x, const float *b, const float *t)
{
    fdnn_isa_config(pw->isa)->gx_pw_row_f32(pw, n, y, x, b, t);
}

void
gx_pw_row_f64(const gx_pw_t *pw, int64_t n, double *y, const double *x, const double *b, const double *t)
{
    fdnn_isa_config(pw->isa)->gx_pw_row_f64(pw, n, y, x, b, t);
}

static const struct {
    cudnnPointwiseMode_t mode;
    const char *name;
    int arity;
} modes[] = {
    {CUDNN_POINTWISE_ADD, "ADD", 2},
    {CUDNN_POINTWISE_ADD_SQUARE, "ADD_SQUARE", 2},
    {CUDNN_POINTWISE_DIV, "DIV", 2},
    {CUDNN_POINTWISE_MAX, "MAX", 2},
    {CUDNN_POINTWISE_MIN, "MIN", 2},
    {CUDNN_POINTWISE_MOD, "MOD", 2},
    {CUDNN_POINTWISE_MUL, "MUL", 2},
    {CUDNN_POINTWISE_POW, "POW", 2},
    {CUDNN_POINTWISE_SUB, "SUB", 2},
    {CUDNN_POINTWISE_ABS, "ABS", 1},
    {CUDNN_POINTWISE_CEIL, "CEIL", 1},
    {CUDNN_POINTWISE_COS, "COS", 1},
    {CUDNN_POINTWISE_EXP, "EXP", 1},
    {CUDNN_POINTWISE_FLOOR, "FLOOR", 1},
    {CUDNN_POINTWISE_LOG, "LOG", 1},
    {CUDNN_POINTWISE_NEG, "NEG", 1},
    {CUDNN_POINTWISE_RSQRT, "RSQRT", 1},
    {CUDNN_POINTWISE_SIN, "SIN", 1},
    {CUDNN_POINTWISE_SQRT, "SQRT", 1},
    {CUDNN_POINTWISE_TAN, "TAN", 1},
    {CUDNN_POINTWISE_ERF, "ERF", 1},
    {CUDNN_POINTWISE_IDENTITY, "IDENTITY", 1},
    {CUDNN_POINTWISE_RECIPROCAL, "RECIPROCAL", 1},
    {CUDNN_POINTWISE_RELU_FWD, "RELU_FWD", 1},
    {CUDNN_POINTWISE_TANH_FWD, "TANH_FWD", 1},
    {CUDNN_POINTWISE_SIGMOID_FWD, "SIGMOID_FWD", 1},
    {CUDNN_POINTWISE_ELU_FWD, "ELU_FWD", 1},
    {CUDNN_POINTWISE_GELU_FWD, "GELU_FWD", 1},
    {CUDNN_POINTWISE_SOFTPLUS_FWD, "SOFTPLUS_FWD", 1},
    {CUDNN_POINTWISE_SWISH_FWD, "SWISH_FWD", 1},
    {CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, "GELU_APPROX_TANH_FWD", 1},
    {CUDNN_POINTWISE_RELU_BWD, "RELU_BWD", 2},
    {CUDNN_POINTWISE_TANH_BWD, "TANH_BWD", 2},
    {CUDNN_POINTWISE_SIGMOID_BWD, "SIGMOID_BWD", 2},
    {CUDNN_POINTWISE_ELU_BWD, "ELU_BWD", 2},
    {CUDNN_POINTWISE_GELU_BWD, "GELU_BWD", 2},
    {CUDNN_POINTWISE_SOFTPLUS_BWD, "SOFTPLUS_BWD", 2},
    {CUDNN_POINTWISE_SWISH_BWD, "SWISH_BWD", 2},
    {CUDNN_POINTWISE_GELU_APPROX_TANH_BWD, "GELU_APPROX_TANH_BWD", 2},
    {CUDNN_POINTWISE_CMP_EQ, "CMP_EQ", 2},
    {CUDNN_POINTWISE_CMP_NEQ, "CMP_NEQ", 2},
    {CUDNN_POINTWISE_CMP_GT, "CMP_GT", 2},
    {CUDNN_POINTWISE_CMP_GE, "CMP_GE", 2},
    {CUDNN_POINTWISE_CMP_LT, "CMP_LT", 2},
    {CUDNN_POINTWISE_CMP_LE, "CMP_LE", 2},
    {CUDNN_POINTWISE_LOGICAL_AND, "LOGICAL_AND", 2},
    {CUDNN_POINTWISE_LOGICAL_OR, "LOGICAL_OR", 2},
    {CUDNN_POINTWISE_LOGICAL_NOT, "LOGICAL_NOT", 1},
    {CUDNN_POINTWISE_GEN_INDEX, "GEN_INDEX", 1},
    {CUDNN_POINTWISE_BINARY_SELECT, "BINARY_SELECT", 3},
};

static int
mode_at(cudnnPointwiseMode_t m)
{
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (modes[i].mode == m)
            return (int)i;
    return -1;
}

const char *
gx_pw_mode_name(cudnnPointwiseMode_t mode)
{
    int i = mode_at(mode);
    return i < 0 ? "?" : modes[i].name;
}

bool
gx_pw_mode_known(cudnnPointwiseMode_t mode)
{
    return mode_at(mode) >= 0;
}

int
gx_pw_arity(cudnnPointwiseMode_t mode)
{
    int i = mode_at(mode);
    return i < 0 ? 0 : modes[i].arity;
}

static bool
is_bwd(cudnnPointwiseMode_t m)
{
    return m >= CUDNN_POINTWISE_RELU_BWD && m <= CUDNN_POINTWISE_GELU_APPROX_TANH_BWD;
}

void
gx_pw_init(const fdnn_gop_pointwise_t *op, fdnn_isa_t isa, gx_pw_t *pw)
{
    pw->isa = isa;
    pw->mode = op->mode;
    pw->f64 = op->math_prec == CUDNN_DATA_DOUBLE;
    pw->propagate_nan = op->nan_prop == CUDNN_PROPAGATE_NAN;
    pw->lower = op->relu_lower_clip;
    pw->upper = op->relu_upper_clip;
    pw->slope = op->relu_lower_clip_slope;
    pw->elu_alpha = op->elu_alpha;
    pw->softplus_beta = op->softplus_beta;
    pw->swish_beta = op->swish_beta;
    pw->alpha1 = op->alpha1;
    pw->alpha2 = op->alpha2;
}

void
gx_pw_operands(const fdnn_gop_pointwise_t *op, int *out, int *in_x, int *in_b, int *in_t)
{
    if (is_bwd(op->mode)) {
        *out = op->dx;
        *in_x = op->x;
        *in_b = op->dy;
        *in_t = FDNN_GRAPH_NONE;
    } else {
        int ar = gx_pw_arity(op->mode);
        *out = op->y;
        *in_x = op->x;
        *in_b = ar >= 2 ? op->b : FDNN_GRAPH_NONE;
        *in_t = ar >= 3 ? op->t : FDNN_GRAPH_NONE;
    }
}

/* NOT_SUPPORTED unless operand `t` (role `role`) broadcasts to `o`. */
static cudnnStatus_t
check_operand(const fdnn_graph_t *g, int idx, const char *role, int t, const fdnn_graph_tensor_t *o)
{
    const char *mname = gx_pw_mode_name(g->nodes[idx].u.pointwise.mode);
    if (t == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): operand %s is missing", idx, mname, role);
    const fdnn_graph_tensor_t *a = &g->tensors[t];
    if (!gx_dtype_storable(a->dtype))
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): operand %s has data type %s", idx, mname, role,
                                  gx_dtype_name(a->dtype));
    if (a->ndim != o->ndim && !(a->by_value))
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): operand %s has %d dims, the output %d", idx, mname, role,
                                  a->ndim, o->ndim);
    for (int d = 0; d < a->ndim && !a->by_value; d++)
        if (a->dims[d] != 1 && a->dims[d] != o->dims[d])
            return FDNN_NOT_SUPPORTED("node %d (pointwise %s): operand %s dim %d is "
                                      "%lld, neither 1 nor the "
                                      "output's %lld",
                                      idx, mname, role, d, (long long)a->dims[d], (long long)o->dims[d]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
gx_pw_supports(const fdnn_graph_t *g, int idx)
{
    const fdnn_gop_pointwise_t *op = &g->nodes[idx].u.pointwise;
    if (!gx_pw_mode_known(op->mode))
        return FDNN_NOT_SUPPORTED("node %d (pointwise): mode %d is not a cudnnPointwiseMode_t of 8.9", idx,
                                  (int)op->mode);
    const char *mname = gx_pw_mode_name(op->mode);
    if (op->mode != CUDNN_POINTWISE_GEN_INDEX && op->math_prec != CUDNN_DATA_FLOAT &&
        op->math_prec != CUDNN_DATA_DOUBLE)
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): math precision %s; FLOAT and DOUBLE are done", idx, mname,
                                  gx_dtype_name(op->math_prec));
    if (is_bwd(op->mode) && (op->alpha1 != 1 || op->alpha2 != 1))
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): alpha1/alpha2 other than 1 on a backward mode", idx, mname);
    int out, ix, ib, it;
    gx_pw_operands(op, &out, &ix, &ib, &it);
    if (out == FDNN_GRAPH_NONE)
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): the output is missing", idx, mname);
    const fdnn_graph_tensor_t *o = &g->tensors[out];
    if (!gx_dtype_storable(o->dtype))
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): output data type %s", idx, mname, gx_dtype_name(o->dtype));
    if (o->by_value)
        return FDNN_NOT_SUPPORTED("node %d (pointwise %s): the output is a by-value tensor", idx, mname);
    RETURN_IF_ERROR(check_operand(g, idx, is_bwd(op->mode) ? "x" : "x", ix, o));
    if (ib != FDNN_GRAPH_NONE || gx_pw_arity(op->mode) >= 2)
        RETURN_IF_ERROR(check_operand(g, idx, is_bwd(op->mode) ? "dy" : "b", ib, o));
    if (it != FDNN_GRAPH_NONE || gx_pw_arity(op->mode) >= 3)
        RETURN_IF_ERROR(check_operand(g, idx, "t", it, o));
    if (op->mode == CUDNN_POINTWISE_GEN_INDEX && (op->axis < 0 || op->axis >= o->ndim))
        return FDNN_NOT_SUPPORTED("node %d (pointwise GEN_INDEX): axis %lld is not "
                                  "a dim of the output (%d dims)",
                                  idx, (long long)op->axis, o->ndim);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
pw_scratch(const fdnn_graph_t *g, int idx, size_t *bytes)
{
    (void)g, (void)idx;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct pw_run {
    const fdnn_graph_t *g;
    gx_pw_t pw;
    int64_t axis;
    gx_rows_t rows;
    int nin;
    const fdnn_graph_tensor_t *in_t[3];
    const void *in_p[3];
    const fdnn_graph_tensor_t *out_t;
    void *out_p;
} pw_run_t;

/* Offset and stride along the row of an operand (by-value: the scalar). */
static void
operand_row(const fdnn_graph_tensor_t *t, const gx_rows_t *r, const int64_t *idx, int64_t *off, int64_t *stride)
{
    if (t->by_value) {
        *off = 0, *stride = 0;
        return;
    }
    *off = gx_bcast_offset(t, idx);
    *stride = t->dims[r->row_dim] == 1 ? 0 : t->strides[r->row_dim];
}

static void
pw_row_task(void *ctx, size_t row)
{
    const pw_run_t *c = ctx;
    int64_t idx[FDNN_GRAPH_MAX_DIMS];
    gx_rows_pos(&c->rows, (int64_t)row, idx);
    int64_t ooff, ostr, off[3], str[3];
    operand_row(c->out_t, &c->rows, idx, &ooff, &ostr);
    for (int i = 0; i < c->nin; i++)
        operand_row(c->in_t[i], &c->rows, idx, &off[i], &str[i]);
    if (c->pw.mode == CUDNN_POINTWISE_GEN_INDEX) {
        for (int64_t j = 0; j < c->rows.row_len; j++) {
            double v = c->axis == c->rows.row_dim ? (double)j : (double)idx[c->axis];
            gx_store(c->out_t->dtype, c->out_p, ooff + j * ostr, v);
        }
        return;
    }
    for (int64_t j0 = 0; j0 < c->rows.row_len; j0 += GX_CHUNK) {
        int64_t n = c->rows.row_len - j0 < GX_CHUNK ? c->rows.row_len - j0 : GX_CHUNK;
        if (c->pw.f64) {
            double buf[3][GX_CHUNK], y[GX_CHUNK];
            for (int i = 0; i < c->nin; i++)
                gx_load_row_f64(c->in_t[i]->dtype, c->in_p[i], off[i] + j0 * str[i], str[i], n, buf[i]);
            gx_pw_row_f64(&c->pw, n, y, buf[0], buf[1], buf[2]);
            gx_store_row_f64(c->out_t->dtype, c->out_p, ooff + j0 * ostr, ostr, n, y);
        } else {
            float buf[3][GX_CHUNK], y[GX_CHUNK];
            for (int i = 0; i < c->nin; i++)
                gx_load_row_f32(c->in_t[i]->dtype, c->in_p[i], off[i] + j0 * str[i], str[i], n, buf[i]);
            gx_pw_row_f32(&c->pw, n, y, buf[0], buf[1], buf[2]);
            gx_store_row_f32(c->out_t->dtype, c->out_p, ooff + j0 * ostr, ostr, n, y);
        }
    }
}

static cudnnStatus_t
pw_run(const fdnn_graph_exec_t *e, void **ptr, int idx, void *scratch, size_t scratch_bytes)
{
    (void)scratch, (void)scratch_bytes;
    const fdnn_graph_t *g = e->graph;
    const fdnn_gop_pointwise_t *op = &g->nodes[idx].u.pointwise;
    pw_run_t c;
    memset(&c, 0, sizeof(c));
    c.g = g;
    gx_pw_init(op, e->handle->isa, &c.pw);
    c.axis = op->axis;
    int out, ins[3];
    gx_pw_operands(op, &out, &ins[0], &ins[1], &ins[2]);
    c.out_t = &g->tensors[out];
    c.out_p = ptr[out];
    c.nin = op->mode == CUDNN_POINTWISE_GEN_INDEX ? 0 : gx_pw_arity(op->mode);
    for (int i = 0; i < c.nin; i++) {
        c.in_t[i] = &g->tensors[ins[i]];
        c.in_p[i] = ptr[ins[i]];
    }
    gx_rows_init(c.out_t, &c.rows);
    int64_t total = c.rows.nrows * c.rows.row_len;
    /* Small outputs on the calling thread: the same bits, no wake-up cost. */
    fdnn_pool_t pool = total < 65536 ? NULL : fdnn_handle_pool(e->handle);
    fdnn_parallelize_1d(pool, pw_row_task, &c, (size_t)c.rows.nrows, 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
pw_supports(const fdnn_graph_t *g, int idx)
{
    return gx_pw_supports(g, idx);
}

const gx_node_exec_t gx_pointwise_exec = {pw_supports, pw_scratch, pw_run};

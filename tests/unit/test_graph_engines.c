/* SPDX-License-Identifier: Apache-2.0
 * The generic graph engine (src/cpu/graph/engine_generic.c), on graphs
 * built by hand:
 *   - every pointwise mode alone, FLOAT and DOUBLE math, b and t
 *     broadcast to y, against a float64 scalar reference written here
 *     (its activation formulas checked against PyTorch: test_graph_torch.c);
 *   - NaN propagation of MAX/MIN, RELU clips and slope, GEN_INDEX along
 *     each axis, BOOLEAN outputs, alpha1/alpha2;
 *   - every reduction operator over two sets of dims;
 *   - conv (fwd, bwd data, bwd filter) and batched, broadcast, transposed
 *     matmul against float64 direct formulas;
 *   - 1 vs 2 threads bitwise; outputs poisoned; workspace guarded;
 *   - unsupported graphs answered NOT_SUPPORTED with a reason naming the
 *     node. */
#include "test_graph_engines.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

/* ---- the float64 pointwise reference ------------------------------------ */

typedef struct pw_par {
    double lower, upper, slope, elu, softplus, swish, a1, a2;
    bool prop;
} pw_par_t;

static double
sig(double v)
{
    return 1 / (1 + exp(-v));
}

static double
ref_pw(cudnnPointwiseMode_t m, const pw_par_t *p, double x, double b, double t)
{
    const double pi = 3.14159265358979323846;
    if (m < CUDNN_POINTWISE_RELU_BWD)
        x *= p->a1, b *= p->a2;
    switch (m) {
    case CUDNN_POINTWISE_ADD: return x + b;
    case CUDNN_POINTWISE_ADD_SQUARE: return x + b * b;
    case CUDNN_POINTWISE_DIV: return x / b;
    case CUDNN_POINTWISE_MAX: return isnan(x) || isnan(b) ? (p->prop ? NAN : (isnan(x) ? b : x)) : (x > b ? x : b);
    case CUDNN_POINTWISE_MIN: return isnan(x) || isnan(b) ? (p->prop ? NAN : (isnan(x) ? b : x)) : (x < b ? x : b);
    case CUDNN_POINTWISE_MOD: return fmod(x, b);
    case CUDNN_POINTWISE_MUL: return x * b;
    case CUDNN_POINTWISE_POW: return pow(x, b);
    case CUDNN_POINTWISE_SUB: return x - b;
    case CUDNN_POINTWISE_ABS: return fabs(x);
    case CUDNN_POINTWISE_CEIL: return ceil(x);
    case CUDNN_POINTWISE_COS: return cos(x);
    case CUDNN_POINTWISE_EXP: return exp(x);
    case CUDNN_POINTWISE_FLOOR: return floor(x);
    case CUDNN_POINTWISE_LOG: return log(x);
    case CUDNN_POINTWISE_NEG: return -x;
    case CUDNN_POINTWISE_RSQRT: return 1 / sqrt(x);
    case CUDNN_POINTWISE_SIN: return sin(x);
    case CUDNN_POINTWISE_SQRT: return sqrt(x);
    case CUDNN_POINTWISE_TAN: return tan(x);
    case CUDNN_POINTWISE_ERF: return erf(x);
    case CUDNN_POINTWISE_IDENTITY: return x;
    case CUDNN_POINTWISE_RECIPROCAL: return 1 / x;
    case CUDNN_POINTWISE_RELU_FWD:
        if (x <= p->lower)
            return p->lower + p->slope * (x - p->lower);
        return x > p->upper ? p->upper : x;
    case CUDNN_POINTWISE_TANH_FWD: return tanh(x);
    case CUDNN_POINTWISE_SIGMOID_FWD: return sig(x);
    case CUDNN_POINTWISE_ELU_FWD: return x > 0 ? x : p->elu * (exp(x) - 1);
    case CUDNN_POINTWISE_GELU_FWD: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case CUDNN_POINTWISE_SOFTPLUS_FWD: return log(1 + exp(p->softplus * x)) / p->softplus;
    case CUDNN_POINTWISE_SWISH_FWD: return x * sig(p->swish * x);
    case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD: return 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
    /* backward: x the forward input, b = dy; derivatives by hand */
    case CUDNN_POINTWISE_RELU_BWD: return x <= p->lower ? p->slope * b : (x > p->upper ? 0 : b);
    case CUDNN_POINTWISE_TANH_BWD: return b / (cosh(x) * cosh(x));
    case CUDNN_POINTWISE_SIGMOID_BWD: return b * exp(-x) / ((1 + exp(-x)) * (1 + exp(-x)));
    case CUDNN_POINTWISE_ELU_BWD: return x > 0 ? b : b * p->elu * exp(x);
    case CUDNN_POINTWISE_GELU_BWD: return b * (0.5 * (1 + erf(x / sqrt(2.0))) + x * exp(-x * x / 2) / sqrt(2 * pi));
    case CUDNN_POINTWISE_SOFTPLUS_BWD: return b * exp(p->softplus * x) / (1 + exp(p->softplus * x));
    case CUDNN_POINTWISE_SWISH_BWD: {
        double s = sig(p->swish * x);
        return b * (s + p->swish * x * s * (1 - s));
    }
    case CUDNN_POINTWISE_GELU_APPROX_TANH_BWD: {
        /* central difference of the forward formula in float64 */
        double h = 1e-6;
        pw_par_t q = *p;
        q.a1 = q.a2 = 1;
        return b *
               (ref_pw(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, &q, x + h, 0, 0) -
                ref_pw(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, &q, x - h, 0, 0)) /
               (2 * h);
    }
    case CUDNN_POINTWISE_CMP_EQ: return x == b;
    case CUDNN_POINTWISE_CMP_NEQ: return x != b;
    case CUDNN_POINTWISE_CMP_GT: return x > b;
    case CUDNN_POINTWISE_CMP_GE: return x >= b;
    case CUDNN_POINTWISE_CMP_LT: return x < b;
    case CUDNN_POINTWISE_CMP_LE: return x <= b;
    case CUDNN_POINTWISE_LOGICAL_AND: return x != 0 && b != 0;
    case CUDNN_POINTWISE_LOGICAL_OR: return x != 0 || b != 0;
    case CUDNN_POINTWISE_LOGICAL_NOT: return x == 0;
    case CUDNN_POINTWISE_BINARY_SELECT: return t != 0 ? x : b;
    default: return NAN;
    }
}

static const cudnnPointwiseMode_t all_modes[] = {CUDNN_POINTWISE_ADD,
                                                 CUDNN_POINTWISE_ADD_SQUARE,
                                                 CUDNN_POINTWISE_DIV,
                                                 CUDNN_POINTWISE_MAX,
                                                 CUDNN_POINTWISE_MIN,
                                                 CUDNN_POINTWISE_MOD,
                                                 CUDNN_POINTWISE_MUL,
                                                 CUDNN_POINTWISE_POW,
                                                 CUDNN_POINTWISE_SUB,
                                                 CUDNN_POINTWISE_ABS,
                                                 CUDNN_POINTWISE_CEIL,
                                                 CUDNN_POINTWISE_COS,
                                                 CUDNN_POINTWISE_EXP,
                                                 CUDNN_POINTWISE_FLOOR,
                                                 CUDNN_POINTWISE_LOG,
                                                 CUDNN_POINTWISE_NEG,
                                                 CUDNN_POINTWISE_RSQRT,
                                                 CUDNN_POINTWISE_SIN,
                                                 CUDNN_POINTWISE_SQRT,
                                                 CUDNN_POINTWISE_TAN,
                                                 CUDNN_POINTWISE_ERF,
                                                 CUDNN_POINTWISE_IDENTITY,
                                                 CUDNN_POINTWISE_RECIPROCAL,
                                                 CUDNN_POINTWISE_RELU_FWD,
                                                 CUDNN_POINTWISE_TANH_FWD,
                                                 CUDNN_POINTWISE_SIGMOID_FWD,
                                                 CUDNN_POINTWISE_ELU_FWD,
                                                 CUDNN_POINTWISE_GELU_FWD,
                                                 CUDNN_POINTWISE_SOFTPLUS_FWD,
                                                 CUDNN_POINTWISE_SWISH_FWD,
                                                 CUDNN_POINTWISE_GELU_APPROX_TANH_FWD,
                                                 CUDNN_POINTWISE_RELU_BWD,
                                                 CUDNN_POINTWISE_TANH_BWD,
                                                 CUDNN_POINTWISE_SIGMOID_BWD,
                                                 CUDNN_POINTWISE_ELU_BWD,
                                                 CUDNN_POINTWISE_GELU_BWD,
                                                 CUDNN_POINTWISE_SOFTPLUS_BWD,
                                                 CUDNN_POINTWISE_SWISH_BWD,
                                                 CUDNN_POINTWISE_GELU_APPROX_TANH_BWD,
                                                 CUDNN_POINTWISE_CMP_EQ,
                                                 CUDNN_POINTWISE_CMP_NEQ,
                                                 CUDNN_POINTWISE_CMP_GT,
                                                 CUDNN_POINTWISE_CMP_GE,
                                                 CUDNN_POINTWISE_CMP_LT,
                                                 CUDNN_POINTWISE_CMP_LE,
                                                 CUDNN_POINTWISE_LOGICAL_AND,
                                                 CUDNN_POINTWISE_LOGICAL_OR,
                                                 CUDNN_POINTWISE_LOGICAL_NOT,
                                                 CUDNN_POINTWISE_GEN_INDEX,
                                                 CUDNN_POINTWISE_BINARY_SELECT};

static bool
is_cmp_or_logical(cudnnPointwiseMode_t m)
{
    return (m >= CUDNN_POINTWISE_CMP_EQ && m <= CUDNN_POINTWISE_LOGICAL_NOT);
}

/* Input ranges where each mode is defined and well conditioned. */
static void
input_range(cudnnPointwiseMode_t m, double *lo, double *hi)
{
    *lo = -3, *hi = 3;
    switch (m) {
    case CUDNN_POINTWISE_LOG:
    case CUDNN_POINTWISE_SQRT:
    case CUDNN_POINTWISE_RSQRT:
    case CUDNN_POINTWISE_POW:
    case CUDNN_POINTWISE_DIV:
    case CUDNN_POINTWISE_RECIPROCAL:
    case CUDNN_POINTWISE_MOD: *lo = 0.25, *hi = 4; break;
    case CUDNN_POINTWISE_TAN: *lo = -1.2, *hi = 1.2; break;
    default: break;
    }
}

/* One mode alone: y [2,3,4,5], x full, b [1,3,1,5], t [2,1,4,1]. */
static void
test_pointwise_mode(cudnnPointwiseMode_t m, cudnnDataType_t prec)
{
    gb_t b;
    gb_init(&b);
    const int64_t yd[4] = {2, 3, 4, 5}, bd[4] = {1, 3, 1, 5}, td[4] = {2, 1, 4, 1};
    cudnnDataType_t dt = prec;
    int ar = gx_pw_arity(m);
    bool bwd = m >= CUDNN_POINTWISE_RELU_BWD && m <= CUDNN_POINTWISE_GELU_APPROX_TANH_BWD;
    int x = gb_tensor(&b, dt, 4, yd, false);
    /* dy of the backward modes has the output's shape */
    int bb = ar >= 2 ? gb_tensor(&b, dt, 4, bwd ? yd : bd, false) : FDNN_GRAPH_NONE;
    int t = ar >= 3 ? gb_tensor(&b, CUDNN_DATA_BOOLEAN, 4, td, false) : FDNN_GRAPH_NONE;
    cudnnDataType_t ydt = is_cmp_or_logical(m)             ? CUDNN_DATA_BOOLEAN
                          : m == CUDNN_POINTWISE_GEN_INDEX ? CUDNN_DATA_INT32
                                                           : dt;
    int y = gb_tensor(&b, ydt, 4, yd, false);
    fdnn_gop_pointwise_t *op = gb_pw(&b, m, prec, x, bb, t, y);
    op->relu_lower_clip = 0.25, op->relu_upper_clip = 2, op->relu_lower_clip_slope = 0.125;
    op->elu_alpha = 0.75, op->softplus_beta = 1.5, op->swish_beta = 0.8;
    op->axis = 2;
    if (!bwd && !is_cmp_or_logical(m) && m != CUDNN_POINTWISE_POW)
        op->alpha1 = 1.25, op->alpha2 = ar >= 2 ? 0.5 : 1;
    pw_par_t par = {op->relu_lower_clip, op->relu_upper_clip, op->relu_lower_clip_slope,
                    op->elu_alpha,       op->softplus_beta,   op->swish_beta,
                    op->alpha1,          op->alpha2,          false};
    double lo, hi;
    input_range(m, &lo, &hi);
    gb_fill(&b, x, &rng, lo, hi);
    if (bb != FDNN_GRAPH_NONE)
        gb_fill(&b, bb, &rng, lo, hi);
    if (m == CUDNN_POINTWISE_LOGICAL_AND || m == CUDNN_POINTWISE_LOGICAL_OR || m == CUDNN_POINTWISE_LOGICAL_NOT ||
        is_cmp_or_logical(m)) {
        /* small integers: equal values happen, truth values both ways */
        for (int64_t i = 0; i < gb_count(&b, x); i++)
            gb_set(&b, x, i, fdnn_rng_int(&rng, 0, 2));
        if (bb != FDNN_GRAPH_NONE)
            for (int64_t i = 0; i < gb_count(&b, bb); i++)
                gb_set(&b, bb, i, fdnn_rng_int(&rng, 0, 2));
    }
    if (t != FDNN_GRAPH_NONE)
        for (int64_t i = 0; i < gb_count(&b, t); i++)
            gb_set(&b, t, i, fdnn_rng_int(&rng, 0, 1));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    double tol = prec == CUDNN_DATA_DOUBLE ? 1e-12 : 4e-6;
    if (m == CUDNN_POINTWISE_GELU_APPROX_TANH_BWD)
        tol = prec == CUDNN_DATA_DOUBLE ? 1e-8 : 4e-6; /* the reference's finite difference */
    int bad = 0;
    for (int64_t i = 0; i < gb_count(&b, y); i++) {
        int64_t idx[4] = {i / 60, i / 20 % 3, i / 5 % 4, i % 5};
        double xv = gb_get(&b, x, i);
        double bv = 0, tv = 0;
        if (bb != FDNN_GRAPH_NONE)
            bv = bwd ? gb_get(&b, bb, i) : gb_get(&b, bb, idx[1] * 5 + idx[3]);
        if (t != FDNN_GRAPH_NONE)
            tv = gb_get(&b, t, idx[0] * 4 + idx[2]);
        double want = m == CUDNN_POINTWISE_GEN_INDEX ? (double)idx[2] : ref_pw(m, &par, xv, bv, tv);
        double got = gb_get(&b, y, i);
        double err = fabs(got - want) / (fabs(want) > 1 ? fabs(want) : 1);
        if (!(err <= tol)) {
            if (bad++ < 3)
                fprintf(stderr,
                        "mode %s prec %s: element %lld x %g b %g t %g: got %.17g want "
                        "%.17g\n",
                        gx_pw_mode_name(m), gx_dtype_name(prec), (long long)i, xv, bv, tv, got, want);
        }
    }
    CHECK_MSG(bad == 0, "pointwise %s (%s): %d elements wrong", gx_pw_mode_name(m), gx_dtype_name(prec), bad);
    gb_free(&b);
}

static void
test_pointwise_all_modes(void)
{
    size_t n = sizeof(all_modes) / sizeof(all_modes[0]);
    CHECK(n == 50);
    /* every ISA level of the row kernels this machine has */
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
        for (size_t i = 0; i < n; i++) {
            test_pointwise_mode(all_modes[i], CUDNN_DATA_FLOAT);
            test_pointwise_mode(all_modes[i], CUDNN_DATA_DOUBLE);
        }
    }
    CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(fdnn_test_isa_count() - 1)));
}

/* MAX / MIN with NaN under both NaN options; RELU passes NaN. */
static void
test_pointwise_nan(void)
{
    for (int prop = 0; prop < 2; prop++)
        for (int mi = 0; mi < 2; mi++) {
            gb_t b;
            gb_init(&b);
            const int64_t d[1] = {4};
            int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 1, d, false);
            int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 1, d, false);
            int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 1, d, false);
            cudnnPointwiseMode_t m = mi ? CUDNN_POINTWISE_MAX : CUDNN_POINTWISE_MIN;
            gb_pw(&b, m, CUDNN_DATA_FLOAT, x, bb, FDNN_GRAPH_NONE, y)->nan_prop =
                prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
            const float xs[4] = {NAN, 1, NAN, 2}, bs[4] = {3, NAN, NAN, 1};
            memcpy(b.data[x], xs, sizeof(xs));
            memcpy(b.data[bb], bs, sizeof(bs));
            CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
            const float *o = b.data[y];
            if (prop) {
                CHECK(isnan(o[0]) && isnan(o[1]) && isnan(o[2]) && o[3] == (mi ? 2 : 1));
            } else {
                CHECK(o[0] == 3 && o[1] == 1 && isnan(o[2]) && o[3] == (mi ? 2 : 1));
            }
            gb_free(&b);
        }
}

/* GEN_INDEX along every axis, INT32 and FLOAT outputs. */
static void
test_gen_index(void)
{
    for (int axis = 0; axis < 3; axis++) {
        gb_t b;
        gb_init(&b);
        const int64_t d[3] = {3, 4, 5};
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, d, false);
        int y = gb_tensor(&b, axis == 1 ? CUDNN_DATA_FLOAT : CUDNN_DATA_INT32, 3, d, false);
        gb_pw(&b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, x, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y)->axis = axis;
        gb_fill(&b, x, &rng, -1, 1);
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int64_t i = 0; i < 60; i++) {
            int64_t idx[3] = {i / 20, i / 5 % 4, i % 5};
            bad += gb_get(&b, y, i) != (double)idx[axis];
        }
        CHECK_MSG(bad == 0, "GEN_INDEX axis %d: %d wrong", axis, bad);
        gb_free(&b);
    }
}

/* ---- reductions ---------------------------------------------------------- */

static double
ref_reduce(cudnnReduceTensorOp_t op, const double *v, int n)
{
    double acc = (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) ? 1 : 0;
    double best = v[0];
    for (int i = 0; i < n; i++) {
        double x = v[i];
        switch (op) {
        case CUDNN_REDUCE_TENSOR_ADD:
        case CUDNN_REDUCE_TENSOR_AVG: acc += x; break;
        case CUDNN_REDUCE_TENSOR_MUL: acc *= x; break;
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: acc *= x != 0 ? x : 1; break;
        case CUDNN_REDUCE_TENSOR_NORM1: acc += fabs(x); break;
        case CUDNN_REDUCE_TENSOR_NORM2: acc += x * x; break;
        case CUDNN_REDUCE_TENSOR_MIN: best = x < best ? x : best; break;
        case CUDNN_REDUCE_TENSOR_MAX: best = x > best ? x : best; break;
        case CUDNN_REDUCE_TENSOR_AMAX: best = fabs(x) > best ? fabs(x) : best; break;
        }
    }
    if (op == CUDNN_REDUCE_TENSOR_AMAX)
        return best < 0 ? fabs(best) : best;
    if (op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX)
        return best;
    if (op == CUDNN_REDUCE_TENSOR_AVG)
        return acc / n;
    if (op == CUDNN_REDUCE_TENSOR_NORM2)
        return sqrt(acc);
    return acc;
}

static void
test_reductions(void)
{
    for (int op = 0; op <= CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS; op++)
        for (int f64 = 0; f64 < 2; f64++)
            for (int shape = 0; shape < 2; shape++) {
                gb_t b;
                gb_init(&b);
                cudnnDataType_t dt = f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
                const int64_t xd[3] = {3, 4, 5};
                const int64_t yd0[3] = {3, 1, 1}, yd1[3] = {1, 4, 1};
                int x = gb_tensor(&b, dt, 3, xd, false);
                int y = gb_tensor(&b, dt, 3, shape ? yd1 : yd0, false);
                gb_reduction(&b, (cudnnReduceTensorOp_t)op, dt, x, y);
                gb_fill(&b, x, &rng, 0.5, 1.5);
                for (int64_t i = 0; i < 60; i += 7)
                    gb_set(&b, x, i, i % 2 ? -gb_get(&b, x, i) : 0.0);
                CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
                int bad = 0;
                int outs = shape ? 4 : 3;
                for (int o = 0; o < outs; o++) {
                    double v[20];
                    int n = 0;
                    for (int64_t i = 0; i < 60; i++) {
                        int64_t idx[3] = {i / 20, i / 5 % 4, i % 5};
                        if (idx[shape ? 1 : 0] == o)
                            v[n++] = gb_get(&b, x, i);
                    }
                    double want = ref_reduce((cudnnReduceTensorOp_t)op, v, n);
                    double got = gb_get(&b, y, o);
                    if (!(fabs(got - want) <= (f64 ? 1e-12 : 1e-5) * (fabs(want) > 1 ? fabs(want) : 1)))
                        bad++;
                }
                CHECK_MSG(bad == 0, "reduction op %d f64 %d shape %d: %d wrong", op, f64, shape, bad);
                gb_free(&b);
            }
}

/* ---- convolution and matmul --------------------------------------------- */

/* Direct float64 cross-correlation over packed NCHW / KCRS tensors (groups 1).
 */
static void
ref_conv2d(const gb_t *b, int x, int w, int y, int pad, int stride, int kind, double *out)
{
    const int64_t *xd = b->t[x].dims, *wd = b->t[w].dims, *yd = b->t[y].dims;
    int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], K = wd[0], R = wd[2], S = wd[3], P = yd[2], Q = yd[3];
    int64_t on = kind == 0 ? N * K * P * Q : kind == 1 ? N * C * H * W : K * C * R * S;
    for (int64_t i = 0; i < on; i++)
        out[i] = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < Q; q++)
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t r = 0; r < R; r++)
                            for (int64_t s = 0; s < S; s++) {
                                int64_t h = p * stride - pad + r, ww = q * stride - pad + s;
                                if (h < 0 || h >= H || ww < 0 || ww >= W)
                                    continue;
                                int64_t xi = ((n * C + c) * H + h) * W + ww, wi = ((k * C + c) * R + r) * S + s,
                                        yi = ((n * K + k) * P + p) * Q + q;
                                if (kind == 0)
                                    out[yi] += gb_get(b, x, xi) * gb_get(b, w, wi);
                                else if (kind == 1)
                                    out[xi] += gb_get(b, y, yi) * gb_get(b, w, wi);
                                else
                                    out[wi] += gb_get(b, y, yi) * gb_get(b, x, xi);
                            }
}

static void
test_conv_directions(void)
{
    const fdnn_graph_op_kind_t kinds[3] = {FDNN_GOP_CONV_FWD, FDNN_GOP_CONV_BWD_DATA, FDNN_GOP_CONV_BWD_FILTER};
    for (int f64 = 0; f64 < 2; f64++)
        for (int kind = 0; kind < 3; kind++) {
            gb_t b;
            gb_init(&b);
            cudnnDataType_t dt = f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            const int64_t xd[4] = {2, 5, 9, 8}, wd[4] = {6, 5, 3, 3}, yd[4] = {2, 6, 5, 4};
            int x = gb_tensor(&b, dt, 4, xd, false);
            int w = gb_tensor(&b, dt, 4, wd, false);
            int y = gb_tensor(&b, dt, 4, yd, false);
            gb_conv(&b, kinds[kind], dt, x, w, y, 1, 2);
            gb_fill(&b, x, &rng, -1, 1);
            gb_fill(&b, w, &rng, -1, 1);
            gb_fill(&b, y, &rng, -1, 1);
            int out = kind == 0 ? y : kind == 1 ? x : w;
            /* the inputs survive the poisoning of the output */
            int64_t cnt = gb_count(&b, out);
            double *want = malloc(sizeof(double) * (size_t)cnt);
            ref_conv2d(&b, x, w, y, 1, 2, kind, want);
            CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
            int bad = 0;
            for (int64_t i = 0; i < cnt; i++)
                if (!(fabs(gb_get(&b, out, i) - want[i]) <= (f64 ? 1e-12 : 1e-5) * 8))
                    bad++;
            CHECK_MSG(bad == 0, "conv kind %d f64 %d: %d wrong", kind, f64, bad);
            free(want);
            gb_free(&b);
        }
}

/* C[3,M,N] = A[3,M,K] (stored transposed) x B[1,K,N] (broadcast), and C
 * column-major. */
static void
test_matmul(void)
{
    for (int f64 = 0; f64 < 2; f64++)
        for (int ccol = 0; ccol < 2; ccol++) {
            gb_t b;
            gb_init(&b);
            cudnnDataType_t dt = f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            const int64_t M = 7, N = 9, K = 11;
            const int64_t ad[3] = {3, M, K}, as[3] = {M * K, 1, M}; /* column-major */
            const int64_t bd[3] = {1, K, N};
            const int64_t cd[3] = {3, M, N}, cs[3] = {M * N, 1, M};
            int a = gb_tensor_s(&b, dt, 3, ad, as, false);
            int bb = gb_tensor(&b, dt, 3, bd, false);
            int c = gb_tensor_s(&b, dt, 3, cd, ccol ? cs : NULL, false);
            gb_matmul(&b, dt, a, bb, c);
            gb_fill(&b, a, &rng, -1, 1);
            gb_fill(&b, bb, &rng, -1, 1);
            CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
            int bad = 0;
            for (int64_t bt = 0; bt < 3; bt++)
                for (int64_t i = 0; i < M; i++)
                    for (int64_t j = 0; j < N; j++) {
                        double s = 0;
                        for (int64_t p = 0; p < K; p++)
                            s += gb_get(&b, a, (bt * M + i) * K + p) * gb_get(&b, bb, p * N + j);
                        if (!(fabs(gb_get(&b, c, (bt * M + i) * N + j) - s) <= (f64 ? 1e-12 : 1e-5) * 4))
                            bad++;
                    }
            CHECK_MSG(bad == 0, "matmul f64 %d ccol %d: %d wrong", f64, ccol, bad);
            gb_free(&b);
        }
}

/* ---- data movement, gen stats, RNG --------------------------------------- */

/* reshape [2,3,4] (packed) -> [4,6] stored column-major; concat of
 * [2,1,4] and [2,2,4] (NHWC-like strides) along dim 1. */
static void
test_movement(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[3] = {2, 3, 4}, yd[2] = {4, 6}, ys[2] = {1, 4};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, xd, false);
    int y = gb_tensor_s(&b, CUDNN_DATA_FLOAT, 2, yd, ys, false);
    fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_RESHAPE;
    n->u.reshape.x = x, n->u.reshape.y = y;
    for (int i = 0; i < 24; i++)
        gb_set(&b, x, i, i + 1);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int i = 0; i < 24; i++)
        bad += gb_get(&b, y, i) != i + 1;
    CHECK_MSG(bad == 0, "reshape: %d wrong", bad);
    gb_free(&b);

    gb_init(&b);
    const int64_t ad[3] = {2, 1, 4}, cd[3] = {2, 2, 4}, od[3] = {2, 3, 4}, cs[3] = {8, 1, 2};
    int a = gb_tensor(&b, CUDNN_DATA_DOUBLE, 3, ad, false);
    int c = gb_tensor_s(&b, CUDNN_DATA_DOUBLE, 3, cd, cs, false);
    int o = gb_tensor(&b, CUDNN_DATA_DOUBLE, 3, od, false);
    n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_CONCAT;
    n->u.concat.axis = 1;
    n->u.concat.ninputs = 2;
    n->u.concat.inputs[0] = a, n->u.concat.inputs[1] = c;
    n->u.concat.inplace_index = -1;
    n->u.concat.y = o;
    gb_fill(&b, a, &rng, -1, 1);
    gb_fill(&b, c, &rng, -1, 1);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    bad = 0;
    for (int i = 0; i < 24; i++) {
        int i0 = i / 12, i1 = i / 4 % 3, i2 = i % 4;
        double want = i1 == 0 ? gb_get(&b, a, i0 * 4 + i2) : gb_get(&b, c, (i0 * 2 + i1 - 1) * 4 + i2);
        bad += gb_get(&b, o, i) != want;
    }
    CHECK_MSG(bad == 0, "concat: %d wrong", bad);
    gb_free(&b);
}

static void
test_gen_stats(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {3, 5, 4, 2}, sd[4] = {1, 5, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int s = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false);
    int q = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, sd, false);
    fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_GEN_STATS;
    n->u.gen_stats.mode = CUDNN_GENSTATS_SUM_SQSUM;
    n->u.gen_stats.math_prec = CUDNN_DATA_FLOAT;
    n->u.gen_stats.x = x, n->u.gen_stats.sum = s, n->u.gen_stats.sqsum = q;
    gb_fill(&b, x, &rng, -2, 2);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int c = 0; c < 5; c++) {
        double sum = 0, sq = 0;
        for (int i = 0; i < 120; i++)
            if (i / 8 % 5 == c) {
                double v = gb_get(&b, x, i);
                sum += v, sq += v * v;
            }
        bad += !(fabs(gb_get(&b, s, c) - sum) <= 1e-5) || !(fabs(gb_get(&b, q, c) - sq) <= 1e-12);
    }
    CHECK_MSG(bad == 0, "gen stats: %d channels wrong", bad);
    gb_free(&b);
}

/* Same seed and offset: same tensor; another offset: another; moments of
 * the three distributions. */
static void
test_rng(void)
{
    for (int dist = 0; dist < 3; dist++) {
        float first[2][64];
        for (int rep = 0; rep < 3; rep++) {
            gb_t b;
            gb_init(&b);
            const int64_t yd[2] = {100, 100}, one[1] = {1};
            int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, yd, false);
            int off = gb_tensor(&b, CUDNN_DATA_INT64, 1, one, false);
            fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
            memset(n, 0, sizeof(*n));
            n->kind = FDNN_GOP_RNG;
            fdnn_gop_rng_t *r = &n->u.rng;
            r->distribution = (cudnnRngDistribution_t)dist;
            r->normal_mean = 1, r->normal_stddev = 2, r->uniform_min = -1, r->uniform_max = 3;
            r->bernoulli_probability = 0.25;
            r->y = y, r->seed_tensor = FDNN_GRAPH_NONE, r->seed_value = 1234, r->offset = off;
            gb_set(&b, off, 0, rep == 2 ? 7 : 0);
            CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
            double m = 0, m2 = 0;
            for (int i = 0; i < 10000; i++) {
                double v = gb_get(&b, y, i);
                m += v, m2 += v * v;
            }
            m /= 10000, m2 = m2 / 10000 - m * m;
            double want_m = dist == 0   ? 0.25
                            : dist == 1 ? 1
                                        : 1,
                   want_v = dist == 0   ? 0.1875
                            : dist == 1 ? 16.0 / 12
                                        : 4;
            CHECK_MSG(fabs(m - want_m) < 0.06 && fabs(m2 - want_v) < 0.12 * want_v, "rng %d: mean %g var %g", dist, m,
                      m2);
            if (rep < 2)
                memcpy(first[rep], b.data[y], sizeof(first[rep]));
            else
                CHECK(memcmp(first[0], b.data[y], sizeof(first[0])) != 0);
            gb_free(&b);
        }
        CHECK(memcmp(first[0], first[1], sizeof(first[0])) == 0);
    }
}

/* Layer norm (training, stats [N,1,1,1], scale/bias [1,C,H,W]), instance
 * norm (inference with given stats [N,C,1,1]) and batch norm (training
 * with running statistics, [1,C,1,1]) against float64 formulas. */
static void
test_norm(void)
{
    for (int mode = 0; mode < 3; mode++) {
        gb_t b;
        gb_init(&b);
        const int64_t xd[4] = {2, 3, 4, 5};
        int64_t sd[4] = {1, 1, 1, 1}, pd[4] = {1, 1, 1, 1};
        if (mode == 0)
            sd[0] = 2, pd[1] = 3, pd[2] = 4, pd[3] = 5;
        else if (mode == 1)
            sd[0] = 2, sd[1] = 3, pd[1] = 3;
        else
            sd[1] = 3, pd[1] = 3;
        bool train = mode != 1;
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        int mean = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false);
        int inv = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false);
        int scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, pd, false);
        int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, pd, false);
        int eps = gb_scalar_f32(&b, 1e-3f);
        int fac = gb_scalar_f32(&b, 0.25f);
        int rin = mode == 2 ? gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false) : FDNN_GRAPH_NONE;
        int vin = mode == 2 ? gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false) : FDNN_GRAPH_NONE;
        int rout = mode == 2 ? gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false) : FDNN_GRAPH_NONE;
        int vout = mode == 2 ? gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false) : FDNN_GRAPH_NONE;
        int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_NORM_FWD;
        fdnn_gop_norm_fwd_t *f = &n->u.norm_fwd;
        f->mode = mode == 0 ? CUDNN_LAYER_NORM : mode == 1 ? CUDNN_INSTANCE_NORM : CUDNN_BATCH_NORM;
        f->phase = train ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE;
        f->x = x, f->mean = mean, f->inv_variance = inv, f->scale = scale, f->bias = bias;
        f->epsilon = eps, f->exp_avg_factor = mode == 2 ? fac : FDNN_GRAPH_NONE;
        f->input_running_mean = rin, f->input_running_var = vin;
        f->output_running_mean = rout, f->output_running_var = vout;
        f->y = y;
        gb_fill(&b, x, &rng, -2, 3);
        gb_fill(&b, scale, &rng, 0.5, 1.5);
        gb_fill(&b, bias, &rng, -1, 1);
        if (!train) {
            gb_fill(&b, mean, &rng, -0.5, 0.5);
            gb_fill(&b, inv, &rng, 0.5, 2);
        }
        if (mode == 2) {
            gb_fill(&b, rin, &rng, -1, 1);
            gb_fill(&b, vin, &rng, 0.5, 1.5);
        }
        double want_m[6], want_i[6], rin_v[3] = {0}, vin_v[3] = {0};
        if (mode == 2)
            for (int c = 0; c < 3; c++)
                rin_v[c] = gb_get(&b, rin, c), vin_v[c] = gb_get(&b, vin, c);
        int ns = mode == 0 ? 2 : mode == 1 ? 6 : 3;
        for (int s = 0; s < ns; s++) {
            if (!train) {
                want_m[s] = gb_get(&b, mean, s), want_i[s] = gb_get(&b, inv, s);
                continue;
            }
            double sum = 0, sq = 0;
            int cnt = 0;
            for (int i = 0; i < 120; i++) {
                int in0 = i / 60, ic = i / 20 % 3;
                int si = mode == 0 ? in0 : ic;
                if (si == s)
                    sum += gb_get(&b, x, i), cnt++;
            }
            double m = sum / cnt;
            for (int i = 0; i < 120; i++) {
                int si = mode == 0 ? i / 60 : i / 20 % 3;
                if (si == s)
                    sq += (gb_get(&b, x, i) - m) * (gb_get(&b, x, i) - m);
            }
            want_m[s] = m, want_i[s] = 1 / sqrt(sq / cnt + 1e-3);
            if (mode == 2) {
                rin_v[s] = 0.75 * rin_v[s] + 0.25 * m;
                vin_v[s] = 0.75 * vin_v[s] + 0.25 * sq / (cnt - 1);
            }
        }
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int i = 0; i < 120; i++) {
            int in0 = i / 60, ic = i / 20 % 3;
            int s = mode == 0 ? in0 : mode == 1 ? in0 * 3 + ic : ic;
            int p = mode == 0 ? i % 60 : ic;
            double want = (gb_get(&b, x, i) - want_m[s]) * want_i[s] * gb_get(&b, scale, p) + gb_get(&b, bias, p);
            bad += !(fabs(gb_get(&b, y, i) - want) <= 1e-5 * (1 + fabs(want)));
        }
        for (int s = 0; s < ns && train; s++) {
            bad += !(fabs(gb_get(&b, mean, s) - want_m[s]) <= 1e-6 * (1 + fabs(want_m[s])));
            bad += !(fabs(gb_get(&b, inv, s) - want_i[s]) <= 1e-6 * want_i[s]);
            if (mode == 2) {
                bad += !(fabs(gb_get(&b, rout, s) - rin_v[s]) <= 1e-6);
                bad += !(fabs(gb_get(&b, vout, s) - vin_v[s]) <= 1e-6);
            }
        }
        CHECK_MSG(bad == 0, "norm mode %d: %d wrong", mode, bad);
        gb_free(&b);
    }
}

/* gen stats -> BN finalize (training) -> eq_scale, eq_bias, saved and
 * running statistics; then the inference mode from running statistics. */
static void
test_bn_finalize(void)
{
    for (int train = 1; train >= 0; train--) {
        gb_t b;
        gb_init(&b);
        const int64_t xd[4] = {4, 3, 2, 5}, cd[4] = {1, 3, 1, 1}, one[1] = {1};
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        int sum = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, true), sq = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, true);
        int scale = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int pm = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), pv = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int um = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), uv = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int sm = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), si = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int es = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false), eb = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, cd, false);
        int cnt = gb_tensor(&b, CUDNN_DATA_INT64, 1, one, false);
        int eps = gb_scalar_f32(&b, 1e-3f), fac = gb_scalar_f32(&b, 0.1f);
        fdnn_graph_node_t *n;
        if (train) {
            n = &b.n[b.g.nnodes++];
            memset(n, 0, sizeof(*n));
            n->kind = FDNN_GOP_GEN_STATS;
            n->u.gen_stats.x = x, n->u.gen_stats.sum = sum, n->u.gen_stats.sqsum = sq;
        }
        n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_BN_FINALIZE;
        fdnn_gop_bn_finalize_t *f = &n->u.bn_finalize;
        f->mode = train ? CUDNN_BN_FINALIZE_STATISTICS_TRAINING : CUDNN_BN_FINALIZE_STATISTICS_INFERENCE;
        f->y_sum = train ? sum : FDNN_GRAPH_NONE, f->y_sq_sum = train ? sq : FDNN_GRAPH_NONE;
        f->scale = scale, f->bias = bias, f->prev_running_mean = pm, f->prev_running_var = pv;
        f->updated_running_mean = train ? um : FDNN_GRAPH_NONE, f->updated_running_var = train ? uv : FDNN_GRAPH_NONE;
        f->saved_mean = train ? sm : FDNN_GRAPH_NONE, f->saved_inv_std = train ? si : FDNN_GRAPH_NONE;
        f->eq_scale = es, f->eq_bias = eb;
        f->accum_count = train ? cnt : FDNN_GRAPH_NONE, f->epsilon = eps, f->exp_avg_factor = fac;
        gb_fill(&b, x, &rng, -1, 2);
        gb_fill(&b, scale, &rng, 0.5, 1.5);
        gb_fill(&b, bias, &rng, -1, 1);
        gb_fill(&b, pm, &rng, -1, 1);
        gb_fill(&b, pv, &rng, 0.5, 1.5);
        gb_set(&b, cnt, 0, 40);
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int c = 0; c < 3; c++) {
            double m = gb_get(&b, pm, c), v = gb_get(&b, pv, c);
            if (train) {
                double s = 0, q = 0;
                for (int i = 0; i < 120; i++)
                    if (i / 10 % 3 == c)
                        s += gb_get(&b, x, i), q += gb_get(&b, x, i) * gb_get(&b, x, i);
                double bm = s / 40, bv = q / 40 - bm * bm;
                bad += !(fabs(gb_get(&b, sm, c) - bm) < 1e-5) + !(fabs(gb_get(&b, si, c) - 1 / sqrt(bv + 1e-3)) < 1e-4);
                bad += !(fabs(gb_get(&b, um, c) - (0.9 * m + 0.1 * bm)) < 1e-5);
                bad += !(fabs(gb_get(&b, uv, c) - (0.9 * v + 0.1 * bv * 40 / 39)) < 1e-5);
                m = bm, v = bv;
            }
            double s = gb_get(&b, scale, c) / sqrt(v + 1e-3);
            bad += !(fabs(gb_get(&b, es, c) - s) < 1e-5) +
                   !(fabs(gb_get(&b, eb, c) - (gb_get(&b, bias, c) - m * s)) < 1e-5);
        }
        CHECK_MSG(bad == 0, "bn finalize (train %d): %d wrong", train, bad);
        gb_free(&b);
    }
}

/* Max (NEG_INF_PAD) and average (ZERO_PAD, counting the padding or not)
 * pooling, 3x3 windows, stride 2, padding 1, against direct formulas. */
static void
test_resample(void)
{
    const cudnnResampleMode_t modes[3] = {CUDNN_RESAMPLE_MAXPOOL, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING,
                                          CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING};
    for (int mi = 0; mi < 3; mi++) {
        gb_t b;
        gb_init(&b);
        const int64_t xd[4] = {2, 3, 9, 8}, yd[4] = {2, 3, 5, 4};
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
        fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_RESAMPLE_FWD;
        fdnn_gop_resample_t *r = &n->u.resample;
        r->mode = modes[mi];
        r->padding_mode = mi == 0 ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD;
        r->nan_prop = CUDNN_PROPAGATE_NAN;
        r->nsp = 2;
        for (int i = 0; i < 2; i++)
            r->window[i] = 3, r->stride[i] = 2, r->pre_pad[i] = r->post_pad[i] = 1;
        r->alpha = 1, r->beta = 0;
        r->x = x, r->y = y, r->idx = r->dx = r->dy = FDNN_GRAPH_NONE;
        gb_fill(&b, x, &rng, -1, 1);
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int i = 0; i < 2 * 3 * 5 * 4; i++) {
            int nc = i / 20, p = i / 4 % 5, q = i % 4;
            double best = -INFINITY, sum = 0;
            int cnt = 0;
            for (int dr = 0; dr < 3; dr++)
                for (int dc = 0; dc < 3; dc++) {
                    int h = p * 2 - 1 + dr, w = q * 2 - 1 + dc;
                    if (h < 0 || h >= 9 || w < 0 || w >= 8)
                        continue;
                    double v = gb_get(&b, x, (nc * 9 + h) * 8 + w);
                    best = v > best ? v : best;
                    sum += v;
                    cnt++;
                }
            double want = mi == 0 ? best : mi == 1 ? sum / 9 : sum / cnt;
            bad += !(fabs(gb_get(&b, y, i) - want) <= 1e-6);
        }
        CHECK_MSG(bad == 0, "resample mode %d: %d wrong", (int)modes[mi], bad);
        gb_free(&b);
    }
}

/* The loss sum(dy * norm(x)) of the normalization forward with statistics
 * from x itself (training), in double; mode 0 layer norm, 1 batch norm. */
static double
norm_loss(int mode, const double *x, const double *dy, const double *scale, const double *bias)
{
    /* x [2,3,2,2]: layer stats over (C,H,W) per n; batch stats over (N,H,W) per c */
    double loss = 0;
    int ns = mode == 0 ? 2 : 3;
    for (int s = 0; s < ns; s++) {
        double m = 0, v = 0;
        int cnt = 0;
        for (int i = 0; i < 24; i++)
            if ((mode == 0 ? i / 12 : i / 4 % 3) == s)
                m += x[i], cnt++;
        m /= cnt;
        for (int i = 0; i < 24; i++)
            if ((mode == 0 ? i / 12 : i / 4 % 3) == s)
                v += (x[i] - m) * (x[i] - m);
        double inv = 1 / sqrt(v / cnt + 1e-3);
        for (int i = 0; i < 24; i++)
            if ((mode == 0 ? i / 12 : i / 4 % 3) == s) {
                int p = mode == 0 ? i % 12 : i / 4 % 3;
                loss += dy[i] * ((x[i] - m) * inv * scale[p] + bias[p]);
            }
    }
    return loss;
}

/* Norm backward against finite differences of the forward (dx) and direct
 * sums (dscale, dbias), layer and batch norm, DOUBLE. */
static void
test_norm_bwd(void)
{
    for (int mode = 0; mode < 2; mode++) {
        gb_t b;
        gb_init(&b);
        const int64_t xd[4] = {2, 3, 2, 2};
        int64_t sd[4] = {1, 1, 1, 1}, pd[4] = {1, 3, 1, 1};
        if (mode == 0)
            sd[0] = 2, pd[2] = 2, pd[3] = 2;
        else
            sd[1] = 3;
        int x = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
        int mean = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, sd, false);
        int inv = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, sd, false);
        int dy = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
        int scale = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, pd, false);
        int dx = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
        int dscale = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, pd, false);
        int dbias = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, pd, false);
        fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_NORM_BWD;
        fdnn_gop_norm_bwd_t *f = &n->u.norm_bwd;
        f->mode = mode == 0 ? CUDNN_LAYER_NORM : CUDNN_BATCH_NORM;
        f->x = x, f->mean = mean, f->inv_variance = inv, f->dy = dy, f->scale = scale;
        f->epsilon = FDNN_GRAPH_NONE, f->dscale = dscale, f->dbias = dbias, f->dx = dx;
        gb_fill(&b, x, &rng, -2, 2);
        gb_fill(&b, dy, &rng, -1, 1);
        gb_fill(&b, scale, &rng, 0.5, 1.5);
        double xv[24], dyv[24], sc[12], bi[12] = {0};
        int np = mode == 0 ? 12 : 3, ns = mode == 0 ? 2 : 3;
        for (int i = 0; i < 24; i++)
            xv[i] = gb_get(&b, x, i), dyv[i] = gb_get(&b, dy, i);
        for (int p = 0; p < np; p++)
            sc[p] = gb_get(&b, scale, p);
        for (int s = 0; s < ns; s++) { /* the training statistics */
            double m = 0, v = 0;
            int cnt = 0;
            for (int i = 0; i < 24; i++)
                if ((mode == 0 ? i / 12 : i / 4 % 3) == s)
                    m += xv[i], cnt++;
            m /= cnt;
            for (int i = 0; i < 24; i++)
                if ((mode == 0 ? i / 12 : i / 4 % 3) == s)
                    v += (xv[i] - m) * (xv[i] - m);
            gb_set(&b, mean, s, m);
            gb_set(&b, inv, s, 1 / sqrt(v / cnt + 1e-3));
        }
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int i = 0; i < 24; i++) {
            double h = 1e-5, save = xv[i];
            xv[i] = save + h;
            double lp = norm_loss(mode, xv, dyv, sc, bi);
            xv[i] = save - h;
            double lm = norm_loss(mode, xv, dyv, sc, bi);
            xv[i] = save;
            double want = (lp - lm) / (2 * h);
            bad += !(fabs(gb_get(&b, dx, i) - want) <= 1e-6);
        }
        for (int p = 0; p < np; p++) {
            double ds = 0, db = 0;
            for (int i = 0; i < 24; i++)
                if ((mode == 0 ? i % 12 : i / 4 % 3) == p) {
                    int s = mode == 0 ? i / 12 : i / 4 % 3;
                    ds += dyv[i] * (xv[i] - gb_get(&b, mean, s)) * gb_get(&b, inv, s);
                    db += dyv[i];
                }
            bad += !(fabs(gb_get(&b, dscale, p) - ds) <= 1e-12) + !(fabs(gb_get(&b, dbias, p) - db) <= 1e-12);
        }
        CHECK_MSG(bad == 0, "norm bwd mode %d: %d wrong", mode, bad);
        gb_free(&b);
    }
}

/* BN backward weights: dbn_scale, dbn_bias and the dx coefficients agree
 * with the batch-norm backward node on the same data. */
static void
test_bn_bwd_weights(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {3, 4, 2, 3}, cd[4] = {1, 4, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false), dy = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
    int mean = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false), inv = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    int sc = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    int ds = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false), db = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    int edy = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false), ex = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    int eb = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    int dx = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, xd, false);
    int ds2 = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false), db2 = gb_tensor(&b, CUDNN_DATA_DOUBLE, 4, cd, false);
    fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_BN_BWD_WEIGHTS;
    fdnn_gop_bn_bwd_weights_t *w = &n->u.bn_bwd_weights;
    w->mean = mean, w->inv_std = inv, w->bn_scale = sc, w->x = x, w->dy = dy;
    w->dbn_scale = ds, w->dbn_bias = db, w->eq_dy_scale = edy, w->eq_x_scale = ex, w->eq_bias = eb;
    n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_NORM_BWD;
    fdnn_gop_norm_bwd_t *f = &n->u.norm_bwd;
    f->mode = CUDNN_BATCH_NORM;
    f->x = x, f->mean = mean, f->inv_variance = inv, f->dy = dy, f->scale = sc;
    f->epsilon = FDNN_GRAPH_NONE, f->dscale = ds2, f->dbias = db2, f->dx = dx;
    gb_fill(&b, x, &rng, -2, 2);
    gb_fill(&b, dy, &rng, -1, 1);
    gb_fill(&b, sc, &rng, 0.5, 1.5);
    for (int c = 0; c < 4; c++) {
        double m = 0, v = 0;
        for (int i = 0; i < 72; i++)
            if (i / 6 % 4 == c)
                m += gb_get(&b, x, i);
        m /= 18;
        for (int i = 0; i < 72; i++)
            if (i / 6 % 4 == c)
                v += (gb_get(&b, x, i) - m) * (gb_get(&b, x, i) - m);
        gb_set(&b, mean, c, m);
        gb_set(&b, inv, c, 1 / sqrt(v / 18 + 1e-5));
    }
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int c = 0; c < 4; c++)
        bad += !(fabs(gb_get(&b, ds, c) - gb_get(&b, ds2, c)) <= 1e-12) +
               !(fabs(gb_get(&b, db, c) - gb_get(&b, db2, c)) <= 1e-12);
    for (int i = 0; i < 72; i++) {
        int c = i / 6 % 4;
        double v = gb_get(&b, edy, c) * gb_get(&b, dy, i) + gb_get(&b, ex, c) * gb_get(&b, x, i) + gb_get(&b, eb, c);
        bad += !(fabs(v - gb_get(&b, dx, i)) <= 1e-12);
    }
    CHECK_MSG(bad == 0, "bn bwd weights: %d wrong", bad);
    gb_free(&b);
}

/* Pooling backward: max (from x) and average (padding counted or not),
 * 3x3 windows, stride 2, padding 1, against direct loops. */
static void
test_resample_bwd(void)
{
    const cudnnResampleMode_t modes[3] = {CUDNN_RESAMPLE_MAXPOOL, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING,
                                          CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING};
    for (int mi = 0; mi < 3; mi++) {
        gb_t b;
        gb_init(&b);
        const int64_t xd[4] = {2, 3, 9, 8}, yd[4] = {2, 3, 5, 4};
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        int dy = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
        int dx = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
        fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_RESAMPLE_BWD;
        fdnn_gop_resample_t *r = &n->u.resample;
        r->mode = modes[mi];
        r->padding_mode = mi == 0 ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD;
        r->nsp = 2;
        for (int i = 0; i < 2; i++)
            r->window[i] = 3, r->stride[i] = 2, r->pre_pad[i] = r->post_pad[i] = 1;
        r->alpha = 1, r->beta = 0;
        r->x = x, r->dy = dy, r->dx = dx, r->y = r->idx = FDNN_GRAPH_NONE;
        gb_fill(&b, x, &rng, -1, 1);
        gb_fill(&b, dy, &rng, -1, 1);
        double want[432] = {0};
        for (int i = 0; i < 120; i++) {
            int nc = i / 20, p = i / 4 % 5, q = i % 4, cnt = 0, arg = -1;
            double best = -INFINITY;
            for (int t = 0; t < 9; t++) {
                int h = p * 2 - 1 + t / 3, w = q * 2 - 1 + t % 3;
                if (h < 0 || h >= 9 || w < 0 || w >= 8)
                    continue;
                cnt++;
                double v = gb_get(&b, x, (nc * 9 + h) * 8 + w);
                if (v > best)
                    best = v, arg = (nc * 9 + h) * 8 + w;
            }
            for (int t = 0; t < 9; t++) {
                int h = p * 2 - 1 + t / 3, w = q * 2 - 1 + t % 3;
                if (h < 0 || h >= 9 || w < 0 || w >= 8)
                    continue;
                int at = (nc * 9 + h) * 8 + w;
                if (mi == 0)
                    want[at] += at == arg ? gb_get(&b, dy, i) : 0;
                else
                    want[at] += gb_get(&b, dy, i) / (mi == 1 ? 9 : cnt);
            }
        }
        CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
        int bad = 0;
        for (int i = 0; i < 432; i++)
            bad += !(fabs(gb_get(&b, dx, i) - want[i]) <= 1e-6);
        CHECK_MSG(bad == 0, "resample bwd mode %d: %d wrong", (int)modes[mi], bad);
        gb_free(&b);
    }
}

/* Signal: SET writes the flag and passes x through; a WAIT on the value
 * just set succeeds; a WAIT on another value fails with the reason. */
static void
test_signal(void)
{
    for (int wait_ok = 0; wait_ok < 2; wait_ok++) {
        gb_t b;
        gb_init(&b);
        const int64_t d[2] = {3, 4}, one[1] = {1};
        int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, d, false), y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, d, false);
        int flag = gb_tensor(&b, CUDNN_DATA_INT64, 1, one, false);
        fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_SIGNAL;
        n->u.signal.mode = CUDNN_SIGNAL_SET;
        n->u.signal.flag = flag, n->u.signal.value = 42, n->u.signal.x = x, n->u.signal.y = y;
        n = &b.n[b.g.nnodes++];
        memset(n, 0, sizeof(*n));
        n->kind = FDNN_GOP_SIGNAL;
        n->u.signal.mode = CUDNN_SIGNAL_WAIT;
        n->u.signal.flag = flag, n->u.signal.value = wait_ok ? 42 : 43;
        n->u.signal.x = n->u.signal.y = FDNN_GRAPH_NONE;
        gb_fill(&b, x, &rng, -1, 1);
        gb_set(&b, flag, 0, 0);
        fdnn_fail_clear();
        CHECK_STATUS(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b),
                     wait_ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_EXECUTION_FAILED);
        CHECK(gb_get(&b, flag, 0) == 42);
        int bad = 0;
        for (int i = 0; i < 12; i++)
            bad += gb_get(&b, y, i) != gb_get(&b, x, i);
        CHECK(bad == 0);
        if (!wait_ok)
            CHECK(strstr(fdnn_fail_reason(), "signal WAIT") != NULL);
        gb_free(&b);
    }
}

/* ---- threads ------------------------------------------------------------- */

/* conv -> ADD bias -> GELU -> reduction, big enough to use the pool: the
 * output bits of 1 and 2 threads are the same. */
static void
test_threads_bitwise(void)
{
    gb_t b;
    gb_init(&b);
    const int64_t xd[4] = {2, 16, 20, 20}, wd[4] = {32, 16, 3, 3}, yd[4] = {2, 32, 20, 20}, bd[4] = {1, 32, 1, 1},
                  rd[4] = {2, 32, 1, 1};
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int v1 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int bias = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, bd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    int v2 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int r = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, rd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, v1, 1, 1);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, v1, bias, FDNN_GRAPH_NONE, v2);
    gb_pw(&b, CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, v2, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    gb_reduction(&b, CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_FLOAT, y, r);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    gb_fill(&b, bias, &rng, -1, 1);
    size_t ny = 2 * 32 * 400;
    float *y1 = malloc(ny * 4), r1[64];
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    memcpy(y1, b.data[y], ny * 4);
    memcpy(r1, b.data[r], 64 * 4);
    CHECK_OK(freednnSetNumThreads(handle, 2));
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    CHECK(memcmp(y1, b.data[y], ny * 4) == 0);
    CHECK(memcmp(r1, b.data[r], 64 * 4) == 0);
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(y1);
    gb_free(&b);
}

/* ---- what the engine declines ------------------------------------------- */

static void
expect_declined(gb_t *b, const char *what)
{
    fdnn_fail_clear();
    CHECK_STATUS(gb_engine(FDNN_GRAPH_ENGINE_GENERIC)->supports(&b->g), CUDNN_STATUS_NOT_SUPPORTED);
    const char *r = fdnn_fail_reason();
    CHECK_MSG(strstr(r, "node ") != NULL && strstr(r, what) != NULL, "reason \"%s\" should name the node and %s", r,
              what);
}

static void
test_declined(void)
{
    gb_t b;
    const int64_t xd[4] = {1, 4, 6, 6}, wd[4] = {4, 4, 3, 3}, yd[4] = {1, 4, 6, 6};
    /* asymmetric padding */
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, y, 1, 1)->post_pad[0] = 2;
    expect_declined(&b, "padding");
    gb_free(&b);
    /* a node kind the generic engine does not run */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    fdnn_graph_node_t *n = &b.n[b.g.nnodes++];
    memset(n, 0, sizeof(*n));
    n->kind = FDNN_GOP_SIGNAL;
    n->u.signal.mode = CUDNN_SIGNAL_SET;
    n->u.signal.x = x;
    n->u.signal.y = FDNN_GRAPH_NONE;
    n->u.signal.flag = FDNN_GRAPH_NONE;
    expect_declined(&b, "flag");
    gb_free(&b);
    /* matmul with an override tensor */
    gb_init(&b);
    const int64_t md[3] = {1, 4, 4};
    int a = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, md, false);
    int c = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, md, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, a, a, c)->m_override = a;
    expect_declined(&b, "override");
    gb_free(&b);
    /* pointwise in HALF math, and an operand that does not broadcast */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_pw(&b, CUDNN_POINTWISE_EXP, CUDNN_DATA_HALF, x, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    expect_declined(&b, "math precision");
    gb_free(&b);
    gb_init(&b);
    const int64_t bad[4] = {1, 3, 6, 6};
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int bb = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, bad, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_pw(&b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, x, bb, FDNN_GRAPH_NONE, y);
    expect_declined(&b, "operand b");
    gb_free(&b);
}

/* The table: stable indices, the generic engine is the fallback, notes. */
static void
test_table(void)
{
    int n = 0;
    const fdnn_graph_engine_t *list = fdnn_graph_engines(&n);
    CHECK(n >= 1);
    int fallbacks = 0;
    for (int i = 0; i < n; i++) {
        CHECK(fdnn_graph_engine_by_index(list[i].global_index) == &list[i]);
        CHECK((list[i].numerical_notes & (1u << CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC)) == 0);
        fallbacks += list[i].fallback;
    }
    CHECK(fallbacks == 1);
    CHECK(gb_engine(FDNN_GRAPH_ENGINE_GENERIC) != NULL && gb_engine(FDNN_GRAPH_ENGINE_GENERIC)->fallback);
    CHECK(fdnn_graph_engine_by_index(999) == NULL);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_rng_seed(&rng, 14);
    test_table();
    test_pointwise_all_modes();
    test_pointwise_nan();
    test_gen_index();
    test_reductions();
    test_conv_directions();
    test_matmul();
    test_movement();
    test_gen_stats();
    test_rng();
    test_norm();
    test_bn_finalize();
    test_resample();
    test_norm_bwd();
    test_bn_bwd_weights();
    test_resample_bwd();
    test_signal();
    test_threads_bitwise();
    test_declined();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_graph_engines");
}

/* SPDX-License-Identifier: Apache-2.0
 * cudnnOpTensor, cudnnAddTensor, cudnnSetTensor, cudnnScaleTensor,
 * cudnnTransformTensor and cudnnTransformTensorEx against the float64
 * reference (src/ref/tensor_ops_ref.c): random shapes (odd sizes, 1s, up to
 * 5 dims), NCHW / NHWC / randomly strided layouts, broadcasts, every data
 * type combination cuDNN takes, alpha/beta with poisoned outputs, NaN
 * propagation, every ISA level and 1 or 2 threads (bitwise identical), and
 * the statuses of bad inputs (NCHW_VECT_C in AddTensor / OpTensor: cuDNN's
 * statuses, nothing written). */
#include "ref/tensor_ops_ref.h"
#include "tensor_test_util.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static const double scales[] = {1.0, 0.5, -2.0, 0.0, 1.25};

static double
pick_scale(void)
{
    return scales[fdnn_rng_int(&rng, 0, 4)];
}

/* Runs `call` once per ISA x threads combination on a freshly initialised
 * output (its initial bytes saved in `init`) and checks every result is
 * within tolerance of out->ref and bitwise the same as the first. */
typedef cudnnStatus_t (*call_fn)(void *ctx);

static void
run_all(call_fn call, void *ctx, tt_t *out, const unsigned char *init, double tol, const char *what)
{
    size_t bytes = out->span * out->esz;
    unsigned char *first = malloc(bytes);
    for (int k = 0; k < tt_combos(); k++) {
        tt_apply_combo(handle, k);
        memcpy(out->buf, init, bytes);
        cudnnStatus_t st = call(ctx);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: status %s", what, cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        double got = 0, want = 0;
        double err = tt_error(out, &got, &want);
        CHECK_MSG(err <= tol, "%s [%s, %d thr]: error %.3g (got %.9g want %.9g)", what, fdnn_test_isa_name(k / 2),
                  1 + k % 2, err, got, want);
        if (k == 0)
            memcpy(first, out->buf, bytes);
        else
            CHECK_MSG(memcmp(first, out->buf, bytes) == 0, "%s: not bitwise identical across ISA/threads", what);
    }
    free(first);
}

/* ---- cudnnOpTensor ------------------------------------------------------------ */

typedef struct op_case {
    cudnnOpTensorDescriptor_t op;
    scale_arg_t s1, s2, sb;
    const void *alpha1, *alpha2, *beta;
    tt_t *a, *b, *c;
} op_case_t;

static cudnnStatus_t
call_op(void *p)
{
    op_case_t *k = p;
    return cudnnOpTensor(handle, k->op, k->alpha1, k->a->desc, k->a->buf, k->alpha2, k->b->desc, k->b->buf,
                         k->beta, k->c->desc, k->c->buf);
}

/* (A/B type, C type, compute type) combinations of cuDNN's table. */
static const cudnnDataType_t op_types[][3] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
};

static void
test_op_tensor_case(int iter)
{
    const int ntypes = (int)(sizeof(op_types) / sizeof(op_types[0]));
    cudnnOpTensorOp_t opk = (cudnnOpTensorOp_t)(iter % 6);
    const cudnnDataType_t *ty = op_types[fdnn_rng_int(&rng, 0, ntypes - 1)];
    bool f64 = ty[2] == CUDNN_DATA_DOUBLE;
    bool prop = fdnn_rng_int(&rng, 0, 1);
    int nd = fdnn_rng_int(&rng, 2, 5);
    int dims[CUDNN_DIM_MAX] = {0}, bdims[CUDNN_DIM_MAX] = {0};
    tt_random_dims(&rng, nd, dims, 6000);
    if (iter % 17 == 0) { /* a network shape: bias-like B over a conv output */
        nd = 4;
        dims[0] = 2, dims[1] = 64, dims[2] = 14, dims[3] = 14;
    }
    /* B: each dim kept or broadcast (1) at random; sometimes all kept. */
    int bmode = fdnn_rng_int(&rng, 0, 2);
    for (int i = 0; i < nd; i++)
        bdims[i] = bmode == 0 || fdnn_rng_int(&rng, 0, 1) ? dims[i] : 1;
    tt_t a, b, c;
    tt_make(&c, &rng, ty[1], nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&a, &rng, ty[0], nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&b, &rng, ty[0], nd, bdims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    int fill = opk == CUDNN_OP_TENSOR_SQRT ? FILL_POSITIVE : FILL_SIGNED;
    tt_fill(&a, &rng, fill);
    tt_fill(&b, &rng, fill);
    /* Inject NaNs for MIN / MAX to check propagation. */
    if ((opk == CUDNN_OP_TENSOR_MIN || opk == CUDNN_OP_TENSOR_MAX) && ty[0] != CUDNN_DATA_INT8) {
        for (int k = 0; k < 3; k++) {
            int64_t off = tt_offset(&a, fdnn_rng_int(&rng, 0, (int)tt_count(&a) - 1));
            tt_put(a.dt, a.buf + off * (int64_t)a.esz, NAN);
            a.ref[off] = NAN;
        }
    }
    op_case_t k = {.a = &a, .b = &b, .c = &c};
    double alpha1 = pick_scale(), alpha2 = pick_scale(), beta = pick_scale();
    if (opk == CUDNN_OP_TENSOR_SQRT && alpha1 < 0)
        alpha1 = -alpha1;
    k.alpha1 = scale_arg(&k.s1, alpha1, f64);
    k.alpha2 = scale_arg(&k.s2, alpha2, f64);
    k.beta = scale_arg(&k.sb, beta, f64);
    if (beta == 0.0)
        tt_poison(&c);
    else
        tt_fill(&c, &rng, FILL_SIGNED);
    unsigned char *init = malloc(c.span * c.esz);
    memcpy(init, c.buf, c.span * c.esz);
    fdnn_ref_op_tensor(opk, prop, alpha1, &a.t, a.ref, alpha2, &b.t, b.ref, beta, &c.t, c.ref);
    tt_round_ref(&c);
    CHECK_OK(cudnnCreateOpTensorDescriptor(&k.op));
    CHECK_OK(cudnnSetOpTensorDescriptor(k.op, opk, ty[2], prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN));
    char what[160];
    snprintf(what, sizeof(what), "OpTensor op %d types %s/%s nd %d dims %dx%dx%d.. iter %d", (int)opk,
             fdnn_dtype_name(ty[0]), fdnn_dtype_name(ty[1]), nd, dims[0], dims[1], nd > 2 ? dims[2] : 1, iter);
    /* The float pipeline rounds alpha*x, the op and the blend to float:
     * a few float ulps beyond the output type's own rounding. */
    double tol = tt_tol(ty[1]) + (f64 ? 0 : 4e-7 * 8);
    run_all(call_op, &k, &c, init, tol, what);
    cudnnDestroyOpTensorDescriptor(k.op);
    free(init);
    tt_free(&a);
    tt_free(&b);
    tt_free(&c);
}

/* FLOAT OpTensor ADD with A, B and C of the same dims and strides: the
 * direct path of the elementwise engine (elt_direct; the residual add into
 * a new tensor).  Packed, NHWC and gapped layouts, long rows with tails and
 * several pieces, beta 0 over a poisoned C, beta 1 and general scales;
 * bitwise across ISA levels and threads. */
/* The shapes of the same-layout cases: 4-D or 5-D by iteration, random,
 * the first three a long row (several 8192-element pieces and a tail). */
static int
same_layout_dims(int iter, int *dims)
{
    int nd = 4 + iter % 2;
    tt_random_dims(&rng, nd, dims, 60000);
    if (iter < 3) {
        dims[0] = 3, dims[1] = 37, dims[2] = 29, dims[3] = 19;
        if (nd == 5)
            dims[4] = 1;
    }
    return nd;
}

static void
test_op_add_same_layout(int iter)
{
    static const double scales[][3] = {{1, 1, 0}, {1, 1, 1}, {0.5, -2, 0.25}, {-1.25, 0.75, 0}, {0, 1, 1}};
    int dims[CUDNN_DIM_MAX], nd = same_layout_dims(iter, dims);
    int layout = iter % LAYOUT_COUNT;
    fdnn_rng_t same = rng;
    tt_t a, b, c;
    tt_make(&a, &same, CUDNN_DATA_FLOAT, nd, dims, layout);
    same = rng;
    tt_make(&b, &same, CUDNN_DATA_FLOAT, nd, dims, layout);
    tt_make(&c, &rng, CUDNN_DATA_FLOAT, nd, dims, layout);
    tt_fill(&a, &rng, FILL_SIGNED);
    tt_fill(&b, &rng, FILL_SIGNED);
    const double *sc = scales[iter % 5];
    op_case_t k = {.a = &a, .b = &b, .c = &c};
    k.alpha1 = scale_arg(&k.s1, sc[0], false);
    k.alpha2 = scale_arg(&k.s2, sc[1], false);
    k.beta = scale_arg(&k.sb, sc[2], false);
    if (sc[2] == 0.0)
        tt_poison(&c);
    else
        tt_fill(&c, &rng, FILL_SIGNED);
    unsigned char *init = malloc(c.span * c.esz);
    memcpy(init, c.buf, c.span * c.esz);
    fdnn_ref_op_tensor(CUDNN_OP_TENSOR_ADD, false, sc[0], &a.t, a.ref, sc[1], &b.t, b.ref, sc[2], &c.t, c.ref);
    tt_round_ref(&c);
    CHECK_OK(cudnnCreateOpTensorDescriptor(&k.op));
    CHECK_OK(cudnnSetOpTensorDescriptor(k.op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    char what[160];
    snprintf(what, sizeof(what), "OpTensor ADD same layout %d nd %d scales %g %g %g iter %d", layout, nd, sc[0], sc[1],
             sc[2], iter);
    run_all(call_op, &k, &c, init, tt_tol(CUDNN_DATA_FLOAT) + 4e-7 * 8, what);
    cudnnDestroyOpTensorDescriptor(k.op);
    free(init);
    tt_free(&a);
    tt_free(&b);
    tt_free(&c);
}

/* C == A and C == B in place, with the same layout. */
static void
test_op_tensor_in_place(void)
{
    int dims[4] = {2, 3, 5, 7};
    tt_t a, b;
    tt_make(&a, &rng, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_STRIDED);
    tt_make(&b, &rng, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tt_fill(&a, &rng, FILL_SIGNED);
    tt_fill(&b, &rng, FILL_SIGNED);
    cudnnOpTensorDescriptor_t op;
    cudnnCreateOpTensorDescriptor(&op);
    cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    float one = 1, two = 2, half = 0.5f;
    /* C = A: a = (1*a) * (2*b) + 0.5*a */
    fdnn_ref_op_tensor(CUDNN_OP_TENSOR_MUL, false, 1, &a.t, a.ref, 2, &b.t, b.ref, 0.5, &a.t, a.ref);
    tt_round_ref(&a);
    CHECK_OK(cudnnOpTensor(handle, op, &one, a.desc, a.buf, &two, b.desc, b.buf, &half, a.desc, a.buf));
    CHECK(tt_error(&a, NULL, NULL) <= 1e-6);
    /* C = B with B's layout: b = (1*a) * (2*b) + 1*b */
    fdnn_ref_op_tensor(CUDNN_OP_TENSOR_MUL, false, 1, &a.t, a.ref, 2, &b.t, b.ref, 1.0, &b.t, b.ref);
    tt_round_ref(&b);
    CHECK_OK(cudnnOpTensor(handle, op, &one, a.desc, a.buf, &two, b.desc, b.buf, &one, b.desc, b.buf));
    CHECK(tt_error(&b, NULL, NULL) <= 1e-6);
    /* C aliasing a broadcast B is refused. */
    int bd[4] = {1, 3, 1, 1};
    tt_t bb;
    tt_make(&bb, &rng, CUDNN_DATA_FLOAT, 4, bd, LAYOUT_NCHW);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, a.desc, a.buf, &two, bb.desc, a.buf, &one, a.desc, a.buf),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyOpTensorDescriptor(op);
    tt_free(&a);
    tt_free(&b);
    tt_free(&bb);
}

/* ---- cudnnAddTensor ----------------------------------------------------------- */

typedef struct add_case {
    scale_arg_t sa, sb;
    tt_t *a, *c;
} add_case_t;

static cudnnStatus_t
call_add(void *p)
{
    add_case_t *k = p;
    return cudnnAddTensor(handle, &k->sa, k->a->desc, k->a->buf, &k->sb, k->c->desc, k->c->buf);
}

/* Fills A, fills C (poisons it where beta is 0), runs AddTensor through
 * run_all against the float64 reference and frees both tensors. */
static void
check_add(tt_t *a, tt_t *c, double alpha, double beta, bool f64, double tol, const char *what)
{
    tt_fill(a, &rng, FILL_SIGNED);
    if (beta == 0.0)
        tt_poison(c);
    else
        tt_fill(c, &rng, FILL_SIGNED);
    add_case_t k = {.a = a, .c = c};
    scale_arg(&k.sa, alpha, f64);
    scale_arg(&k.sb, beta, f64);
    unsigned char *init = malloc(c->span * c->esz);
    memcpy(init, c->buf, c->span * c->esz);
    fdnn_ref_transform(alpha, &a->t, a->ref, beta, &c->t, c->ref, NULL);
    tt_round_ref(c);
    run_all(call_add, &k, c, init, tol, what);
    free(init);
    tt_free(a);
    tt_free(c);
}

static void
test_add_tensor_case(int iter)
{
    /* INT8 too: cuDNN 9 takes it (C rounded to nearest even, saturated). */
    static const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                            CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8};
    cudnnDataType_t dt = types[iter % 5];
    bool f64 = dt == CUDNN_DATA_DOUBLE;
    int nd = fdnn_rng_int(&rng, 2, 5), dims[CUDNN_DIM_MAX], adims[CUDNN_DIM_MAX];
    tt_random_dims(&rng, nd, dims, 6000);
    /* the usual bias shapes (1,C,1,1), (1,C,H,W), (N,1,1,1) and random ones */
    int mode = fdnn_rng_int(&rng, 0, 3);
    for (int i = 0; i < nd; i++) {
        if (mode == 0)
            adims[i] = i == 1 ? dims[i] : 1;
        else if (mode == 1)
            adims[i] = i == 0 ? 1 : dims[i];
        else if (mode == 2)
            adims[i] = i == 0 ? dims[i] : 1;
        else
            adims[i] = fdnn_rng_int(&rng, 0, 1) ? dims[i] : 1;
    }
    tt_t a, c;
    tt_make(&a, &rng, dt, nd, adims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&c, &rng, dt, nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    double alpha = pick_scale(), beta = pick_scale();
    char what[120];
    snprintf(what, sizeof(what), "AddTensor %s nd %d mode %d iter %d", fdnn_dtype_name(dt), nd, mode, iter);
    check_add(&a, &c, alpha, beta, f64, tt_tol(dt) + (f64 ? 0 : 1e-6), what);
}

/* FLOAT A and C of the same dims and strides: the direct copy-blend path of
 * the elementwise engine (tensor_kernels_t.inc, elt_direct; the residual add
 * in place and the gradient hand-on of a training step).  Packed, NHWC and
 * gapped layouts, sizes with tails and several tasks, beta 0 over a poisoned
 * C, beta 1 and general alpha/beta; bitwise across ISA levels and threads. */
static void
test_add_tensor_same_layout(int iter)
{
    static const double scales[][2] = {{1, 0}, {1, 1}, {0.5, -2}, {-1.25, 0}, {0, 1}};
    int dims[CUDNN_DIM_MAX], nd = same_layout_dims(iter, dims);
    int layout = iter % LAYOUT_COUNT;
    fdnn_rng_t same = rng;
    tt_t a, c;
    tt_make(&a, &same, CUDNN_DATA_FLOAT, nd, dims, layout);
    tt_make(&c, &rng, CUDNN_DATA_FLOAT, nd, dims, layout);
    double alpha = scales[iter % 5][0], beta = scales[iter % 5][1];
    char what[120];
    snprintf(what, sizeof(what), "AddTensor same layout %d nd %d alpha %g beta %g iter %d", layout, nd, alpha, beta,
             iter);
    check_add(&a, &c, alpha, beta, false, tt_tol(CUDNN_DATA_FLOAT) + 1e-6, what);
}

/* ---- cudnnSetTensor / cudnnScaleTensor ----------------------------------------- */

typedef struct set_case {
    unsigned char value[8];
    scale_arg_t alpha;
    bool scale;
    tt_t *y;
} set_case_t;

static cudnnStatus_t
call_set(void *p)
{
    set_case_t *k = p;
    if (k->scale)
        return cudnnScaleTensor(handle, k->y->desc, k->y->buf, &k->alpha);
    return cudnnSetTensor(handle, k->y->desc, k->y->buf, k->value);
}

static void
test_set_scale_case(int iter)
{
    static const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT,    CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                            CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8,   CUDNN_DATA_UINT8,
                                            CUDNN_DATA_INT32};
    cudnnDataType_t dt = types[iter % 7];
    int nd = fdnn_rng_int(&rng, 2, 8), dims[CUDNN_DIM_MAX];
    tt_random_dims(&rng, nd, dims, 4000);
    tt_t y;
    tt_make(&y, &rng, dt, nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    set_case_t k = {.y = &y, .scale = iter % 2 == 1};
    int64_t n = tt_count(&y);
    if (k.scale) {
        tt_fill(&y, &rng, FILL_SIGNED);
        double alpha = pick_scale();
        scale_arg(&k.alpha, alpha, dt == CUDNN_DATA_DOUBLE);
        for (int64_t p = 0; p < n; p++)
            y.ref[tt_offset(&y, p)] *= alpha;
    } else {
        tt_poison(&y);
        /* a value that needs every bit of the type: INT32 above 2^24 */
        double v = dt == CUDNN_DATA_INT32 ? 16777217.0 : dt == CUDNN_DATA_UINT8 ? 200 : -3.375;
        tt_put(dt, k.value, v);
        for (int64_t p = 0; p < n; p++)
            y.ref[tt_offset(&y, p)] = v;
    }
    tt_round_ref(&y);
    unsigned char *init = malloc(y.span * y.esz);
    memcpy(init, y.buf, y.span * y.esz);
    char what[100];
    snprintf(what, sizeof(what), "%s %s nd %d iter %d", k.scale ? "ScaleTensor" : "SetTensor", fdnn_dtype_name(dt),
             nd, iter);
    run_all(call_set, &k, &y, init, k.scale ? tt_tol(dt) : 0.0, what);
    free(init);
    tt_free(&y);
}

/* ---- cudnnTransformTensor / cudnnTransformTensorEx ---------------------------- */

typedef struct tr_case {
    cudnnTensorTransformDescriptor_t tr; /* NULL: cudnnTransformTensor */
    scale_arg_t sa, sb;
    tt_t *x, *y;
} tr_case_t;

static cudnnStatus_t
call_transform(void *p)
{
    tr_case_t *k = p;
    if (k->tr == NULL)
        return cudnnTransformTensor(handle, &k->sa, k->x->desc, k->x->buf, &k->sb, k->y->desc, k->y->buf);
    return cudnnTransformTensorEx(handle, k->tr, &k->sa, k->x->desc, k->x->buf, &k->sb, k->y->desc, k->y->buf);
}

static void
test_transform_case(int iter)
{
    static const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT,    CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                            CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8,   CUDNN_DATA_INT32};
    bool ex = iter % 2 == 1;
    cudnnDataType_t xt = types[fdnn_rng_int(&rng, 0, 5)];
    cudnnDataType_t yt = ex ? types[fdnn_rng_int(&rng, 0, 5)] : xt;
    int nd = fdnn_rng_int(&rng, 2, 6), dims[CUDNN_DIM_MAX], ydims[CUDNN_DIM_MAX];
    int32_t pb[CUDNN_DIM_MAX] = {0}, pa[CUDNN_DIM_MAX] = {0};
    int pbi[CUDNN_DIM_MAX] = {0};
    tt_random_dims(&rng, nd, dims, 3000);
    for (int i = 0; i < nd; i++) {
        if (ex && fdnn_rng_int(&rng, 0, 1)) {
            pb[i] = fdnn_rng_int(&rng, 0, 2);
            pa[i] = fdnn_rng_int(&rng, 0, 2);
        }
        pbi[i] = pb[i];
        ydims[i] = dims[i] + pb[i] + pa[i];
    }
    tt_t x, y;
    tt_make(&x, &rng, xt, nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&y, &rng, yt, nd, ydims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_fill(&x, &rng, FILL_SIGNED);
    bool yf64 = yt == CUDNN_DATA_DOUBLE;
    double alpha = pick_scale(), beta = pick_scale();
    bool integer = yt == CUDNN_DATA_INT8 || yt == CUDNN_DATA_INT32;
    if (integer) { /* keep integer results exact: integer factors */
        alpha = alpha == 0.5 || alpha == 1.25 ? 1.0 : alpha;
        beta = beta == 0.5 || beta == 1.25 ? 0.0 : beta;
    }
    if (beta == 0.0)
        tt_poison(&y);
    else
        tt_fill(&y, &rng, FILL_SIGNED);
    tr_case_t k = {.x = &x, .y = &y};
    scale_arg(&k.sa, alpha, yf64);
    scale_arg(&k.sb, beta, yf64);
    if (ex) {
        CHECK_OK(cudnnCreateTensorTransformDescriptor(&k.tr));
        CHECK_OK(cudnnSetTensorTransformDescriptor(k.tr, (uint32_t)nd, CUDNN_TENSOR_NCHW, pb, pa, NULL,
                                                   CUDNN_TRANSFORM_FOLD));
    }
    unsigned char *init = malloc(y.span * y.esz);
    memcpy(init, y.buf, y.span * y.esz);
    fdnn_ref_transform(alpha, &x.t, x.ref, beta, &y.t, y.ref, pbi);
    tt_round_ref(&y);
    char what[120];
    snprintf(what, sizeof(what), "Transform%s %s->%s nd %d iter %d", ex ? "Ex" : "", fdnn_dtype_name(xt),
             fdnn_dtype_name(yt), nd, iter);
    run_all(call_transform, &k, &y, init, tt_tol(yt) + (yf64 ? 0 : 1e-6), what);
    if (k.tr)
        cudnnDestroyTensorTransformDescriptor(k.tr);
    free(init);
    tt_free(&x);
    tt_free(&y);
}

/* NCHW -> NHWC of a network-sized tensor, exact. */
static void
test_transform_layouts(void)
{
    int dims[4] = {2, 32, 28, 28};
    tt_t x, y;
    tt_make(&x, &rng, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tt_make(&y, &rng, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NHWC);
    tt_fill(&x, &rng, FILL_SIGNED);
    tt_poison(&y);
    tr_case_t k = {.x = &x, .y = &y};
    k.sa.f = 1;
    k.sb.f = 0;
    unsigned char *init = malloc(y.span * y.esz);
    memcpy(init, y.buf, y.span * y.esz);
    fdnn_ref_transform(1, &x.t, x.ref, 0, &y.t, y.ref, NULL);
    run_all(call_transform, &k, &y, init, 0.0, "TransformTensor NCHW->NHWC");
    free(init);
    tt_free(&x);
    tt_free(&y);
}

/* INT8 / UINT8 <-> NCHW_VECT_C (N, C/v, H, W, v) and back, byte by byte. */
static void
test_transform_vect(cudnnDataType_t vt, cudnnDataType_t lane, int vect, int n, int c, int h, int w)
{
    const size_t count = (size_t)n * c * h * w;
    signed char *x = fdnn_guarded_alloc(count), *v = fdnn_guarded_alloc(count), *back = fdnn_guarded_alloc(count);
    for (size_t i = 0; i < count; i++)
        x[i] = (signed char)fdnn_rng_int(&rng, lane == CUDNN_DATA_UINT8 ? 0 : -128, lane == CUDNN_DATA_UINT8 ? 255 : 127);
    cudnnTensorDescriptor_t xd, vd, bd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&vd);
    cudnnCreateTensorDescriptor(&bd);
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, lane, n, c, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(vd, CUDNN_TENSOR_NCHW_VECT_C, vt, n, c, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NHWC, lane, n, c, h, w));
    float one = 1, zero = 0, two = 2;
    for (int k = 0; k < tt_combos(); k++) {
        tt_apply_combo(handle, k);
        memset(v, 0x5A, count);
        memset(back, 0x5A, count);
        CHECK_OK(cudnnTransformTensor(handle, &one, xd, x, &zero, vd, v));
        int bad = 0;
        for (int in = 0; in < n; in++)
            for (int ic = 0; ic < c; ic++)
                for (int ih = 0; ih < h; ih++)
                    for (int iw = 0; iw < w; iw++) {
                        size_t vo = ((((size_t)in * (c / vect) + ic / vect) * h + ih) * w + iw) * vect + ic % vect;
                        size_t xo = (((size_t)in * c + ic) * h + ih) * w + iw;
                        bad += v[vo] != x[xo];
                    }
        CHECK_MSG(bad == 0, "NCHW -> NCHW_VECT_C (%s): %d bytes wrong", fdnn_dtype_name(vt), bad);
        CHECK_OK(cudnnTransformTensor(handle, &one, vd, v, &zero, bd, back));
        bad = 0;
        for (int in = 0; in < n; in++)
            for (int ic = 0; ic < c; ic++)
                for (int ih = 0; ih < h; ih++)
                    for (int iw = 0; iw < w; iw++)
                        bad += back[(((size_t)in * h + ih) * w + iw) * c + ic] != x[(((size_t)in * c + ic) * h + ih) * w + iw];
        CHECK_MSG(bad == 0, "NCHW_VECT_C -> NHWC (%s): %d bytes wrong", fdnn_dtype_name(vt), bad);
    }
    /* alpha 2 saturates */
    CHECK_OK(cudnnTransformTensor(handle, &two, xd, x, &zero, vd, v));
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        size_t in = i / ((size_t)c * h * w), ic = i / ((size_t)h * w) % c, hw = i % ((size_t)h * w);
        size_t vo = ((in * (c / vect) + ic / vect) * h * w + hw) * vect + ic % vect;
        double want = 2.0 * (lane == CUDNN_DATA_UINT8 ? (double)(unsigned char)x[i] : (double)x[i]);
        double lo = lane == CUDNN_DATA_UINT8 ? 0 : -128, hi = lane == CUDNN_DATA_UINT8 ? 255 : 127;
        want = want < lo ? lo : want > hi ? hi : want;
        double got = lane == CUDNN_DATA_UINT8 ? (double)(unsigned char)v[vo] : (double)v[vo];
        bad += got != want;
    }
    CHECK_MSG(bad == 0, "NCHW -> NCHW_VECT_C x2 (%s): %d saturated bytes wrong", fdnn_dtype_name(vt), bad);
    CHECK_STATUS(cudnnTransformTensor(handle, &one, bd, back, &zero, vd, v),
                 CUDNN_STATUS_SUCCESS); /* NHWC INT8 -> VECT_C also works */
    /* FLOAT -> the vector type converts (rounded to nearest even,
     * saturated), as NVIDIA's library does; test_tensor_convert.c checks
     * every type pair */
    cudnnTensorDescriptor_t fd;
    cudnnCreateTensorDescriptor(&fd);
    cudnnSetTensor4dDescriptor(fd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
    float *fx = fdnn_guarded_alloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++)
        fx[i] = (float)fdnn_rng_uniform(&rng, -300.0, 300.0);
    CHECK_OK(cudnnTransformTensor(handle, &one, fd, fx, &zero, vd, v));
    bad = 0;
    for (size_t i = 0; i < count; i++) {
        size_t in = i / ((size_t)c * h * w), ic = i / ((size_t)h * w) % c, hw = i % ((size_t)h * w);
        size_t vo = ((in * (c / vect) + ic / vect) * h * w + hw) * vect + ic % vect;
        double want = lane == CUDNN_DATA_UINT8 ? fdnn_sat_round(fx[i], 0, 255) : fdnn_sat_round(fx[i], -128, 127);
        double got = lane == CUDNN_DATA_UINT8 ? (double)(unsigned char)v[vo] : (double)v[vo];
        bad += got != want;
    }
    CHECK_MSG(bad == 0, "FLOAT -> NCHW_VECT_C (%s): %d bytes wrong", fdnn_dtype_name(vt), bad);
    fdnn_guarded_free(fx);
    cudnnDestroyTensorDescriptor(fd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(vd);
    cudnnDestroyTensorDescriptor(bd);
    fdnn_guarded_free(x);
    fdnn_guarded_free(v);
    fdnn_guarded_free(back);
}

/* The storage conversions (convert.h) on their own, since the tests'
 * reference rounds with them too: every HALF and BFLOAT16 value round-trips
 * exactly, and each midpoint between neighbours rounds to the even one. */
static void
test_conversions(void)
{
    int bad_half = 0, bad_bf16 = 0;
    for (uint32_t u = 0; u < 0x10000; u++) {
        uint16_t h = (uint16_t)u;
        float f = fdnn_half_to_float(h);
        bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
        if (nan ? !isnan(f) || !isnan(fdnn_half_to_float(fdnn_float_to_half(f))) : fdnn_float_to_half(f) != h)
            bad_half++;
        float g = fdnn_bf16_to_float(h);
        bool gnan = (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0;
        if (gnan ? !isnan(fdnn_bf16_to_float(fdnn_float_to_bf16(g))) : fdnn_float_to_bf16(g) != h)
            bad_bf16++;
        /* midpoint to the next value up (same sign), finite ones only */
        if ((h & 0x7fff) < 0x7bff) {
            float mid = (f + fdnn_half_to_float((uint16_t)(h + 1))) / 2; /* exact in float */
            uint16_t want = (h & 1) ? (uint16_t)(h + 1) : h;
            if (fdnn_float_to_half(mid) != want)
                bad_half++;
        }
        if ((h & 0x7fff) < 0x7f7f) {
            double mid = ((double)g + (double)fdnn_bf16_to_float((uint16_t)(h + 1))) / 2;
            uint16_t want = (h & 1) ? (uint16_t)(h + 1) : h;
            if (fdnn_float_to_bf16((float)mid) != want)
                bad_bf16++;
        }
    }
    CHECK_MSG(bad_half == 0, "%d HALF conversions wrong", bad_half);
    CHECK_MSG(bad_bf16 == 0, "%d BFLOAT16 conversions wrong", bad_bf16);
    CHECK(fdnn_float_to_half(65519.0f) == 0x7bff && fdnn_float_to_half(65520.0f) == 0x7c00);
    CHECK(fdnn_float_to_half(-1e-8f) == 0x8000 && fdnn_float_to_half(3e-8f) == 0x0001);
    CHECK(fdnn_float_to_bf16(3.4e38f) == 0x7f80 && fdnn_float_to_bf16(1.0f) == 0x3f80);
    CHECK(fdnn_sat_round(300.0, -128, 127) == 127 && fdnn_sat_round(2.5, -128, 127) == 2 &&
          fdnn_sat_round(NAN, -128, 127) == 0);
}

/* ---- NCHW_VECT_C in cudnnAddTensor / cudnnOpTensor ------------------------------ */

/* Calls `call`; checks its status and that C's bytes (poisoned) are as before. */
#define CHECK_REFUSED(call, want, cbuf, bytes)                                                            \
    do {                                                                                                   \
        fdnn_poison_bytes(cbuf, bytes);                                                                    \
        memcpy(saved, cbuf, bytes);                                                                        \
        CHECK_STATUS(call, want);                                                                          \
        CHECK_MSG(memcmp(saved, cbuf, bytes) == 0, "%s: C written by a refused call (line %d)", #call, __LINE__); \
    } while (0)

/* cuDNN refuses NCHW_VECT_C operands in both (NOT_SUPPORTED), after the
 * shape checks, which compare C in vectors (cuDNN 9's logged reasons,
 * docs/tensor-ops.md): an operand mixing NCHW_VECT_C with a plain tensor is
 * BAD_PARAM when the shapes or types differ, NOT_SUPPORTED otherwise. */
static void
test_vect_c_refused(cudnnDataType_t vt, int v)
{
    const int n = 2, c = 2 * v, h = 3, w = 5;
    cudnnTensorDescriptor_t cv, bv, i8, i8v, f32, uv;
    cudnnCreateTensorDescriptor(&cv);
    cudnnCreateTensorDescriptor(&bv);
    cudnnCreateTensorDescriptor(&i8);
    cudnnCreateTensorDescriptor(&i8v);
    cudnnCreateTensorDescriptor(&f32);
    cudnnCreateTensorDescriptor(&uv);
    CHECK_OK(cudnnSetTensor4dDescriptor(cv, CUDNN_TENSOR_NCHW_VECT_C, vt, n, c, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(bv, CUDNN_TENSOR_NCHW_VECT_C, vt, 1, v, 1, 1)); /* one vector: a bias */
    CHECK_OK(cudnnSetTensor4dDescriptor(i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, n, c, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(i8v, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, n, c / v, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(f32, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    /* another vector type of the same shape in vectors (UINT8x4 or INT8x4) */
    cudnnDataType_t ot = vt == CUDNN_DATA_INT8x4 ? CUDNN_DATA_UINT8x4 : CUDNN_DATA_INT8x4;
    CHECK_OK(cudnnSetTensor4dDescriptor(uv, CUDNN_TENSOR_NCHW_VECT_C, ot, n, 2 * 4, h, w));
    const size_t bytes = (size_t)n * c * h * w * 4;
    unsigned char *A = fdnn_guarded_alloc(bytes), *B = fdnn_guarded_alloc(bytes), *C = fdnn_guarded_alloc(bytes);
    unsigned char *saved = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        A[i] = (unsigned char)(i * 7u), B[i] = (unsigned char)(i * 13u);
    float one = 1, zero = 0, half = 0.5f;
    /* cudnnAddTensor */
    CHECK_REFUSED(cudnnAddTensor(handle, &one, cv, A, &zero, cv, C), CUDNN_STATUS_NOT_SUPPORTED, C, bytes);
    CHECK_REFUSED(cudnnAddTensor(handle, &one, bv, A, &half, cv, C), CUDNN_STATUS_NOT_SUPPORTED, C, bytes);
    CHECK_REFUSED(cudnnAddTensor(handle, &one, i8, A, &zero, cv, C), CUDNN_STATUS_BAD_PARAM, C, bytes);  /* shape */
    CHECK_REFUSED(cudnnAddTensor(handle, &one, i8v, A, &zero, cv, C), CUDNN_STATUS_BAD_PARAM, C, bytes); /* type */
    CHECK_REFUSED(cudnnAddTensor(handle, &one, cv, A, &zero, i8v, C), CUDNN_STATUS_BAD_PARAM, C, bytes);
    CHECK_REFUSED(cudnnAddTensor(handle, &one, cv, A, &zero, f32, C), CUDNN_STATUS_BAD_PARAM, C, bytes);
    CHECK_REFUSED(cudnnAddTensor(handle, &one, cv, A, &zero, uv, C), CUDNN_STATUS_BAD_PARAM, C, bytes); /* type */
    /* cudnnOpTensor: every op, FLOAT compute */
    cudnnOpTensorDescriptor_t op;
    cudnnCreateOpTensorDescriptor(&op);
    for (int k = 0; k <= (int)CUDNN_OP_TENSOR_NOT; k++) {
        CHECK_OK(cudnnSetOpTensorDescriptor(op, (cudnnOpTensorOp_t)k, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, cv, A, &one, cv, B, &zero, cv, C), CUDNN_STATUS_NOT_SUPPORTED,
                      C, bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, cv, A, &half, bv, B, &one, cv, C), CUDNN_STATUS_NOT_SUPPORTED,
                      C, bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, cv, A, &one, cv, B, &zero, i8v, C), CUDNN_STATUS_NOT_SUPPORTED,
                      C, bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, i8v, A, &one, i8v, B, &zero, cv, C), CUDNN_STATUS_NOT_SUPPORTED,
                      C, bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, cv, A, &one, cv, B, &zero, f32, C), CUDNN_STATUS_BAD_PARAM, C,
                      bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, i8, A, &one, i8, B, &zero, cv, C), CUDNN_STATUS_BAD_PARAM, C,
                      bytes);
        CHECK_REFUSED(cudnnOpTensor(handle, op, &one, cv, A, &one, cv, B, &zero, uv, C), CUDNN_STATUS_NOT_SUPPORTED,
                      C, bytes);
    }
    cudnnDestroyOpTensorDescriptor(op);
    free(saved);
    fdnn_guarded_free(A);
    fdnn_guarded_free(B);
    fdnn_guarded_free(C);
    cudnnTensorDescriptor_t all[] = {cv, bv, i8, i8v, f32, uv};
    for (int i = 0; i < 6; i++)
        cudnnDestroyTensorDescriptor(all[i]);
}

/* ---- bad inputs ---------------------------------------------------------------- */

static void
test_bad_inputs(void)
{
    cudnnTensorDescriptor_t x4, x5, x6, h4, d4, b4, vect, unset;
    int d4a[4] = {2, 3, 4, 5}, s4a[4] = {60, 20, 5, 1};
    cudnnCreateTensorDescriptor(&x4);
    cudnnCreateTensorDescriptor(&x5);
    cudnnCreateTensorDescriptor(&x6);
    cudnnCreateTensorDescriptor(&h4);
    cudnnCreateTensorDescriptor(&d4);
    cudnnCreateTensorDescriptor(&b4);
    cudnnCreateTensorDescriptor(&vect);
    cudnnCreateTensorDescriptor(&unset);
    CHECK_OK(cudnnSetTensorNdDescriptor(x4, CUDNN_DATA_FLOAT, 4, d4a, s4a));
    int d6[6] = {1, 2, 1, 2, 1, 2};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(x6, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 6, d6));
    CHECK_OK(cudnnSetTensor4dDescriptor(x5, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 6));
    CHECK_OK(cudnnSetTensor4dDescriptor(h4, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 3, 4, 5));
    CHECK_OK(cudnnSetTensor4dDescriptor(d4, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 4, 5));
    CHECK_OK(cudnnSetTensor4dDescriptor(b4, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1));
    CHECK_OK(cudnnSetTensor4dDescriptor(vect, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 4, 4, 5));
    float *A = fdnn_guarded_alloc(120 * 8), *B = fdnn_guarded_alloc(120 * 8), *C = fdnn_guarded_alloc(120 * 8);
    float one = 1, zero = 0;
    cudnnOpTensorDescriptor_t op, op_unset;
    cudnnCreateOpTensorDescriptor(&op);
    cudnnCreateOpTensorDescriptor(&op_unset);
    CHECK_OK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    /* descriptor validation */
    CHECK_STATUS(cudnnSetOpTensorDescriptor(op, (cudnnOpTensorOp_t)6, CUDNN_DATA_FLOAT, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_INT8, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, (cudnnNanPropagation_t)2),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(NULL, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, 0), CUDNN_STATUS_BAD_PARAM);
    cudnnOpTensorOp_t o;
    cudnnDataType_t t;
    cudnnNanPropagation_t nn;
    CHECK_STATUS(cudnnGetOpTensorDescriptor(op_unset, &o, &t, &nn), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetOpTensorDescriptor(op, &o, &t, &nn));
    CHECK(o == CUDNN_OP_TENSOR_ADD && t == CUDNN_DATA_FLOAT && nn == CUDNN_NOT_PROPAGATE_NAN);
    /* cudnnOpTensor */
    CHECK_STATUS(cudnnOpTensor(NULL, op, &one, x4, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op_unset, &one, x4, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, unset, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, x5, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, x4, A, &one, x5, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, b4, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, x6, A, &one, x6, B, &zero, x6, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, h4, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, d4, A, &one, d4, B, &zero, d4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, vect, A, &one, vect, B, &zero, vect, C), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnOpTensor(handle, op, NULL, x4, A, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, x4, NULL, &one, x4, B, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, x4, A, &one, x4, B, &zero, x4, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnOpTensor(handle, op, &one, x4, A, &one, b4, B, &zero, x4, C));
    /* cudnnAddTensor */
    CHECK_STATUS(cudnnAddTensor(handle, &one, x5, A, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(handle, &one, h4, A, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(handle, &one, x6, A, &zero, x6, C), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnAddTensor(handle, &one, x4, A, &zero, b4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(handle, &one, b4, A, NULL, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(handle, &one, b4, A, &zero, unset, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnAddTensor(handle, &one, b4, A, &zero, x4, C));
    /* cudnnSetTensor / cudnnScaleTensor */
    CHECK_STATUS(cudnnSetTensor(handle, x4, C, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor(handle, x4, NULL, &one), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor(handle, unset, C, &one), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor(handle, vect, C, NULL), CUDNN_STATUS_BAD_PARAM); /* NCHW_VECT_C: see
                                                                           test_tensor_transform_ex.c */
    CHECK_STATUS(cudnnScaleTensor(handle, x4, C, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnScaleTensor(NULL, x4, C, &one), CUDNN_STATUS_BAD_PARAM);
    /* cudnnTransformTensor(Ex) */
    CHECK_STATUS(cudnnTransformTensor(handle, &one, x4, A, &zero, x5, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnTransformTensor(handle, &one, x4, A, &zero, h4, C)); /* FLOAT -> HALF converts */
    CHECK_STATUS(cudnnTransformTensor(handle, &one, x4, A, &zero, x4, A + 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnTransformTensor(handle, &one, x4, A, &zero, x4, A)); /* in place, same layout */
    cudnnTensorTransformDescriptor_t tr, tr_unset;
    cudnnCreateTensorTransformDescriptor(&tr);
    cudnnCreateTensorTransformDescriptor(&tr_unset);
    int32_t pads[4] = {0, 0, 0, 1}, nopad[4] = {0};
    uint32_t fold[2] = {2, 1};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, nopad, pads, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, x4, A, &zero, x5, C)); /* W 5 + 1 = 6 */
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x4, A, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr_unset, &one, x4, A, &zero, x5, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, nopad, nopad, fold, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x4, A, &zero, x4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(tr, 9, CUDNN_TENSOR_NCHW, NULL, NULL, NULL, 0),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(tr, 1, CUDNN_TENSOR_NCHW, NULL, NULL, NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(tr, 4, (cudnnTensorFormat_t)3, NULL, NULL, NULL, 0),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* cudnnInitTransformDest: the dims cuDNN derives */
    int32_t p1[4] = {0, 0, 1, 2}, p2[4] = {0, 0, 3, 4};
    uint32_t f1[2] = {2, 3};
    cudnnTensorDescriptor_t src, dst;
    cudnnCreateTensorDescriptor(&src);
    cudnnCreateTensorDescriptor(&dst);
    cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 5, 7);
    size_t sz = 0;
    int n, c, h, w, ns, cs, hs, ws;
    cudnnDataType_t dt;
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NHWC, p1, p2, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnInitTransformDest(tr, src, dst, &sz));
    CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(n == 2 && c == 3 && h == 9 && w == 13 && ns == 351 && cs == 1 && hs == 39 && ws == 3 && sz == 2808);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, p1, p2, f1, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnInitTransformDest(tr, src, dst, &sz));
    CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(n == 2 && c == 18 && h == 5 && w == 5 && sz == 3600);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, p1, p2, f1, CUDNN_TRANSFORM_UNFOLD));
    CHECK_OK(cudnnInitTransformDest(tr, src, dst, &sz));
    CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(n == 2 && c == 1 && h == 14 && w == 27 && sz == 3024);
    cudnnDestroyTensorDescriptor(src);
    cudnnDestroyTensorDescriptor(dst);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyTensorTransformDescriptor(tr_unset);
    cudnnDestroyOpTensorDescriptor(op);
    cudnnDestroyOpTensorDescriptor(op_unset);
    cudnnTensorDescriptor_t all[] = {x4, x5, x6, h4, d4, b4, vect, unset};
    for (int i = 0; i < 8; i++)
        cudnnDestroyTensorDescriptor(all[i]);
    fdnn_guarded_free(A);
    fdnn_guarded_free(B);
    fdnn_guarded_free(C);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 0x7e45012);
    CHECK_OK(cudnnCreate(&handle));
    test_conversions();
    for (int i = 0; i < 30; i++)
        test_op_tensor_case(i);
    test_op_tensor_in_place();
    for (int i = 0; i < 15; i++)
        test_op_add_same_layout(i);
    for (int i = 0; i < 25; i++)
        test_add_tensor_case(i);
    for (int i = 0; i < 15; i++)
        test_add_tensor_same_layout(i);
    for (int i = 0; i < 14; i++)
        test_set_scale_case(i);
    for (int i = 0; i < 24; i++)
        test_transform_case(i);
    test_transform_layouts();
    test_transform_vect(CUDNN_DATA_INT8x4, CUDNN_DATA_INT8, 4, 2, 12, 5, 3);
    test_transform_vect(CUDNN_DATA_UINT8x4, CUDNN_DATA_UINT8, 4, 1, 8, 7, 7);
    test_transform_vect(CUDNN_DATA_INT8x32, CUDNN_DATA_INT8, 32, 2, 64, 3, 5);
    test_vect_c_refused(CUDNN_DATA_INT8x4, 4);
    test_vect_c_refused(CUDNN_DATA_UINT8x4, 4);
    test_vect_c_refused(CUDNN_DATA_INT8x32, 32);
    test_bad_inputs();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_tensor_ops");
}

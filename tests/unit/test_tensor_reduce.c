/* SPDX-License-Identifier: Apache-2.0
 * cudnnReduceTensor against the float64 reference: every op, random subsets
 * of reduced dims, NCHW / NHWC / strided layouts, FLOAT / DOUBLE / HALF /
 * BFLOAT16 / INT8 data, alpha and beta (beta 0 over a poisoned C), indices
 * of MIN / MAX / AMAX (ties keep the first), NaN propagation, the split
 * (chunked) path with its workspace, every ISA and 1 or 2 threads (bitwise
 * identical), and the statuses of bad inputs. */
#include "ref/tensor_ops_ref.h"
#include "tensor_test_util.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static const char *op_names[] = {"ADD", "MUL", "MIN", "MAX", "AMAX", "AVG", "NORM1", "NORM2", "MUL_NO_ZEROS"};

typedef struct red_case {
    cudnnReduceTensorOp_t op;
    bool prop, want_indices;
    cudnnDataType_t comp;
    double alpha, beta;
    int nd;
    int adims[CUDNN_DIM_MAX], cdims[CUDNN_DIM_MAX];
    cudnnDataType_t at, ct;
    int alayout, clayout;
    bool nans;
} red_case_t;

static void
run_case(const red_case_t *k, const char *what)
{
    tt_t a, c;
    tt_make(&a, &rng, k->at, k->nd, k->adims, k->alayout);
    tt_make(&c, &rng, k->ct, k->nd, k->cdims, k->clayout);
    int fill = k->op == CUDNN_REDUCE_TENSOR_MUL || k->op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS ? FILL_NEAR_ONE
                                                                                            : FILL_SIGNED;
    tt_fill(&a, &rng, fill);
    int64_t na = tt_count(&a), nc = tt_count(&c);
    if (k->op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) /* some zeros to skip */
        for (int64_t p = 0; p < na; p += 3) {
            int64_t off = tt_offset(&a, p);
            tt_put(a.dt, a.buf + off * (int64_t)a.esz, 0.0);
            a.ref[off] = 0.0;
        }
    if (k->nans)
        for (int i = 0; i < 4; i++) {
            int64_t off = tt_offset(&a, fdnn_rng_int(&rng, 0, (int)na - 1));
            tt_put(a.dt, a.buf + off * (int64_t)a.esz, NAN);
            a.ref[off] = NAN;
        }
    if (k->beta == 0.0)
        tt_poison(&c);
    else
        tt_fill(&c, &rng, FILL_SIGNED);
    int64_t *want_idx = calloc((size_t)nc, sizeof(int64_t));
    fdnn_ref_reduce(k->op, k->prop, k->alpha, &a.t, a.ref, k->beta, &c.t, c.ref, want_idx);
    tt_round_ref(&c);
    unsigned char *init = malloc(c.span * c.esz), *first = malloc(c.span * c.esz);
    memcpy(init, c.buf, c.span * c.esz);

    cudnnReduceTensorDescriptor_t rd;
    CHECK_OK(cudnnCreateReduceTensorDescriptor(&rd));
    CHECK_OK(cudnnSetReduceTensorDescriptor(rd, k->op, k->comp, k->prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                            k->want_indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                            : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                            CUDNN_32BIT_INDICES));
    size_t ws_bytes = 0, idx_bytes = 0;
    CHECK_OK(cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws_bytes));
    CHECK_OK(cudnnGetReductionIndicesSize(handle, rd, a.desc, c.desc, &idx_bytes));
    CHECK(idx_bytes == (k->want_indices ? (size_t)nc * 4 : 0));
    /* (at least one byte each: fdnn_guarded_free cannot free a 0-byte
     * buffer) */
    void *ws = fdnn_guarded_alloc(ws_bytes ? ws_bytes : 1);
    uint32_t *idx = fdnn_guarded_alloc(idx_bytes ? idx_bytes : 4);
    bool extreme = k->op == CUDNN_REDUCE_TENSOR_MIN || k->op == CUDNN_REDUCE_TENSOR_MAX || k->op == CUDNN_REDUCE_TENSOR_AMAX;
    union {
        float f;
        double d;
    } al, be;
    bool f64 = k->comp == CUDNN_DATA_DOUBLE;
    if (f64)
        al.d = k->alpha, be.d = k->beta;
    else
        al.f = (float)k->alpha, be.f = (float)k->beta;
    /* Sums of multiples of 1/8 are exact in float; MUL, AVG and NORM2
     * round.  The float pipeline adds a few float ulps per step of the sum
     * tree on top of the output type's rounding. */
    int64_t rcount = na / nc;
    double tol = tt_tol(k->ct);
    if (!f64 && k->ct != CUDNN_DATA_INT8)
        tol += 2e-7 * (k->op == CUDNN_REDUCE_TENSOR_MUL || k->op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS ? (double)rcount : 8.0);
    for (int combo = 0; combo < tt_combos(); combo++) {
        tt_apply_combo(handle, combo);
        memcpy(c.buf, init, c.span * c.esz);
        if (idx_bytes)
            memset(idx, 0xFF, idx_bytes);
        cudnnStatus_t st = cudnnReduceTensor(handle, rd, idx, idx_bytes, ws, ws_bytes, &al, a.desc, a.buf, &be, c.desc,
                                             c.buf);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: status %s", what, cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        double got = 0, want = 0;
        double err = tt_error(&c, &got, &want);
        CHECK_MSG(err <= tol, "%s [%s, %d thr]: error %.3g > %.3g (got %.9g want %.9g)", what,
                  fdnn_test_isa_name(combo / 2), 1 + combo % 2, err, tol, got, want);
        if (k->want_indices && extreme) {
            int bad = 0;
            for (int64_t o = 0; o < nc; o++)
                bad += idx[o] != (uint32_t)want_idx[o];
            CHECK_MSG(bad == 0, "%s: %d wrong indices", what, bad);
        }
        if (combo == 0)
            memcpy(first, c.buf, c.span * c.esz);
        else
            CHECK_MSG(memcmp(first, c.buf, c.span * c.esz) == 0, "%s: not bitwise identical across ISA/threads", what);
    }
    cudnnDestroyReduceTensorDescriptor(rd);
    fdnn_guarded_free(ws);
    fdnn_guarded_free(idx);
    free(init);
    free(first);
    free(want_idx);
    tt_free(&a);
    tt_free(&c);
}

/* (A, C, compute) type combinations cuDNN takes. */
static const cudnnDataType_t red_types[][3] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},   {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},     {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF},      {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
};

static void
test_random_case(int iter)
{
    red_case_t k = {0};
    k.op = (cudnnReduceTensorOp_t)(iter % 9);
    const cudnnDataType_t *ty = red_types[fdnn_rng_int(&rng, 0, 7)];
    /* products of many values leave half's range: keep MUL in float */
    if (k.op == CUDNN_REDUCE_TENSOR_MUL || k.op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        ty = red_types[fdnn_rng_int(&rng, 0, 1)];
    k.at = ty[0], k.ct = ty[1], k.comp = ty[2];
    k.prop = fdnn_rng_int(&rng, 0, 1);
    k.want_indices = fdnn_rng_int(&rng, 0, 2) != 0;
    k.nd = fdnn_rng_int(&rng, 2, 6);
    tt_random_dims(&rng, k.nd, k.adims, 5000);
    int mode = fdnn_rng_int(&rng, 0, 3);
    for (int i = 0; i < k.nd; i++) {
        bool reduce = mode == 0 ? true : mode == 1 ? i != 1 : fdnn_rng_int(&rng, 0, 1);
        k.cdims[i] = reduce ? 1 : k.adims[i];
    }
    k.alayout = fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1);
    k.clayout = fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1);
    static const double scales[] = {1.0, 0.5, -2.0, 0.0};
    k.alpha = scales[fdnn_rng_int(&rng, 0, 2)];
    k.beta = scales[fdnn_rng_int(&rng, 0, 3)];
    k.nans = k.at != CUDNN_DATA_INT8 && fdnn_rng_int(&rng, 0, 4) == 0;
    char what[160];
    snprintf(what, sizeof(what), "Reduce %s %s->%s nd %d mode %d iter %d", op_names[k.op], fdnn_dtype_name(k.at),
             fdnn_dtype_name(k.ct), k.nd, mode, iter);
    run_case(&k, what);
}

/* Few outputs over many elements: the split path with a workspace. */
static void
test_split_case(cudnnReduceTensorOp_t op, cudnnDataType_t at, int layout, const int *ad, const int *cd)
{
    red_case_t k = {0};
    k.op = op;
    k.at = at;
    k.ct = at;
    k.comp = at == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    k.want_indices = true;
    k.nd = 4;
    memcpy(k.adims, ad, 4 * sizeof(int));
    memcpy(k.cdims, cd, 4 * sizeof(int));
    k.alayout = layout;
    k.clayout = LAYOUT_NCHW;
    k.alpha = 1.0;
    k.beta = 0.0;
    size_t ws = 0;
    tt_t a, c;
    tt_make(&a, &rng, at, 4, ad, layout == LAYOUT_STRIDED ? LAYOUT_NCHW : layout);
    tt_make(&c, &rng, at, 4, cd, LAYOUT_NCHW);
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    cudnnSetReduceTensorDescriptor(rd, op, k.comp, 0, 0, 0);
    CHECK_OK(cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws));
    CHECK(ws > 0);
    cudnnDestroyReduceTensorDescriptor(rd);
    tt_free(&a);
    tt_free(&c);
    char what[100];
    snprintf(what, sizeof(what), "Reduce split %s %s layout %d", op_names[op], fdnn_dtype_name(at), layout);
    run_case(&k, what);
}

/* Ties and NaN rules of the indices, by hand. */
static void
test_indices_rules(void)
{
    float a[6] = {2, 5, 5, NAN, -7, 5};
    cudnnTensorDescriptor_t ad, cd;
    cudnnCreateTensorDescriptor(&ad);
    cudnnCreateTensorDescriptor(&cd);
    cudnnSetTensor4dDescriptor(ad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 6);
    cudnnSetTensor4dDescriptor(cd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    float one = 1, zero = 0, c = 0;
    uint32_t idx = 99;
    struct {
        cudnnReduceTensorOp_t op;
        cudnnNanPropagation_t nan;
        float value;
        uint32_t index;
    } cases[] = {
        {CUDNN_REDUCE_TENSOR_MAX, CUDNN_NOT_PROPAGATE_NAN, 5, 1},
        {CUDNN_REDUCE_TENSOR_MAX, CUDNN_PROPAGATE_NAN, NAN, 3},
        {CUDNN_REDUCE_TENSOR_MIN, CUDNN_NOT_PROPAGATE_NAN, -7, 4},
        {CUDNN_REDUCE_TENSOR_AMAX, CUDNN_NOT_PROPAGATE_NAN, 7, 4},
    };
    for (int i = 0; i < 4; i++) {
        cudnnSetReduceTensorDescriptor(rd, cases[i].op, CUDNN_DATA_FLOAT, cases[i].nan,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES);
        CHECK_OK(cudnnReduceTensor(handle, rd, &idx, 4, NULL, 0, &one, ad, a, &zero, cd, &c));
        CHECK(idx == cases[i].index);
        CHECK(isnan(cases[i].value) ? isnan(c) : c == cases[i].value);
    }
    /* MUL_NO_ZEROS of all zeros is the empty product */
    float z[6] = {0};
    cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS, CUDNN_DATA_FLOAT, 0, 0, 0);
    CHECK_OK(cudnnReduceTensor(handle, rd, NULL, 0, NULL, 0, &one, ad, z, &zero, cd, &c));
    CHECK(c == 1.0f);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyTensorDescriptor(ad);
    cudnnDestroyTensorDescriptor(cd);
}

static void
test_bad_inputs(void)
{
    cudnnTensorDescriptor_t a4, c4, c3, bad, d4, h4, unset;
    cudnnCreateTensorDescriptor(&a4);
    cudnnCreateTensorDescriptor(&c4);
    cudnnCreateTensorDescriptor(&c3);
    cudnnCreateTensorDescriptor(&bad);
    cudnnCreateTensorDescriptor(&d4);
    cudnnCreateTensorDescriptor(&h4);
    cudnnCreateTensorDescriptor(&unset);
    cudnnSetTensor4dDescriptor(a4, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    cudnnSetTensor4dDescriptor(c4, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    int d3[3] = {1, 3, 1}, s3[3] = {3, 1, 1};
    cudnnSetTensorNdDescriptor(c3, CUDNN_DATA_FLOAT, 3, d3, s3);
    cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 1, 1);
    cudnnSetTensor4dDescriptor(d4, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(h4, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 3, 1, 1);
    cudnnReduceTensorDescriptor_t rd, unset_rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    cudnnCreateReduceTensorDescriptor(&unset_rd);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)9, CUDNN_DATA_FLOAT, 0, 0, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_BFLOAT16, 0, 0, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, 2, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, 0, 4),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                            CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES));
    cudnnReduceTensorOp_t op;
    cudnnDataType_t t;
    cudnnNanPropagation_t nn;
    cudnnReduceTensorIndices_t ri;
    cudnnIndicesType_t it;
    CHECK_OK(cudnnGetReduceTensorDescriptor(rd, &op, &t, &nn, &ri, &it));
    CHECK(op == CUDNN_REDUCE_TENSOR_MAX && t == CUDNN_DATA_FLOAT && nn == CUDNN_PROPAGATE_NAN &&
          ri == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES && it == CUDNN_64BIT_INDICES);
    CHECK_STATUS(cudnnGetReduceTensorDescriptor(unset_rd, &op, &t, &nn, &ri, &it), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetReduceTensorDescriptor(rd, NULL, &t, &nn, &ri, &it), CUDNN_STATUS_BAD_PARAM);
    size_t sz = 0;
    CHECK_OK(cudnnGetReductionIndicesSize(handle, rd, a4, c4, &sz));
    CHECK(sz == 3 * 8);
    float *A = fdnn_guarded_alloc(120 * 8), *C = fdnn_guarded_alloc(8 * 8);
    uint32_t *I = fdnn_guarded_alloc(64);
    float one = 1, zero = 0;
    /* 64-bit indices are not implemented */
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                            CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 8, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, NULL, 64, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, bad, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, c3, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, d4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, unset, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, unset_rd, I, 64, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(NULL, rd, I, 64, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, NULL, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, c4, A + 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnReduceTensor(handle, rd, I, 64, NULL, 0, &one, a4, A, &zero, c4, C));
    /* HALF compute with FLOAT data; FLOAT compute mixing HALF and FLOAT */
    cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_HALF, 0, 0, 0);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, NULL, 0, NULL, 0, &one, a4, A, &zero, c4, C), CUDNN_STATUS_BAD_PARAM);
    cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, 0, 0);
    CHECK_OK(cudnnReduceTensor(handle, rd, NULL, 0, NULL, 0, &one, a4, A, &zero, h4, C));
    /* a too small workspace */
    cudnnTensorDescriptor_t big, one_el;
    cudnnCreateTensorDescriptor(&big);
    cudnnCreateTensorDescriptor(&one_el);
    cudnnSetTensor4dDescriptor(big, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 256, 256);
    cudnnSetTensor4dDescriptor(one_el, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    size_t ws = 0;
    CHECK_OK(cudnnGetReductionWorkspaceSize(handle, rd, big, one_el, &ws));
    CHECK(ws > 0);
    float *Abig = fdnn_guarded_alloc(256 * 256 * 4);
    void *W = fdnn_guarded_alloc(ws);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, NULL, 0, W, ws - 1, &one, big, Abig, &zero, one_el, C),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(handle, rd, NULL, 0, NULL, ws, &one, big, Abig, &zero, one_el, C),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnReduceTensor(handle, rd, NULL, 0, W, ws, &one, big, Abig, &zero, one_el, C));
    fdnn_guarded_free(Abig);
    fdnn_guarded_free(W);
    cudnnDestroyTensorDescriptor(big);
    cudnnDestroyTensorDescriptor(one_el);
    fdnn_guarded_free(A);
    fdnn_guarded_free(C);
    fdnn_guarded_free(I);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyReduceTensorDescriptor(unset_rd);
    cudnnTensorDescriptor_t all[] = {a4, c4, c3, bad, d4, h4, unset};
    for (int i = 0; i < 7; i++)
        cudnnDestroyTensorDescriptor(all[i]);
}

/* NCHW_VECT_C (and the vector types): NOT_SUPPORTED, as cuDNN 9 refuses them
 * at execution; nothing written.  (cuDNN 9's size queries answer for them,
 * counting vectors; ours refuse them as the execution does.) */
static void
test_vect_c_refused(void)
{
    static const struct { cudnnDataType_t t; int v; } vts[] = {
        {CUDNN_DATA_INT8x4, 4}, {CUDNN_DATA_UINT8x4, 4}, {CUDNN_DATA_INT8x32, 32}};
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    for (int i = 0; i < 3; i++) {
        const int v = vts[i].v;
        cudnnTensorDescriptor_t av, cv, cf, af;
        cudnnCreateTensorDescriptor(&av);
        cudnnCreateTensorDescriptor(&cv);
        cudnnCreateTensorDescriptor(&cf);
        cudnnCreateTensorDescriptor(&af);
        CHECK_OK(cudnnSetTensor4dDescriptor(av, CUDNN_TENSOR_NCHW_VECT_C, vts[i].t, 2, 2 * v, 3, 3));
        CHECK_OK(cudnnSetTensor4dDescriptor(cv, CUDNN_TENSOR_NCHW_VECT_C, vts[i].t, 1, 2 * v, 1, 1));
        CHECK_OK(cudnnSetTensor4dDescriptor(cf, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2 * v, 1, 1));
        CHECK_OK(cudnnSetTensor4dDescriptor(af, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 2 * v, 3, 3));
        const size_t bytes = (size_t)2 * 2 * v * 9 * 4;
        unsigned char *A = fdnn_guarded_alloc(bytes), *C = fdnn_guarded_alloc(bytes);
        uint32_t *I = fdnn_guarded_alloc(64 * 4);
        unsigned char *W = fdnn_guarded_alloc(1 << 16);
        unsigned char *saved = malloc(bytes + 256);
        for (size_t k = 0; k < bytes; k++)
            A[k] = (unsigned char)(k * 11u);
        float one = 1, zero = 0;
        for (int op = 0; op <= (int)CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS; op++) {
            CHECK_OK(cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)op, CUDNN_DATA_FLOAT,
                                                    CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_FLATTENED_INDICES,
                                                    CUDNN_32BIT_INDICES));
            const cudnnTensorDescriptor_t as[3] = {av, av, af}, cs[3] = {cv, cf, cv};
            for (int j = 0; j < 3; j++) {
                size_t sz = 12345;
                CHECK_STATUS(cudnnGetReductionIndicesSize(handle, rd, as[j], cs[j], &sz), CUDNN_STATUS_NOT_SUPPORTED);
                CHECK_STATUS(cudnnGetReductionWorkspaceSize(handle, rd, as[j], cs[j], &sz),
                             CUDNN_STATUS_NOT_SUPPORTED);
                CHECK(sz == 12345);
                fdnn_poison_bytes(C, bytes);
                fdnn_poison_bytes(I, 64 * 4);
                memcpy(saved, C, bytes);
                memcpy(saved + bytes, I, 256);
                CHECK_STATUS(cudnnReduceTensor(handle, rd, I, 64 * 4, W, 1 << 16, &one, as[j], A, &zero, cs[j], C),
                             CUDNN_STATUS_NOT_SUPPORTED);
                CHECK_MSG(memcmp(saved, C, bytes) == 0 && memcmp(saved + bytes, I, 256) == 0,
                          "ReduceTensor op %d (%s, case %d): output written by a refused call", op,
                          fdnn_dtype_name(vts[i].t), j);
            }
        }
        free(saved);
        fdnn_guarded_free(A);
        fdnn_guarded_free(C);
        fdnn_guarded_free(I);
        fdnn_guarded_free(W);
        cudnnDestroyTensorDescriptor(av);
        cudnnDestroyTensorDescriptor(cv);
        cudnnDestroyTensorDescriptor(cf);
        cudnnDestroyTensorDescriptor(af);
    }
    cudnnDestroyReduceTensorDescriptor(rd);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 0x5eed7ed);
    CHECK_OK(cudnnCreate(&handle));
    for (int i = 0; i < 90; i++)
        test_random_case(i);
    /* horizontal: 2 outputs of 67950 elements */
    const int ad[4] = {3, 2, 150, 151}, cd[4] = {1, 2, 1, 1};
    test_split_case(CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, LAYOUT_NCHW, ad, cd);
    test_split_case(CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, LAYOUT_NHWC, ad, cd);
    test_split_case(CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_DOUBLE, LAYOUT_STRIDED, ad, cd);
    test_split_case(CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_HALF, LAYOUT_NCHW, ad, cd);
    test_split_case(CUDNN_REDUCE_TENSOR_MIN, CUDNN_DATA_BFLOAT16, LAYOUT_NCHW, ad, cd);
    /* vertical (C contiguous in NHWC) over 8960 rows: split too */
    const int vd[4] = {2, 20, 64, 70}, vc[4] = {1, 20, 1, 1};
    test_split_case(CUDNN_REDUCE_TENSOR_AVG, CUDNN_DATA_FLOAT, LAYOUT_NHWC, vd, vc);
    test_split_case(CUDNN_REDUCE_TENSOR_MIN, CUDNN_DATA_FLOAT, LAYOUT_NHWC, vd, vc);
    test_split_case(CUDNN_REDUCE_TENSOR_NORM1, CUDNN_DATA_DOUBLE, LAYOUT_NHWC, vd, vc);
    test_indices_rules();
    test_bad_inputs();
    test_vect_c_refused();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_tensor_reduce");
}

/* SPDX-License-Identifier: Apache-2.0
 * cudnnTransformTensorEx and cudnnTransformFilter beyond plain padding:
 * folding, unfolding and negative padding (cropping), NCHW_VECT_C operands,
 * filters.
 *
 * - A hand-computed fold (the channel order cuDNN uses: padBefore[C] +
 *   phase * C + c, phases row-major over the spatial dims) checks the
 *   float64 reference itself; the engine is then checked against that
 *   reference on random shapes, pads from -2 to 2, folds 1 to 3, both
 *   directions, every layout and several type pairs, with alpha and beta,
 *   outputs poisoned, every ISA x 1 and 2 threads bitwise.
 * - Fold then unfold with the pads negated is the identity.
 * - Filters: layout changes, folding, INT8 <-> INT8x32 NCHW_VECT_C.
 * - NCHW_VECT_C tensors: INT8 / FLOAT <-> INT8x4 with padding in whole
 *   vectors by hand; random folds, unfolds, pads and crops with
 *   NCHW_VECT_C on either side or both against the reference of the
 *   equivalent plain tensors.
 * - Bad inputs: statuses and nothing written. */
#include "ref/tensor_ops_ref.h"
#include "tensor_test_util.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct ex_case {
    cudnnTensorTransformDescriptor_t tr;
    scale_arg_t sa, sb;
    tt_t *x, *y;
} ex_case_t;

/* Runs the transform once per ISA x threads combination on y's initial
 * bytes and checks each result against y->ref and bitwise against the
 * first. */
/* y.ref = the float64 reference of the fold (or unfold) transform of x
 * with pads pb / pa (per dim) and folds of the spatial dims, rounded to y's
 * type. */
static void
ref_fold(double alpha, const tt_t *x, double beta, tt_t *y, int nd, const int *pb, const int *pa,
         const unsigned *fold, bool unfold)
{
    int pbi[CUDNN_DIM_MAX], pai[CUDNN_DIM_MAX];
    unsigned fi[CUDNN_DIM_MAX];
    for (int i = 0; i < nd; i++) {
        pbi[i] = pb[i];
        pai[i] = pa[i];
        fi[i] = i >= 2 ? fold[i - 2] : 1;
    }
    fdnn_ref_fold_transform(alpha, &x->t, x->ref, beta, &y->t, y->ref, pbi, pai, fi, unfold);
    tt_round_ref(y);
}

static void
run_all(ex_case_t *k, const unsigned char *init, double tol, const char *what)
{
    tt_t *out = k->y;
    size_t bytes = out->span * out->esz;
    unsigned char *first = malloc(bytes);
    for (int c = 0; c < tt_combos(); c++) {
        tt_apply_combo(handle, c);
        memcpy(out->buf, init, bytes);
        cudnnStatus_t st = cudnnTransformTensorEx(handle, k->tr, &k->sa, k->x->desc, k->x->buf, &k->sb,
                                                  out->desc, out->buf);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: status %s", what, cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        double got = 0, want = 0;
        double err = tt_error(out, &got, &want);
        CHECK_MSG(err <= tol, "%s [%s, %d thr]: error %.3g (got %.9g want %.9g)", what, fdnn_test_isa_name(c / 2),
                  1 + c % 2, err, got, want);
        if (c == 0)
            memcpy(first, out->buf, bytes);
        else
            CHECK_MSG(memcmp(first, out->buf, bytes) == 0, "%s: not bitwise identical across ISA/threads", what);
    }
    free(first);
}

/* ---- the channel order, by hand ------------------------------------------------ */

/* x[1][2][2][4] = 1..16 folded by 2 x 2, with one channel of padding
 * before: channel 1 + (i * 2 + j) * 2 + c holds x[c][2h + i][2w + j]. */
static void
test_fold_by_hand(void)
{
    static const float want[12 * 2] = {
        0, 0,                                                   /* padding channel */
        1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16, /* phases (0,0) (0,1) (1,0) (1,1) x c */
        0, 0, 0, 0, 0, 0,                                       /* (1 + 0) * 4 - 1 - 8 channels after */
    };
    cudnnTensorDescriptor_t xd, yd, back;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateTensorDescriptor(&back);
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 2, 4));
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    const int32_t pb[4] = {0, 1, 0, 0}, pa[4] = {0, 0, 0, 0}, npb[4] = {0, -1, 0, 0};
    const uint32_t f[2] = {2, 2};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, pb, pa, f, CUDNN_TRANSFORM_FOLD));
    size_t bytes = 0;
    CHECK_OK(cudnnInitTransformDest(tr, xd, yd, &bytes));
    CHECK(bytes == sizeof(want));
    float *x = fdnn_guarded_alloc(16 * 4), *y = fdnn_guarded_alloc(sizeof(want)), *z = fdnn_guarded_alloc(16 * 4);
    for (int i = 0; i < 16; i++)
        x[i] = (float)(i + 1);
    /* The reference. */
    fdnn_tensor_t xt = {CUDNN_DATA_FLOAT, 4, {1, 2, 2, 4}, {16, 8, 4, 1}};
    fdnn_tensor_t yt = {CUDNN_DATA_FLOAT, 4, {1, 12, 1, 2}, {24, 2, 2, 1}};
    double xs[16], ys[24];
    for (int i = 0; i < 16; i++)
        xs[i] = x[i];
    const int pbi[4] = {0, 1, 0, 0}, pai[4] = {0};
    const unsigned fi[4] = {1, 1, 2, 2};
    fdnn_ref_fold_transform(1.0, &xt, xs, 0.0, &yt, ys, pbi, pai, fi, false);
    int bad = 0;
    for (int i = 0; i < 24; i++)
        bad += ys[i] != want[i];
    CHECK_MSG(bad == 0, "the reference folds in another order (%d differ)", bad);
    const float one = 1, zero = 0;
    fdnn_poison_f32(y, 24);
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, xd, x, &zero, yd, y));
    CHECK_MSG(memcmp(y, want, sizeof(want)) == 0, "the fold by hand differs");
    /* Unfolding with the pad negated gives x back. */
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, npb, pa, f, CUDNN_TRANSFORM_UNFOLD));
    CHECK_OK(cudnnInitTransformDest(tr, yd, back, &bytes));
    CHECK(bytes == 64);
    fdnn_poison_f32(z, 16);
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, yd, y, &zero, back, z));
    CHECK_MSG(memcmp(z, x, 64) == 0, "unfolding the fold by hand differs");
    fdnn_guarded_free(x);
    fdnn_guarded_free(y);
    fdnn_guarded_free(z);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(back);
}

/* ---- random folds, unfolds and crops ---------------------------------------------- */

static void
test_random_case(int iter)
{
    static const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                            CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8, CUDNN_DATA_INT32};
    const bool unfold = iter % 2 == 1;
    const cudnnDataType_t xt = types[fdnn_rng_int(&rng, 0, 5)];
    const cudnnDataType_t yt = iter % 3 == 0 ? types[fdnn_rng_int(&rng, 0, 5)] : xt;
    const int nd = fdnn_rng_int(&rng, 3, 5);
    int dims[CUDNN_DIM_MAX], ydims[CUDNN_DIM_MAX];
    int32_t pb[CUDNN_DIM_MAX] = {0}, pa[CUDNN_DIM_MAX] = {0};
    uint32_t fold[CUDNN_DIM_MAX] = {0};
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    cudnnTensorDescriptor_t probe, dest;
    cudnnCreateTensorDescriptor(&probe);
    cudnnCreateTensorDescriptor(&dest);
    /* Shapes until the transform leaves every dim positive. */
    for (;;) {
        tt_random_dims(&rng, nd, dims, 1500);
        for (int i = 0; i < nd; i++) {
            pb[i] = fdnn_rng_int(&rng, 0, 2) == 0 ? fdnn_rng_int(&rng, -2, 2) : 0;
            pa[i] = fdnn_rng_int(&rng, 0, 2) == 0 ? fdnn_rng_int(&rng, -2, 2) : 0;
        }
        bool folds = false;
        for (int i = 0; i + 2 < nd; i++) {
            fold[i] = (uint32_t)fdnn_rng_int(&rng, 1, 3);
            folds = folds || fold[i] > 1;
        }
        /* C pads of either sign in both directions: crops while folding
         * and pads while unfolding included. */
        (void)folds;
        CHECK_OK(cudnnSetTensorTransformDescriptor(tr, (uint32_t)nd, CUDNN_TENSOR_NCHW, pb, pa, fold,
                                                   unfold ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD));
        CHECK_OK(cudnnSetTensorNdDescriptorEx(probe, CUDNN_TENSOR_NCHW, xt, nd, dims));
        size_t bytes;
        if (cudnnInitTransformDest(tr, probe, dest, &bytes) != CUDNN_STATUS_SUCCESS)
            continue;
        int got_nd;
        int strides[CUDNN_DIM_MAX];
        cudnnDataType_t dt;
        CHECK_OK(cudnnGetTensorNdDescriptor(dest, CUDNN_DIM_MAX, &dt, &got_nd, ydims, strides));
        int64_t n = 1;
        for (int i = 0; i < nd; i++)
            n *= ydims[i];
        if (n <= 6000)
            break;
    }
    tt_t x, y;
    tt_make(&x, &rng, xt, nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&y, &rng, yt, nd, ydims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_fill(&x, &rng, FILL_SIGNED);
    const bool yf64 = yt == CUDNN_DATA_DOUBLE;
    static const double scales[] = {1.0, 0.5, -2.0, 0.0, 1.25};
    double alpha = scales[fdnn_rng_int(&rng, 0, 4)], beta = iter % 4 < 2 ? 0.0 : scales[fdnn_rng_int(&rng, 0, 4)];
    const bool integer = yt == CUDNN_DATA_INT8 || yt == CUDNN_DATA_INT32;
    if (integer) { /* integer results exact: integer factors */
        alpha = alpha == 0.5 || alpha == 1.25 ? 1.0 : alpha;
        beta = beta == 0.5 || beta == 1.25 ? 0.0 : beta;
    }
    if (beta == 0.0)
        tt_poison(&y);
    else
        tt_fill(&y, &rng, FILL_SIGNED);
    ex_case_t k = {.tr = tr, .x = &x, .y = &y};
    scale_arg(&k.sa, alpha, yf64);
    scale_arg(&k.sb, beta, yf64);
    unsigned char *init = malloc(y.span * y.esz);
    memcpy(init, y.buf, y.span * y.esz);
    ref_fold(alpha, &x, beta, &y, nd, pb, pa, fold, unfold);
    char what[160];
    snprintf(what, sizeof(what), "%s %s->%s nd %d fold %u,%u,%u pads %d/%d %d/%d iter %d", unfold ? "unfold" : "fold",
             fdnn_dtype_name(xt), fdnn_dtype_name(yt), nd, fold[0], fold[1], fold[2], pb[1], pa[1], pb[2], pa[2],
             iter);
    run_all(&k, init, tt_tol(yt) + (yf64 ? 0 : 1e-6), what);
    free(init);
    tt_free(&x);
    tt_free(&y);
    cudnnDestroyTensorDescriptor(probe);
    cudnnDestroyTensorDescriptor(dest);
    cudnnDestroyTensorTransformDescriptor(tr);
}

/* Fold (with pads) then unfold with the pads negated: x again wherever the
 * fold kept it (pads >= 0 keep everything). */
static void
test_round_trip(int iter)
{
    int dims[5];
    const int nd = 4 + iter % 2;
    tt_random_dims(&rng, nd, dims, 3000);
    int32_t pb[5], pa[5], npb[5], npa[5];
    uint32_t fold[3];
    for (int i = 0; i < nd; i++) {
        pb[i] = fdnn_rng_int(&rng, 0, 2);
        pa[i] = fdnn_rng_int(&rng, 0, 2);
        npb[i] = -pb[i];
        npa[i] = -pa[i];
    }
    for (int i = 0; i + 2 < nd; i++)
        fold[i] = (uint32_t)fdnn_rng_int(&rng, 1, 4);
    cudnnTensorTransformDescriptor_t f, u;
    cudnnCreateTensorTransformDescriptor(&f);
    cudnnCreateTensorTransformDescriptor(&u);
    CHECK_OK(cudnnSetTensorTransformDescriptor(f, (uint32_t)nd, CUDNN_TENSOR_NHWC, pb, pa, fold,
                                               CUDNN_TRANSFORM_FOLD));
    tt_t x;
    tt_make(&x, &rng, CUDNN_DATA_FLOAT, nd, dims, LAYOUT_NCHW);
    tt_fill(&x, &rng, FILL_SIGNED);
    cudnnTensorDescriptor_t fd, bd;
    cudnnCreateTensorDescriptor(&fd);
    cudnnCreateTensorDescriptor(&bd);
    size_t fb = 0, bb = 0;
    CHECK_OK(cudnnInitTransformDest(f, x.desc, fd, &fb));
    /* The unfold must give x's dims back: the fold's padding after is
     * rounded up to whole folds, so crop that too. */
    int fdims[5], fstr[5], got;
    cudnnDataType_t dt;
    CHECK_OK(cudnnGetTensorNdDescriptor(fd, 5, &dt, &got, fdims, fstr));
    for (int i = 2; i < nd; i++)
        npa[i] = dims[i] - fdims[i] * (int)fold[i - 2] + pb[i];
    npa[1] = -pa[1];
    CHECK_OK(cudnnSetTensorTransformDescriptor(u, (uint32_t)nd, CUDNN_TENSOR_NCHW, npb, npa, fold,
                                               CUDNN_TRANSFORM_UNFOLD));
    CHECK_OK(cudnnInitTransformDest(u, fd, bd, &bb));
    CHECK_MSG(bb == x.span * 4, "round trip %d: unfolded size %zu, want %zu", iter, bb, x.span * 4);
    float *mid = fdnn_guarded_alloc(fb), *back = fdnn_guarded_alloc(bb);
    fdnn_poison_f32(mid, fb / 4);
    fdnn_poison_f32(back, bb / 4);
    const float one = 1, zero = 0;
    CHECK_OK(cudnnTransformTensorEx(handle, f, &one, x.desc, x.buf, &zero, fd, mid));
    CHECK_OK(cudnnTransformTensorEx(handle, u, &one, fd, mid, &zero, bd, back));
    CHECK_MSG(bb == x.span * 4 && memcmp(back, x.buf, bb) == 0, "round trip %d: fold + unfold is not the identity",
              iter);
    fdnn_guarded_free(mid);
    fdnn_guarded_free(back);
    tt_free(&x);
    cudnnDestroyTensorDescriptor(fd);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyTensorTransformDescriptor(f);
    cudnnDestroyTensorTransformDescriptor(u);
}

/* ---- filters ---------------------------------------------------------------- */

/* A K x C x R x S filter: NCHW -> NHWC with alpha and beta, then folded
 * (K padded like a batch, C padded, taps folded) against the reference. */
static void
test_filter(void)
{
    const int K = 3, C = 5, R = 3, S = 4;
    const int n = K * C * R * S;
    cudnnFilterDescriptor_t a, b, fo;
    cudnnCreateFilterDescriptor(&a);
    cudnnCreateFilterDescriptor(&b);
    cudnnCreateFilterDescriptor(&fo);
    CHECK_OK(cudnnSetFilter4dDescriptor(a, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK_OK(cudnnSetFilter4dDescriptor(b, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, K, C, R, S));
    float *w = fdnn_guarded_alloc(n * 4), *v = fdnn_guarded_alloc(n * 4);
    for (int i = 0; i < n; i++) {
        w[i] = (float)fdnn_rng_int(&rng, -40, 40) / 8;
        v[i] = (float)fdnn_rng_int(&rng, -40, 40) / 8;
    }
    float *v0 = malloc(n * 4);
    memcpy(v0, v, n * 4);
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NHWC, NULL, NULL, NULL, CUDNN_TRANSFORM_FOLD));
    const float two = 2, half = 0.5f, one = 1, zero = 0;
    CHECK_OK(cudnnTransformFilter(handle, tr, &two, a, w, &half, b, v));
    int bad = 0;
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++) {
                    int src = ((k * C + c) * R + r) * S + s, dst = ((k * R + r) * S + s) * C + c;
                    bad += v[dst] != 2 * w[src] + 0.5f * v0[dst];
                }
    CHECK_MSG(bad == 0, "TransformFilter NCHW -> NHWC: %d wrong", bad);
    /* Fold: K padded by 0/1, C by 1/0, R by 1/0, S by 0/2; fold 2 x 3. */
    const int32_t pb[4] = {0, 1, 1, 0}, pa[4] = {1, 0, 0, 2};
    const uint32_t f[2] = {2, 3};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, pb, pa, f, CUDNN_TRANSFORM_FOLD));
    const int FK = K + 1, FC = (C + 1) * 6, FR = 2, FS = 2;
    CHECK_OK(cudnnSetFilter4dDescriptor(fo, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, FK, FC, FR, FS));
    const int fn = FK * FC * FR * FS;
    float *y = fdnn_guarded_alloc(fn * 4);
    fdnn_poison_f32(y, fn);
    CHECK_OK(cudnnTransformFilter(handle, tr, &one, b, v, &zero, fo, y));
    fdnn_tensor_t vt = {CUDNN_DATA_FLOAT, 4, {K, C, R, S}, {R * S * C, 1, S * C, C}};
    fdnn_tensor_t yt = {CUDNN_DATA_FLOAT, 4, {FK, FC, FR, FS}, {FC * FR * FS, FR * FS, FS, 1}};
    double *vs = malloc(n * 8), *ys = malloc(fn * 8);
    for (int i = 0; i < n; i++)
        vs[i] = v[i];
    const int pbi[4] = {0, 1, 1, 0}, pai[4] = {1, 0, 0, 2};
    const unsigned fi[4] = {1, 1, 2, 3};
    fdnn_ref_fold_transform(1.0, &vt, vs, 0.0, &yt, ys, pbi, pai, fi, false);
    bad = 0;
    for (int i = 0; i < fn; i++)
        bad += y[i] != ys[i];
    CHECK_MSG(bad == 0, "TransformFilter fold: %d wrong", bad);
    /* The wrong destination shape. */
    CHECK_STATUS(cudnnTransformFilter(handle, tr, &one, b, v, &zero, a, y), CUDNN_STATUS_BAD_PARAM);
    free(vs);
    free(ys);
    free(v0);
    fdnn_guarded_free(w);
    fdnn_guarded_free(v);
    fdnn_guarded_free(y);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyFilterDescriptor(a);
    cudnnDestroyFilterDescriptor(b);
    cudnnDestroyFilterDescriptor(fo);
}

/* INT8 KCRS -> INT8x32 NCHW_VECT_C filter and back, against the layout
 * (k, c / 32, r, s, c % 32). */
static void
test_filter_vect(void)
{
    const int K = 3, C = 64, R = 2, S = 3, n = K * C * R * S;
    cudnnFilterDescriptor_t a, b;
    cudnnCreateFilterDescriptor(&a);
    cudnnCreateFilterDescriptor(&b);
    CHECK_OK(cudnnSetFilter4dDescriptor(a, CUDNN_DATA_INT8, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK_OK(cudnnSetFilter4dDescriptor(b, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, K, C, R, S));
    int8_t *w = fdnn_guarded_alloc(n), *v = fdnn_guarded_alloc(n), *back = fdnn_guarded_alloc(n);
    for (int i = 0; i < n; i++)
        w[i] = (int8_t)fdnn_rng_int(&rng, -128, 127);
    fdnn_poison_bytes(v, n);
    fdnn_poison_bytes(back, n);
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW_VECT_C, NULL, NULL, NULL,
                                               CUDNN_TRANSFORM_FOLD));
    const float one = 1, zero = 0;
    CHECK_OK(cudnnTransformFilter(handle, tr, &one, a, w, &zero, b, v));
    int bad = 0;
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++)
            for (int rs = 0; rs < R * S; rs++)
                bad += v[((k * (C / 32) + c / 32) * R * S + rs) * 32 + c % 32] != w[(k * C + c) * R * S + rs];
    CHECK_MSG(bad == 0, "TransformFilter INT8 -> INT8x32: %d wrong", bad);
    CHECK_OK(cudnnTransformFilter(handle, tr, &one, b, v, &zero, a, back));
    CHECK_MSG(memcmp(back, w, n) == 0, "TransformFilter INT8x32 -> INT8 is not the inverse");
    fdnn_guarded_free(w);
    fdnn_guarded_free(v);
    fdnn_guarded_free(back);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyFilterDescriptor(a);
    cudnnDestroyFilterDescriptor(b);
}

/* ---- NCHW_VECT_C tensors with TransformTensorEx ------------------------------------ */

/* FLOAT NCHW (2 x 8 x 3 x 5) -> INT8x4 NCHW_VECT_C padded by one vector of
 * channels before and one row after, alpha 2 (saturating). */
static void
test_vect_ex(void)
{
    const int N = 2, C = 8, H = 3, W = 5;
    const int PC = C + 4, PH = H + 1;
    cudnnTensorDescriptor_t xd, yd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    const int32_t pb[4] = {0, 4, 0, 0}, pa[4] = {0, 0, 1, 0};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW_VECT_C, pb, pa, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, N, PC, PH, W));
    const int nx = N * C * H * W, ny = N * PC * PH * W;
    float *x = fdnn_guarded_alloc(nx * 4);
    int8_t *y = fdnn_guarded_alloc(ny);
    for (int i = 0; i < nx; i++)
        x[i] = (float)fdnn_rng_int(&rng, -100, 100);
    fdnn_poison_bytes(y, ny);
    const float two = 2, zero = 0;
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &two, xd, x, &zero, yd, y));
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < PC; c++)
            for (int h = 0; h < PH; h++)
                for (int w = 0; w < W; w++) {
                    int got = y[(((n * (PC / 4) + c / 4) * PH + h) * W + w) * 4 + c % 4];
                    int want = 0;
                    if (c >= 4 && h < H) {
                        double v = 2.0 * x[((n * C + c - 4) * H + h) * W + w];
                        want = v > 127 ? 127 : v < -128 ? -128 : (int)v;
                    }
                    bad += got != want;
                }
    CHECK_MSG(bad == 0, "TransformTensorEx FLOAT -> INT8x4 padded: %d wrong", bad);
    /* C padded by less than a vector, and an unfold whose C (12 / 2) is
     * not a whole number of vectors: staged through plain copies (values
     * checked by the random cases); a dest C that is not whole vectors
     * cannot be described. */
    const int32_t pb1[4] = {0, 1, 0, 0};
    const uint32_t f2[2] = {2, 1};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, f2, CUDNN_TRANSFORM_UNFOLD));
    cudnnTensorDescriptor_t ud;
    cudnnCreateTensorDescriptor(&ud);
    CHECK_OK(cudnnSetTensor4dDescriptor(ud, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, N, PC / 2, PH * 2, W));
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &two, yd, y, &zero, ud, x));
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, pb1, NULL, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnSetTensor4dDescriptor(ud, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, N, PC + 1, PH, W));
    fdnn_poison_bytes(x, (size_t)nx * 4);
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &two, yd, y, &zero, ud, x));
    /* ud[n][c + 1][h][w] = sat(2 y[n][c][h][w]), channel 0 zero. */
    const int8_t *u = (const int8_t *)x;
    bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c <= PC; c++)
            for (int h = 0; h < PH; h++)
                for (int w = 0; w < W; w++) {
                    int want = 0;
                    if (c >= 1) {
                        int v = 2 * y[(((n * (PC / 4) + (c - 1) / 4) * PH + h) * W + w) * 4 + (c - 1) % 4];
                        want = v > 127 ? 127 : v < -128 ? -128 : v;
                    }
                    bad += u[((n * (PC + 1) + c) * PH + h) * W + w] != want;
                }
    CHECK_MSG(bad == 0, "TransformTensorEx INT8x4 -> INT8 with C padded by one channel: %d wrong", bad);
    /* Into NCHW_VECT_C, a C that is not whole vectors cannot even be
     * described: the descriptor refuses it. */
    fdnn_guarded_free(x);
    fdnn_guarded_free(y);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(ud);
}

/* ---- folding NCHW_VECT_C data ------------------------------------------------------ */

/* A fold or an unfold with NCHW_VECT_C (INT8x4, UINT8x4, INT8x32) on either
 * side or both, C padded (cropped) in whole vectors, N and spatial pads
 * from -1 to 2, alpha / beta: against the float64 reference of the
 * equivalent plain tensors (the NCHW_VECT_C operands made from, and read
 * back into, plain ones with cudnnTransformTensor, which is exact), every
 * ISA x 1 and 2 threads bitwise. */
static void
test_vect_fold_case(int iter)
{
    static const struct {
        cudnnDataType_t vt, lane;
        int v;
    } vts[] = {{CUDNN_DATA_INT8x4, CUDNN_DATA_INT8, 4},
               {CUDNN_DATA_UINT8x4, CUDNN_DATA_UINT8, 4},
               {CUDNN_DATA_INT8x32, CUDNN_DATA_INT8, 32}};
    const int vi = iter % 3, v = vts[vi].v;
    const bool unfold = (iter / 3) % 2 == 1;
    const int sides = (iter / 6) % 3; /* 0: src NCHW_VECT_C, 1: dest, 2: both */
    const bool src_vc = sides != 1, dst_vc = sides != 0;
    const cudnnDataType_t lane = vts[vi].lane;
    /* the plain side: the lane type or FLOAT (a conversion) */
    const cudnnDataType_t xt = src_vc || fdnn_rng_int(&rng, 0, 1) ? lane : CUDNN_DATA_FLOAT;
    const cudnnDataType_t yt = dst_vc || fdnn_rng_int(&rng, 0, 1) ? lane : CUDNN_DATA_FLOAT;
    const int nd = v == 32 ? 4 : fdnn_rng_int(&rng, 4, 5);
    int dims[CUDNN_DIM_MAX], ydims[CUDNN_DIM_MAX];
    int32_t pb[CUDNN_DIM_MAX] = {0}, pa[CUDNN_DIM_MAX] = {0};
    uint32_t fold[CUDNN_DIM_MAX] = {0};
    int prod = 1;
    for (int i = 0; i + 2 < nd; i++) {
        fold[i] = (uint32_t)fdnn_rng_int(&rng, 1, nd == 4 ? 3 : 2);
        prod *= (int)fold[i];
    }
    if (!unfold && iter % 4 == 2) /* now and then only padding / cropping */
        for (int i = 0; i + 2 < nd; i++)
            fold[i] = 1, prod = 1;
    else if (prod == 1)
        fold[0] = 2, prod = 2;
    const int k = prod == 1 ? 2 : v == 32 ? 1 : fdnn_rng_int(&rng, 1, 2); /* k = 2: room for a crop */
    dims[0] = fdnn_rng_int(&rng, 1, 2);
    pb[0] = fdnn_rng_int(&rng, 0, 1);
    for (int i = 2; i < nd; i++) {
        dims[i] = fdnn_rng_int(&rng, 3, 5);
        pb[i] = fdnn_rng_int(&rng, -1, 2);
        pa[i] = fdnn_rng_int(&rng, -1, 2);
    }
    if (!unfold) { /* C pads and crops in whole vectors (a crop leaves one) */
        dims[1] = v * k;
        pb[1] = v * fdnn_rng_int(&rng, k == 2 ? -1 : 0, 1);
        pa[1] = v * fdnn_rng_int(&rng, k == 2 && pb[1] >= 0 ? -1 : 0, 1);
    } else { /* C_U = C_F / prod whole vectors; pads and crops */
        dims[1] = v * k * prod;
        pb[1] = v * fdnn_rng_int(&rng, 0, 1);
        pa[1] = k == 2 && fdnn_rng_int(&rng, 0, 1) ? -v : v * fdnn_rng_int(&rng, 0, 1);
    }
    /* A third of the cases: C pads, crops and plain-side channel counts
     * that are not whole vectors (staged through plain copies); the
     * NCHW_VECT_C sides keep whole vectors. */
    if (fdnn_rng_int(&rng, 0, 2) == 0) {
        pb[1] = fdnn_rng_int(&rng, -1, 2);
        pa[1] = fdnn_rng_int(&rng, -1, 2);
        if (!unfold) {
            dims[1] = src_vc ? v * k : fdnn_rng_int(&rng, 3, 9);
            if (dst_vc) /* dest C = v * prod(folds) */
                pa[1] = v - dims[1] - pb[1];
        } else {
            dims[1] = src_vc ? v * k * prod : fdnn_rng_int(&rng, 3, 9) * prod;
            const int base = dims[1] / prod;
            if (base + pb[1] < 1)
                pb[1] = 0;
            if (dst_vc) /* dest C the next whole number of vectors */
                pa[1] = (base + pb[1] + v - 1) / v * v - base - pb[1];
        }
    }
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, (uint32_t)nd, CUDNN_TENSOR_NCHW, pb, pa, fold,
                                               unfold ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD));
    cudnnTensorDescriptor_t probe, dest;
    cudnnCreateTensorDescriptor(&probe);
    cudnnCreateTensorDescriptor(&dest);
    CHECK_OK(cudnnSetTensorNdDescriptorEx(probe, CUDNN_TENSOR_NCHW, lane, nd, dims));
    size_t bytes = 0;
    CHECK_OK(cudnnInitTransformDest(tr, probe, dest, &bytes));
    int got_nd, strides[CUDNN_DIM_MAX];
    cudnnDataType_t dt;
    CHECK_OK(cudnnGetTensorNdDescriptor(dest, CUDNN_DIM_MAX, &dt, &got_nd, ydims, strides));
    tt_t x, y;
    tt_make(&x, &rng, xt, nd, dims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_make(&y, &rng, yt, nd, ydims, fdnn_rng_int(&rng, 0, LAYOUT_COUNT - 1));
    tt_fill(&x, &rng, FILL_SIGNED);
    const bool integer = yt != CUDNN_DATA_FLOAT;
    static const double alphas[] = {1.0, -2.0, 0.5, 1.25}, betas[] = {0.0, 1.0, -2.0, 0.5};
    const double alpha = alphas[fdnn_rng_int(&rng, 0, integer ? 1 : 3)];
    const double beta = iter % 2 == 0 ? 0.0 : betas[fdnn_rng_int(&rng, 0, integer ? 2 : 3)];
    if (beta == 0.0)
        tt_poison(&y);
    else
        tt_fill(&y, &rng, FILL_SIGNED);
    const float one = 1, zero = 0;
    /* The NCHW_VECT_C operands, from the plain ones. */
    cudnnTensorDescriptor_t sd = x.desc, dd = y.desc;
    unsigned char *sbuf = x.buf, *dbuf = y.buf;
    size_t dbytes = y.span * y.esz;
    if (src_vc) {
        cudnnCreateTensorDescriptor(&sd);
        CHECK_OK(cudnnSetTensorNdDescriptorEx(sd, CUDNN_TENSOR_NCHW_VECT_C, vts[vi].vt, nd, dims));
        sbuf = fdnn_guarded_alloc((size_t)tt_count(&x));
        CHECK_OK(cudnnTransformTensor(handle, &one, x.desc, x.buf, &zero, sd, sbuf));
    }
    if (dst_vc) {
        cudnnCreateTensorDescriptor(&dd);
        CHECK_OK(cudnnSetTensorNdDescriptorEx(dd, CUDNN_TENSOR_NCHW_VECT_C, vts[vi].vt, nd, ydims));
        dbytes = (size_t)tt_count(&y);
        dbuf = fdnn_guarded_alloc(dbytes);
        if (beta == 0.0)
            fdnn_poison_bytes(dbuf, dbytes);
        else
            CHECK_OK(cudnnTransformTensor(handle, &one, y.desc, y.buf, &zero, dd, dbuf));
    }
    unsigned char *init = malloc(dbytes), *first = malloc(dbytes);
    memcpy(init, dbuf, dbytes);
    ref_fold(alpha, &x, beta, &y, nd, pb, pa, fold, unfold);
    char what[200];
    snprintf(what, sizeof(what), "%s %s%s -> %s%s nd %d fold %u,%u,%u pads C %d/%d H %d/%d alpha %g beta %g iter %d",
             unfold ? "unfold" : "fold", fdnn_dtype_name(src_vc ? vts[vi].vt : xt), src_vc ? " VECT_C" : "",
             fdnn_dtype_name(dst_vc ? vts[vi].vt : yt), dst_vc ? " VECT_C" : "", nd, fold[0], fold[1], fold[2], pb[1],
             pa[1], pb[2], pa[2], alpha, beta, iter);
    scale_arg_t sa, sb;
    scale_arg(&sa, alpha, false);
    scale_arg(&sb, beta, false);
    for (int c = 0; c < tt_combos(); c++) {
        tt_apply_combo(handle, c);
        memcpy(dbuf, init, dbytes);
        cudnnStatus_t st = cudnnTransformTensorEx(handle, tr, &sa, sd, sbuf, &sb, dd, dbuf);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: status %s", what, cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        if (dst_vc)
            CHECK_OK(cudnnTransformTensor(handle, &one, dd, dbuf, &zero, y.desc, y.buf));
        double got = 0, want = 0;
        double err = tt_error(&y, &got, &want);
        CHECK_MSG(err <= tt_tol(yt) + 1e-6, "%s [%s, %d thr]: error %.3g (got %.9g want %.9g)", what,
                  fdnn_test_isa_name(c / 2), 1 + c % 2, err, got, want);
        if (c == 0)
            memcpy(first, dbuf, dbytes);
        else
            CHECK_MSG(memcmp(first, dbuf, dbytes) == 0, "%s: not bitwise identical across ISA/threads", what);
    }
    free(init);
    free(first);
    if (src_vc) {
        fdnn_guarded_free(sbuf);
        cudnnDestroyTensorDescriptor(sd);
    }
    if (dst_vc) {
        fdnn_guarded_free(dbuf);
        cudnnDestroyTensorDescriptor(dd);
    }
    tt_free(&x);
    tt_free(&y);
    cudnnDestroyTensorDescriptor(probe);
    cudnnDestroyTensorDescriptor(dest);
    cudnnDestroyTensorTransformDescriptor(tr);
}

/* ---- cudnnSetTensor and cudnnScaleTensor on NCHW_VECT_C ------------------------- */

/* Each lane on its own: set to *value (one INT8 lane), scaled with
 * rounding to nearest even and saturation.  The other tensor operations
 * refuse NCHW_VECT_C (NOT_SUPPORTED). */
static void
test_vect_set_scale(cudnnDataType_t dt, int vect)
{
    const int N = 2, C = 2 * vect, H = 3, W = 2, n = N * C * H * W;
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    CHECK_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW_VECT_C, dt, N, C, H, W));
    int8_t *y = fdnn_guarded_alloc(n), *y0 = malloc(n);
    const bool u = dt == CUDNN_DATA_UINT8x4;
    const int8_t value = u ? (int8_t)200 : -7;
    fdnn_poison_bytes(y, n);
    CHECK_OK(cudnnSetTensor(handle, d, y, &value));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += y[i] != value;
    CHECK_MSG(bad == 0, "SetTensor %s: %d lanes wrong", fdnn_dtype_name(dt), bad);
    for (int i = 0; i < n; i++)
        y[i] = y0[i] = (int8_t)(u ? fdnn_rng_int(&rng, 0, 255) : fdnn_rng_int(&rng, -128, 127));
    const float alpha = -1.5f;
    CHECK_OK(cudnnScaleTensor(handle, d, y, &alpha));
    bad = 0;
    for (int i = 0; i < n; i++) {
        double v = alpha * (u ? (double)(uint8_t)y0[i] : (double)y0[i]);
        double lo = u ? 0 : -128, hi = u ? 255 : 127;
        double want = v < lo ? lo : v > hi ? hi : nearbyint(v);
        bad += (u ? (double)(uint8_t)y[i] : (double)y[i]) != want;
    }
    CHECK_MSG(bad == 0, "ScaleTensor %s: %d lanes wrong", fdnn_dtype_name(dt), bad);
    /* The others refuse. */
    cudnnOpTensorDescriptor_t op;
    cudnnCreateOpTensorDescriptor(&op);
    CHECK_OK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    const float one = 1, zero = 0;
    memcpy(y0, y, n);
    CHECK_STATUS(cudnnAddTensor(handle, &one, d, y0, &zero, d, y), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnOpTensor(handle, op, &one, d, y0, &one, d, y0, &zero, d, y), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(memcmp(y0, y, n) == 0);
    cudnnDestroyOpTensorDescriptor(op);
    fdnn_guarded_free(y);
    free(y0);
    cudnnDestroyTensorDescriptor(d);
}

/* ---- bad inputs ------------------------------------------------------------------ */

static void
test_bad_inputs(void)
{
    cudnnTensorDescriptor_t x, y, y2;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateTensorDescriptor(&y2);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 6));
    CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 12, 2, 3));
    CHECK_OK(cudnnSetTensor4dDescriptor(y2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 12, 2, 2));
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    const uint32_t f[2] = {2, 2};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, f, CUDNN_TRANSFORM_FOLD));
    float *a = fdnn_guarded_alloc(144 * 4), *b = fdnn_guarded_alloc(144 * 4);
    fdnn_poison_f32(b, 144);
    const float one = 1, zero = 0;
    /* a destination the transform does not make */
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, y2, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, x, b), CUDNN_STATUS_BAD_PARAM);
    /* NULL pointers, scaling factors, handle */
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, NULL, &zero, y, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, y, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, NULL, x, a, &zero, y, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, NULL, y, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(NULL, tr, &one, x, a, &zero, y, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensorEx(handle, NULL, &one, x, a, &zero, y, b), CUDNN_STATUS_BAD_PARAM);
    /* a fold into its own source */
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, y, a + 1), CUDNN_STATUS_BAD_PARAM);
    /* a crop that leaves nothing */
    const int32_t crop[4] = {0, 0, -4, 0};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, crop, NULL, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, y, b), CUDNN_STATUS_BAD_PARAM);
    /* channel crops while folding, channel pads while unfolding: taken
     * (#17; the values are checked by the random cases) */
    const int32_t cneg[4] = {0, -1, 0, 0}, cpos[4] = {0, 1, 0, 0};
    float *c2 = fdnn_guarded_alloc(192 * 4);
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, cneg, f, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnSetTensor4dDescriptor(y2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 2, 3));
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, x, a, &zero, y2, c2));
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, cpos, f, CUDNN_TRANSFORM_UNFOLD));
    CHECK_OK(cudnnSetTensor4dDescriptor(y2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 4, 6));
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, y, a, &zero, y2, c2));
    fdnn_guarded_free(c2);
    /* filters: a tensor where a filter belongs */
    cudnnFilterDescriptor_t w;
    cudnnCreateFilterDescriptor(&w);
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 4, 6));
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnTransformFilter(handle, tr, &one, w, a, &zero, (cudnnFilterDescriptor_t)x, b),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformFilter(handle, tr, &one, w, NULL, &zero, w, b), CUDNN_STATUS_BAD_PARAM);
    int poisoned = 0;
    for (int i = 0; i < 144; i++)
        poisoned += isnan(b[i]);
    CHECK_MSG(poisoned == 144, "a refused transform wrote %d elements", 144 - poisoned);
    fdnn_guarded_free(a);
    fdnn_guarded_free(b);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(y2);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 0xf01d);
    CHECK_OK(cudnnCreate(&handle));
    test_fold_by_hand();
    for (int i = 0; i < 48; i++)
        test_random_case(i);
    for (int i = 0; i < 8; i++)
        test_round_trip(i);
    test_filter();
    test_filter_vect();
    test_vect_ex();
    for (int i = 0; i < 36; i++)
        test_vect_fold_case(i);
    test_vect_set_scale(CUDNN_DATA_INT8x4, 4);
    test_vect_set_scale(CUDNN_DATA_UINT8x4, 4);
    test_vect_set_scale(CUDNN_DATA_INT8x32, 32);
    test_bad_inputs();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_tensor_transform_ex");
}

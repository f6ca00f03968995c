/* SPDX-License-Identifier: Apache-2.0
 * cudnnLRNCrossChannelForward / Backward and cudnnDivisiveNormalization-
 * Forward / Backward against the float64 reference (src/ref/lrn_ref.c, which
 * differentiates term by term): odd and even window widths (cuDNN's
 * asymmetric window), 1 to 16, FLOAT, DOUBLE, HALF, BFLOAT16, NCHW, NHWC
 * and padded strides, 4-D and 5-D (and 3-D for LRN), means or NULL,
 * alpha/beta, every ISA level, 1 or 2 threads with bitwise equality; the LRN descriptor
 * limits against cuDNN 9; bad inputs. */
#include "cudnn9.h"
#include "ref/lrn_ref.h"
#include "test_ops_io.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static double
tolerance(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 1e-12 : dt == CUDNN_DATA_FLOAT ? 1e-6 : 4 * tb_eps(dt);
}

static void
blend_want(double *want, const double *v, const double *old, size_t n, double a, double b, cudnnDataType_t dt)
{
    for (size_t i = 0; i < n; i++)
        want[i] = tb_quant(dt, b != 0 ? a * v[i] + b * old[i] : a * v[i]);
}

static void
run_lrn(cudnnDataType_t dt, int nd, const int *dims, int layout, unsigned n, double la, double lbeta, double lk,
        double a, double b)
{
    cudnnLRNDescriptor_t ld;
    CHECK_OK(cudnnCreateLRNDescriptor(&ld));
    CHECK_OK(cudnnSetLRNDescriptor(ld, n, la, lbeta, lk));
    tbuf_t x, y, dy, dx;
    tb_init(&x, dt, nd, dims, layout);
    tb_init(&y, dt, nd, dims, layout);
    tb_init(&dy, dt, nd, dims, layout);
    tb_init(&dx, dt, nd, dims, layout);
    size_t cnt = tb_count(&x);
    int64_t S = 1;
    for (int i = 2; i < nd; i++)
        S *= dims[i];
    double *lx = malloc(cnt * 8), *lo = malloc(cnt * 8), *ldy = malloc(cnt * 8), *v = malloc(cnt * 8);
    double *want = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t i = 0; i < cnt; i++) {
        lx[i] = fdnn_rng_uniform(&rng, -3, 3);
        lo[i] = fdnn_rng_uniform(&rng, -1, 1);
        ldy[i] = fdnn_rng_uniform(&rng, -1, 1);
    }
    scale_t sa, sb;
    tb_fill(&x, lx);
    if (b != 0)
        tb_fill(&y, lo);
    else
        tb_poison(&y);
    fdnn_ref_lrn_forward((int)n, la, lbeta, lk, dims[0], dims[1], S, lx, v);
    blend_want(want, v, lo, cnt, a, b, dt);
    CHECK_OK(cudnnLRNCrossChannelForward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, scale_ptr(&sa, dt, a), x.desc,
                                         x.mem, scale_ptr(&sb, dt, b), y.desc, y.mem));
    tb_read(&y, got);
    size_t at;
    double err = tb_max_err(got, want, cnt, 1.0, &at);
    CHECK_MSG(err <= tolerance(dt), "lrn fwd n %u dt %s layout %s nd %d: err %.3g at %zu", n, fdnn_dtype_name(dt),
              layout_names[layout], nd, err, at);
    /* backward (y: the forward values as stored) */
    tb_fill(&dy, ldy);
    if (b != 0)
        tb_fill(&dx, lo);
    else
        tb_poison(&dx);
    fdnn_ref_lrn_backward((int)n, la, lbeta, lk, dims[0], dims[1], S, lx, ldy, v);
    blend_want(want, v, lo, cnt, a, b, dt);
    CHECK_OK(cudnnLRNCrossChannelBackward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, scale_ptr(&sa, dt, a), y.desc,
                                          y.mem, dy.desc, dy.mem, x.desc, x.mem, scale_ptr(&sb, dt, b), dx.desc,
                                          dx.mem));
    tb_read(&dx, got);
    err = tb_max_err(got, want, cnt, 1.0, &at);
    CHECK_MSG(err <= 2 * tolerance(dt), "lrn bwd n %u dt %s layout %s nd %d: err %.3g at %zu (got %g want %g)", n,
              fdnn_dtype_name(dt), layout_names[layout], nd, err, at, got[at], want[at]);
    CHECK(tb_gaps_untouched(&dx));
    free(lx), free(lo), free(ldy), free(v), free(want), free(got);
    tb_free(&x), tb_free(&y), tb_free(&dy), tb_free(&dx);
    cudnnDestroyLRNDescriptor(ld);
}

static void
run_divnorm(cudnnDataType_t dt, int nd, const int *dims, int layout, unsigned n, bool with_means, double a, double b)
{
    double la = 0.5, lbeta = 0.75, lk = 1.5;
    cudnnLRNDescriptor_t ld;
    CHECK_OK(cudnnCreateLRNDescriptor(&ld));
    CHECK_OK(cudnnSetLRNDescriptor(ld, n, la, lbeta, lk));
    tbuf_t x, m, y, dy, dx, dm, t1, t2;
    tb_init(&x, dt, nd, dims, layout);
    tb_init(&m, dt, nd, dims, layout);
    tb_init(&y, dt, nd, dims, layout);
    tb_init(&dy, dt, nd, dims, layout);
    tb_init(&dx, dt, nd, dims, layout);
    tb_init(&dm, dt, nd, dims, layout);
    tb_init(&t1, dt, nd, dims, layout);
    tb_init(&t2, dt, nd, dims, layout);
    size_t cnt = tb_count(&x);
    int64_t sp[3];
    for (int i = 2; i < nd; i++)
        sp[i - 2] = dims[i];
    double *lx = malloc(cnt * 8), *lm = malloc(cnt * 8), *lo = malloc(cnt * 8), *lo2 = malloc(cnt * 8);
    double *ldy = malloc(cnt * 8), *v = malloc(cnt * 8), *v2 = malloc(cnt * 8);
    double *want = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t i = 0; i < cnt; i++) {
        lx[i] = fdnn_rng_uniform(&rng, -2, 2);
        lm[i] = fdnn_rng_uniform(&rng, -0.5, 0.5);
        lo[i] = fdnn_rng_uniform(&rng, -1, 1);
        lo2[i] = fdnn_rng_uniform(&rng, -1, 1);
        ldy[i] = fdnn_rng_uniform(&rng, -1, 1);
    }
    scale_t sa, sb;
    tb_fill(&x, lx);
    tb_fill(&m, lm);
    if (b != 0)
        tb_fill(&y, lo);
    else
        tb_poison(&y);
    const double *means = with_means ? lm : NULL;
    fdnn_ref_divnorm_forward((int)n, la, lbeta, lk, dims[0], dims[1], nd - 2, sp, lx, means, v);
    blend_want(want, v, lo, cnt, a, b, dt);
    CHECK_OK(cudnnDivisiveNormalizationForward(handle, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, scale_ptr(&sa, dt, a),
                                               x.desc, x.mem, with_means ? m.mem : NULL, t1.mem, t2.mem,
                                               scale_ptr(&sb, dt, b), y.desc, y.mem));
    tb_read(&y, got);
    size_t at;
    double err = tb_max_err(got, want, cnt, 1.0, &at);
    CHECK_MSG(err <= tolerance(dt), "divnorm fwd n %u dt %s layout %s nd %d means %d: err %.3g at %zu", n,
              fdnn_dtype_name(dt), layout_names[layout], nd, with_means, err, at);
    tb_fill(&dy, ldy);
    if (b != 0) {
        tb_fill(&dx, lo);
        tb_fill(&dm, lo2);
    } else {
        tb_poison(&dx);
        tb_poison(&dm);
    }
    fdnn_ref_divnorm_backward((int)n, la, lbeta, lk, dims[0], dims[1], nd - 2, sp, lx, means, ldy, v, v2);
    CHECK_OK(cudnnDivisiveNormalizationBackward(handle, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, scale_ptr(&sa, dt, a),
                                                x.desc, x.mem, with_means ? m.mem : NULL, dy.mem, t1.mem, t2.mem,
                                                scale_ptr(&sb, dt, b), dx.desc, dx.mem, dm.mem));
    blend_want(want, v, lo, cnt, a, b, dt);
    tb_read(&dx, got);
    err = tb_max_err(got, want, cnt, 1.0, &at);
    CHECK_MSG(err <= 2 * tolerance(dt), "divnorm bwd dx n %u dt %s layout %s nd %d: err %.3g at %zu", n,
              fdnn_dtype_name(dt), layout_names[layout], nd, err, at);
    blend_want(want, v2, lo2, cnt, a, b, dt);
    tb_read(&dm, got);
    err = tb_max_err(got, want, cnt, 1.0, &at);
    CHECK_MSG(err <= 2 * tolerance(dt), "divnorm bwd dmeans n %u dt %s layout %s nd %d: err %.3g at %zu", n,
              fdnn_dtype_name(dt), layout_names[layout], nd, err, at);
    free(lx), free(lm), free(lo), free(lo2), free(ldy), free(v), free(v2), free(want), free(got);
    tb_free(&x), tb_free(&m), tb_free(&y), tb_free(&dy), tb_free(&dx), tb_free(&dm), tb_free(&t1), tb_free(&t2);
    cudnnDestroyLRNDescriptor(ld);
}

static void
test_values(void)
{
    static const int s4[][5] = {{2, 7, 3, 4, 0}, {1, 1, 1, 1, 0}, {2, 16, 2, 3, 0}, {1, 5, 2, 3, 4}, {2, 6, 5, 0, 0}};
    static const unsigned ns[] = {1, 2, 3, 5, 16};
    for (size_t s = 0; s < sizeof(s4) / sizeof(s4[0]); s++) {
        int nd = s4[s][4] ? 5 : (s4[s][3] ? 4 : 3);
        for (int d = 0; d < 4; d++)
            for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
                int layout = (int)((s + (size_t)d + k) % LAYOUT_COUNT);
                run_lrn(test_dtypes[d], nd, s4[s], layout, ns[k], 0.3, 0.75, 2.0, 1.0, 0.0);
                if (k == 2)
                    run_lrn(test_dtypes[d], nd, s4[s], layout, ns[k], 1e-4, 0.01, 1e-5, 0.5, -1.5);
                if (nd >= 4) {
                    run_divnorm(test_dtypes[d], nd, s4[s], layout, ns[k], k % 2 == 0, 1.0, 0.0);
                    if (k == 3)
                        run_divnorm(test_dtypes[d], nd, s4[s], layout, ns[k], true, 0.5, 2.0);
                }
            }
    }
}

static void
test_descriptor(void)
{
    cudnnLRNDescriptor_t ld;
    unsigned n;
    double a, b, k;
    CHECK_STATUS(cudnnCreateLRNDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateLRNDescriptor(&ld));
    CHECK_OK(cudnnGetLRNDescriptor(ld, &n, &a, &b, &k));
    CHECK(n == 5 && a == 1e-4 && b == 0.75 && k == 2.0);
    CHECK_STATUS(cudnnGetLRNDescriptor(ld, NULL, &a, &b, &k), CUDNN_STATUS_BAD_PARAM);
    typedef int (*cr_fn)(void **);
    typedef int (*set_fn)(void *, unsigned, double, double, double);
    cr_fn c9c = (cr_fn)fdnn_cudnn9_sym("cudnnCreateLRNDescriptor");
    set_fn c9s = (set_fn)fdnn_cudnn9_sym("cudnnSetLRNDescriptor");
    void *d9 = NULL;
    if (c9c && c9s)
        c9c(&d9);
    static const unsigned nv[] = {0, 1, 2, 4, 5, 16, 17, 1000};
    static const double kv[] = {1e-5, 0.99e-5, 0, -1, 2};
    static const double bv[] = {0.01, 0.0099, 0, -0.5, 0.75};
    static const double av[] = {1e-4, 0, -1};
    for (size_t i = 0; i < 8; i++)
        for (size_t j = 0; j < 5; j++)
            for (size_t l = 0; l < 5; l++)
                for (size_t m = 0; m < 3; m++) {
                    cudnnStatus_t s = cudnnSetLRNDescriptor(ld, nv[i], av[m], bv[l], kv[j]);
                    bool ok = nv[i] >= 1 && nv[i] <= 16 && kv[j] >= 1e-5 && bv[l] >= 0.01;
                    CHECK_MSG(s == (ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM), "set n %u k %g b %g", nv[i],
                              kv[j], bv[l]);
                    if (d9)
                        CHECK_MSG(fdnn_cudnn9_category(c9s(d9, nv[i], av[m], bv[l], kv[j])) == s,
                                  "cuDNN 9 disagrees: n %u a %g b %g k %g", nv[i], av[m], bv[l], kv[j]);
                    if (s == CUDNN_STATUS_SUCCESS) {
                        CHECK_OK(cudnnGetLRNDescriptor(ld, &n, &a, &b, &k));
                        CHECK(n == nv[i] && a == av[m] && b == bv[l] && k == kv[j]);
                    }
                }
    CHECK_OK(cudnnDestroyLRNDescriptor(ld));
    CHECK_OK(cudnnDestroyLRNDescriptor(NULL));
    typedef int (*destroy_fn)(void *);
    destroy_fn c9d = (destroy_fn)fdnn_cudnn9_sym("cudnnDestroyLRNDescriptor");
    if (d9 && c9d)
        c9d(d9);
}

static void
test_bad_inputs(void)
{
    int dims[4] = {2, 3, 4, 5}, dims2[4] = {2, 3, 4, 6}, d2[2] = {6, 20};
    tbuf_t x, y, yd, yh, yn, x2;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&yd, CUDNN_DATA_FLOAT, 4, dims2, LAYOUT_NCHW);
    tb_init(&yh, CUDNN_DATA_HALF, 4, dims, LAYOUT_NCHW);
    tb_init(&yn, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NHWC);
    tb_init(&x2, CUDNN_DATA_FLOAT, 2, d2, LAYOUT_NCHW);
    cudnnLRNDescriptor_t ld;
    cudnnCreateLRNDescriptor(&ld);
    float one = 1, zero = 0;
    tb_poison(&y);
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    const cudnnLRNMode_t M = CUDNN_LRN_CROSS_CHANNEL_DIM1;
    CHECK_STATUS(cudnnLRNCrossChannelForward(NULL, ld, M, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, NULL, M, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, (cudnnLRNMode_t)1, &one, x.desc, x.mem, &zero, y.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, NULL, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, x.mem, NULL, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, x.mem, &zero, yd.desc, yd.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, x.mem, &zero, yh.desc, yh.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, x.mem, &zero, yn.desc, y.mem), NS);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x.desc, x.mem, &zero, yn.desc, x.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelForward(handle, ld, M, &one, x2.desc, x2.mem, &zero, x2.desc, y.mem), BAD);
    CHECK_STATUS(cudnnLRNCrossChannelBackward(handle, ld, M, &one, y.desc, y.mem, yd.desc, y.mem, x.desc, x.mem, &zero,
                                              x.desc, y.mem),
                 BAD);
    const cudnnDivNormMode_t DM = CUDNN_DIVNORM_PRECOMPUTED_MEANS;
    CHECK_STATUS(cudnnDivisiveNormalizationForward(handle, ld, DM, &one, x.desc, x.mem, NULL, NULL, y.mem, &zero,
                                                   y.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(handle, ld, (cudnnDivNormMode_t)1, &one, x.desc, x.mem, NULL, y.mem,
                                                   y.mem, &zero, y.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(handle, ld, DM, &one, x2.desc, x2.mem, NULL, y.mem, y.mem, &zero,
                                                   x2.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(handle, ld, DM, &one, x.desc, x.mem, NULL, yd.mem, yd.mem, &zero,
                                                   yd.desc, yd.mem),
                 BAD);
    CHECK_STATUS(cudnnDivisiveNormalizationBackward(handle, ld, DM, &one, x.desc, x.mem, NULL, NULL, yd.mem, yd.mem,
                                                    &zero, y.desc, y.mem, NULL),
                 BAD);
    bool untouched = true;
    for (size_t i = 0; i < y.span; i++)
        untouched = untouched && isnan(((float *)y.mem)[i]);
    CHECK_MSG(untouched, "a failed call wrote to y");
    tb_free(&x), tb_free(&y), tb_free(&yd), tb_free(&yh), tb_free(&yn), tb_free(&x2);
    cudnnDestroyLRNDescriptor(ld);
}

static void
test_threads(void)
{
    int dims[4] = {3, 10, 19, 23}; /* 437 positions: two lane tiles */
    tbuf_t x, y1, y2;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y1, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y2, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    size_t cnt = tb_count(&x);
    double *v = malloc(cnt * 8);
    for (size_t i = 0; i < cnt; i++)
        v[i] = fdnn_rng_uniform(&rng, -3, 3);
    tb_fill(&x, v);
    cudnnLRNDescriptor_t ld;
    cudnnCreateLRNDescriptor(&ld);
    float one = 1, zero = 0;
    int threads;
    freednnGetNumThreads(handle, &threads);
    for (int op = 0; op < 2; op++) {
        freednnSetNumThreads(handle, 1);
        tb_poison(&y1);
        tb_poison(&y2);
        if (op == 0)
            CHECK_OK(cudnnLRNCrossChannelForward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc, x.mem, &zero,
                                                 y1.desc, y1.mem));
        else
            CHECK_OK(cudnnDivisiveNormalizationForward(handle, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, x.desc, x.mem,
                                                       NULL, y2.mem, y2.mem, &zero, y1.desc, y1.mem));
        freednnSetNumThreads(handle, 2);
        if (op == 0)
            CHECK_OK(cudnnLRNCrossChannelForward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc, x.mem, &zero,
                                                 y2.desc, y2.mem));
        else
            CHECK_OK(cudnnDivisiveNormalizationForward(handle, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, x.desc, x.mem,
                                                       NULL, y1.mem, y1.mem, &zero, y2.desc, y2.mem));
        CHECK(memcmp(y1.mem, y2.mem, y1.span * 4) == 0);
    }
    freednnSetNumThreads(handle, threads);
    free(v);
    tb_free(&x), tb_free(&y1), tb_free(&y2);
    cudnnDestroyLRNDescriptor(ld);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 777);
    CHECK_OK(cudnnCreate(&handle));
    test_descriptor();
    test_bad_inputs();
    /* every ISA level on one thread (the f32 NCHW LRN has vector kernels),
     * the best one on two as well */
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int t = 1; t <= (i == fdnn_test_isa_count() - 1 ? 2 : 1); t++) {
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
            CHECK_OK(freednnSetNumThreads(handle, t));
            test_values();
            test_threads();
        }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_lrn");
}

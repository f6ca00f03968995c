/* SPDX-License-Identifier: Apache-2.0
 * cudnnActivationForward / Backward and the activation descriptor against
 * the float64 reference (src/ref/activation_ref.c): every mode, NaN option,
 * dtype (FLOAT, DOUBLE, HALF, BFLOAT16), layout (NCHW, NHWC, padded strides,
 * different layouts for x and y), odd and tiny shapes, alpha/beta, in place,
 * NaN/Inf inputs, every ISA level the machine has and 1 or 2 threads (with
 * bitwise equality across thread counts); bad inputs; and the descriptor
 * functions against cuDNN 9 when it is installed. */
#include "cudnn9.h"
#include "ref/activation_ref.h"
#include "test_ops_io.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static const int modes[] = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_TANH,
                            CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_SWISH};

static double
tolerance(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 1e-12 : dt == CUDNN_DATA_FLOAT ? 2e-6 : 4 * tb_eps(dt);
}

/* One forward + backward case.  Returns nothing; records checks. */
static void
run_case(cudnnDataType_t dt, int nd, const int *dims, int lx, int ly, int mode, int nan_opt, double coef,
         double alpha, double beta, bool specials, const char *tag)
{
    cudnnActivationDescriptor_t ad;
    CHECK_OK(cudnnCreateActivationDescriptor(&ad));
    CHECK_OK(cudnnSetActivationDescriptor(ad, (cudnnActivationMode_t)mode, (cudnnNanPropagation_t)nan_opt, coef));
    double sb = mode == CUDNN_ACTIVATION_SWISH ? 1.5 : 1.0;
    CHECK_OK(cudnnSetActivationDescriptorSwishBeta(ad, sb));
    fdnn_activation_t act = {(cudnnActivationMode_t)mode, nan_opt == CUDNN_PROPAGATE_NAN, coef, sb};

    tbuf_t x, y, dy, dx;
    tb_init(&x, dt, nd, dims, lx);
    tb_init(&y, dt, nd, dims, ly);
    tb_init(&dy, dt, nd, dims, ly);
    tb_init(&dx, dt, nd, dims, lx);
    size_t n = tb_count(&x);
    double *lxv = malloc(n * 8), *lyv = malloc(n * 8), *ldy = malloc(n * 8), *ldx = malloc(n * 8);
    double *want = malloc(n * 8), *got = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        lxv[i] = fdnn_rng_uniform(&rng, -4, 4);
        lyv[i] = fdnn_rng_uniform(&rng, -1, 1);
        ldy[i] = fdnn_rng_uniform(&rng, -1, 1);
        ldx[i] = fdnn_rng_uniform(&rng, -1, 1);
    }
    if (specials) {
        static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-30, -1e-30, 100, -100};
        for (size_t i = 0; i < n; i += 3)
            lxv[i] = sp[(i / 3) % 9];
    }
    scale_t sa, sbt;
    /* forward */
    tb_fill(&x, lxv);
    if (beta != 0)
        tb_fill(&y, lyv);
    else
        tb_poison(&y);
    for (size_t i = 0; i < n; i++)
        want[i] = lyv[i];
    fdnn_ref_activation_forward(&act, alpha, lxv, beta, want, n);
    for (size_t i = 0; i < n; i++)
        want[i] = tb_quant(dt, want[i]);
    CHECK_OK(cudnnActivationForward(handle, ad, scale_ptr(&sa, dt, alpha), x.desc, x.mem, scale_ptr(&sbt, dt, beta),
                                    y.desc, y.mem));
    tb_read(&y, got);
    size_t at;
    double err = tb_max_err(got, want, n, 1.0, &at);
    CHECK_MSG(err <= tolerance(dt), "fwd %s mode %d nan %d dt %s: err %.3g at %zu (x=%g got %.9g want %.9g)", tag,
              mode, nan_opt, fdnn_dtype_name(dt), err, at, lxv[at], got[at], want[at]);
    CHECK(tb_gaps_untouched(&y));

    /* backward: y is the forward result as stored (the caller's y) */
    if (!specials || mode == CUDNN_ACTIVATION_RELU || mode == CUDNN_ACTIVATION_CLIPPED_RELU) {
        double *yq = malloc(n * 8);
        for (size_t i = 0; i < n; i++)
            yq[i] = 0;
        fdnn_ref_activation_forward(&act, 1.0, lxv, 0.0, yq, n);
        tb_fill(&y, yq);
        tb_fill(&dy, ldy);
        if (beta != 0)
            tb_fill(&dx, ldx);
        else
            tb_poison(&dx);
        for (size_t i = 0; i < n; i++)
            want[i] = ldx[i];
        fdnn_ref_activation_backward(&act, alpha, lxv, yq, ldy, beta, want, n);
        for (size_t i = 0; i < n; i++)
            want[i] = tb_quant(dt, want[i]);
        CHECK_OK(cudnnActivationBackward(handle, ad, scale_ptr(&sa, dt, alpha), y.desc, y.mem, dy.desc, dy.mem,
                                         x.desc, x.mem, scale_ptr(&sbt, dt, beta), dx.desc, dx.mem));
        tb_read(&dx, got);
        err = tb_max_err(got, want, n, 1.0, &at);
        CHECK_MSG(err <= 2 * tolerance(dt), "bwd %s mode %d nan %d dt %s: err %.3g at %zu (x=%g got %.9g want %.9g)",
                  tag, mode, nan_opt, fdnn_dtype_name(dt), err, at, lxv[at], got[at], want[at]);
        CHECK(tb_gaps_untouched(&dx));
        free(yq);
    }
    free(lxv), free(lyv), free(ldy), free(ldx), free(want), free(got);
    tb_free(&x), tb_free(&y), tb_free(&dy), tb_free(&dx);
    cudnnDestroyActivationDescriptor(ad);
}

static void
test_values(void)
{
    static const int shapes[][5] = {{2, 3, 5, 7, 0}, {1, 1, 1, 1, 0}, {1, 17, 1, 33, 0}, {3, 2, 4, 4, 0},
                                    {1, 3, 2, 3, 5}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        int nd = shapes[s][4] ? 5 : 4;
        for (size_t d = 0; d < 4; d++)
            for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
                for (int nan = 0; nan < 2; nan++) {
                    int lx = (int)((s + m + d) % LAYOUT_COUNT), ly = (int)((s + m + d + nan) % LAYOUT_COUNT);
                    double coef = modes[m] == CUDNN_ACTIVATION_CLIPPED_RELU ? 2.5 : 0.7;
                    run_case(test_dtypes[d], nd, shapes[s], lx, ly, modes[m], nan, coef, 1.0, 0.0, false, "plain");
                    run_case(test_dtypes[d], nd, shapes[s], lx, lx, modes[m], nan, coef, 0.75, -0.5, false, "beta");
                    if (s == 0)
                        run_case(test_dtypes[d], nd, shapes[s], lx, ly, modes[m], nan, coef, 1.0, 0.0, true, "nan");
                }
    }
}

/* Outputs above the non-temporal-store threshold (8 MiB, activation.c):
 * forward and backward with beta == 0 stream whole vectors; beta != 0 and
 * a y whose start is not vector-aligned (an offset view) store plainly. */
static void
test_large(void)
{
    static const int dims[4] = {2, 16, 256, 260}; /* 8.1 MiB of floats */
    static const int lmodes[] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_SIGMOID};
    for (size_t m = 0; m < sizeof(lmodes) / sizeof(lmodes[0]); m++) {
        run_case(CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW, LAYOUT_NCHW, lmodes[m], 0, 0.0, 1.0, 0.0, false, "large");
        run_case(CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW, LAYOUT_NCHW, lmodes[m], 0, 0.0, 0.5, 0.25, false,
                 "large beta");
    }
}

/* In place (y == x) and bitwise equality across thread counts on a tensor
 * large enough for several tiles. */
static void
test_inplace_and_threads(void)
{
    int dims[4] = {2, 3, 41, 53};
    size_t n = 2 * 3 * 41 * 53;
    cudnnActivationDescriptor_t ad;
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_ELU, CUDNN_NOT_PROPAGATE_NAN, 1.0);
    tbuf_t x, y1;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y1, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    double *v = malloc(n * 8);
    for (size_t i = 0; i < n; i++)
        v[i] = fdnn_rng_uniform(&rng, -3, 3);
    float one = 1, zero = 0;
    int threads = 0;
    freednnGetNumThreads(handle, &threads);
    freednnSetNumThreads(handle, 1);
    tb_fill(&x, v);
    tb_poison(&y1);
    CHECK_OK(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, y1.desc, y1.mem));
    freednnSetNumThreads(handle, 2);
    CHECK_OK(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, x.desc, x.mem)); /* in place */
    CHECK(memcmp(x.mem, y1.mem, n * 4) == 0);
    freednnSetNumThreads(handle, threads);
    free(v);
    tb_free(&x), tb_free(&y1);
    cudnnDestroyActivationDescriptor(ad);
}

static void
test_bad_inputs(void)
{
    int dims[4] = {2, 3, 4, 5}, dims2[4] = {2, 3, 4, 6};
    tbuf_t x, y, yd, yh, yn, x8;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&yd, CUDNN_DATA_FLOAT, 4, dims2, LAYOUT_NCHW);
    tb_init(&yh, CUDNN_DATA_HALF, 4, dims, LAYOUT_NCHW);
    tb_init(&yn, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NHWC);
    tb_init(&x8, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    cudnnTensorDescriptor_t i8;
    cudnnCreateTensorDescriptor(&i8);
    cudnnSetTensor4dDescriptor(i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 5);
    cudnnActivationDescriptor_t ad, dead;
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
    float one = 1, zero = 0;
    tb_poison(&y);
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    CHECK_STATUS(cudnnActivationForward(NULL, ad, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, NULL, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, NULL, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, NULL, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, NULL, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, NULL, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, y.desc, NULL), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, yd.desc, yd.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, yh.desc, yh.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, yn.desc, x.mem), BAD);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, i8, x.mem, &zero, i8, y.mem), NS);
    {
        /* an output whose elements overlap (W stride 2 runs into the next row) */
        cudnnTensorDescriptor_t ov;
        int od[4] = {2, 3, 4, 5}, os[4] = {60, 20, 5, 2};
        cudnnCreateTensorDescriptor(&ov);
        CHECK_OK(cudnnSetTensorNdDescriptor(ov, CUDNN_DATA_FLOAT, 4, od, os));
        CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, ov, y.mem), BAD);
        CHECK_STATUS(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.mem,
                                         &zero, ov, y.mem),
                     BAD);
        cudnnDestroyTensorDescriptor(ov);
        /* a float pointer off its 4-byte alignment */
        CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, (char *)x.mem + 1, &zero, y.desc, y.mem), BAD);
    }
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0);
    CHECK_STATUS(cudnnActivationForward(handle, ad, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                         x.desc, x8.mem),
                 BAD);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_TANH, CUDNN_PROPAGATE_NAN, 0);
    /* backward: mismatches are NOT_SUPPORTED in 8.9, in-place stride mismatch BAD_PARAM */
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                         yd.desc, x8.mem),
                 NS);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                         yh.desc, x8.mem),
                 NS);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                         yn.desc, x8.mem),
                 NS);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, yn.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                         x.desc, x8.mem),
                 NS);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, yn.desc, y.mem, yn.desc, y.mem, x.desc, x.mem, &zero,
                                         x.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnActivationBackward(handle, ad, &one, y.desc, y.mem, y.desc, NULL, x.desc, x.mem, &zero,
                                         x.desc, x8.mem),
                 BAD);
    bool untouched = true;
    for (size_t i = 0; i < y.span; i++)
        untouched = untouched && isnan(((float *)y.mem)[i]);
    CHECK_MSG(untouched, "a failed call wrote to y");
    cudnnCreateActivationDescriptor(&dead);
    CHECK_OK(cudnnDestroyActivationDescriptor(dead));
    /* descriptor checks */
    CHECK_STATUS(cudnnCreateActivationDescriptor(NULL), BAD);
    CHECK_STATUS(cudnnSetActivationDescriptor(ad, (cudnnActivationMode_t)7, CUDNN_PROPAGATE_NAN, 0), BAD);
    CHECK_STATUS(cudnnSetActivationDescriptor(ad, (cudnnActivationMode_t)-1, CUDNN_PROPAGATE_NAN, 0), BAD);
    CHECK_STATUS(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, (cudnnNanPropagation_t)2, 0), BAD);
    CHECK_STATUS(cudnnSetActivationDescriptor(NULL, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0), BAD);
    cudnnActivationMode_t m;
    cudnnNanPropagation_t no;
    double c, b;
    CHECK_OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, 6.0));
    CHECK_OK(cudnnGetActivationDescriptor(ad, &m, &no, &c));
    CHECK(m == CUDNN_ACTIVATION_CLIPPED_RELU && no == CUDNN_PROPAGATE_NAN && c == 6.0);
    CHECK_STATUS(cudnnGetActivationDescriptor(ad, NULL, &no, &c), BAD);
    CHECK_OK(cudnnGetActivationDescriptorSwishBeta(ad, &b));
    CHECK(b == 1.0);
    CHECK_OK(cudnnSetActivationDescriptorSwishBeta(ad, -2.0));
    CHECK_OK(cudnnGetActivationDescriptorSwishBeta(ad, &b));
    CHECK(b == -2.0);
    CHECK_STATUS(cudnnGetActivationDescriptorSwishBeta(ad, NULL), BAD);
    cudnnActivationDescriptor_t fresh;
    cudnnCreateActivationDescriptor(&fresh);
    CHECK_OK(cudnnGetActivationDescriptor(fresh, &m, &no, &c));
    CHECK(m == CUDNN_ACTIVATION_SIGMOID && no == CUDNN_NOT_PROPAGATE_NAN && c == 0.0);
    cudnnDestroyActivationDescriptor(fresh);
    CHECK_OK(cudnnDestroyActivationDescriptor(NULL));
    /* cuDNN 9 agrees on the descriptor validation */
    typedef int (*cr_fn)(void **);
    typedef int (*set_fn)(void *, int, int, double);
    cr_fn c9c = (cr_fn)fdnn_cudnn9_sym("cudnnCreateActivationDescriptor");
    set_fn c9s = (set_fn)fdnn_cudnn9_sym("cudnnSetActivationDescriptor");
    if (c9c && c9s) {
        void *d9;
        c9c(&d9);
        for (int mm = -1; mm <= 8; mm++)
            for (int nn = -1; nn <= 2; nn++) {
                cudnnStatus_t ours = cudnnSetActivationDescriptor(ad, (cudnnActivationMode_t)mm,
                                                                  (cudnnNanPropagation_t)nn, -1.5);
                CHECK_MSG(fdnn_cudnn9_category(c9s(d9, mm, nn, -1.5)) == ours, "set mode %d nan %d", mm, nn);
            }
        typedef int (*destroy_fn)(void *);
        destroy_fn c9d = (destroy_fn)fdnn_cudnn9_sym("cudnnDestroyActivationDescriptor");
        if (c9d)
            c9d(d9);
    }
    cudnnDestroyTensorDescriptor(i8);
    tb_free(&x), tb_free(&y), tb_free(&yd), tb_free(&yh), tb_free(&yn), tb_free(&x8);
    cudnnDestroyActivationDescriptor(ad);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 1234);
    CHECK_OK(cudnnCreate(&handle));
    test_bad_inputs();
    /* every ISA level on one thread, the best one on two as well (the
     * thread tests compare one and two threads on every level) */
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int t = 1; t <= (i == fdnn_test_isa_count() - 1 ? 2 : 1); t++) {
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
            CHECK_OK(freednnSetNumThreads(handle, t));
            test_values();
            test_inplace_and_threads();
            test_large();
        }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_activation");
}

/* SPDX-License-Identifier: Apache-2.0
 * cudnnPoolingForward / Backward against the float64 reference
 * (src/ref/pooling_ref.c): MAX, MAX_DETERMINISTIC, both averages, NaN
 * options; 1-D, 2-D and 3-D; padding, strides larger than the window,
 * 1x1; FLOAT, DOUBLE, HALF, BFLOAT16; NCHW, NHWC (the vector channels-last
 * path, with C tails) and padded strides; integer data full of ties (the
 * backward must pick the first maximum), NaN and Inf data; alpha/beta;
 * every ISA level and 1 or 2 threads with bitwise equality; global average
 * pooling (window = input) on every layout, bitwise equal across ISA
 * levels and 1, 2 and 3 threads; bad inputs. */
#include "ref/pooling_ref.h"
#include "test_ops_io.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;
/* dy's layout: x's shifted by this many (1: a different one, so the paths
 * for mixed layouts run; 0: the same, for the NCHW kernels' own tests) */
static int dy_layout_shift = 1;

typedef struct pcase {
    int nsp;
    int dims[5];
    int k[3], pad[3], str[3];
} pcase_t;

static const pcase_t cases[] = {
    {2, {2, 3, 7, 9}, {3, 3}, {1, 1}, {2, 2}},
    {2, {1, 2, 8, 8}, {2, 2}, {0, 0}, {2, 2}},
    {2, {2, 3, 7, 11}, {3, 2}, {1, 0}, {1, 3}}, /* stride > window */
    {2, {1, 1, 1, 1}, {1, 1}, {0, 0}, {1, 1}},
    {2, {2, 17, 5, 6}, {3, 3}, {1, 1}, {1, 1}}, /* C tail for every vector width */
    {2, {1, 33, 4, 3}, {2, 3}, {1, 2}, {2, 1}},
    {2, {1, 2, 5, 5}, {5, 5}, {0, 0}, {1, 1}}, /* window = input */
    {3, {1, 5, 4, 5, 6}, {2, 3, 2}, {1, 1, 0}, {2, 1, 2}},
    {3, {2, 16, 3, 4, 4}, {3, 2, 2}, {1, 0, 1}, {1, 2, 2}},
    {1, {2, 3, 10}, {3}, {1}, {2}},
    /* 3x3 stride 2 (the NCHW stem-pooling kernel): whole vectors, tails,
     * odd and even widths, padding 1 and 0 */
    {2, {1, 3, 9, 80}, {3, 3}, {1, 1}, {2, 2}},
    {2, {2, 2, 10, 37}, {3, 3}, {0, 0}, {2, 2}},
    {2, {1, 2, 8, 69}, {3, 3}, {1, 0}, {2, 2}},
    /* its backward (pooling backward of ResNet's stem): padding 0 on the
     * rows and 1 on the columns, width 1 and 2, a width of whole vector
     * pairs plus one */
    {2, {1, 2, 11, 70}, {3, 3}, {0, 1}, {2, 2}},
    {2, {2, 1, 5, 1}, {3, 3}, {1, 1}, {2, 2}},
    {2, {1, 2, 4, 2}, {3, 3}, {1, 1}, {2, 2}},
    {2, {1, 2, 6, 65}, {3, 3}, {1, 1}, {2, 2}},
    /* last, only in test_large: y of 8.4 MiB, above the threshold of the
     * non-temporal stores (pooling.c) */
    {2, {11, 64, 112, 112}, {3, 3}, {1, 1}, {2, 2}},
};
#define VALUE_CASES (sizeof(cases) / sizeof(cases[0]) - 1)

static const pcase_t global_cases[8];

/* A case's number in messages: its index in cases, or 100 + its index in
 * global_cases. */
static int case_id(const pcase_t *pc);

static void
run_case(const pcase_t *pc, cudnnDataType_t dt, int layout, int mode, int nan_opt, int data, double alpha,
         double beta)
{
    int nd = pc->nsp + 2;
    cudnnPoolingDescriptor_t pd;
    CHECK_OK(cudnnCreatePoolingDescriptor(&pd));
    CHECK_OK(cudnnSetPoolingNdDescriptor(pd, (cudnnPoolingMode_t)mode, (cudnnNanPropagation_t)nan_opt, pc->nsp, pc->k,
                                         pc->pad, pc->str));
    cudnnTensorDescriptor_t xd0;
    cudnnCreateTensorDescriptor(&xd0);
    int ydims[5];
    tbuf_t x, y, dy, dx;
    tb_init(&x, dt, nd, pc->dims, layout);
    CHECK_OK(cudnnGetPoolingNdForwardOutputDim(pd, x.desc, nd, ydims));
    tb_init(&y, dt, nd, ydims, layout);
    tb_init(&dy, dt, nd, ydims, (layout + dy_layout_shift) % LAYOUT_COUNT);
    tb_init(&dx, dt, nd, pc->dims, layout);
    fdnn_ref_pool_t rp = {.mode = (cudnnPoolingMode_t)mode, .propagate_nan = nan_opt == 1, .N = pc->dims[0],
                          .C = pc->dims[1]};
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - pc->nsp);
        rp.in[i] = d >= 0 ? pc->dims[2 + d] : 1;
        rp.out[i] = d >= 0 ? ydims[2 + d] : 1;
        rp.k[i] = d >= 0 ? pc->k[d] : 1;
        rp.pad[i] = d >= 0 ? pc->pad[d] : 0;
        rp.str[i] = d >= 0 ? pc->str[d] : 1;
    }
    size_t nx = tb_count(&x), ny = tb_count(&y);
    double *lx = malloc(nx * 8), *ly = malloc(ny * 8), *ldy = malloc(ny * 8), *ldx = malloc(nx * 8);
    double *want = malloc((nx > ny ? nx : ny) * 8), *got = malloc((nx > ny ? nx : ny) * 8);
    for (size_t i = 0; i < nx; i++) {
        lx[i] = data == 0 ? fdnn_rng_uniform(&rng, -2, 2) : (double)fdnn_rng_int(&rng, -2, 2);
        if (data == 2 && i % 5 == 1)
            lx[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? INFINITY : -INFINITY);
        ldx[i] = fdnn_rng_uniform(&rng, -1, 1);
    }
    for (size_t i = 0; i < ny; i++) {
        ly[i] = fdnn_rng_uniform(&rng, -1, 1);
        ldy[i] = data == 1 ? (double)fdnn_rng_int(&rng, -4, 4) : fdnn_rng_uniform(&rng, -1, 1);
    }
    scale_t sa, sb;
    double tol = dt == CUDNN_DATA_DOUBLE ? 1e-13 : dt == CUDNN_DATA_FLOAT ? 2e-6 : 2 * tb_eps(dt);
    tb_fill(&x, lx);
    if (beta != 0)
        tb_fill(&y, ly);
    else
        tb_poison(&y);
    for (size_t i = 0; i < ny; i++)
        want[i] = ly[i];
    fdnn_ref_pooling_forward(&rp, alpha, lx, beta, want);
    for (size_t i = 0; i < ny; i++)
        want[i] = tb_quant(dt, want[i]);
    CHECK_OK(cudnnPoolingForward(handle, pd, scale_ptr(&sa, dt, alpha), x.desc, x.mem, scale_ptr(&sb, dt, beta),
                                 y.desc, y.mem));
    tb_read(&y, got);
    size_t at;
    double err = tb_max_err(got, want, ny, 1.0, &at);
    CHECK_MSG(err <= tol, "fwd case %d mode %d nan %d dt %s layout %s data %d: err %.3g at %zu (got %g want %g)",
              case_id(pc), mode, nan_opt, fdnn_dtype_name(dt), layout_names[layout], data, err, at, got[at],
              want[at]);
    CHECK(tb_gaps_untouched(&y));

    tb_fill(&dy, ldy);
    if (beta != 0)
        tb_fill(&dx, ldx);
    else
        tb_poison(&dx);
    for (size_t i = 0; i < nx; i++)
        want[i] = ldx[i];
    fdnn_ref_pooling_backward(&rp, alpha, ldy, lx, beta, want);
    for (size_t i = 0; i < nx; i++)
        want[i] = tb_quant(dt, want[i]);
    CHECK_OK(cudnnPoolingBackward(handle, pd, scale_ptr(&sa, dt, alpha), y.desc, y.mem, dy.desc, dy.mem, x.desc,
                                  x.mem, scale_ptr(&sb, dt, beta), dx.desc, dx.mem));
    tb_read(&dx, got);
    err = tb_max_err(got, want, nx, 1.0, &at);
    CHECK_MSG(err <= 4 * tol, "bwd case %d mode %d nan %d dt %s layout %s data %d: err %.3g at %zu (got %g want %g)",
              case_id(pc), mode, nan_opt, fdnn_dtype_name(dt), layout_names[layout], data, err, at, got[at],
              want[at]);
    CHECK(tb_gaps_untouched(&dx));
    free(lx), free(ly), free(ldy), free(ldx), free(want), free(got);
    tb_free(&x), tb_free(&y), tb_free(&dy), tb_free(&dx);
    cudnnDestroyTensorDescriptor(xd0);
    cudnnDestroyPoolingDescriptor(pd);
}

/* Global average pooling (window = input, no padding: the global_avg
 * entries of the pooling lists): plane sizes around the 16-float runs of
 * the NCHW kernel (1, 15, 16, 17, 40, 49), 1-D, 2-D and 3-D, more channels
 * than one channels-last block, every layout (the padded one has planes
 * with gaps, which the NCHW entry declines), alpha/beta, NaN/Inf data. */
static const pcase_t global_cases[8] = {
    {2, {3, 37, 7, 7}, {7, 7}, {0, 0}, {1, 1}},
    {2, {2, 5, 1, 1}, {1, 1}, {0, 0}, {1, 1}},
    {2, {2, 19, 4, 4}, {4, 4}, {0, 0}, {1, 1}},
    {2, {1, 18, 3, 5}, {3, 5}, {0, 0}, {2, 2}},
    {2, {2, 3, 17, 1}, {17, 1}, {0, 0}, {1, 1}},
    {2, {1, 300, 2, 3}, {2, 3}, {0, 0}, {1, 1}},
    {3, {1, 4, 2, 3, 5}, {2, 3, 5}, {0, 0, 0}, {1, 1, 1}},
    {1, {2, 33, 40}, {40}, {0}, {1}},
};
#define GLOBAL_CASES (sizeof(global_cases) / sizeof(global_cases[0]))

static int
case_id(const pcase_t *pc)
{
    for (size_t i = 0; i < GLOBAL_CASES; i++)
        if (pc == &global_cases[i])
            return 100 + (int)i;
    return (int)(pc - cases);
}

static void
test_global(void)
{
    dy_layout_shift = 0;
    for (size_t c = 0; c < GLOBAL_CASES; c++)
        for (int layout = 0; layout < LAYOUT_COUNT; layout++)
            for (int mode = 1; mode < 3; mode++) {
                run_case(&global_cases[c], CUDNN_DATA_FLOAT, layout, mode, 0, 0, 1.0, 0.0);
                run_case(&global_cases[c], CUDNN_DATA_FLOAT, layout, mode, 1, 2, 0.5, -2.0);
            }
    dy_layout_shift = 1;
}

/* The same bits from every ISA level and from 1, 2 and 3 threads, forward
 * and backward, beta 0 and not, for the global average cases in NCHW and
 * NHWC. */
static void
test_global_bits(void)
{
    int threads;
    freednnGetNumThreads(handle, &threads);
    for (size_t c = 0; c < GLOBAL_CASES; c++)
        for (int layout = 0; layout < 2; layout++) {
            const pcase_t *pc = &global_cases[c];
            int nd = pc->nsp + 2, yd[5];
            cudnnPoolingDescriptor_t pd;
            cudnnCreatePoolingDescriptor(&pd);
            cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN,
                                        pc->nsp, pc->k, pc->pad, pc->str);
            tbuf_t x, y, dx;
            tb_init(&x, CUDNN_DATA_FLOAT, nd, pc->dims, layout);
            cudnnGetPoolingNdForwardOutputDim(pd, x.desc, nd, yd);
            tb_init(&y, CUDNN_DATA_FLOAT, nd, yd, layout);
            tb_init(&dx, CUDNN_DATA_FLOAT, nd, pc->dims, layout);
            size_t n = tb_count(&x), ny = tb_count(&y);
            double *v = malloc(n * 8), *g = malloc(ny * 8);
            for (size_t i = 0; i < n; i++)
                v[i] = fdnn_rng_uniform(&rng, -1, 1);
            for (size_t i = 0; i < ny; i++)
                g[i] = fdnn_rng_uniform(&rng, -1, 1);
            float *want[4], one = 1, zero = 0, a = 0.75f, b = -0.5f;
            for (int k = 0; k < 4; k++)
                want[k] = malloc((k < 2 ? y.span : dx.span) * 4);
            for (int isa = 0; isa < fdnn_test_isa_count(); isa++)
                for (int t = 1; t <= 3; t++) {
                    CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
                    CHECK_OK(freednnSetNumThreads(handle, t));
                    for (int k = 0; k < 4; k++) {
                        tbuf_t *o = k < 2 ? &y : &dx;
                        size_t bytes = o->span * 4;
                        if (k % 2 == 0)
                            tb_poison(o);
                        else
                            tb_fill(o, k < 2 ? g : v);
                        const float *al = k % 2 ? &a : &one, *be = k % 2 ? &b : &zero;
                        if (k < 2) {
                            tb_fill(&x, v);
                            CHECK_OK(cudnnPoolingForward(handle, pd, al, x.desc, x.mem, be, y.desc, y.mem));
                        } else {
                            tb_fill(&y, g); /* dy */
                            CHECK_OK(cudnnPoolingBackward(handle, pd, al, y.desc, y.mem, y.desc, y.mem, x.desc,
                                                          x.mem, be, dx.desc, dx.mem));
                        }
                        if (isa == 0 && t == 1)
                            memcpy(want[k], o->mem, bytes);
                        else
                            CHECK_MSG(memcmp(want[k], o->mem, bytes) == 0,
                                      "global case %zu layout %d %s beta %d: isa %s, %d threads differ", c, layout,
                                      k < 2 ? "fwd" : "bwd", k % 2, fdnn_test_isa_name(isa), t);
                    }
                }
            for (int k = 0; k < 4; k++)
                free(want[k]);
            free(v), free(g);
            tb_free(&x), tb_free(&y), tb_free(&dx);
            cudnnDestroyPoolingDescriptor(pd);
        }
    CHECK_OK(freednnSetNumThreads(handle, threads));
}

/* The streamed forward (beta == 0) and the plain one (beta != 0) of a large
 * max pooling, NCHW (the 3x3 stride-2 kernel) and NHWC. */
static void
test_large(void)
{
    const pcase_t *big = &cases[VALUE_CASES];
    for (int layout = 0; layout < 2; layout++) {
        run_case(big, CUDNN_DATA_FLOAT, layout, CUDNN_POOLING_MAX, 0, 0, 1.0, 0.0);
        run_case(big, CUDNN_DATA_FLOAT, layout, CUDNN_POOLING_MAX, 1, 0, 0.5, 0.25);
    }
}

static void
test_values(void)
{
    for (size_t c = 0; c < VALUE_CASES; c++)
        for (int mode = 0; mode < 4; mode++)
            for (int layout = 0; layout < LAYOUT_COUNT; layout++) {
                int d = (int)((c + (size_t)mode + (size_t)layout) % 4);
                run_case(&cases[c], test_dtypes[d], layout, mode, (int)(c + layout) % 2, (int)(c + mode) % 2, 1.0,
                         0.0);
                run_case(&cases[c], CUDNN_DATA_FLOAT, layout, mode, (int)(c + mode) % 2, 1, 0.5, -2.0);
                if (mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) {
                    run_case(&cases[c], CUDNN_DATA_FLOAT, layout, mode, 0, 2, 1.0, 0.0);
                    run_case(&cases[c], CUDNN_DATA_FLOAT, layout, mode, 1, 2, 1.0, 0.0);
                }
            }
}

/* The NCHW 3x3 stride-2 max-pooling backward (x, dy and dx all NCHW or all
 * padded, as a network has them): both NaN options, ties, NaN/Inf data,
 * alpha/beta. */
static void
test_k3s2_backward(void)
{
    dy_layout_shift = 0;
    for (size_t c = 10; c < VALUE_CASES; c++)
        for (int layout = 0; layout < LAYOUT_COUNT; layout += 2)
            for (int mode = 0; mode < 4; mode += 3)
                for (int data = 0; data < 3; data++) {
                    run_case(&cases[c], CUDNN_DATA_FLOAT, layout, mode, data % 2, data, 1.0, 0.0);
                    run_case(&cases[c], CUDNN_DATA_FLOAT, layout, mode, (data + 1) % 2, data, 0.5, -2.0);
                }
    dy_layout_shift = 1;
}

/* One thread and two give the same bits (forward and backward, both paths). */
static void
test_threads(void)
{
    int dims[4] = {2, 40, 17, 19}, k[2] = {3, 3}, pad[2] = {1, 1}, str[2] = {2, 2};
    for (int layout = 0; layout < 2; layout++)
        for (int mode = 0; mode < 3; mode += 2) {
            cudnnPoolingDescriptor_t pd;
            cudnnCreatePoolingDescriptor(&pd);
            cudnnSetPoolingNdDescriptor(pd, (cudnnPoolingMode_t)mode, CUDNN_PROPAGATE_NAN, 2, k, pad, str);
            tbuf_t x, y, dx1, dx2;
            tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, layout);
            int yd[4];
            cudnnGetPoolingNdForwardOutputDim(pd, x.desc, 4, yd);
            tb_init(&y, CUDNN_DATA_FLOAT, 4, yd, layout);
            tb_init(&dx1, CUDNN_DATA_FLOAT, 4, dims, layout);
            tb_init(&dx2, CUDNN_DATA_FLOAT, 4, dims, layout);
            size_t n = tb_count(&x), ny = tb_count(&y);
            double *v = malloc(n * 8), *g = malloc(ny * 8);
            for (size_t i = 0; i < n; i++)
                v[i] = fdnn_rng_int(&rng, 0, 3);
            for (size_t i = 0; i < ny; i++)
                g[i] = fdnn_rng_uniform(&rng, -1, 1);
            tb_fill(&x, v);
            tb_fill(&y, g); /* y doubles as dy */
            float one = 1, zero = 0;
            int threads;
            freednnGetNumThreads(handle, &threads);
            freednnSetNumThreads(handle, 1);
            tb_poison(&dx1);
            CHECK_OK(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                          dx1.desc, dx1.mem));
            freednnSetNumThreads(handle, 2);
            tb_poison(&dx2);
            CHECK_OK(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero,
                                          dx2.desc, dx2.mem));
            CHECK(memcmp(dx1.mem, dx2.mem, dx1.span * 4) == 0);
            freednnSetNumThreads(handle, threads);
            free(v), free(g);
            tb_free(&x), tb_free(&y), tb_free(&dx1), tb_free(&dx2);
            cudnnDestroyPoolingDescriptor(pd);
        }
}

/* dx may alias x (the argmax must be read before dx is written). */
static void
test_dx_aliases_x(void)
{
    int dims[4] = {2, 20, 6, 7}, k[2] = {3, 3}, pad[2] = {1, 1}, str[2] = {2, 2};
    for (int layout = 0; layout < 2; layout++) {
        cudnnPoolingDescriptor_t pd;
        cudnnCreatePoolingDescriptor(&pd);
        cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, k, pad, str);
        tbuf_t x, y, dx;
        tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, layout);
        int yd[4];
        cudnnGetPoolingNdForwardOutputDim(pd, x.desc, 4, yd);
        tb_init(&y, CUDNN_DATA_FLOAT, 4, yd, layout);
        tb_init(&dx, CUDNN_DATA_FLOAT, 4, dims, layout);
        size_t n = tb_count(&x), ny = tb_count(&y);
        double *v = malloc(n * 8), *g = malloc(ny * 8), *want = malloc(n * 8), *got = malloc(n * 8);
        for (size_t i = 0; i < n; i++)
            v[i] = fdnn_rng_uniform(&rng, -1, 1);
        for (size_t i = 0; i < ny; i++)
            g[i] = fdnn_rng_uniform(&rng, -1, 1);
        tb_fill(&x, v);
        tb_fill(&y, g);
        float one = 1, zero = 0;
        tb_poison(&dx);
        CHECK_OK(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero, dx.desc,
                                      dx.mem));
        tb_read(&dx, want);
        CHECK_OK(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero, x.desc,
                                      x.mem));
        tb_read(&x, got);
        CHECK_MSG(memcmp(want, got, n * 8) == 0, "dx == x gives a different gradient (layout %d)", layout);
        free(v), free(g), free(want), free(got);
        tb_free(&x), tb_free(&y), tb_free(&dx);
        cudnnDestroyPoolingDescriptor(pd);
    }
}

static void
test_bad_inputs(void)
{
    int xd[4] = {2, 3, 8, 8}, yd[4] = {2, 3, 4, 4}, ybad[4] = {2, 3, 4, 5}, ync[4] = {2, 4, 4, 4};
    int x5[5] = {2, 3, 4, 8, 8};
    tbuf_t x, y, yb, yn, yh, x3;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, xd, LAYOUT_NCHW);
    tb_init(&y, CUDNN_DATA_FLOAT, 4, yd, LAYOUT_NCHW);
    tb_init(&yb, CUDNN_DATA_FLOAT, 4, ybad, LAYOUT_NCHW);
    tb_init(&yn, CUDNN_DATA_FLOAT, 4, ync, LAYOUT_NCHW);
    tb_init(&yh, CUDNN_DATA_HALF, 4, yd, LAYOUT_NCHW);
    tb_init(&x3, CUDNN_DATA_FLOAT, 5, x5, LAYOUT_NCHW);
    cudnnPoolingDescriptor_t pd, fresh, big;
    cudnnCreatePoolingDescriptor(&pd);
    cudnnCreatePoolingDescriptor(&fresh);
    cudnnCreatePoolingDescriptor(&big);
    cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
    cudnnSetPooling2dDescriptor(big, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 2, 2, 2, 2);
    float one = 1, zero = 0;
    tb_poison(&y);
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM, NS = CUDNN_STATUS_NOT_SUPPORTED;
    CHECK_STATUS(cudnnPoolingForward(NULL, pd, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, NULL, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, fresh, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, NULL, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, &one, x.desc, NULL, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, &one, x.desc, x.mem, &zero, yb.desc, yb.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, &one, x.desc, x.mem, &zero, yn.desc, yn.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, &one, x.desc, x.mem, &zero, yh.desc, yh.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, pd, &one, x3.desc, x3.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnPoolingForward(handle, big, &one, x.desc, x.mem, &zero, y.desc, y.mem), NS);
    CHECK_STATUS(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, yb.desc, yb.mem, x.desc, x.mem, &zero,
                                      x.desc, x3.mem),
                 BAD);
    CHECK_STATUS(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, y.mem, x.desc, x.mem, &zero, y.desc,
                                      x3.mem),
                 BAD);
    CHECK_STATUS(cudnnPoolingBackward(handle, pd, &one, y.desc, y.mem, y.desc, NULL, x.desc, x.mem, &zero, x.desc,
                                      x3.mem),
                 BAD);
    bool untouched = true;
    for (size_t i = 0; i < y.span; i++)
        untouched = untouched && isnan(((float *)y.mem)[i]);
    CHECK_MSG(untouched, "a failed call wrote to y");
    tb_free(&x), tb_free(&y), tb_free(&yb), tb_free(&yn), tb_free(&yh), tb_free(&x3);
    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyPoolingDescriptor(fresh);
    cudnnDestroyPoolingDescriptor(big);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 4242);
    CHECK_OK(cudnnCreate(&handle));
    test_bad_inputs();
    test_global_bits();
    /* every ISA level on one thread, the best one on two as well (the
     * thread tests compare one and two threads on every level) */
    for (int i = 0; i < fdnn_test_isa_count(); i++)
        for (int t = 1; t <= (i == fdnn_test_isa_count() - 1 ? 2 : 1); t++) {
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(i)));
            CHECK_OK(freednnSetNumThreads(handle, t));
            test_values();
            test_k3s2_backward();
            test_threads();
            test_dx_aliases_x();
            test_global();
            if (t == 1 && i + 2 >= fdnn_test_isa_count()) /* the two best levels: vector stores */
                test_large();
        }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_pooling");
}

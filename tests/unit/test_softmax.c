/* SPDX-License-Identifier: Apache-2.0
 * cudnnSoftmaxForward / Backward against the float64 reference
 * (src/ref/softmax_ref.c): FAST, ACCURATE, LOG x INSTANCE, CHANNEL; FLOAT,
 * DOUBLE, HALF, BFLOAT16; NCHW, NHWC, padded strides (the fast lane and row
 * paths and the generic one); odd, tiny and 5-D shapes; alpha/beta; in
 * place; every ISA level and 1 or 2 threads with bitwise equality; large
 * inputs (ACCURATE must not overflow); bad inputs. */
#include "ref/softmax_ref.h"
#include "test_ops_io.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static double
tolerance(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 1e-12 : dt == CUDNN_DATA_FLOAT ? 4e-6 : 4 * tb_eps(dt);
}

static void
run_case(cudnnDataType_t dt, int nd, const int *dims, int layout, int layout_y, int algo, int mode, double alpha,
         double beta, double range)
{
    tbuf_t x, y, dy, dx;
    tb_init(&x, dt, nd, dims, layout);
    tb_init(&y, dt, nd, dims, layout_y);
    tb_init(&dy, dt, nd, dims, layout_y);
    tb_init(&dx, dt, nd, dims, layout);
    size_t n = tb_count(&x);
    int64_t N = dims[0], C = dims[1], S = 1;
    for (int i = 2; i < nd; i++)
        S *= dims[i];
    double *lx = malloc(n * 8), *ly = malloc(n * 8), *ld = malloc(n * 8), *lo = malloc(n * 8);
    double *want = malloc(n * 8), *got = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        lx[i] = fdnn_rng_uniform(&rng, -range, range);
        ly[i] = fdnn_rng_uniform(&rng, -1, 1);
        ld[i] = fdnn_rng_uniform(&rng, -1, 1);
        lo[i] = fdnn_rng_uniform(&rng, -1, 1);
    }
    bool is_log = algo == CUDNN_SOFTMAX_LOG, channel = mode == CUDNN_SOFTMAX_MODE_CHANNEL;
    scale_t sa, sb;
    tb_fill(&x, lx);
    if (beta != 0)
        tb_fill(&y, ly);
    else
        tb_poison(&y);
    for (size_t i = 0; i < n; i++)
        want[i] = ly[i];
    fdnn_ref_softmax_forward(is_log, channel, N, C, S, alpha, lx, beta, want);
    for (size_t i = 0; i < n; i++)
        want[i] = tb_quant(dt, want[i]);
    CHECK_OK(cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode,
                                 scale_ptr(&sa, dt, alpha), x.desc, x.mem, scale_ptr(&sb, dt, beta), y.desc, y.mem));
    tb_read(&y, got);
    size_t at;
    double err = tb_max_err(got, want, n, 1.0, &at);
    CHECK_MSG(err <= tolerance(dt), "fwd algo %d mode %d dt %s layouts %s/%s dims %dx%dx..: err %.3g at %zu", algo,
              mode, fdnn_dtype_name(dt), layout_names[layout], layout_names[layout_y], dims[0], dims[1], err, at);
    CHECK(tb_gaps_untouched(&y));

    /* backward from the exact forward output */
    double *yref = malloc(n * 8);
    fdnn_ref_softmax_forward(is_log, channel, N, C, S, 1.0, lx, 0.0, yref);
    tb_fill(&y, yref);
    tb_fill(&dy, ld);
    if (beta != 0)
        tb_fill(&dx, lo);
    else
        tb_poison(&dx);
    for (size_t i = 0; i < n; i++)
        want[i] = lo[i];
    fdnn_ref_softmax_backward(is_log, channel, N, C, S, alpha, yref, ld, beta, want);
    for (size_t i = 0; i < n; i++)
        want[i] = tb_quant(dt, want[i]);
    CHECK_OK(cudnnSoftmaxBackward(handle, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode,
                                  scale_ptr(&sa, dt, alpha), y.desc, y.mem, dy.desc, dy.mem, scale_ptr(&sb, dt, beta),
                                  dx.desc, dx.mem));
    tb_read(&dx, got);
    /* the backward sum is over the whole group: allow for its length */
    double len = (double)(channel ? C : C * S);
    err = tb_max_err(got, want, n, 1.0, &at);
    CHECK_MSG(err <= tolerance(dt) * (dt == CUDNN_DATA_FLOAT ? 1 + len / 64 : 2),
              "bwd algo %d mode %d dt %s layouts %s dims %dx%dx..: err %.3g at %zu", algo, mode, fdnn_dtype_name(dt),
              layout_names[layout_y], dims[0], dims[1], err, at);
    CHECK(tb_gaps_untouched(&dx));
    free(yref), free(lx), free(ly), free(ld), free(lo), free(want), free(got);
    tb_free(&x), tb_free(&y), tb_free(&dy), tb_free(&dx);
}

static void
test_values(void)
{
    static const int shapes[][5] = {{2, 5, 3, 7, 0}, {1, 1, 1, 1, 0},  {4, 100, 1, 1, 0},
                                    {2, 17, 4, 5, 0}, {2, 4, 1, 33, 0}, {1, 3, 2, 3, 4}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        int nd = shapes[s][4] ? 5 : 4;
        for (int d = 0; d < 4; d++)
            for (int algo = 0; algo < 3; algo++)
                for (int mode = 0; mode < 2; mode++) {
                    int l = (int)((s + d + algo + mode) % LAYOUT_COUNT);
                    run_case(test_dtypes[d], nd, shapes[s], l, l, algo, mode, 1.0, 0.0, 4.0);
                    if (d == 0)
                        run_case(test_dtypes[d], nd, shapes[s], (l + 1) % LAYOUT_COUNT, l, algo, mode, 0.5, -0.25,
                                 4.0);
                    else if (s == 0)
                        run_case(test_dtypes[d], nd, shapes[s], l, l, algo, mode, 0.5, -0.25, 4.0);
                }
        /* ACCURATE and LOG subtract the max: huge inputs stay finite */
        run_case(CUDNN_DATA_FLOAT, nd, shapes[s], 0, 0, CUDNN_SOFTMAX_ACCURATE, 1, 1.0, 0.0, 300.0);
        run_case(CUDNN_DATA_FLOAT, nd, shapes[s], 1, 1, CUDNN_SOFTMAX_LOG, 0, 1.0, 0.0, 300.0);
    }
}

static void
test_inplace_and_threads(void)
{
    int dims[4] = {3, 64, 23, 29}; /* several lane tiles */
    size_t n = 3 * 64 * 23 * 29;
    for (int mode = 0; mode < 2; mode++)
        for (int layout = 0; layout < 2; layout++) {
            tbuf_t x, y;
            tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, layout);
            tb_init(&y, CUDNN_DATA_FLOAT, 4, dims, layout);
            double *v = malloc(n * 8);
            for (size_t i = 0; i < n; i++)
                v[i] = fdnn_rng_uniform(&rng, -5, 5);
            float one = 1, zero = 0;
            int threads = 0;
            freednnGetNumThreads(handle, &threads);
            freednnSetNumThreads(handle, 1);
            tb_fill(&x, v);
            tb_poison(&y);
            CHECK_OK(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, (cudnnSoftmaxMode_t)mode, &one, x.desc, x.mem,
                                         &zero, y.desc, y.mem));
            freednnSetNumThreads(handle, 2);
            CHECK_OK(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, (cudnnSoftmaxMode_t)mode, &one, x.desc, x.mem,
                                         &zero, x.desc, x.mem));
            CHECK_MSG(memcmp(x.mem, y.mem, x.span * 4) == 0, "in place, 2 threads != 1 thread (mode %d layout %d)",
                      mode, layout);
            freednnSetNumThreads(handle, threads);
            free(v);
            tb_free(&x), tb_free(&y);
        }
}

static void
test_bad_inputs(void)
{
    int dims[4] = {2, 3, 4, 5}, dims2[4] = {2, 3, 5, 4};
    tbuf_t x, y, yd, yh, yn;
    tb_init(&x, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&y, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NCHW);
    tb_init(&yd, CUDNN_DATA_FLOAT, 4, dims2, LAYOUT_NCHW);
    tb_init(&yh, CUDNN_DATA_HALF, 4, dims, LAYOUT_NCHW);
    tb_init(&yn, CUDNN_DATA_FLOAT, 4, dims, LAYOUT_NHWC);
    cudnnTensorDescriptor_t i8;
    cudnnCreateTensorDescriptor(&i8);
    cudnnSetTensor4dDescriptor(i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 5);
    float one = 1, zero = 0;
    tb_poison(&y);
    const cudnnStatus_t BAD = CUDNN_STATUS_BAD_PARAM;
    const cudnnSoftmaxAlgorithm_t A = CUDNN_SOFTMAX_ACCURATE;
    const cudnnSoftmaxMode_t M = CUDNN_SOFTMAX_MODE_CHANNEL;
    CHECK_STATUS(cudnnSoftmaxForward(NULL, A, M, &one, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)3, M, &one, x.desc, x.mem, &zero, y.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, (cudnnSoftmaxMode_t)2, &one, x.desc, x.mem, &zero, y.desc, y.mem),
                 BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, NULL, x.desc, x.mem, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, x.desc, NULL, &zero, y.desc, y.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.mem, &zero, NULL, y.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.mem, &zero, yd.desc, yd.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.mem, &zero, yh.desc, yh.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.mem, &zero, yn.desc, x.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxForward(handle, A, M, &one, i8, x.mem, &zero, i8, y.mem), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSoftmaxBackward(handle, A, M, &one, y.desc, y.mem, yn.desc, y.mem, &zero, y.desc, x.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxBackward(handle, A, M, &one, y.desc, y.mem, y.desc, y.mem, &zero, yd.desc, x.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxBackward(handle, A, M, &one, y.desc, y.mem, y.desc, y.mem, &zero, yh.desc, x.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxBackward(handle, A, M, &one, y.desc, y.mem, y.desc, x.mem, &zero, yn.desc, x.mem), BAD);
    CHECK_STATUS(cudnnSoftmaxBackward(handle, A, M, &one, y.desc, y.mem, y.desc, y.mem, NULL, y.desc, x.mem), BAD);
    bool untouched = true;
    for (size_t i = 0; i < y.span; i++)
        untouched = untouched && isnan(((float *)y.mem)[i]);
    CHECK_MSG(untouched, "a failed call wrote to y");
    cudnnDestroyTensorDescriptor(i8);
    tb_free(&x), tb_free(&y), tb_free(&yd), tb_free(&yh), tb_free(&yn);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 99);
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
        }
    cudnnDestroy(handle);
    return fdnn_test_finish("test_softmax");
}

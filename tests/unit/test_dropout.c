/* SPDX-License-Identifier: Apache-2.0
 * Dropout: Philox4x32-10 known answers (Random123's test vectors), forward
 * and backward against the reference in every layout and type, mask
 * statistics, reproducibility (same seed -> same masks for 1 and 2 threads
 * and every ISA level; successive calls differ; Restore continues the
 * sequence), reserve sizes against cuDNN 9, and the argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn9.h"
#include "freednn.h"
#include "ref/dropout_ref.h"
#include "test_norm_tensor.h"
#include "testutil.h"

static cudnnHandle_t handle;

static void
test_philox_kat(void)
{
    /* Known-answer vectors of Philox4x32-10 from the Random123 distribution. */
    static const uint32_t vec[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        fdnn_ref_philox4x32_10(vec[v], vec[v] + 4, out);
        CHECK_MSG(memcmp(out, vec[v] + 6, sizeof(out)) == 0, "philox KAT %d: %08x %08x %08x %08x", v, out[0], out[1],
                  out[2], out[3]);
    }
}

static void
set_desc(cudnnDropoutDescriptor_t d, float p, void *states, unsigned long long seed)
{
    CHECK_OK(cudnnSetDropoutDescriptor(d, handle, p, states, 64, seed));
}

static void
test_forward_backward(void)
{
    static const int shapes[][4] = {{2, 3, 5, 7}, {1, 1, 1, 1}, {3, 17, 4, 9}, {1, 1, 1, 33}, {2, 4, 64, 65}};
    const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    size_t ssize = 0;
    CHECK_OK(cudnnDropoutGetStatesSize(handle, &ssize));
    void *states = fdnn_guarded_alloc(ssize);
    cudnnDropoutDescriptor_t d;
    CHECK_OK(cudnnCreateDropoutDescriptor(&d));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 5);
    int k = 0;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int layout = 0; layout < LAYOUT_COUNT; layout++, k++) {
            cudnnDataType_t dt = types[k % 4];
            float p = (float)(0.1 + 0.2 * (k % 4));
            ttensor_t x, y, dy, dx;
            tt_make(&x, 4, shapes[s], layout, dt);
            tt_make(&y, 4, shapes[s], layout, dt);
            tt_make(&dy, 4, shapes[s], LAYOUT_NCHW, dt); /* a different layout than dx */
            tt_make(&dx, 4, shapes[s], layout, dt);
            int64_t E = x.elems;
            double *xv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E), *dxr = tt_doubles(E);
            double *got = tt_doubles(E);
            tt_random(&rng, xv, E, -2, 2);
            tt_random(&rng, dyv, E, -2, 2);
            tt_set(&x, xv);
            tt_set(&dy, dyv);
            size_t rsize = 0;
            CHECK_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rsize));
            uint32_t *reserve = fdnn_guarded_alloc(rsize);
            unsigned char *first = malloc((size_t)y.span * y.esize);
            for (int isa = 0; isa < fdnn_test_isa_count(); isa++)
                for (int threads = 1; threads <= 2; threads++) {
                    CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
                    CHECK_OK(freednnSetNumThreads(handle, threads));
                    set_desc(d, p, states, 1000 + (unsigned long long)k);
                    for (int call = 0; call < 2; call++) {
                        tt_poison(&y);
                        fdnn_poison_bytes(reserve, rsize);
                        CHECK_OK(cudnnDropoutForward(handle, d, x.desc, x.buf, y.desc, y.buf, reserve, rsize));
                        fdnn_ref_dropout_forward(1000 + (uint64_t)k, (uint64_t)call, p, xv, E, yr);
                        tt_get(&y, got);
                        double e = tt_err(got, yr, E);
                        CHECK_MSG(e <= tt_tol(dt), "dropout %zu layout %d dt %d call %d: error %g", s, layout, dt,
                                  call, e);
                        bool mask_ok = true;
                        for (int64_t i = 0; i < E; i++)
                            mask_ok = mask_ok && (int)((reserve[i / 32] >> (i % 32)) & 1) ==
                                                     (int)fdnn_ref_dropout_keep(1000 + (uint64_t)k, (uint64_t)call,
                                                                                (uint64_t)i, p);
                        CHECK_MSG(mask_ok, "dropout %zu: mask differs from the reference", s);
                        if (call == 0 && isa == 0 && threads == 1)
                            memcpy(first, y.buf, (size_t)y.span * y.esize);
                        else if (call == 0)
                            CHECK_MSG(memcmp(first, y.buf, (size_t)y.span * y.esize) == 0,
                                      "dropout %zu: isa %d threads %d differ", s, isa, threads);
                    }
                    /* Backward with the mask of the second call. */
                    tt_poison(&dx);
                    CHECK_OK(cudnnDropoutBackward(handle, d, dy.desc, dy.buf, dx.desc, dx.buf, reserve, rsize));
                    fdnn_ref_dropout_forward(1000 + (uint64_t)k, 1, p, dyv, E, dxr);
                    tt_get(&dx, got);
                    CHECK_MSG(tt_err(got, dxr, E) <= tt_tol(dt), "dropout backward %zu: error %g", s,
                              tt_err(got, dxr, E));
                }
            CHECK_OK(freednnSetNumThreads(handle, 1));
            free(first);
            fdnn_guarded_free(reserve);
            free(xv), free(dyv), free(yr), free(dxr), free(got);
            tt_free(&x), tt_free(&y), tt_free(&dy), tt_free(&dx);
        }
    CHECK_OK(cudnnDestroyDropoutDescriptor(d));
    fdnn_guarded_free(states);
}

/* The kept fraction is 1 - p within 5 standard deviations; kept values are
 * x / (1 - p), dropped ones exactly 0; p = 0 keeps all, p = 1 drops all. */
static void
test_statistics(void)
{
    const int n = 200000;
    float *x = fdnn_guarded_alloc(n * sizeof(float)), *y = fdnn_guarded_alloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, n);
    size_t rsize;
    cudnnDropoutGetReserveSpaceSize(t, &rsize);
    void *reserve = fdnn_guarded_alloc(rsize), *states = fdnn_guarded_alloc(64);
    cudnnDropoutDescriptor_t d;
    cudnnCreateDropoutDescriptor(&d);
    const float ps[] = {0.0f, 0.1f, 0.5f, 0.9f, 1.0f};
    for (int k = 0; k < 5; k++) {
        set_desc(d, ps[k], states, 42);
        fdnn_poison_f32(y, n);
        CHECK_OK(cudnnDropoutForward(handle, d, t, x, t, y, reserve, rsize));
        int kept = 0, bad = 0;
        float want = ps[k] < 1.0f ? (float)(1.0 / (1.0 - (double)ps[k])) : 0.0f;
        for (int i = 0; i < n; i++) {
            if (y[i] != 0.0f)
                kept++;
            if (y[i] != 0.0f && y[i] != want)
                bad++;
        }
        double mean = n * (1.0 - ps[k]), sd = sqrt(n * ps[k] * (1.0 - ps[k]));
        CHECK_MSG(fabs(kept - mean) <= 5 * sd + 0.5, "p %g: kept %d, expected %g +- %g", ps[k], kept, mean, sd);
        CHECK(bad == 0);
    }
    /* Successive calls give new masks; Set restarts the sequence; Restore
     * adopts the states as they are. */
    set_desc(d, 0.5f, states, 7);
    float *y2 = fdnn_guarded_alloc(n * sizeof(float)), *y3 = fdnn_guarded_alloc(n * sizeof(float));
    CHECK_OK(cudnnDropoutForward(handle, d, t, x, t, y, reserve, rsize));
    CHECK_OK(cudnnDropoutForward(handle, d, t, x, t, y2, reserve, rsize));
    CHECK(memcmp(y, y2, n * sizeof(float)) != 0);
    set_desc(d, 0.5f, states, 7);
    CHECK_OK(cudnnDropoutForward(handle, d, t, x, t, y3, reserve, rsize));
    CHECK(memcmp(y, y3, n * sizeof(float)) == 0);
    cudnnDropoutDescriptor_t d2;
    cudnnCreateDropoutDescriptor(&d2);
    CHECK_OK(cudnnRestoreDropoutDescriptor(d2, handle, 0.5f, states, 64, 7));
    CHECK_OK(cudnnDropoutForward(handle, d2, t, x, t, y3, reserve, rsize));
    CHECK(memcmp(y2, y3, n * sizeof(float)) == 0);
    float gp = 0;
    void *gs = NULL;
    unsigned long long gseed = 0;
    CHECK_OK(cudnnGetDropoutDescriptor(d2, handle, &gp, &gs, &gseed));
    CHECK(gp == 0.5f && gs == states && gseed == 7);
    /* In place. */
    memcpy(y3, x, n * sizeof(float));
    set_desc(d, 0.5f, states, 7);
    CHECK_OK(cudnnDropoutForward(handle, d, t, y3, t, y3, reserve, rsize));
    CHECK(memcmp(y, y3, n * sizeof(float)) == 0);
    cudnnDestroyDropoutDescriptor(d2);
    cudnnDestroyDropoutDescriptor(d);
    cudnnDestroyTensorDescriptor(t);
    fdnn_guarded_free(x), fdnn_guarded_free(y), fdnn_guarded_free(y2), fdnn_guarded_free(y3);
    fdnn_guarded_free(reserve), fdnn_guarded_free(states);
}

typedef int (*create_fn)(cudnnTensorDescriptor_t *);
typedef int (*destroy_fn)(cudnnTensorDescriptor_t);
typedef int (*set4_fn)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int);
typedef int (*rsize_fn)(cudnnTensorDescriptor_t, size_t *);

static void
test_bad_inputs_and_sizes(void)
{
    cudnnDropoutDescriptor_t d;
    CHECK_OK(cudnnCreateDropoutDescriptor(&d));
    unsigned char states[64];
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, handle, -0.1f, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, handle, 1.5f, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, handle, NAN, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, handle, 0.5f, states, 63, 1), CUDNN_STATUS_INVALID_VALUE);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, NULL, 0.5f, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(NULL, handle, 0.5f, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    memset(states, 0, sizeof(states));
    CHECK_STATUS(cudnnRestoreDropoutDescriptor(d, handle, 0.5f, states, 64, 1), CUDNN_STATUS_BAD_PARAM);
    float gp;
    void *gs;
    unsigned long long gseed;
    CHECK_STATUS(cudnnGetDropoutDescriptor(d, handle, &gp, &gs, &gseed), CUDNN_STATUS_BAD_PARAM);

    const int a[4] = {2, 3, 4, 5}, b[4] = {2, 3, 4, 6}, c[4] = {3, 2, 5, 4};
    ttensor_t x, yb, yc, yh;
    tt_make(&x, 4, a, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&yb, 4, b, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&yc, 4, c, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&yh, 4, a, LAYOUT_NCHW, CUDNN_DATA_HALF);
    size_t rsize = 0;
    CHECK_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rsize));
    CHECK(rsize == 16); /* 120 bits in 32-bit words */
    void *reserve = fdnn_guarded_alloc(rsize);
    CHECK_OK(cudnnSetDropoutDescriptor(d, handle, 0.5f, NULL, 0, 1));
    CHECK_STATUS(cudnnDropoutForward(handle, d, x.desc, x.buf, yc.desc, yc.buf, reserve, rsize),
                 CUDNN_STATUS_BAD_PARAM); /* no states */
    CHECK_OK(cudnnSetDropoutDescriptor(d, handle, 0.5f, states, 64, 1));
    CHECK_STATUS(cudnnDropoutForward(handle, d, x.desc, x.buf, yb.desc, yb.buf, reserve, rsize),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(handle, d, x.desc, x.buf, yh.desc, yh.buf, reserve, rsize),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(handle, d, x.desc, x.buf, x.desc, x.buf, reserve, rsize - 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(handle, d, x.desc, x.buf, yc.desc, x.buf, reserve, rsize),
                 CUDNN_STATUS_BAD_PARAM); /* in place with other dims */
    CHECK_STATUS(cudnnDropoutBackward(handle, d, x.desc, x.buf, yb.desc, yb.buf, reserve, rsize),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutBackward(handle, d, x.desc, x.buf, x.desc, yc.buf, NULL, rsize),
                 CUDNN_STATUS_BAD_PARAM);
    /* Same element count, other shape: allowed (cuDNN compares counts). */
    CHECK_OK(cudnnDropoutForward(handle, d, x.desc, x.buf, yc.desc, yc.buf, reserve, rsize));
    fdnn_guarded_free(reserve);
    tt_free(&x), tt_free(&yb), tt_free(&yc), tt_free(&yh);
    CHECK_OK(cudnnDestroyDropoutDescriptor(d));

    create_fn create9 = (create_fn)fdnn_cudnn9_sym("cudnnCreateTensorDescriptor");
    set4_fn set9 = (set4_fn)fdnn_cudnn9_sym("cudnnSetTensor4dDescriptor");
    rsize_fn rs9 = (rsize_fn)fdnn_cudnn9_sym("cudnnDropoutGetReserveSpaceSize");
    if (create9 == NULL || set9 == NULL || rs9 == NULL) {
        printf("cuDNN 9 not found: reserve-size cross-check skipped\n");
        return;
    }
    cudnnTensorDescriptor_t t9, t;
    create9(&t9);
    cudnnCreateTensorDescriptor(&t);
    static const int sh[][4] = {{2, 3, 5, 7}, {1, 1, 1, 1}, {1, 1, 1, 9}, {4, 4, 4, 4}, {32, 64, 56, 56}};
    for (int i = 0; i < 5; i++)
        for (int dt = 0; dt < 3; dt++) {
            size_t s9 = 0, s = 1;
            set9(t9, CUDNN_TENSOR_NCHW, (cudnnDataType_t)dt, sh[i][0], sh[i][1], sh[i][2], sh[i][3]);
            cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, (cudnnDataType_t)dt, sh[i][0], sh[i][1], sh[i][2],
                                       sh[i][3]);
            CHECK(rs9(t9, &s9) == 0);
            CHECK_OK(cudnnDropoutGetReserveSpaceSize(t, &s));
            CHECK_MSG(s == s9, "reserve size %zu, cuDNN 9 %zu", s, s9);
        }
    cudnnDestroyTensorDescriptor(t);
    destroy_fn destroy9 = (destroy_fn)fdnn_cudnn9_sym("cudnnDestroyTensorDescriptor");
    if (destroy9 != NULL)
        destroy9(t9);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    test_philox_kat();
    test_forward_backward();
    test_statistics();
    test_bad_inputs_and_sizes();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_dropout");
}

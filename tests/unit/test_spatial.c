/* SPDX-License-Identifier: Apache-2.0
 * Spatial transformer against the float64 reference: grid generator forward
 * and backward, bilinear sampler forward and backward (dx, dgrid) with
 * alpha/beta, in NCHW, NHWC and padded layouts, f32/f64/f16, points inside,
 * on and outside the image, on every ISA level with 1 and 2 threads
 * (bitwise equal), and the descriptor checks against cuDNN 9. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn9.h"
#include "freednn.h"
#include "ref/spatial_ref.h"
#include "test_norm_tensor.h"
#include "testutil.h"

static cudnnHandle_t handle;

/* Packed arrays of the descriptor type (theta, grid). */
static void
pk_set(void *buf, cudnnDataType_t dt, double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (dt == CUDNN_DATA_DOUBLE)
            ((double *)buf)[i] = v[i];
        else if (dt == CUDNN_DATA_FLOAT)
            v[i] = ((float *)buf)[i] = (float)v[i];
        else
            v[i] = fdnn_f16_to_f32(((uint16_t *)buf)[i] = fdnn_f32_to_f16((float)v[i]));
    }
}

static void
pk_get(const void *buf, cudnnDataType_t dt, double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = dt == CUDNN_DATA_DOUBLE ? ((const double *)buf)[i]
               : dt == CUDNN_DATA_FLOAT ? ((const float *)buf)[i]
                                        : fdnn_f16_to_f32(((const uint16_t *)buf)[i]);
}

static void
run_case(int n, int c, int hin, int win, int h, int w, int layout, cudnnDataType_t dt, int kind)
{
    char name[128];
    snprintf(name, sizeof(name), "st %dx%dx%dx%d -> %dx%d layout %d dt %d kind %d", n, c, hin, win, h, w, layout, dt,
             kind);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, (uint64_t)(n * 1000 + c * 100 + h * 10 + kind));
    cudnnSpatialTransformerDescriptor_t st;
    CHECK_OK(cudnnCreateSpatialTransformerDescriptor(&st));
    const int odims[4] = {n, c, h, w}, idims[4] = {n, c, hin, win};
    CHECK_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, dt, 4, odims));
    ttensor_t x, y, dx, dy;
    tt_make(&x, 4, idims, layout, dt);
    tt_make(&dx, 4, idims, layout, dt);
    tt_make(&y, 4, odims, layout, dt);
    tt_make(&dy, 4, odims, layout, dt);
    size_t es = tt_esize(dt);
    int64_t G = (int64_t)n * h * w * 2, XE = x.elems, YE = y.elems;
    void *theta = fdnn_guarded_alloc((size_t)n * 6 * es), *grid = fdnn_guarded_alloc((size_t)G * es);
    void *dgrid = fdnn_guarded_alloc((size_t)G * es), *dtheta = fdnn_guarded_alloc((size_t)n * 6 * es);
    double *thv = tt_doubles(n * 6), *gv = tt_doubles(G), *gr = tt_doubles(G), *xv = tt_doubles(XE);
    double *yr = tt_doubles(YE), *dyv = tt_doubles(YE), *dxr = tt_doubles(XE), *dgr = tt_doubles(G);
    double *dtr = tt_doubles(n * 6), *got = tt_doubles(XE + YE + G + n * 6);
    double *y0 = tt_doubles(YE), *dx0 = tt_doubles(XE), *dg0 = tt_doubles(G);
    /* kind 0: identity (points on pixel centres); 1: random affine, mostly
     * inside; 2: zoom out and shift, many points outside. */
    for (int b = 0; b < n; b++) {
        double *t = thv + b * 6;
        if (kind == 0) {
            t[0] = 1, t[1] = 0, t[2] = 0, t[3] = 0, t[4] = 1, t[5] = 0;
        } else {
            double s = kind == 1 ? 0.8 : 1.7, a = fdnn_rng_uniform(&rng, -0.6, 0.6);
            t[0] = s * cos(a), t[1] = -s * sin(a), t[2] = fdnn_rng_uniform(&rng, -0.3, 0.3) * kind;
            t[3] = s * sin(a), t[4] = s * cos(a), t[5] = fdnn_rng_uniform(&rng, -0.3, 0.3) * kind;
        }
    }
    pk_set(theta, dt, thv, n * 6);
    tt_random(&rng, xv, XE, -2, 2);
    tt_random(&rng, dyv, YE, -1, 1);
    tt_random(&rng, y0, YE, -1, 1);
    tt_random(&rng, dx0, XE, -1, 1);
    tt_random(&rng, dg0, G, -1, 1);
    tt_set(&x, xv);
    tt_set(&dy, dyv);
    fdnn_ref_st_grid(n, h, w, thv, gr);
    double tol = tt_tol(dt) * 4;
    double one = 1, half = 0.5, zero = 0;
    float onef = 1, halff = 0.5f, zerof = 0;
    const void *a1 = dt == CUDNN_DATA_DOUBLE ? (const void *)&one : (const void *)&onef;
    const void *bh = dt == CUDNN_DATA_DOUBLE ? (const void *)&half : (const void *)&halff;
    const void *b0 = dt == CUDNN_DATA_DOUBLE ? (const void *)&zero : (const void *)&zerof;
    unsigned char *dx_first = malloc((size_t)dx.span * dx.esize), *dg_first = malloc((size_t)G * es);
    unsigned char *g_first = malloc((size_t)G * es);
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++)
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
            CHECK_OK(freednnSetNumThreads(handle, threads));
            fdnn_poison_bytes(grid, (size_t)G * es);
            CHECK_OK(cudnnSpatialTfGridGeneratorForward(handle, st, theta, grid));
            pk_get(grid, dt, gv, G);
            CHECK_MSG(tt_err(gv, gr, G) <= tol, "%s: grid error %g", name, tt_err(gv, gr, G));
            /* The sampler works from the grid as stored (rounded to dt); the
             * references are computed once, from the first run's grid, which
             * every later run must reproduce bitwise. */
            bool first_run = isa == 0 && threads == 1;
            if (first_run) {
                memcpy(g_first, grid, (size_t)G * es);
                fdnn_ref_st_sample(n, c, hin, win, h, w, xv, gv, yr);
                fdnn_ref_st_sample_backward(n, c, hin, win, h, w, xv, gv, dyv, dxr, dgr);
            }
            CHECK_MSG(memcmp(g_first, grid, (size_t)G * es) == 0, "%s: grid differs by ISA or threads", name);
            tt_poison(&y);
            CHECK_OK(cudnnSpatialTfSamplerForward(handle, st, a1, x.desc, x.buf, grid, b0, y.desc, y.buf));
            tt_get(&y, got);
            CHECK_MSG(tt_err(got, yr, YE) <= tol, "%s: y error %g", name, tt_err(got, yr, YE));
            /* beta = 0.5 blending */
            tt_set(&y, y0);
            CHECK_OK(cudnnSpatialTfSamplerForward(handle, st, a1, x.desc, x.buf, grid, bh, y.desc, y.buf));
            tt_get(&y, got);
            for (int64_t i = 0; i < YE; i++)
                got[i] -= 0.5 * y0[i];
            CHECK_MSG(tt_err(got, yr, YE) <= tol * 2, "%s: blended y error %g", name, tt_err(got, yr, YE));

            tt_poison(&dx);
            fdnn_poison_bytes(dgrid, (size_t)G * es);
            CHECK_OK(cudnnSpatialTfSamplerBackward(handle, st, a1, x.desc, x.buf, b0, dx.desc, dx.buf, a1, dy.desc,
                                                   dy.buf, grid, b0, dgrid));
            tt_get(&dx, got);
            CHECK_MSG(tt_err(got, dxr, XE) <= tol, "%s: dx error %g", name, tt_err(got, dxr, XE));
            pk_get(dgrid, dt, got, G);
            double ge = tt_err(got, dgr, G);
            CHECK_MSG(ge <= tol * 10, "%s: dgrid error %g", name, ge);
            if (threads == 1) {
                memcpy(dx_first, dx.buf, (size_t)dx.span * dx.esize);
                memcpy(dg_first, dgrid, (size_t)G * es);
            } else {
                CHECK_MSG(memcmp(dx_first, dx.buf, (size_t)dx.span * dx.esize) == 0, "%s: dx differs by threads",
                          name);
                CHECK_MSG(memcmp(dg_first, dgrid, (size_t)G * es) == 0, "%s: dgrid differs by threads", name);
            }
            /* Blending of both outputs. */
            tt_set(&dx, dx0);
            pk_set(dgrid, dt, dg0, G);
            CHECK_OK(cudnnSpatialTfSamplerBackward(handle, st, a1, x.desc, x.buf, bh, dx.desc, dx.buf, a1, dy.desc,
                                                   dy.buf, grid, bh, dgrid));
            tt_get(&dx, got);
            for (int64_t i = 0; i < XE; i++)
                got[i] -= 0.5 * dx0[i];
            CHECK_MSG(tt_err(got, dxr, XE) <= tol * 2, "%s: blended dx error %g", name, tt_err(got, dxr, XE));
            pk_get(dgrid, dt, got, G);
            for (int64_t i = 0; i < G; i++)
                got[i] -= 0.5 * dg0[i];
            CHECK_MSG(tt_err(got, dgr, G) <= tol * 10, "%s: blended dgrid error %g", name, tt_err(got, dgr, G));

            /* Grid generator backward from the dgrid of the reference. */
            pk_set(dgrid, dt, dgr, G);
            fdnn_ref_st_grid_backward(n, h, w, dgr, dtr);
            fdnn_poison_bytes(dtheta, (size_t)n * 6 * es);
            CHECK_OK(cudnnSpatialTfGridGeneratorBackward(handle, st, dgrid, dtheta));
            pk_get(dtheta, dt, got, n * 6);
            CHECK_MSG(tt_err(got, dtr, n * 6) <= tol * 10, "%s: dtheta error %g", name, tt_err(got, dtr, n * 6));
        }
    /* A pool left running spins between calls; back to one thread while
     * the references run. */
    CHECK_OK(freednnSetNumThreads(handle, 1));
    free(dx_first), free(dg_first), free(g_first);
    fdnn_guarded_free(theta), fdnn_guarded_free(grid), fdnn_guarded_free(dgrid), fdnn_guarded_free(dtheta);
    double *arrs[] = {thv, gv, gr, xv, yr, dyv, dxr, dgr, dtr, got, y0, dx0, dg0};
    for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
        free(arrs[i]);
    tt_free(&x), tt_free(&y), tt_free(&dx), tt_free(&dy);
    CHECK_OK(cudnnDestroySpatialTransformerDescriptor(st));
}

typedef int (*create_fn)(cudnnSpatialTransformerDescriptor_t *);
typedef int (*destroy_fn)(cudnnSpatialTransformerDescriptor_t);
typedef int (*set_fn)(cudnnSpatialTransformerDescriptor_t, cudnnSamplerType_t, cudnnDataType_t, int, const int *);

static void
test_descriptor(void)
{
    cudnnSpatialTransformerDescriptor_t st;
    CHECK_OK(cudnnCreateSpatialTransformerDescriptor(&st));
    const int dims[4] = {2, 3, 4, 5}, bad[4] = {2, 0, 4, 5};
    float one = 1, zero = 0, buf[64];
    CHECK_STATUS(cudnnSpatialTfGridGeneratorForward(handle, st, buf, buf), CUDNN_STATUS_BAD_PARAM); /* not set */
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 5, dims),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, bad),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims));
    CHECK_STATUS(cudnnSpatialTfGridGeneratorForward(handle, st, NULL, buf), CUDNN_STATUS_BAD_PARAM);
    const int xd[4] = {2, 3, 6, 6}, xn[4] = {1, 3, 6, 6}, yd[4] = {2, 3, 4, 5}, yw[4] = {2, 3, 4, 4};
    ttensor_t x, xbad, y, ybad, xh;
    tt_make(&x, 4, xd, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&xbad, 4, xn, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&y, 4, yd, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&ybad, 4, yw, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&xh, 4, xd, LAYOUT_NCHW, CUDNN_DATA_HALF);
    float *grid = fdnn_guarded_alloc(2 * 4 * 5 * 2 * sizeof(float));
    CHECK_STATUS(cudnnSpatialTfSamplerForward(handle, st, &one, xbad.desc, xbad.buf, grid, &zero, y.desc, y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.buf, grid, &zero, ybad.desc, ybad.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(handle, st, &one, xh.desc, xh.buf, grid, &zero, y.desc, y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.buf, NULL, &zero, y.desc, y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerBackward(handle, st, &one, x.desc, x.buf, &zero, xbad.desc, xbad.buf, &one,
                                               y.desc, y.buf, grid, &zero, grid),
                 CUDNN_STATUS_BAD_PARAM);
    /* Grid points far outside or infinite sample nothing (0), never an
     * out-of-bounds read; a NaN coordinate gives NaN (docs/numerics.md).
     * Points alternate (1e30, -Inf) and (NaN, 1.5). */
    for (int i = 0; i < 80; i++)
        grid[i] = i % 4 == 0 ? 1e30f : i % 4 == 1 ? -INFINITY : i % 4 == 2 ? NAN : 1.5f;
    for (int64_t i = 0; i < x.elems; i++)
        ((float *)x.buf)[i] = 1.0f;
    tt_poison(&y);
    CHECK_OK(cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.buf, grid, &zero, y.desc, y.buf));
    int64_t zeros = 0, nans = 0;
    for (int64_t i = 0; i < y.elems; i++) {
        float v = ((float *)y.buf)[i];
        zeros += v == 0.0f;
        nans += isnan(v);
    }
    CHECK_MSG(zeros == y.elems / 2 && nans == y.elems / 2, "%lld zeros and %lld NaN of %lld", (long long)zeros,
              (long long)nans, (long long)y.elems);
    fdnn_guarded_free(grid);
    tt_free(&x), tt_free(&xbad), tt_free(&y), tt_free(&ybad), tt_free(&xh);
    CHECK_OK(cudnnDestroySpatialTransformerDescriptor(st));

    create_fn create9 = (create_fn)fdnn_cudnn9_sym("cudnnCreateSpatialTransformerDescriptor");
    set_fn set9 = (set_fn)fdnn_cudnn9_sym("cudnnSetSpatialTransformerNdDescriptor");
    if (create9 == NULL || set9 == NULL) {
        printf("cuDNN 9 not found: descriptor cross-check skipped\n");
        return;
    }
    cudnnSpatialTransformerDescriptor_t s9;
    create9(&s9);
    CHECK_OK(cudnnCreateSpatialTransformerDescriptor(&st));
    for (int sampler = 0; sampler < 2; sampler++)
        for (int t = 0; t < 16; t++) {
            cudnnStatus_t a = fdnn_cudnn9_category(set9(s9, (cudnnSamplerType_t)sampler, (cudnnDataType_t)t, 4, dims));
            cudnnStatus_t b = cudnnSetSpatialTransformerNdDescriptor(st, (cudnnSamplerType_t)sampler,
                                                                     (cudnnDataType_t)t, 4, dims);
            CHECK_MSG(a == b, "set sampler %d type %d: %d, cuDNN 9 %d", sampler, t, b, a);
        }
    CHECK_OK(cudnnDestroySpatialTransformerDescriptor(st));
    destroy_fn destroy9 = (destroy_fn)fdnn_cudnn9_sym("cudnnDestroySpatialTransformerDescriptor");
    if (destroy9 != NULL)
        destroy9(s9);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF};
    static const int shapes[][6] = {{2, 3, 5, 6, 5, 6}, {1, 1, 1, 1, 1, 1}, {1, 2, 7, 3, 4, 9}, {3, 4, 8, 8, 3, 5}};
    int k = 0;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int layout = 0; layout < LAYOUT_COUNT; layout++)
            for (int kind = 0; kind < 3; kind++, k++)
                run_case(shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], shapes[s][4], shapes[s][5], layout,
                         types[k % 3], kind);
    /* Large enough to run on two threads (the determinism check). */
    run_case(2, 8, 24, 20, 48, 48, LAYOUT_NHWC, CUDNN_DATA_FLOAT, 1);
    test_descriptor();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_spatial");
}

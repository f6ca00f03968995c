/* SPDX-License-Identifier: Apache-2.0
 * Batch normalization against the float64 reference (src/ref/batchnorm_ref):
 * forward training (y, saved and running statistics), backward (dx, dscale,
 * dbias, dz), inference, the fused add + ReLU of the Ex forms, in both modes,
 * in NCHW, NHWC and padded layouts, 4-D and 5-D, f32/f64/f16/bf16, on every
 * ISA level and with 1, 2 and 3 threads (bitwise equal), plus alpha/beta
 * blending and the argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "freednn.h"
#include "ref/batchnorm_ref.h"
#include "test_norm_tensor.h"
#include "testutil.h"

static cudnnHandle_t handle;
static cudnnActivationDescriptor_t relu_desc;
static const float one_f = 1.0f, zero_f = 0.0f;

typedef struct bcase {
    int nd;
    int dims[5];
    int layout;
    cudnnDataType_t dt;
    cudnnBatchNormMode_t mode;
    cudnnBatchNormOps_t ops;
} bcase_t;

static void
param_set(void *buf, bool dbl, const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (dbl)
            ((double *)buf)[i] = v[i];
        else
            ((float *)buf)[i] = (float)v[i];
    }
}

static void
param_get(const void *buf, bool dbl, double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = dbl ? ((const double *)buf)[i] : ((const float *)buf)[i];
}

static void
run_case(const bcase_t *bc)
{
    char name[160];
    snprintf(name, sizeof(name), "%dd %dx%dx%dx%dx%d %s dt=%d mode=%d ops=%d", bc->nd, bc->dims[0], bc->dims[1],
             bc->dims[2], bc->dims[3], bc->nd == 5 ? bc->dims[4] : 1, layout_name[bc->layout], (int)bc->dt,
             (int)bc->mode, (int)bc->ops);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 1234 + (uint64_t)bc->dims[1]);
    ttensor_t x, y, z, dy, dx, dz;
    tt_make(&x, bc->nd, bc->dims, bc->layout, bc->dt);
    tt_make(&y, bc->nd, bc->dims, bc->layout, bc->dt);
    tt_make(&z, bc->nd, bc->dims, bc->layout, bc->dt);
    tt_make(&dy, bc->nd, bc->dims, bc->layout, bc->dt);
    tt_make(&dx, bc->nd, bc->dims, bc->layout, bc->dt);
    tt_make(&dz, bc->nd, bc->dims, bc->layout, bc->dt);
    bool relu = bc->ops != CUDNN_BATCHNORM_OPS_BN, add = bc->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    bool dbl = bc->dt == CUDNN_DATA_DOUBLE;
    size_t pes = dbl ? 8 : 4;

    cudnnTensorDescriptor_t pdesc;
    cudnnCreateTensorDescriptor(&pdesc);
    CHECK_OK(cudnnDeriveBNTensorDescriptor(pdesc, x.desc, bc->mode));
    fdnn_ref_bn_shape_t sh = {bc->dims[0], bc->dims[1], x.elems / bc->dims[0] / bc->dims[1],
                              bc->mode == CUDNN_BATCHNORM_PER_ACTIVATION};
    int64_t F = fdnn_ref_bn_features(&sh), E = x.elems;

    double *xv = tt_doubles(E), *zv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E);
    double *dxr = tt_doubles(E), *dzr = tt_doubles(E), *got = tt_doubles(E);
    double *scale = tt_doubles(F), *bias = tt_doubles(F), *rm0 = tt_doubles(F), *rv0 = tt_doubles(F);
    double *mean = tt_doubles(F), *var = tt_doubles(F), *inv = tt_doubles(F), *rm = tt_doubles(F);
    double *rv = tt_doubles(F), *dsr = tt_doubles(F), *dbr = tt_doubles(F), *pg = tt_doubles(F);
    /* Channels get different offsets and spreads; the offset (up to 8 times
     * the spread) exercises the shifted one-pass variance. */
    for (int64_t i = 0; i < E; i++) {
        int64_t c = (i / sh.s) % sh.c;
        xv[i] = 4.0 * (double)(c % 3) + (1.0 + 0.25 * (double)(c % 4)) * fdnn_rng_uniform(&rng, -1, 1);
    }
    tt_random(&rng, zv, E, -1, 1);
    tt_random(&rng, dyv, E, -1, 1);
    tt_random(&rng, scale, F, 0.5, 1.5);
    tt_random(&rng, bias, F, -0.5, 0.5);
    tt_random(&rng, rm0, F, -1, 1);
    tt_random(&rng, rv0, F, 0.5, 2);
    /* Parameters are float for every data type but double. */
    if (!dbl)
        for (int64_t f = 0; f < F; f++) {
            scale[f] = (float)scale[f];
            bias[f] = (float)bias[f];
            rm0[f] = (float)rm0[f];
            rv0[f] = (float)rv0[f];
        }
    tt_set(&x, xv);
    tt_set(&z, zv);
    tt_set(&dy, dyv);
    const double eps = 1e-4, factor = 0.3;

    fdnn_ref_bn_stats(&sh, xv, eps, mean, var, inv);
    fdnn_ref_bn_apply(&sh, xv, add ? zv : NULL, scale, bias, mean, inv, relu, yr);
    memcpy(rm, rm0, sizeof(double) * (size_t)F);
    memcpy(rv, rv0, sizeof(double) * (size_t)F);
    fdnn_ref_bn_running(&sh, mean, var, factor, rm, rv);
    /* The backward gets the saved statistics in the parameter type: the
     * reference starts from the same rounded values (with N = 2 per
     * activation dx is a difference of nearly equal terms and would show the
     * float rounding of the saved inverse variance as a large error). */
    double *mean_q = tt_doubles(F), *inv_q = tt_doubles(F), *dxr_exact = tt_doubles(E);
    for (int64_t f = 0; f < F; f++) {
        mean_q[f] = dbl ? mean[f] : (float)mean[f];
        inv_q[f] = dbl ? inv[f] : (float)inv[f];
    }
    fdnn_ref_bn_backward(&sh, xv, dyv, yr, relu, scale, mean, inv, dxr_exact, dsr, dbr, add ? dzr : NULL);
    fdnn_ref_bn_backward(&sh, xv, dyv, yr, relu, scale, mean_q, inv_q, dxr, dsr, dbr, add ? dzr : NULL);

    void *p_scale = fdnn_guarded_alloc((size_t)F * pes), *p_bias = fdnn_guarded_alloc((size_t)F * pes);
    void *p_rm = fdnn_guarded_alloc((size_t)F * pes), *p_rv = fdnn_guarded_alloc((size_t)F * pes);
    void *p_sm = fdnn_guarded_alloc((size_t)F * pes), *p_si = fdnn_guarded_alloc((size_t)F * pes);
    void *p_ds = fdnn_guarded_alloc((size_t)F * pes), *p_db = fdnn_guarded_alloc((size_t)F * pes);
    param_set(p_scale, dbl, scale, F);
    param_set(p_bias, dbl, bias, F);
    size_t rsize = 0;
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, bc->mode, bc->ops, relu_desc, x.desc,
                                                                  &rsize));
    void *reserve = fdnn_guarded_alloc(rsize > 0 ? rsize : 1); /* 0 bytes: see testutil */
    size_t ysize = (size_t)y.span * y.esize, dxsize = (size_t)dx.span * dx.esize;
    unsigned char *y_first = malloc(ysize), *dx_first = malloc(dxsize), *y_isa0 = malloc(ysize);
    unsigned char *dx_isa0 = malloc(dxsize);
    /* the saved mean and inverse deviation, dscale and dbias: bitwise the
     * same for every thread count and ISA level as well */
    const size_t psize = (size_t)F * pes;
    unsigned char *par_first = malloc(4 * psize);
    double one = 1.0, zero = 0.0;
    float onef = 1.0f, zerof = 0.0f;
    const void *a1 = dbl ? (const void *)&one : (const void *)&onef;
    const void *b0 = dbl ? (const void *)&zero : (const void *)&zerof;
    double tol = tt_tol(bc->dt);
    /* Backward tolerance: dx sums M terms of size ~|dy| through the
     * normalisation; for 16-bit types the input rounding dominates. */
    double btol = bc->dt == CUDNN_DATA_FLOAT ? 1e-4 : bc->dt == CUDNN_DATA_DOUBLE ? 1e-9 : 4 * tol;

    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
        for (int threads = 1; threads <= 3; threads++) {
            CHECK_OK(freednnSetNumThreads(handle, threads));
            tt_poison(&y);
            fdnn_poison_bytes(p_sm, (size_t)F * pes);
            fdnn_poison_bytes(p_si, (size_t)F * pes);
            param_set(p_rm, dbl, rm0, F);
            param_set(p_rv, dbl, rv0, F);
            cudnnStatus_t st;
            if (bc->ops == CUDNN_BATCHNORM_OPS_BN && threads == 1)
                st = cudnnBatchNormalizationForwardTraining(handle, bc->mode, a1, b0, x.desc, x.buf, y.desc, y.buf,
                                                            pdesc, p_scale, p_bias, factor, p_rm, p_rv, eps, p_sm,
                                                            p_si);
            else
                st = cudnnBatchNormalizationForwardTrainingEx(
                    handle, bc->mode, bc->ops, a1, b0, x.desc, x.buf, z.desc, add ? z.buf : NULL, y.desc, y.buf,
                    pdesc, p_scale, p_bias, factor, p_rm, p_rv, eps, p_sm, p_si, relu_desc, NULL, 0, reserve,
                    rsize);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: forward training: %s", name, cudnnGetErrorString(st));
            tt_get(&y, got);
            double e = tt_err(got, yr, E);
            CHECK_MSG(e <= tol, "%s isa %d threads %d: y error %g", name, isa, threads, e);
            param_get(p_sm, dbl, pg, F);
            e = tt_err(pg, mean, F);
            CHECK_MSG(e <= tol, "%s: saved mean error %g", name, e);
            param_get(p_si, dbl, pg, F);
            e = tt_err(pg, inv, F);
            CHECK_MSG(e <= (dbl ? 1e-9 : 1e-5), "%s: saved inv var error %g", name, e);
            param_get(p_rm, dbl, pg, F);
            e = tt_err(pg, rm, F);
            CHECK_MSG(e <= tol, "%s: running mean error %g", name, e);
            param_get(p_rv, dbl, pg, F);
            e = tt_err(pg, rv, F);
            CHECK_MSG(e <= (dbl ? 1e-9 : 1e-5), "%s: running var error %g", name, e);

            tt_poison(&dx);
            tt_poison(&dz);
            fdnn_poison_bytes(p_ds, (size_t)F * pes);
            fdnn_poison_bytes(p_db, (size_t)F * pes);
            if (bc->ops == CUDNN_BATCHNORM_OPS_BN && threads == 1)
                st = cudnnBatchNormalizationBackward(handle, bc->mode, a1, b0, a1, b0, x.desc, x.buf, dy.desc,
                                                     dy.buf, dx.desc, dx.buf, pdesc, p_scale, p_ds, p_db, eps, p_sm,
                                                     p_si);
            else
                st = cudnnBatchNormalizationBackwardEx(
                    handle, bc->mode, bc->ops, a1, b0, a1, b0, x.desc, x.buf, y.desc, y.buf, dy.desc, dy.buf,
                    dz.desc, add ? dz.buf : NULL, dx.desc, dx.buf, pdesc, p_scale, p_bias, p_ds, p_db, eps, p_sm,
                    p_si, relu_desc, NULL, 0, reserve, rsize);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: backward: %s", name, cudnnGetErrorString(st));
            tt_get(&dx, got);
            e = tt_err(got, dxr, E);
            CHECK_MSG(e <= btol, "%s isa %d threads %d: dx error %g", name, isa, threads, e);
            param_get(p_ds, dbl, pg, F);
            e = tt_err(pg, dsr, F);
            CHECK_MSG(e <= btol * 10, "%s: dscale error %g", name, e);
            param_get(p_db, dbl, pg, F);
            e = tt_err(pg, dbr, F);
            CHECK_MSG(e <= btol * 10, "%s: dbias error %g", name, e);
            if (add) {
                tt_get(&dz, got);
                e = tt_err(got, dzr, E);
                CHECK_MSG(e <= tol, "%s: dz error %g", name, e);
            }
            /* Bitwise the same for 1, 2 and 3 threads, and the training y,
             * dx and the per-channel outputs on every ISA level (the sums
             * use fixed lanes, nothing contracts to FMA). */
            const void *pars[4] = {p_sm, p_si, p_ds, p_db};
            bool par_same = true;
            for (int k = 0; k < 4; k++)
                if (threads == 1 && isa == 0)
                    memcpy(par_first + k * psize, pars[k], psize);
                else
                    par_same = par_same && memcmp(par_first + k * psize, pars[k], psize) == 0;
            CHECK_MSG(par_same, "%s isa %d threads %d: saved statistics or parameter gradients differ from isa 0, "
                      "1 thread", name, isa, threads);
            if (threads == 1) {
                memcpy(y_first, y.buf, ysize);
                memcpy(dx_first, dx.buf, dxsize);
                if (isa == 0) {
                    memcpy(y_isa0, y.buf, ysize);
                    memcpy(dx_isa0, dx.buf, dxsize);
                } else {
                    CHECK_MSG(memcmp(y_isa0, y.buf, ysize) == 0, "%s isa %d: y differs from isa 0", name, isa);
                    CHECK_MSG(memcmp(dx_isa0, dx.buf, dxsize) == 0, "%s isa %d: dx differs from isa 0", name, isa);
                }
            } else {
                CHECK_MSG(memcmp(y_first, y.buf, ysize) == 0, "%s isa %d: y differs between 1 and %d threads", name,
                          isa, threads);
                CHECK_MSG(memcmp(dx_first, dx.buf, dxsize) == 0, "%s isa %d: dx differs between 1 and %d threads",
                          name, isa, threads);
            }
        }
    }

    /* A pool left running spins between calls; back to one thread while
     * the references run. */
    CHECK_OK(freednnSetNumThreads(handle, 1));

    /* Backward without saved statistics (recomputed from x). */
    if (!relu) {
        tt_poison(&dx);
        CHECK_OK(cudnnBatchNormalizationBackward(handle, bc->mode, a1, b0, a1, b0, x.desc, x.buf, dy.desc, dy.buf,
                                                 dx.desc, dx.buf, pdesc, p_scale, p_ds, p_db, eps, NULL, NULL));
        tt_get(&dx, got);
        double e = tt_err(got, dxr_exact, E);
        CHECK_MSG(e <= btol, "%s: dx (no saved stats) error %g", name, e);
    }

    /* Inference with the reference running statistics. */
    {
        double *inv_run = tt_doubles(F);
        for (int64_t f = 0; f < F; f++) {
            rm[f] = dbl ? rm[f] : (float)rm[f];
            rv[f] = dbl ? rv[f] : (float)rv[f];
            inv_run[f] = 1.0 / sqrt(rv[f] + eps);
        }
        fdnn_ref_bn_apply(&sh, xv, NULL, scale, bias, rm, inv_run, false, yr);
        param_set(p_rm, dbl, rm, F);
        param_set(p_rv, dbl, rv, F);
        tt_poison(&y);
        CHECK_OK(cudnnBatchNormalizationForwardInference(handle, bc->mode, a1, b0, x.desc, x.buf, y.desc, y.buf,
                                                         pdesc, p_scale, p_bias, p_rm, p_rv, eps));
        tt_get(&y, got);
        double e = tt_err(got, yr, E);
        CHECK_MSG(e <= tol, "%s: inference y error %g", name, e);
        free(inv_run);
    }

    free(y_first);
    free(y_isa0);
    free(dx_isa0);
    free(par_first);
    free(dx_first);
    fdnn_guarded_free(reserve);
    void *pbufs[] = {p_scale, p_bias, p_rm, p_rv, p_sm, p_si, p_ds, p_db};
    for (int i = 0; i < 8; i++)
        fdnn_guarded_free(pbufs[i]);
    double *arrs[] = {mean_q, inv_q, dxr_exact, xv,  zv,   dyv, yr,  dxr, dzr, got, scale,
                      bias,   rm0,   rv0,       mean, var, inv, rm,  rv,  dsr, dbr, pg};
    for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
        free(arrs[i]);
    cudnnDestroyTensorDescriptor(pdesc);
    ttensor_t *ts[] = {&x, &y, &z, &dy, &dx, &dz};
    for (int i = 0; i < 6; i++)
        tt_free(ts[i]);
}

static void
test_cases(void)
{
    static const int shapes[][6] = {
        /* nd, n, c, d0, d1, d2 */
        {4, 2, 3, 5, 7, 0},   {4, 1, 1, 1, 1, 0}, {4, 3, 1, 4, 4, 0}, {4, 1, 5, 1, 1, 0},
        {4, 4, 16, 9, 11, 0}, {5, 2, 3, 2, 3, 4}, {4, 2, 17, 3, 3, 0}, {4, 8, 4, 1, 1, 0}, {4, 4, 8, 32, 33, 0},
    };
    const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    int k = 0;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int layout = 0; layout < LAYOUT_COUNT; layout++)
            for (int mode = 0; mode < 2; mode++) {
                bcase_t bc = {.nd = shapes[s][0], .layout = layout, .mode = (cudnnBatchNormMode_t)(mode ? 1 : 0)};
                for (int d = 0; d < bc.nd; d++)
                    bc.dims[d] = shapes[s][1 + d];
                /* N = 1 per activation has one sample per feature: variance 0
                 * and the unbiased estimate undefined; skip. */
                if (bc.mode == CUDNN_BATCHNORM_PER_ACTIVATION && bc.dims[0] == 1)
                    continue;
                int64_t per_channel = (int64_t)bc.dims[0] * bc.dims[2] * bc.dims[3] * (bc.nd == 5 ? bc.dims[4] : 1);
                if (bc.mode == CUDNN_BATCHNORM_SPATIAL && per_channel == 1)
                    continue;
                bc.dt = types[k % 4];
                bc.ops = (cudnnBatchNormOps_t)(k % 3);
                k++;
                run_case(&bc);
            }
    /* SPATIAL_PERSISTENT is SPATIAL. */
    bcase_t bc = {4, {4, 8, 6, 6}, LAYOUT_NHWC, CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                  CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION};
    run_case(&bc);
    /* The fused FP32 paths (src/cpu/batchnorm/bn_fused.h), forward and
     * backward, in every layout: NCHW planes shorter and longer than the 32
     * summation lanes, NHWC rows with channel tails for every vector width
     * and row counts that are not multiples of 4, 5-D, C = 1, and one tensor
     * of 8.1 MiB, above the threshold of the non-temporal stores. */
    static const int fused[][6] = {{4, 3, 5, 7, 9, 0},  {4, 2, 19, 6, 6, 0}, {4, 3, 40, 1, 5, 0},
                                   {5, 2, 3, 4, 5, 6},  {4, 7, 1, 9, 11, 0}, {4, 2, 64, 3, 1, 0},
                                   {4, 2, 64, 128, 130, 0},
                                   /* planes in channel groups (bn_fused.c) with a
                                    * shorter last group, run in parallel; planes
                                    * of 49, 48 and 63 floats (the 32 lanes' tail
                                    * 17, 16, 31) */
                                   {4, 8, 100, 7, 7, 0}, {4, 8, 100, 4, 12, 0}, {4, 8, 70, 7, 9, 0}};
    /* and with the Ex extras (BN + ReLU, BN + add + ReLU: NCHW planes and
     * NHWC rows, packed or with padded rows, on the fused path, the padded
     * NCHW layout on the pass engine) */
    for (size_t s = 0; s < sizeof(fused) / sizeof(fused[0]); s++)
        for (int layout = 0; layout <= LAYOUT_NHWC_PADDED; layout++)
            for (int ops = 0; ops < 3; ops++) {
                bcase_t fc = {.nd = fused[s][0], .layout = layout, .dt = CUDNN_DATA_FLOAT,
                              .mode = CUDNN_BATCHNORM_SPATIAL, .ops = (cudnnBatchNormOps_t)ops};
                for (int d = 0; d < fc.nd; d++)
                    fc.dims[d] = fused[s][1 + d];
                run_case(&fc);
            }
}

/* y = alpha * bn(x) + beta * y, and the same blending of dx and of the
 * parameter gradients. */
static void
test_blending(void)
{
    const int dims[4] = {2, 3, 4, 5};
    ttensor_t x, y, dy, dx;
    tt_make(&x, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&y, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&dy, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&dx, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 7);
    int64_t E = x.elems;
    double *xv = tt_doubles(E), *dyv = tt_doubles(E), *y0 = tt_doubles(E), *dx0 = tt_doubles(E);
    double *yr = tt_doubles(E), *dxr = tt_doubles(E), *got = tt_doubles(E);
    tt_random(&rng, xv, E, -2, 2);
    tt_random(&rng, dyv, E, -1, 1);
    tt_random(&rng, y0, E, -1, 1);
    tt_random(&rng, dx0, E, -1, 1);
    tt_set(&x, xv);
    tt_set(&dy, dyv);
    tt_set(&y, y0);
    tt_set(&dx, dx0);
    fdnn_ref_bn_shape_t sh = {2, 3, 20, false};
    double scale[3] = {1, 0.5, 2}, bias[3] = {0, 1, -1}, mean[3], var[3], inv[3], ds[3], db[3];
    float fs[3] = {1, 0.5f, 2}, fb[3] = {0, 1, -1}, sm[3], si[3], gds[3] = {1, 2, 3}, gdb[3] = {-1, -2, -3};
    fdnn_ref_bn_stats(&sh, xv, 1e-5, mean, var, inv);
    fdnn_ref_bn_apply(&sh, xv, NULL, scale, bias, mean, inv, false, yr);
    fdnn_ref_bn_backward(&sh, xv, dyv, NULL, false, scale, mean, inv, dxr, ds, db, NULL);
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL));
    float alpha = 2.0f, beta = 0.5f;
    CHECK_OK(cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &alpha, &beta, x.desc, x.buf,
                                                    y.desc, y.buf, pd, fs, fb, 1.0, NULL, NULL, 1e-5, sm, si));
    tt_get(&y, got);
    for (int64_t i = 0; i < E; i++)
        yr[i] = 2.0 * yr[i] + 0.5 * y0[i];
    CHECK(tt_err(got, yr, E) < 2e-5);
    CHECK_OK(cudnnBatchNormalizationBackward(handle, CUDNN_BATCHNORM_SPATIAL, &alpha, &beta, &alpha, &beta, x.desc,
                                             x.buf, dy.desc, dy.buf, dx.desc, dx.buf, pd, fs, gds, gdb, 1e-5, sm, si));
    tt_get(&dx, got);
    for (int64_t i = 0; i < E; i++)
        dxr[i] = 2.0 * dxr[i] + 0.5 * dx0[i];
    CHECK(tt_err(got, dxr, E) < 1e-4);
    for (int c = 0; c < 3; c++) {
        CHECK(fabs(gds[c] - (2.0 * ds[c] + 0.5 * (c + 1))) < 1e-4);
        CHECK(fabs(gdb[c] - (2.0 * db[c] - 0.5 * (c + 1))) < 1e-4);
    }
    cudnnDestroyTensorDescriptor(pd);
    free(xv), free(dyv), free(y0), free(dx0), free(yr), free(dxr), free(got);
    tt_free(&x), tt_free(&y), tt_free(&dy), tt_free(&dx);
}

/* The Ex forms (z added, ReLU) with alpha/beta blending on the fused FP32
 * paths: planes (NCHW) and rows (NHWC, and NHWC with padded rows), channel
 * and plane counts that leave vector tails, every ISA level, 1 and 2
 * threads (bitwise equal), y and dx poisoned where beta == 0. */
static void
test_blending_ex(void)
{
    static const int layouts[] = {LAYOUT_NCHW, LAYOUT_NHWC, LAYOUT_NHWC_PADDED};
    static const float scales[][2] = {{1, 0}, {2, 0.5f}, {-0.5f, 0}, {1, 1}};
    const int dims[4] = {3, 21, 5, 7};
    fdnn_ref_bn_shape_t sh = {3, 21, 35, false};
    const int64_t E = 3 * 21 * 35, F = 21;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 11);
    double *xv = tt_doubles(E), *zv = tt_doubles(E), *dyv = tt_doubles(E), *y0 = tt_doubles(E);
    double *dx0 = tt_doubles(E), *yr = tt_doubles(E), *dxr = tt_doubles(E), *dzr = tt_doubles(E);
    double *got = tt_doubles(E), *want = tt_doubles(E);
    double scale[21], bias[21], mean[21], var[21], inv[21], mq[21], iq[21], ds[21], db[21];
    float fs[21], fb[21], sm[21], si[21], gds[21], gdb[21];
    for (int64_t i = 0; i < E; i++)
        xv[i] = 3.0 * (double)((i / 35) % 21 % 3) + fdnn_rng_uniform(&rng, -1, 1);
    tt_random(&rng, zv, E, -1, 1);
    tt_random(&rng, dyv, E, -1, 1);
    tt_random(&rng, y0, E, -1, 1);
    tt_random(&rng, dx0, E, -1, 1);
    for (int c = 0; c < F; c++) {
        fs[c] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        fb[c] = (float)fdnn_rng_uniform(&rng, -0.5, 0.5);
        scale[c] = fs[c];
        bias[c] = fb[c];
    }
    fdnn_ref_bn_stats(&sh, xv, 1e-5, mean, var, inv);
    fdnn_ref_bn_apply(&sh, xv, zv, scale, bias, mean, inv, true, yr);
    for (int c = 0; c < F; c++) {
        mq[c] = (float)mean[c];
        iq[c] = (float)inv[c];
    }
    fdnn_ref_bn_backward(&sh, xv, dyv, yr, true, scale, mq, iq, dxr, ds, db, dzr);
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
        ttensor_t x, z, y, dy, dx, dz;
        tt_make(&x, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_make(&z, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_make(&y, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_make(&dy, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_make(&dx, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_make(&dz, 4, dims, layouts[l], CUDNN_DATA_FLOAT);
        tt_set(&x, xv);
        tt_set(&z, zv);
        tt_set(&dy, dyv);
        cudnnTensorDescriptor_t pd;
        cudnnCreateTensorDescriptor(&pd);
        CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL));
        size_t rsize = 0;
        CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, CUDNN_BATCHNORM_SPATIAL, ops, relu_desc,
                                                                      x.desc, &rsize));
        void *reserve = fdnn_guarded_alloc(rsize);
        size_t ysize = (size_t)y.span * y.esize;
        unsigned char *y_first = malloc(ysize), *dx_first = malloc(ysize);
        for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
            const float alpha = scales[k][0], beta = scales[k][1];
            for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
                CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
                for (int threads = 1; threads <= 2; threads++) {
                    CHECK_OK(freednnSetNumThreads(handle, threads));
                    if (beta == 0.0f) {
                        tt_poison(&y);
                        tt_poison(&dx);
                    } else {
                        tt_set(&y, y0);
                        tt_set(&dx, dx0);
                    }
                    tt_poison(&dz);
                    CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(
                        handle, CUDNN_BATCHNORM_SPATIAL, ops, &alpha, &beta, x.desc, x.buf, z.desc, z.buf, y.desc,
                        y.buf, pd, fs, fb, 1.0, NULL, NULL, 1e-5, sm, si, relu_desc, NULL, 0, reserve, rsize));
                    tt_get(&y, got);
                    for (int64_t i = 0; i < E; i++)
                        want[i] = alpha * yr[i] + (beta != 0.0f ? beta * y0[i] : 0.0);
                    double e = tt_err(got, want, E);
                    CHECK_MSG(e <= 2e-5, "blending ex layout %d alpha %g beta %g isa %d threads %d: y error %g",
                              layouts[l], alpha, beta, isa, threads, e);
                    /* the backward's y is the unblended output (it is not read
                     * with the reserve space's mask) */
                    CHECK_OK(cudnnBatchNormalizationBackwardEx(
                        handle, CUDNN_BATCHNORM_SPATIAL, ops, &alpha, &beta, &one_f, &zero_f, x.desc, x.buf, y.desc,
                        y.buf, dy.desc, dy.buf, dz.desc, dz.buf, dx.desc, dx.buf, pd, fs, fb, gds, gdb, 1e-5, sm, si,
                        relu_desc, NULL, 0, reserve, rsize));
                    tt_get(&dx, got);
                    for (int64_t i = 0; i < E; i++)
                        want[i] = alpha * dxr[i] + (beta != 0.0f ? beta * dx0[i] : 0.0);
                    e = tt_err(got, want, E);
                    CHECK_MSG(e <= 1e-4, "blending ex layout %d alpha %g beta %g isa %d threads %d: dx error %g",
                              layouts[l], alpha, beta, isa, threads, e);
                    tt_get(&dz, got);
                    e = tt_err(got, dzr, E);
                    CHECK_MSG(e <= 2e-5, "blending ex layout %d isa %d threads %d: dz error %g", layouts[l], isa,
                              threads, e);
                    if (threads == 1) {
                        memcpy(y_first, y.buf, ysize);
                        memcpy(dx_first, dx.buf, ysize);
                    } else {
                        CHECK_MSG(memcmp(y_first, y.buf, ysize) == 0, "blending ex layout %d isa %d: y 1 vs 2 threads",
                                  layouts[l], isa);
                        CHECK_MSG(memcmp(dx_first, dx.buf, ysize) == 0,
                                  "blending ex layout %d isa %d: dx 1 vs 2 threads", layouts[l], isa);
                    }
                }
            }
        }
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(fdnn_test_isa_count() - 1)));
        CHECK_OK(freednnSetNumThreads(handle, 1));
        free(y_first), free(dx_first);
        fdnn_guarded_free(reserve);
        cudnnDestroyTensorDescriptor(pd);
        tt_free(&x), tt_free(&z), tt_free(&y), tt_free(&dy), tt_free(&dx), tt_free(&dz);
    }
    free(xv), free(zv), free(dyv), free(y0), free(dx0), free(yr), free(dxr), free(dzr), free(got), free(want);
}

static void
test_bad_inputs(void)
{
    const int dims[4] = {2, 3, 4, 5}, dims_other[4] = {2, 3, 4, 6}, dims3[3] = {2, 3, 4};
    ttensor_t x, y, yo, x3, xi;
    tt_make(&x, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&y, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&yo, 4, dims_other, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&x3, 3, dims3, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    memset(&xi, 0, sizeof(xi));
    cudnnCreateTensorDescriptor(&xi.desc);
    cudnnSetTensor4dDescriptor(xi.desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 5);
    for (int64_t i = 0; i < x.elems; i++)
        ((float *)x.buf)[i] = (float)i;
    cudnnTensorDescriptor_t pd, pd_act, pd_dbl;
    cudnnCreateTensorDescriptor(&pd);
    cudnnCreateTensorDescriptor(&pd_act);
    cudnnCreateTensorDescriptor(&pd_dbl);
    CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL));
    CHECK_OK(cudnnDeriveBNTensorDescriptor(pd_act, x.desc, CUDNN_BATCHNORM_PER_ACTIVATION));
    cudnnSetTensor4dDescriptor(pd_dbl, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 3, 1, 1);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(pd, x.desc, (cudnnBatchNormMode_t)3), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(NULL, x.desc, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(pd, NULL, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);

    float p[60], one = 1, zero = 0, rm[3], rv[3];
    for (int i = 0; i < 60; i++)
        p[i] = 1.0f;
    const cudnnBatchNormMode_t S = CUDNN_BATCHNORM_SPATIAL;
#define INFER(mode, xd, yd, pdesc, eps)                                                                           \
    cudnnBatchNormalizationForwardInference(handle, mode, &one, &zero, xd, x.buf, yd, y.buf, pdesc, p, p, p, p, eps)
    tt_poison(&y);
    CHECK_STATUS(INFER(S, x.desc, y.desc, pd, -1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, x.desc, y.desc, pd, NAN), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, x.desc, yo.desc, pd, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, x3.desc, x3.desc, pd, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, x.desc, y.desc, pd_act, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(CUDNN_BATCHNORM_PER_ACTIVATION, x.desc, y.desc, pd, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, x.desc, y.desc, pd_dbl, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER((cudnnBatchNormMode_t)9, x.desc, y.desc, pd, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(INFER(S, xi.desc, xi.desc, pd, 1e-5), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnBatchNormalizationForwardInference(handle, S, &one, &zero, x.desc, NULL, y.desc, y.buf, pd, p,
                                                         p, p, p, 1e-5),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardInference(NULL, S, &one, &zero, x.desc, x.buf, y.desc, y.buf, pd, p,
                                                         p, p, p, 1e-5),
                 CUDNN_STATUS_BAD_PARAM);
    /* Nothing was written by the failed calls. */
    bool untouched = true;
    for (int64_t i = 0; i < y.elems; i++)
        untouched = untouched && isnan(((float *)y.buf)[i]);
    CHECK(untouched);

    CHECK_STATUS(cudnnBatchNormalizationForwardTraining(handle, S, &one, &zero, x.desc, x.buf, y.desc, y.buf, pd, p,
                                                        p, 0.1, rm, NULL, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTraining(handle, S, &one, &zero, x.desc, x.buf, y.desc, y.buf, pd, p,
                                                        p, 0.1, rm, rv, 1e-5, rm, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTraining(handle, S, &one, &zero, x.desc, x.buf, y.desc, y.buf, pd, p,
                                                        p, 0.1, rm, rv, -1e-3, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTraining(handle, S, &one, &zero, x.desc, x.buf, y.desc, y.buf, pd, p,
                                                        NULL, 0.1, rm, rv, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(handle, S, &one, &zero, &one, &zero, x.desc, x.buf, y.desc, y.buf,
                                                 yo.desc, y.buf, pd, p, rm, rv, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(handle, S, &one, &zero, &one, &zero, x.desc, x.buf, y.desc, y.buf,
                                                 y.desc, y.buf, pd, p, rm, rv, 1e-5, p, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(handle, S, &one, &zero, &one, &zero, x.desc, x.buf, y.desc, y.buf,
                                                 y.desc, y.buf, pd, p, NULL, rv, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);

    /* Ex: the reserve space of the fused activation. */
    size_t need = 0;
    const cudnnBatchNormOps_t RA = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, S, RA, relu_desc, x.desc, &need));
    CHECK(need > 0);
    size_t none = 1;
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, S, CUDNN_BATCHNORM_OPS_BN, NULL, x.desc,
                                                                  &none));
    CHECK(none == 0);
    size_t ws = 1;
    CHECK_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, S, RA, x.desc, NULL, y.desc, pd,
                                                                      relu_desc, &ws));
    CHECK(ws == 0);
    ws = 1;
    CHECK_OK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, S, RA, x.desc, y.desc, y.desc, NULL, y.desc,
                                                               pd, relu_desc, &ws));
    CHECK(ws == 0);
    CHECK_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, S, (cudnnBatchNormOps_t)5, relu_desc,
                                                                      x.desc, &need),
                 CUDNN_STATUS_BAD_PARAM);
    unsigned char *reserve = fdnn_guarded_alloc(need);
    CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(handle, S, RA, &one, &zero, x.desc, x.buf, NULL, NULL,
                                                          y.desc, y.buf, pd, p, p, 0.1, rm, rv, 1e-5, NULL, NULL,
                                                          relu_desc, NULL, 0, reserve, need - 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(handle, S, RA, &one, &zero, x.desc, x.buf, NULL, NULL,
                                                          y.desc, y.buf, pd, p, p, 0.1, rm, rv, 1e-5, NULL, NULL,
                                                          relu_desc, NULL, 0, NULL, need),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(handle, S, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one,
                                                          &zero, x.desc, x.buf, yo.desc, y.buf, y.desc, y.buf, pd, p,
                                                          p, 0.1, rm, rv, 1e-5, NULL, NULL, relu_desc, NULL, 0,
                                                          reserve, need),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnActivationDescriptor_t tanh_desc;
    cudnnCreateActivationDescriptor(&tanh_desc);
    cudnnSetActivationDescriptor(tanh_desc, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(handle, S, RA, &one, &zero, x.desc, x.buf, NULL, NULL,
                                                          y.desc, y.buf, pd, p, p, 0.1, rm, rv, 1e-5, NULL, NULL,
                                                          tanh_desc, NULL, 0, reserve, need),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnBatchNormalizationBackwardEx(handle, S, RA, &one, &zero, &one, &zero, x.desc, x.buf, y.desc,
                                                   y.buf, y.desc, y.buf, NULL, NULL, y.desc, y.buf, pd, p, p, rm, rv,
                                                   1e-5, NULL, NULL, relu_desc, NULL, 0, reserve, need / 2),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyActivationDescriptor(tanh_desc);
    fdnn_guarded_free(reserve);
#undef INFER
    cudnnDestroyTensorDescriptor(pd);
    cudnnDestroyTensorDescriptor(pd_act);
    cudnnDestroyTensorDescriptor(pd_dbl);
    cudnnDestroyTensorDescriptor(xi.desc);
    tt_free(&x), tt_free(&y), tt_free(&yo), tt_free(&x3);
}

/* A NaN in channel 0 makes that channel's statistics NaN: the fused ReLU
 * gives 0 there with CUDNN_NOT_PROPAGATE_NAN and NaN with PROPAGATE_NAN;
 * channel 1 is unaffected either way. */
static void
test_nan_relu(void)
{
    const int dims[4] = {2, 2, 2, 2};
    ttensor_t x, y;
    tt_make(&x, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&y, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    for (int i = 0; i < 16; i++)
        ((float *)x.buf)[i] = (float)(i % 5);
    ((float *)x.buf)[0] = NAN;
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL);
    float scale[2] = {1, 1}, bias[2] = {0.5f, 0.5f}, one = 1, zero = 0;
    unsigned char reserve[64 + 16]; /* the header and one byte per element (bn.h) */
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    for (int prop = 0; prop < 2; prop++) {
        cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                     0.0);
        tt_poison(&y);
        CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(
            handle, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, x.desc, x.buf, NULL, NULL,
            y.desc, y.buf, pd, scale, bias, 1.0, NULL, NULL, 1e-5, NULL, NULL, act, NULL, 0, reserve, sizeof(reserve)));
        const float *yv = y.buf;
        bool ch0 = true, ch1 = true;
        for (int n = 0; n < 2; n++)
            for (int s = 0; s < 4; s++) {
                float a = yv[n * 8 + s], b = yv[n * 8 + 4 + s];
                ch0 = ch0 && (prop ? isnan(a) : a == 0.0f);
                ch1 = ch1 && isfinite(b) && b >= 0.0f;
            }
        CHECK_MSG(ch0, "NaN channel with propagate=%d", prop);
        CHECK(ch1);
    }
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyTensorDescriptor(pd);
    tt_free(&x), tt_free(&y);
}

/* The ReLU mask's order travels in the reserve space's header (bn.c): a
 * training forward on NHWC tensors writes it channels-last, and a backward
 * given the same values in NCHW tensors (whose fused path reads NCHW order)
 * must still mask the right elements.  On every ISA level, 1 and 2 threads. */
static void
test_mask_order(void)
{
    const int dims[4] = {3, 19, 5, 6};
    fdnn_ref_bn_shape_t sh = {3, 19, 30, false};
    ttensor_t xh, yh, xn, dyn, dxn;
    tt_make(&xh, 4, dims, LAYOUT_NHWC, CUDNN_DATA_FLOAT);
    tt_make(&yh, 4, dims, LAYOUT_NHWC, CUDNN_DATA_FLOAT);
    tt_make(&xn, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&dyn, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    tt_make(&dxn, 4, dims, LAYOUT_NCHW, CUDNN_DATA_FLOAT);
    const int64_t E = xh.elems, F = 19;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 99);
    double *xv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E), *dxr = tt_doubles(E);
    double *got = tt_doubles(E), *mean = tt_doubles(F), *var = tt_doubles(F), *inv = tt_doubles(F);
    double *scale = tt_doubles(F), *bias = tt_doubles(F), *ds = tt_doubles(F), *db = tt_doubles(F);
    tt_random(&rng, xv, E, -2, 2);
    tt_random(&rng, dyv, E, -1, 1);
    float fs[19], fb[19], sm[19], si[19], gds[19], gdb[19], one = 1, zero = 0;
    for (int c = 0; c < F; c++) {
        fs[c] = (float)(0.5 + 0.05 * c);
        fb[c] = (float)(0.1 * (c % 5) - 0.2);
        scale[c] = fs[c];
        bias[c] = fb[c];
    }
    tt_set(&xh, xv);
    tt_set(&xn, xv);
    tt_set(&dyn, dyv);
    const double eps = 1e-4;
    fdnn_ref_bn_stats(&sh, xv, eps, mean, var, inv);
    fdnn_ref_bn_apply(&sh, xv, NULL, scale, bias, mean, inv, true, yr);
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, xh.desc, CUDNN_BATCHNORM_SPATIAL));
    const cudnnBatchNormOps_t RA = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    size_t need = 0;
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, CUDNN_BATCHNORM_SPATIAL, RA, relu_desc,
                                                                  xh.desc, &need));
    unsigned char *reserve = fdnn_guarded_alloc(need);
    float *dx_first = malloc((size_t)E * sizeof(float));
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_OK(freednnSetNumThreads(handle, threads));
            fdnn_poison_bytes(reserve, need);
            CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(
                handle, CUDNN_BATCHNORM_SPATIAL, RA, &one, &zero, xh.desc, xh.buf, NULL, NULL, yh.desc, yh.buf, pd,
                fs, fb, 1.0, NULL, NULL, eps, sm, si, relu_desc, NULL, 0, reserve, need));
            if (isa == 0 && threads == 1) {
                /* the reference's backward from the saved (float) statistics */
                double mq[19], iq[19];
                for (int c = 0; c < F; c++)
                    mq[c] = sm[c], iq[c] = si[c];
                fdnn_ref_bn_backward(&sh, xv, dyv, yr, true, scale, mq, iq, dxr, ds, db, NULL);
            }
            tt_poison(&dxn);
            CHECK_OK(cudnnBatchNormalizationBackwardEx(
                handle, CUDNN_BATCHNORM_SPATIAL, RA, &one, &zero, &one, &zero, xn.desc, xn.buf, NULL, NULL, dyn.desc,
                dyn.buf, NULL, NULL, dxn.desc, dxn.buf, pd, fs, fb, gds, gdb, eps, sm, si, relu_desc, NULL, 0,
                reserve, need));
            tt_get(&dxn, got);
            double e = tt_err(got, dxr, E);
            CHECK_MSG(e <= 1e-4, "mask order isa %d threads %d: dx error %g", isa, threads, e);
            if (threads == 1)
                memcpy(dx_first, dxn.buf, (size_t)E * sizeof(float));
            else
                CHECK_MSG(memcmp(dx_first, dxn.buf, (size_t)E * sizeof(float)) == 0,
                          "mask order isa %d: dx differs between 1 and 2 threads", isa);
        }
    }
    CHECK_OK(freednnSetNumThreads(handle, 1));
    fdnn_guarded_free(reserve);
    free(dx_first);
    double *arrs[] = {xv, dyv, yr, dxr, got, mean, var, inv, scale, bias, ds, db};
    for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
        free(arrs[i]);
    cudnnDestroyTensorDescriptor(pd);
    tt_free(&xh), tt_free(&yh), tt_free(&xn), tt_free(&dyn), tt_free(&dxn);
}

/* The fused FP32 paths' float statistics (bn_fused.h: float blocks of at
 * most 16 terms per lane or channel, float64 across blocks) against the
 * float64 reference, at zero mean and at mean 1000 (std about 1), NCHW
 * planes and NHWC rows: planes longer than one block with a tail, rows in
 * chunks with a short last one and channels past one 64-channel pass.  dy
 * has a non-zero mean, so that the backward's correction for the float
 * rounding of the mean (its sums subtract the rounded mean) matters; the
 * backward runs both from the saved (float) statistics and with none given
 * (then on the float64 mean, which is not a float).  Bounds (the largest
 * error seen times about 3, docs/ops-normalization.md): y and dx
 * |error| / max(1, |ref|); dscale and dbias |error| / sum of the terms'
 * magnitudes.  Bitwise equal at 1, 2 and 3 threads on every ISA level, y
 * and dx equal across the levels; outputs poisoned before each call. */
static void
test_float_stats(void)
{
    static const int dims[][4] = {{3, 5, 23, 29}, {5, 70, 7, 9}};
    static const double means[] = {0.0, 1000.0};
    static const double y_tol[] = {2e-6, 3e-4}, dx_tol[] = {2e-6, 3e-4};
    for (int sh_i = 0; sh_i < 2; sh_i++)
        for (int layout = 0; layout <= LAYOUT_NHWC; layout++)
            for (int mi = 0; mi < 2; mi++) {
                const int *d = dims[sh_i];
                fdnn_ref_bn_shape_t sh = {d[0], d[1], (int64_t)d[2] * d[3], false};
                ttensor_t x, y, dy, dx;
                tt_make(&x, 4, d, layout, CUDNN_DATA_FLOAT);
                tt_make(&y, 4, d, layout, CUDNN_DATA_FLOAT);
                tt_make(&dy, 4, d, layout, CUDNN_DATA_FLOAT);
                tt_make(&dx, 4, d, layout, CUDNN_DATA_FLOAT);
                const int64_t E = x.elems, C = d[1];
                fdnn_rng_t rng;
                fdnn_rng_seed(&rng, 4242 + (uint64_t)(sh_i * 4 + layout * 2 + mi));
                double *xv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E), *dxr = tt_doubles(E);
                double *got = tt_doubles(E), *mean = tt_doubles(C), *var = tt_doubles(C), *inv = tt_doubles(C);
                double *scale = tt_doubles(C), *bias = tt_doubles(C), *dsr = tt_doubles(C), *dbr = tt_doubles(C);
                double *abs_ds = tt_doubles(C), *abs_db = tt_doubles(C), *mq = tt_doubles(C), *iq = tt_doubles(C);
                double *dxq = tt_doubles(E), *dsq = tt_doubles(C), *dbq = tt_doubles(C);
                for (int64_t i = 0; i < E; i++) {
                    /* the values as floats, so that the reference sees what the library does */
                    xv[i] = (float)(means[mi] + 0.01 * (double)((i / sh.s) % C) + fdnn_rng_uniform(&rng, -1.7, 1.7));
                    dyv[i] = (float)fdnn_rng_uniform(&rng, -0.5, 1.0);
                }
                float fs[70], fb[70], sm[70], si[70], gds[70], gdb[70], one = 1, zero = 0;
                for (int64_t c = 0; c < C; c++) {
                    fs[c] = (float)(0.75 + 0.01 * (double)c);
                    fb[c] = (float)(0.02 * (double)(c % 7) - 0.05);
                    scale[c] = fs[c];
                    bias[c] = fb[c];
                }
                tt_set(&x, xv);
                tt_set(&dy, dyv);
                const double eps = 1e-5;
                fdnn_ref_bn_stats(&sh, xv, eps, mean, var, inv);
                fdnn_ref_bn_apply(&sh, xv, NULL, scale, bias, mean, inv, false, yr);
                fdnn_ref_bn_backward(&sh, xv, dyv, yr, false, scale, mean, inv, dxr, dsr, dbr, NULL);
                for (int64_t i = 0; i < E; i++) {
                    int64_t c = (i / sh.s) % C;
                    abs_db[c] += fabs(dyv[i]);
                    abs_ds[c] += fabs(dyv[i] * (xv[i] - mean[c]) * inv[c]);
                }
                cudnnTensorDescriptor_t pd;
                cudnnCreateTensorDescriptor(&pd);
                CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL));
                size_t ysize = (size_t)y.span * y.esize, dxsize = (size_t)dx.span * dx.esize;
                unsigned char *y_ref = malloc(ysize), *dx_ref[2] = {malloc(dxsize), malloc(dxsize)};
                char name[96];
                snprintf(name, sizeof(name), "float stats %dx%dx%dx%d %s mean %g", d[0], d[1], d[2], d[3],
                         layout_name[layout], means[mi]);
                for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
                    CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
                    for (int threads = 1; threads <= 3; threads++) {
                        CHECK_OK(freednnSetNumThreads(handle, threads));
                        tt_poison(&y);
                        CHECK_OK(cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero,
                                                                        x.desc, x.buf, y.desc, y.buf, pd, fs, fb, 1.0,
                                                                        NULL, NULL, eps, sm, si));
                        tt_get(&y, got);
                        double e = tt_err(got, yr, E);
                        CHECK_MSG(e <= y_tol[mi], "%s isa %d threads %d: y error %g", name, isa, threads, e);
                        if (isa == 0 && threads == 1) {
                            memcpy(y_ref, y.buf, ysize);
                            /* the reference's backward from the saved (float) statistics */
                            for (int64_t c = 0; c < C; c++)
                                mq[c] = sm[c], iq[c] = si[c];
                            fdnn_ref_bn_backward(&sh, xv, dyv, yr, false, scale, mq, iq, dxq, dsq, dbq, NULL);
                        } else {
                            CHECK_MSG(memcmp(y_ref, y.buf, ysize) == 0, "%s isa %d threads %d: y not bitwise", name,
                                      isa, threads);
                        }
                        /* recompute: 0 from the saved statistics, 1 none given (the float64 mean) */
                        for (int recompute = 0; recompute < 2; recompute++) {
                            tt_poison(&dx);
                            CHECK_OK(cudnnBatchNormalizationBackward(
                                handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x.desc, x.buf, dy.desc,
                                dy.buf, dx.desc, dx.buf, pd, fs, gds, gdb, eps, recompute ? NULL : sm,
                                recompute ? NULL : si));
                            tt_get(&dx, got);
                            const double *rdx = recompute ? dxr : dxq, *rds = recompute ? dsr : dsq;
                            const double *rdb = recompute ? dbr : dbq;
                            e = tt_err(got, rdx, E);
                            CHECK_MSG(e <= dx_tol[mi], "%s isa %d threads %d recompute %d: dx error %g", name, isa,
                                      threads, recompute, e);
                            /* (comparisons, not fmax: GCC 12's AArch64 vectorizer
                             * fails on this fmax reduction with an internal error) */
                            double es = 0.0, eb = 0.0;
                            for (int64_t c = 0; c < C; c++) {
                                double rs = fabs(gds[c] - rds[c]) / abs_ds[c], rb = fabs(gdb[c] - rdb[c]) / abs_db[c];
                                es = rs > es ? rs : es;
                                eb = rb > eb ? rb : eb;
                            }
                            CHECK_MSG(es <= 2e-6 && eb <= 2e-7, "%s isa %d threads %d recompute %d: dscale %g dbias %g",
                                      name, isa, threads, recompute, es, eb);
                            if (isa == 0 && threads == 1)
                                memcpy(dx_ref[recompute], dx.buf, dxsize);
                            else
                                CHECK_MSG(memcmp(dx_ref[recompute], dx.buf, dxsize) == 0,
                                          "%s isa %d threads %d recompute %d: dx not bitwise", name, isa, threads,
                                          recompute);
                        }
                    }
                }
                CHECK_OK(freednnSetNumThreads(handle, 1));
                CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(fdnn_test_isa_count() - 1)));
                cudnnDestroyTensorDescriptor(pd);
                free(y_ref), free(dx_ref[0]), free(dx_ref[1]);
                double *arrs[] = {xv, dyv, yr, dxr, got, mean, var, inv, scale, bias, dsr, dbr, abs_ds, abs_db,
                                  mq, iq, dxq, dsq, dbq};
                for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
                    free(arrs[i]);
                tt_free(&x), tt_free(&y), tt_free(&dy), tt_free(&dx);
            }
}

/* Finite data whose float sums overflow (|x - shift| > 1.8e19, dy * (x -
 * mean) > 3.4e38): the fused paths sum such a channel again in float64
 * (bn_fused.c), so y, dx, dscale and dbias stay the float64 formula's
 * finite values.  NCHW planes and NHWC rows, 1 and 2 threads bitwise. */
static void
test_float_stats_overflow(void)
{
    const int d[4] = {2, 3, 5, 7};
    fdnn_ref_bn_shape_t sh = {2, 3, 35, false};
    for (int layout = 0; layout <= LAYOUT_NHWC; layout++) {
        ttensor_t x, y, dy, dx;
        tt_make(&x, 4, d, layout, CUDNN_DATA_FLOAT);
        tt_make(&y, 4, d, layout, CUDNN_DATA_FLOAT);
        tt_make(&dy, 4, d, layout, CUDNN_DATA_FLOAT);
        tt_make(&dx, 4, d, layout, CUDNN_DATA_FLOAT);
        const int64_t E = x.elems, C = 3;
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 77 + (uint64_t)layout);
        double *xv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E), *dxr = tt_doubles(E);
        double *got = tt_doubles(E), *mean = tt_doubles(C), *var = tt_doubles(C), *inv = tt_doubles(C);
        double scale[3] = {1, 0.5, 2}, bias[3] = {0, 1, -1}, dsr[3], dbr[3];
        float fs[3] = {1, 0.5f, 2}, fb[3] = {0, 1, -1}, gds[3], gdb[3], one = 1, zero = 0;
        for (int64_t i = 0; i < E; i++) {
            /* channel 1 ordinary, channels 0 and 2 at 1e20 and 1e30 */
            int64_t c = (i / sh.s) % C;
            double mag = c == 0 ? 1e20 : c == 1 ? 1.0 : 1e30;
            xv[i] = (float)(mag * fdnn_rng_uniform(&rng, -1, 1));
            dyv[i] = (float)(mag * fdnn_rng_uniform(&rng, -1, 1));
        }
        tt_set(&x, xv);
        tt_set(&dy, dyv);
        const double eps = 1e-5;
        fdnn_ref_bn_stats(&sh, xv, eps, mean, var, inv);
        fdnn_ref_bn_apply(&sh, xv, NULL, scale, bias, mean, inv, false, yr);
        fdnn_ref_bn_backward(&sh, xv, dyv, yr, false, scale, mean, inv, dxr, dsr, dbr, NULL);
        cudnnTensorDescriptor_t pd;
        cudnnCreateTensorDescriptor(&pd);
        CHECK_OK(cudnnDeriveBNTensorDescriptor(pd, x.desc, CUDNN_BATCHNORM_SPATIAL));
        float y1[210], dx1[210];
        for (int threads = 1; threads <= 3; threads++) {
            CHECK_OK(freednnSetNumThreads(handle, threads));
            tt_poison(&y);
            CHECK_OK(cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x.desc,
                                                            x.buf, y.desc, y.buf, pd, fs, fb, 1.0, NULL, NULL, eps,
                                                            NULL, NULL));
            tt_get(&y, got);
            double e = tt_err(got, yr, E);
            CHECK_MSG(e <= 1e-5, "float stats overflow %s threads %d: y error %g", layout_name[layout], threads, e);
            tt_poison(&dx);
            CHECK_OK(cudnnBatchNormalizationBackward(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                                     x.desc, x.buf, dy.desc, dy.buf, dx.desc, dx.buf, pd, fs, gds,
                                                     gdb, eps, NULL, NULL));
            tt_get(&dx, got);
            e = tt_err(got, dxr, E);
            CHECK_MSG(e <= 1e-5, "float stats overflow %s threads %d: dx error %g", layout_name[layout], threads, e);
            for (int c = 0; c < 3; c++)
                CHECK_MSG(isfinite(gds[c]) && fabs(gds[c] - dsr[c]) <= 1e-5 * fabs(dsr[c]) + 1e-3 &&
                              fabs(gdb[c] - dbr[c]) <= 1e-5 * fabs(dbr[c]) + 1e-3,
                          "float stats overflow %s threads %d channel %d: dscale %g (%g) dbias %g (%g)",
                          layout_name[layout], threads, c, gds[c], dsr[c], gdb[c], dbr[c]);
            if (threads == 1) {
                memcpy(y1, y.buf, sizeof(y1));
                memcpy(dx1, dx.buf, sizeof(dx1));
            } else {
                CHECK(memcmp(y1, y.buf, sizeof(y1)) == 0);
                CHECK(memcmp(dx1, dx.buf, sizeof(dx1)) == 0);
            }
        }
        CHECK_OK(freednnSetNumThreads(handle, 1));
        cudnnDestroyTensorDescriptor(pd);
        double *arrs[] = {xv, dyv, yr, dxr, got, mean, var, inv};
        for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++)
            free(arrs[i]);
        tt_free(&x), tt_free(&y), tt_free(&dy), tt_free(&dx);
    }
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(cudnnCreateActivationDescriptor(&relu_desc));
    CHECK_OK(cudnnSetActivationDescriptor(relu_desc, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    test_cases();
    test_blending();
    test_blending_ex();
    test_nan_relu();
    test_mask_order();
    test_float_stats();
    test_float_stats_overflow();
    test_bad_inputs();
    cudnnDestroyActivationDescriptor(relu_desc);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_batchnorm");
}

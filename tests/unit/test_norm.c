/* SPDX-License-Identifier: Apache-2.0
 * The generic normalization API (cudnnNormalization*): forward training,
 * inference and backward with the fused add + ReLU against the float64
 * reference, per channel and per activation; the derive functions against
 * NVIDIA's cuDNN 9 (when present); the argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn9.h"
#include "freednn.h"
#include "ref/batchnorm_ref.h"
#include "test_norm_tensor.h"
#include "testutil.h"

static cudnnHandle_t handle;
static cudnnActivationDescriptor_t relu_desc;

static void
run(int layout, cudnnNormMode_t mode, cudnnNormOps_t ops)
{
    const int dims[4] = {3, 5, 4, 6};
    ttensor_t x, y, z, dy, dx, dz;
    tt_make(&x, 4, dims, layout, CUDNN_DATA_FLOAT);
    tt_make(&y, 4, dims, layout, CUDNN_DATA_FLOAT);
    tt_make(&z, 4, dims, layout, CUDNN_DATA_FLOAT);
    tt_make(&dy, 4, dims, layout, CUDNN_DATA_FLOAT);
    tt_make(&dx, 4, dims, layout, CUDNN_DATA_FLOAT);
    tt_make(&dz, 4, dims, layout, CUDNN_DATA_FLOAT);
    bool relu = ops != CUDNN_NORM_OPS_NORM, add = ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    cudnnTensorDescriptor_t sb, mv;
    cudnnCreateTensorDescriptor(&sb);
    cudnnCreateTensorDescriptor(&mv);
    CHECK_OK(cudnnDeriveNormTensorDescriptor(sb, mv, x.desc, mode, 1));
    fdnn_ref_bn_shape_t sh = {3, 5, 24, mode == CUDNN_NORM_PER_ACTIVATION};
    int64_t F = fdnn_ref_bn_features(&sh), E = x.elems;
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 99 + (uint64_t)mode * 3 + (uint64_t)ops);
    double *xv = tt_doubles(E), *zv = tt_doubles(E), *dyv = tt_doubles(E), *yr = tt_doubles(E), *got = tt_doubles(E);
    double *dxr = tt_doubles(E), *dzr = tt_doubles(E);
    double scale[120], bias[120], mean[120], var[120], inv[120], rm[120], rv[120], dsr[120], dbr[120], g[120];
    float fscale[120], fbias[120], frm[120], frv[120], fsm[120], fsi[120], fds[120], fdb[120];
    tt_random(&rng, xv, E, -2, 3);
    tt_random(&rng, zv, E, -1, 1);
    tt_random(&rng, dyv, E, -1, 1);
    for (int64_t f = 0; f < F; f++) {
        fscale[f] = (float)fdnn_rng_uniform(&rng, 0.5, 1.5);
        fbias[f] = (float)fdnn_rng_uniform(&rng, -0.5, 0.5);
        scale[f] = fscale[f];
        bias[f] = fbias[f];
        rm[f] = frm[f] = 0.25f;
        rv[f] = frv[f] = 2.0f;
    }
    tt_set(&x, xv);
    tt_set(&z, zv);
    tt_set(&dy, dyv);
    const double eps = 1e-5, factor = 0.1;
    fdnn_ref_bn_stats(&sh, xv, eps, mean, var, inv);
    fdnn_ref_bn_apply(&sh, xv, add ? zv : NULL, scale, bias, mean, inv, relu, yr);
    fdnn_ref_bn_running(&sh, mean, var, factor, rm, rv);
    size_t rsize = 0, ws = 7;
    CHECK_OK(cudnnGetNormalizationTrainingReserveSpaceSize(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, relu_desc,
                                                           x.desc, &rsize, 1));
    CHECK_OK(cudnnGetNormalizationForwardTrainingWorkspaceSize(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, x.desc,
                                                               z.desc, y.desc, sb, relu_desc, mv, &ws, 1));
    CHECK(ws == 0);
    void *reserve = fdnn_guarded_alloc(rsize + 1);
    float one = 1, zero = 0;
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        CHECK_OK(freednnSetIsa(handle, fdnn_test_isa_name(isa)));
        tt_poison(&y);
        for (int64_t f = 0; f < F; f++)
            frm[f] = 0.25f, frv[f] = 2.0f;
        CHECK_OK(cudnnNormalizationForwardTraining(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc,
                                                   x.buf, sb, fscale, fbias, factor, mv, frm, frv, eps, fsm, fsi,
                                                   relu_desc, z.desc, add ? z.buf : NULL, y.desc, y.buf, NULL, 0,
                                                   reserve, rsize, 1));
        tt_get(&y, got);
        CHECK_MSG(tt_err(got, yr, E) < 2e-5, "norm fwd mode %d ops %d layout %d: y error %g", mode, ops, layout,
                  tt_err(got, yr, E));
        for (int64_t f = 0; f < F; f++)
            g[f] = frv[f];
        CHECK(tt_err(g, rv, F) < 1e-5);
        for (int64_t f = 0; f < F; f++)
            g[f] = frm[f];
        CHECK(tt_err(g, rm, F) < 1e-5);

        double mq[120], iq[120];
        for (int64_t f = 0; f < F; f++)
            mq[f] = fsm[f], iq[f] = fsi[f];
        fdnn_ref_bn_backward(&sh, xv, dyv, yr, relu, scale, mq, iq, dxr, dsr, dbr, add ? dzr : NULL);
        tt_poison(&dx);
        tt_poison(&dz);
        CHECK_OK(cudnnNormalizationBackward(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero, &one, &zero,
                                            x.desc, x.buf, y.desc, y.buf, dy.desc, dy.buf, dz.desc,
                                            add ? dz.buf : NULL, dx.desc, dx.buf, sb, fscale, fbias, fds, fdb, eps,
                                            mv, fsm, fsi, relu_desc, NULL, 0, reserve, rsize, 1));
        tt_get(&dx, got);
        CHECK_MSG(tt_err(got, dxr, E) < 1e-4, "norm bwd mode %d ops %d: dx error %g", mode, ops, tt_err(got, dxr, E));
        for (int64_t f = 0; f < F; f++)
            g[f] = fds[f];
        CHECK(tt_err(g, dsr, F) < 1e-4);
        for (int64_t f = 0; f < F; f++)
            g[f] = fdb[f];
        CHECK(tt_err(g, dbr, F) < 1e-4);
        if (add) {
            tt_get(&dz, got);
            CHECK(tt_err(got, dzr, E) < 1e-6);
        }
        /* Inference with the running statistics just computed. */
        double invr[120];
        for (int64_t f = 0; f < F; f++)
            invr[f] = 1.0 / sqrt((double)frv[f] + eps), g[f] = frm[f];
        fdnn_ref_bn_apply(&sh, xv, add ? zv : NULL, scale, bias, g, invr, relu, yr);
        tt_poison(&y);
        CHECK_OK(cudnnNormalizationForwardInference(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc,
                                                    x.buf, sb, fscale, fbias, mv, frm, frv, z.desc,
                                                    add ? z.buf : NULL, relu_desc, y.desc, y.buf, eps, 1));
        tt_get(&y, got);
        CHECK_MSG(tt_err(got, yr, E) < 2e-5, "norm inference mode %d ops %d: error %g", mode, ops,
                  tt_err(got, yr, E));
        fdnn_ref_bn_apply(&sh, xv, add ? zv : NULL, scale, bias, mean, inv, relu, yr);
    }
    /* Bad inputs: groups, modes, reserve. */
    CHECK_STATUS(cudnnNormalizationForwardTraining(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc,
                                                   x.buf, sb, fscale, fbias, factor, mv, frm, frv, eps, fsm, fsi,
                                                   relu_desc, z.desc, z.buf, y.desc, y.buf, NULL, 0, reserve, rsize,
                                                   2),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnNormalizationForwardTraining(handle, (cudnnNormMode_t)2, ops, CUDNN_NORM_ALGO_STANDARD, &one,
                                                   &zero, x.desc, x.buf, sb, fscale, fbias, factor, mv, frm, frv, eps,
                                                   fsm, fsi, relu_desc, z.desc, z.buf, y.desc, y.buf, NULL, 0,
                                                   reserve, rsize, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnNormalizationForwardTraining(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc,
                                                   x.buf, sb, fscale, fbias, factor, mv, frm, frv, -1.0, fsm, fsi,
                                                   relu_desc, z.desc, z.buf, y.desc, y.buf, NULL, 0, reserve, rsize,
                                                   1),
                 CUDNN_STATUS_BAD_PARAM);
    if (relu)
        CHECK_STATUS(cudnnNormalizationForwardTraining(handle, mode, ops, CUDNN_NORM_ALGO_STANDARD, &one, &zero,
                                                       x.desc, x.buf, sb, fscale, fbias, factor, mv, frm, frv, eps,
                                                       fsm, fsi, relu_desc, z.desc, z.buf, y.desc, y.buf, NULL, 0,
                                                       reserve, rsize - 1, 1),
                     CUDNN_STATUS_BAD_PARAM);
    fdnn_guarded_free(reserve);
    free(xv), free(zv), free(dyv), free(yr), free(got), free(dxr), free(dzr);
    cudnnDestroyTensorDescriptor(sb);
    cudnnDestroyTensorDescriptor(mv);
    ttensor_t *ts[] = {&x, &y, &z, &dy, &dx, &dz};
    for (int i = 0; i < 6; i++)
        tt_free(ts[i]);
}

/* cudnnDeriveBNTensorDescriptor / cudnnDeriveNormTensorDescriptor against
 * cuDNN 9, whose descriptor functions run without a GPU. */
typedef int (*create_fn)(cudnnTensorDescriptor_t *);
typedef int (*destroy_fn)(cudnnTensorDescriptor_t);
typedef int (*set4_fn)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int);
typedef int (*getnd_fn)(cudnnTensorDescriptor_t, int, cudnnDataType_t *, int *, int *, int *);
typedef int (*derive_bn_fn)(cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnBatchNormMode_t);
typedef int (*derive_norm_fn)(cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                              cudnnNormMode_t, int);

static void
test_derive_vs_cudnn9(void)
{
    create_fn create9 = (create_fn)fdnn_cudnn9_sym("cudnnCreateTensorDescriptor");
    set4_fn set9 = (set4_fn)fdnn_cudnn9_sym("cudnnSetTensor4dDescriptor");
    getnd_fn get9 = (getnd_fn)fdnn_cudnn9_sym("cudnnGetTensorNdDescriptor");
    derive_bn_fn bn9 = (derive_bn_fn)fdnn_cudnn9_sym("cudnnDeriveBNTensorDescriptor");
    derive_norm_fn norm9 = (derive_norm_fn)fdnn_cudnn9_sym("cudnnDeriveNormTensorDescriptor");
    if (!create9 || !set9 || !get9 || !bn9 || !norm9) {
        printf("cuDNN 9 not found: derive cross-check skipped\n");
        return;
    }
    cudnnTensorDescriptor_t x9, d9, e9, x, d, e;
    create9(&x9), create9(&d9), create9(&e9);
    cudnnCreateTensorDescriptor(&x), cudnnCreateTensorDescriptor(&d), cudnnCreateTensorDescriptor(&e);
    const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int t = 0; t < 4; t++)
        for (int fmt = 0; fmt < 2; fmt++)
            for (int mode = 0; mode < 4; mode++) {
                set9(x9, (cudnnTensorFormat_t)fmt, types[t], 2, 3, 5, 7);
                cudnnSetTensor4dDescriptor(x, (cudnnTensorFormat_t)fmt, types[t], 2, 3, 5, 7);
                cudnnStatus_t s9 = fdnn_cudnn9_category(bn9(d9, x9, (cudnnBatchNormMode_t)mode));
                cudnnStatus_t s = cudnnDeriveBNTensorDescriptor(d, x, (cudnnBatchNormMode_t)mode);
                CHECK_MSG(s == s9, "derive BN type %d mode %d: %d vs cuDNN 9 %d", t, mode, s, s9);
                if (s == CUDNN_STATUS_SUCCESS && s9 == CUDNN_STATUS_SUCCESS) {
                    cudnnDataType_t a, b;
                    int na, nb, da[8], db[8], sa[8], sb[8];
                    get9(d9, 8, &a, &na, da, sa);
                    cudnnGetTensorNdDescriptor(d, 8, &b, &nb, db, sb);
                    CHECK(a == b && na == nb && memcmp(da, db, sizeof(int) * 4) == 0 &&
                          memcmp(sa, sb, sizeof(int) * 4) == 0);
                }
                for (int groups = 0; groups < 3; groups++) {
                    s9 = fdnn_cudnn9_category(norm9(d9, e9, x9, (cudnnNormMode_t)mode, groups));
                    s = cudnnDeriveNormTensorDescriptor(d, e, x, (cudnnNormMode_t)mode, groups);
                    CHECK_MSG(s == s9, "derive norm mode %d groups %d: %d vs cuDNN 9 %d", mode, groups, s, s9);
                    if (s == CUDNN_STATUS_SUCCESS && s9 == CUDNN_STATUS_SUCCESS) {
                        cudnnDataType_t a, b;
                        int na, nb, da[8], db[8], sa[8], sb[8];
                        get9(e9, 8, &a, &na, da, sa);
                        cudnnGetTensorNdDescriptor(e, 8, &b, &nb, db, sb);
                        CHECK(a == b && na == nb && memcmp(da, db, sizeof(int) * 4) == 0);
                    }
                }
            }
    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(d), cudnnDestroyTensorDescriptor(e);
    destroy_fn destroy9 = (destroy_fn)fdnn_cudnn9_sym("cudnnDestroyTensorDescriptor");
    if (destroy9 != NULL)
        destroy9(x9), destroy9(d9), destroy9(e9);
}

int
main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 1));
    CHECK_OK(cudnnCreateActivationDescriptor(&relu_desc));
    CHECK_OK(cudnnSetActivationDescriptor(relu_desc, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    for (int layout = 0; layout < LAYOUT_COUNT; layout++)
        for (int mode = 0; mode < 2; mode++)
            for (int ops = 0; ops < 3; ops++)
                run(layout, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops);
    test_derive_vs_cudnn9();
    cudnnDestroyActivationDescriptor(relu_desc);
    cudnnDestroy(handle);
    return fdnn_test_finish("test_norm");
}

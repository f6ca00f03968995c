/* SPDX-License-Identifier: Apache-2.0
 * CTC loss descriptors: the three setters and getters, bad arguments, and a
 * cross-check against NVIDIA's cuDNN 9 (where its validation is narrower,
 * only the valid enumerant range is compared; docs/descriptors-adv.md). */
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

static void
get_all(cudnnCTCLossDescriptor_t d, cudnnDataType_t *dt, cudnnLossNormalizationMode_t *nm,
        cudnnNanPropagation_t *gm, int *ml)
{
    *dt = (cudnnDataType_t)77;
    *nm = (cudnnLossNormalizationMode_t)77;
    *gm = (cudnnNanPropagation_t)77;
    *ml = 77;
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, dt, nm, gm, ml));
}

static void
test_ctc(void)
{
    cudnnCTCLossDescriptor_t d;
    CHECK_STATUS(cudnnCreateCTCLossDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    cudnnDataType_t dt;
    cudnnLossNormalizationMode_t nm;
    cudnnNanPropagation_t gm;
    int ml;
    CHECK_STATUS(cudnnGetCTCLossDescriptor(d, &dt), CUDNN_STATUS_BAD_PARAM); /* never set */
    CHECK_STATUS(cudnnGetCTCLossDescriptorEx(d, &dt, &nm, &gm), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetCTCLossDescriptor_v8(d, &dt, &nm, &gm, &ml), CUDNN_STATUS_BAD_PARAM);

    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_DOUBLE, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                          CUDNN_PROPAGATE_NAN, 256));
    get_all(d, &dt, &nm, &gm, &ml);
    CHECK(dt == CUDNN_DATA_DOUBLE && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN &&
          ml == 256);
    /* Ex resets the label length, the plain setter everything but the type. */
    CHECK_OK(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN));
    get_all(d, &dt, &nm, &gm, &ml);
    CHECK(dt == CUDNN_DATA_FLOAT && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN && ml == 0);
    CHECK_OK(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_DOUBLE));
    get_all(d, &dt, &nm, &gm, &ml);
    CHECK(dt == CUDNN_DATA_DOUBLE && nm == CUDNN_LOSS_NORMALIZATION_NONE && gm == CUDNN_NOT_PROPAGATE_NAN && ml == 0);
    dt = (cudnnDataType_t)77;
    CHECK_OK(cudnnGetCTCLossDescriptor(d, &dt));
    CHECK(dt == CUDNN_DATA_DOUBLE);
    /* Outputs are optional. */
    CHECK_OK(cudnnGetCTCLossDescriptor(d, NULL));
    CHECK_OK(cudnnGetCTCLossDescriptorEx(d, NULL, NULL, NULL));
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, NULL, NULL, NULL, NULL));

    /* Bad arguments change nothing. */
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN,
                                          9));
    CHECK_STATUS(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_HALF), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_INT8), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetCTCLossDescriptor(d, (cudnnDataType_t)-1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, (cudnnLossNormalizationMode_t)2,
                                             CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE,
                                             (cudnnNanPropagation_t)2),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE,
                                              CUDNN_PROPAGATE_NAN, -1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptor(NULL, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetCTCLossDescriptor(NULL, &dt), CUDNN_STATUS_BAD_PARAM);
    get_all(d, &dt, &nm, &gm, &ml);
    CHECK(dt == CUDNN_DATA_FLOAT && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN && ml == 9);
    CHECK_OK(cudnnDestroyCTCLossDescriptor(d));
    CHECK_OK(cudnnDestroyCTCLossDescriptor(NULL));
}

typedef int (*c9_create_fn)(void **);
typedef int (*c9_destroy_fn)(void *);
typedef int (*c9_set_fn)(void *, cudnnDataType_t);
typedef int (*c9_set_ex_fn)(void *, cudnnDataType_t, cudnnLossNormalizationMode_t, cudnnNanPropagation_t);
typedef int (*c9_set_v8_fn)(void *, cudnnDataType_t, cudnnLossNormalizationMode_t, cudnnNanPropagation_t, int);
typedef int (*c9_get_v8_fn)(void *, cudnnDataType_t *, cudnnLossNormalizationMode_t *, cudnnNanPropagation_t *,
                            int *);

static void
cross_check(void)
{
    c9_create_fn c9c = (c9_create_fn)fdnn_cudnn9_sym("cudnnCreateCTCLossDescriptor");
    c9_destroy_fn c9d = (c9_destroy_fn)fdnn_cudnn9_sym("cudnnDestroyCTCLossDescriptor");
    c9_set_fn c9s = (c9_set_fn)fdnn_cudnn9_sym("cudnnSetCTCLossDescriptor");
    c9_set_ex_fn c9sx = (c9_set_ex_fn)fdnn_cudnn9_sym("cudnnSetCTCLossDescriptorEx");
    c9_set_v8_fn c9s8 = (c9_set_v8_fn)fdnn_cudnn9_sym("cudnnSetCTCLossDescriptor_v8");
    c9_get_v8_fn c9g8 = (c9_get_v8_fn)fdnn_cudnn9_sym("cudnnGetCTCLossDescriptor_v8");
    if (!c9c || !c9d || !c9s || !c9sx || !c9s8 || !c9g8) {
        printf("cuDNN 9 not found: CTC cross-check skipped\n");
        return;
    }
    void *d9;
    cudnnCTCLossDescriptor_t d;
    CHECK(c9c(&d9) == 0);
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 5);
    for (int it = 0; it < 600; it++) {
        cudnnDataType_t dt = (cudnnDataType_t)fdnn_rng_int(&rng, 0, CUDNN_DATA_FAST_FLOAT_FOR_FP8);
        cudnnLossNormalizationMode_t nm = (cudnnLossNormalizationMode_t)fdnn_rng_int(&rng, 0, 1);
        cudnnNanPropagation_t gm = (cudnnNanPropagation_t)fdnn_rng_int(&rng, 0, 1);
        int ml = fdnn_rng_int(&rng, 0, 1000);
        int which = it % 3;
        cudnnStatus_t ours, theirs;
        if (which == 0) {
            ours = cudnnSetCTCLossDescriptor(d, dt);
            theirs = fdnn_cudnn9_category(c9s(d9, dt));
        } else if (which == 1) {
            ours = cudnnSetCTCLossDescriptorEx(d, dt, nm, gm);
            theirs = fdnn_cudnn9_category(c9sx(d9, dt, nm, gm));
        } else {
            ours = cudnnSetCTCLossDescriptor_v8(d, dt, nm, gm, ml);
            theirs = fdnn_cudnn9_category(c9s8(d9, dt, nm, gm, ml));
        }
        CHECK_MSG(ours == theirs, "ctc #%d setter %d dt %d: ours %d, cuDNN 9 %d", it, which, dt, ours, theirs);
        if (ours != CUDNN_STATUS_SUCCESS || theirs != CUDNN_STATUS_SUCCESS)
            continue;
        cudnnDataType_t dt1, dt2;
        cudnnLossNormalizationMode_t nm1, nm2;
        cudnnNanPropagation_t gm1, gm2;
        int ml1, ml2;
        get_all(d, &dt1, &nm1, &gm1, &ml1);
        CHECK(c9g8(d9, &dt2, &nm2, &gm2, &ml2) == 0);
        CHECK_MSG(dt1 == dt2 && nm1 == nm2 && gm1 == gm2 && ml1 == ml2, "ctc #%d: get-back differs from cuDNN 9",
                  it);
    }
    CHECK(c9d(d9) == 0);
    CHECK_OK(cudnnDestroyCTCLossDescriptor(d));
}

int
main(void)
{
    test_ctc();
    cross_check();
    return fdnn_test_finish("test_ctc_desc");
}

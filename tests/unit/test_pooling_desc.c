/* SPDX-License-Identifier: Apache-2.0
 * Pooling descriptors and output-dim queries, each case compared with
 * NVIDIA's cuDNN 9 when it is installed (status category and values). */
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

typedef int (*create_fn)(void **);
typedef int (*set2d_fn)(void *, int, int, int, int, int, int, int, int);
typedef int (*setnd_fn)(void *, int, int, int, const int *, const int *, const int *);
typedef int (*tset_fn)(void *, int, int, const int *, const int *);
typedef int (*out2d_fn)(void *, void *, int *, int *, int *, int *);
typedef int (*outnd_fn)(void *, void *, int, int *);

static create_fn c9_create, c9_tcreate;
static set2d_fn c9_set2d;
static setnd_fn c9_setnd;
static tset_fn c9_tset;
static out2d_fn c9_out2d;
static outnd_fn c9_outnd;
static void *c9_pool, *c9_tensor;

static void
load_cudnn9(void)
{
    c9_create = (create_fn)fdnn_cudnn9_sym("cudnnCreatePoolingDescriptor");
    c9_tcreate = (create_fn)fdnn_cudnn9_sym("cudnnCreateTensorDescriptor");
    c9_set2d = (set2d_fn)fdnn_cudnn9_sym("cudnnSetPooling2dDescriptor");
    c9_setnd = (setnd_fn)fdnn_cudnn9_sym("cudnnSetPoolingNdDescriptor");
    c9_tset = (tset_fn)fdnn_cudnn9_sym("cudnnSetTensorNdDescriptor");
    c9_out2d = (out2d_fn)fdnn_cudnn9_sym("cudnnGetPooling2dForwardOutputDim");
    c9_outnd = (outnd_fn)fdnn_cudnn9_sym("cudnnGetPoolingNdForwardOutputDim");
    if (c9_create && c9_tcreate && c9_set2d && c9_setnd && c9_tset && c9_out2d && c9_outnd) {
        c9_create(&c9_pool);
        c9_tcreate(&c9_tensor);
    } else {
        c9_create = NULL;
        printf("cuDNN 9 not found: cross-check skipped\n");
    }
}

static void
packed_strides(int nb, const int *dims, int *strides)
{
    int s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

/* Sets a 2-D descriptor on both libraries, and when it is accepted, asks
 * both for the output dims of an input of dims `in` (rank nbt). */
static void
case_2d(int mode, int nan, int wh, int ww, int ph, int pw, int sh, int sw, int nbt, const int *in)
{
    cudnnPoolingDescriptor_t p;
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    int st[CUDNN_DIM_MAX];
    packed_strides(nbt, in, st);
    CHECK_OK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, nbt, in, st));
    cudnnStatus_t s = cudnnSetPooling2dDescriptor(p, (cudnnPoolingMode_t)mode, (cudnnNanPropagation_t)nan, wh, ww,
                                                  ph, pw, sh, sw);
    int o[4] = {-1, -1, -1, -1};
    cudnnStatus_t so = s == CUDNN_STATUS_SUCCESS ? cudnnGetPooling2dForwardOutputDim(p, t, o, o + 1, o + 2, o + 3)
                                                 : s;
    if (c9_create) {
        int s9 = c9_set2d(c9_pool, mode, nan, wh, ww, ph, pw, sh, sw);
        CHECK_MSG(fdnn_cudnn9_category(s9) == s, "set2d w%dx%d p%d,%d s%d,%d: ours %d, cuDNN 9 %d", wh, ww, ph, pw,
                  sh, sw, s, s9);
        if (s9 == 0 && s == CUDNN_STATUS_SUCCESS) {
            c9_tset(c9_tensor, 0, nbt, in, st);
            int o9[4] = {-1, -1, -1, -1};
            int r9 = c9_out2d(c9_pool, c9_tensor, o9, o9 + 1, o9 + 2, o9 + 3);
            CHECK_MSG(fdnn_cudnn9_category(r9) == so, "outdim w%dx%d p%d,%d s%d,%d on %d-D: ours %d, cuDNN 9 %d", wh,
                      ww, ph, pw, sh, sw, nbt, so, r9);
            if (r9 == 0 && so == CUDNN_STATUS_SUCCESS)
                CHECK(memcmp(o, o9, sizeof(o)) == 0);
        }
    }
    if (so == CUDNN_STATUS_SUCCESS && nbt == 4)
        for (int i = 0; i < 2; i++) {
            int w = i == 0 ? wh : ww, pd = i == 0 ? ph : pw, sd = i == 0 ? sh : sw;
            CHECK(o[2 + i] == 1 + (in[2 + i] + 2 * pd - w) / sd);
        }
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyPoolingDescriptor(p);
}

static void
case_nd(int nb, const int *w, const int *pd, const int *sd, int nbt, const int *in, int nb_query)
{
    cudnnPoolingDescriptor_t p;
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    int st[CUDNN_DIM_MAX];
    packed_strides(nbt, in, st);
    CHECK_OK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, nbt, in, st));
    cudnnStatus_t s = cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, nb, w, pd, sd);
    int o[CUDNN_DIM_MAX] = {0};
    cudnnStatus_t so = s == CUDNN_STATUS_SUCCESS ? cudnnGetPoolingNdForwardOutputDim(p, t, nb_query, o) : s;
    if (c9_create) {
        int s9 = c9_setnd(c9_pool, 0, 0, nb, w, pd, sd);
        CHECK_MSG(fdnn_cudnn9_category(s9) == s, "setNd nb=%d: ours %d, cuDNN 9 %d", nb, s, s9);
        if (s9 == 0 && s == CUDNN_STATUS_SUCCESS) {
            c9_tset(c9_tensor, 0, nbt, in, st);
            int o9[CUDNN_DIM_MAX] = {0};
            int r9 = c9_outnd(c9_pool, c9_tensor, nb_query, o9);
            CHECK_MSG(fdnn_cudnn9_category(r9) == so, "outdimNd nb=%d on %d-D query %d: ours %d, cuDNN 9 %d", nb, nbt,
                      nb_query, so, r9);
            if (r9 == 0 && so == CUDNN_STATUS_SUCCESS)
                CHECK(memcmp(o, o9, sizeof(int) * (size_t)nb_query) == 0);
        }
    }
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyPoolingDescriptor(p);
}

static void
test_get_and_lifecycle(void)
{
    cudnnPoolingDescriptor_t p = NULL;
    CHECK_STATUS(cudnnCreatePoolingDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    cudnnPoolingMode_t m;
    cudnnNanPropagation_t n;
    int a[8], b[8], c[8], nb = -1;
    /* a created descriptor reads back as zeros, but cannot be used */
    CHECK_OK(cudnnGetPooling2dDescriptor(p, &m, &n, a, a + 1, b, b + 1, c, c + 1));
    CHECK(a[0] == 0 && c[1] == 0);
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 4, 4));
    int o[4];
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, t, o, o + 1, o + 2, o + 3), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 3, 2,
                                         1, 0, 2, 1));
    CHECK_OK(cudnnGetPooling2dDescriptor(p, &m, &n, a, a + 1, b, b + 1, c, c + 1));
    CHECK(m == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING && n == CUDNN_PROPAGATE_NAN);
    CHECK(a[0] == 3 && a[1] == 2 && b[0] == 1 && b[1] == 0 && c[0] == 2 && c[1] == 1);
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 2, &m, &n, &nb, a, b, c));
    CHECK(nb == 2 && a[0] == 3 && a[1] == 2);
    CHECK_STATUS(cudnnGetPoolingNdDescriptor(p, 9, &m, &n, &nb, a, b, c), CUDNN_STATUS_NOT_SUPPORTED);
    int w3[3] = {2, 3, 4}, p3[3] = {0, 1, 2}, s3[3] = {1, 2, 3};
    CHECK_OK(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3));
    memset(a, 0, sizeof(a));
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 2, &m, &n, &nb, a, b, c));
    CHECK(nb == 3 && a[0] == 2 && a[1] == 3 && a[2] == 0); /* only 2 requested */
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 3, &m, &n, &nb, a, b, c));
    CHECK(a[2] == 4 && b[2] == 2 && c[2] == 3 && m == CUDNN_POOLING_MAX_DETERMINISTIC);
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, t, NULL, o + 1, o + 2, o + 3), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, NULL, p3, s3),
                 CUDNN_STATUS_BAD_PARAM);
    /* an output extent beyond INT_MAX cannot be reported */
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 5, 5));
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2147483647, 1, 2147483646, 0,
                                         1, 1));
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, t, o, o + 1, o + 2, o + 3), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnDestroyPoolingDescriptor(p));
    CHECK_OK(cudnnDestroyPoolingDescriptor(NULL));
    CHECK_STATUS(cudnnSetPooling2dDescriptor(NULL, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(t);
}

int
main(void)
{
    load_cudnn9();
    test_get_and_lifecycle();
    int in4[4] = {2, 3, 5, 5}, in4b[4] = {1, 1, 1, 7}, in5[5] = {2, 3, 4, 5, 6}, in3[3] = {2, 3, 7};
    /* windows, paddings, strides: valid, zero, negative, larger than input */
    static const int c2[][6] = {{3, 3, 0, 0, 1, 1}, {0, 3, 0, 0, 1, 1}, {3, 0, 0, 0, 1, 1}, {3, 3, 0, 0, 0, 1},
                                {3, 3, 0, 0, 1, 0}, {-1, 3, 0, 0, 1, 1}, {3, 3, 0, 0, -2, 1}, {3, 3, -1, 0, 1, 1},
                                {3, 3, 3, 0, 1, 1}, {3, 3, 5, 5, 1, 1}, {3, 3, 0, 0, 5, 5}, {7, 3, 0, 0, 1, 1},
                                {7, 3, 1, 0, 1, 1}, {2, 2, 0, 0, 2, 2}, {3, 3, 1, 1, 2, 2}, {1, 1, 0, 0, 3, 3},
                                {6, 6, 1, 1, 1, 1}, {5, 5, 0, 0, 7, 7}};
    for (size_t i = 0; i < sizeof(c2) / sizeof(c2[0]); i++) {
        const int *c = c2[i];
        case_2d(CUDNN_POOLING_MAX, 0, c[0], c[1], c[2], c[3], c[4], c[5], 4, in4);
        case_2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 1, c[0], c[1], c[2], c[3], c[4], c[5], 4, in4b);
        case_2d(CUDNN_POOLING_MAX, 0, c[0], c[1], c[2], c[3], c[4], c[5], 5, in5);
    }
    case_2d(4, 0, 2, 2, 0, 0, 1, 1, 4, in4);  /* bad mode */
    case_2d(-1, 0, 2, 2, 0, 0, 1, 1, 4, in4); /* bad mode */
    case_2d(0, 2, 2, 2, 0, 0, 1, 1, 4, in4);  /* bad NaN option */
    int w[8] = {2, 2, 2, 2, 2, 2, 2, 2}, pd[8] = {0}, sd[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int nb = -1; nb <= 8; nb++) {
        case_nd(nb, w, pd, sd, 4, in4, 4);
        case_nd(nb, w, pd, sd, 5, in5, 5);
        case_nd(nb, w, pd, sd, 3, in3, 3);
    }
    case_nd(2, w, pd, sd, 4, in4, 3); /* query rank != tensor rank */
    case_nd(2, w, pd, sd, 4, in4, 5);
    int w3[3] = {2, 3, 4}, p3[3] = {1, 0, 2}, s3[3] = {2, 1, 3};
    case_nd(3, w3, p3, s3, 5, in5, 5);
    return fdnn_test_finish("test_pooling_desc");
}

/* SPDX-License-Identifier: Apache-2.0
 * Convolution API contracts: filter and convolution descriptors, output
 * sizes, argument validation of the execution calls (nothing written on
 * failure), workspace rules, the _v7 lists, Find/FindEx, CUDNN_CONV_WSCAP_DBG
 * and cudnnConvolutionBiasActivationForward.  Descriptor validation is
 * compared with NVIDIA's cuDNN 9 where it is installed (statuses mapped to
 * their 8.x category). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn9.h"
#include "freednn.h"
#include "ref/conv_ref.h"
#include "testutil.h"

/* The descriptor functions, ours or cuDNN 9's (same signatures). */
typedef struct api {
    cudnnStatus_t (*create_conv)(cudnnConvolutionDescriptor_t *);
    cudnnStatus_t (*destroy_conv)(cudnnConvolutionDescriptor_t);
    cudnnStatus_t (*set2d)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, cudnnConvolutionMode_t,
                           cudnnDataType_t);
    cudnnStatus_t (*setnd)(cudnnConvolutionDescriptor_t, int, const int *, const int *, const int *,
                           cudnnConvolutionMode_t, cudnnDataType_t);
    cudnnStatus_t (*get2d)(cudnnConvolutionDescriptor_t, int *, int *, int *, int *, int *, int *,
                           cudnnConvolutionMode_t *, cudnnDataType_t *);
    cudnnStatus_t (*getnd)(cudnnConvolutionDescriptor_t, int, int *, int *, int *, int *, cudnnConvolutionMode_t *,
                           cudnnDataType_t *);
    cudnnStatus_t (*set_groups)(cudnnConvolutionDescriptor_t, int);
    cudnnStatus_t (*set_math)(cudnnConvolutionDescriptor_t, cudnnMathType_t);
    cudnnStatus_t (*set_reorder)(cudnnConvolutionDescriptor_t, cudnnReorderType_t);
    cudnnStatus_t (*create_filter)(cudnnFilterDescriptor_t *);
    cudnnStatus_t (*destroy_filter)(cudnnFilterDescriptor_t);
    cudnnStatus_t (*set_filter4d)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int);
    cudnnStatus_t (*set_filternd)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, const int *);
    cudnnStatus_t (*create_tensor)(cudnnTensorDescriptor_t *);
    cudnnStatus_t (*destroy_tensor)(cudnnTensorDescriptor_t);
    cudnnStatus_t (*set_tensor4d)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int);
    cudnnStatus_t (*out2d)(cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, int *,
                           int *, int *, int *);
    int v9; /* statuses need mapping */
} api_t;

static api_t ours = {
    cudnnCreateConvolutionDescriptor,
    cudnnDestroyConvolutionDescriptor,
    cudnnSetConvolution2dDescriptor,
    cudnnSetConvolutionNdDescriptor,
    cudnnGetConvolution2dDescriptor,
    cudnnGetConvolutionNdDescriptor,
    cudnnSetConvolutionGroupCount,
    cudnnSetConvolutionMathType,
    cudnnSetConvolutionReorderType,
    cudnnCreateFilterDescriptor,
    cudnnDestroyFilterDescriptor,
    cudnnSetFilter4dDescriptor,
    cudnnSetFilterNdDescriptor,
    cudnnCreateTensorDescriptor,
    cudnnDestroyTensorDescriptor,
    cudnnSetTensor4dDescriptor,
    cudnnGetConvolution2dForwardOutputDim,
    0,
};

static bool
load_v9(api_t *a)
{
    void **slots = (void **)a;
    static const char *const names[] = {
        "cudnnCreateConvolutionDescriptor", "cudnnDestroyConvolutionDescriptor", "cudnnSetConvolution2dDescriptor",
        "cudnnSetConvolutionNdDescriptor",  "cudnnGetConvolution2dDescriptor",   "cudnnGetConvolutionNdDescriptor",
        "cudnnSetConvolutionGroupCount",    "cudnnSetConvolutionMathType",       "cudnnSetConvolutionReorderType",
        "cudnnCreateFilterDescriptor",      "cudnnDestroyFilterDescriptor",      "cudnnSetFilter4dDescriptor",
        "cudnnSetFilterNdDescriptor",       "cudnnCreateTensorDescriptor",       "cudnnDestroyTensorDescriptor",
        "cudnnSetTensor4dDescriptor",       "cudnnGetConvolution2dForwardOutputDim",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        slots[i] = fdnn_cudnn9_sym(names[i]);
        if (slots[i] == NULL)
            return false;
    }
    a->v9 = 1;
    return true;
}

static cudnnStatus_t
cat(const api_t *a, cudnnStatus_t s)
{
    return a->v9 ? fdnn_cudnn9_category((int)s) : s;
}

/* One validation case: runs against an api, returns the status category of
 * the call under test and writes up to 8 ints of output. */
typedef cudnnStatus_t (*case_fn)(const api_t *a, int *out);

static cudnnStatus_t
case_set2d(const api_t *a, int *o, int ph, int pw, int u, int v, int dh, int dw, int mode, int dt)
{
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    cudnnStatus_t s = cat(a, a->set2d(d, ph, pw, u, v, dh, dw, (cudnnConvolutionMode_t)mode, (cudnnDataType_t)dt));
    if (s == CUDNN_STATUS_SUCCESS) {
        cudnnConvolutionMode_t m;
        cudnnDataType_t t;
        a->get2d(d, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &m, &t);
        o[6] = (int)m;
        o[7] = (int)t;
    }
    a->destroy_conv(d);
    return s;
}

#define SET2D_CASE(name, ...)                                  \
    static cudnnStatus_t name(const api_t *a, int *o)          \
    {                                                          \
        return case_set2d(a, o, __VA_ARGS__);                  \
    }
SET2D_CASE(c_set2d_ok, 1, 2, 1, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_conv_double, 0, 0, 3, 3, 2, 2, CUDNN_CONVOLUTION, CUDNN_DATA_DOUBLE)
SET2D_CASE(c_set2d_negpad, -1, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_stride0, 0, 0, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_negstride, 0, 0, 1, -2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_dil0, 0, 0, 1, 1, 0, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_badmode, 0, 0, 1, 1, 1, 1, 7, CUDNN_DATA_FLOAT)
SET2D_CASE(c_set2d_badtype, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, 77)

static cudnnStatus_t
c_setnd_3d(const api_t *a, int *o)
{
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    int pad[3] = {1, 2, 0}, str[3] = {1, 1, 2}, dil[3] = {1, 2, 1};
    cudnnStatus_t s = cat(a, a->setnd(d, 3, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    if (s == CUDNN_STATUS_SUCCESS) {
        int n = 0, p2[3], s2[3], d2[3];
        cudnnConvolutionMode_t m;
        cudnnDataType_t t;
        cat(a, a->getnd(d, 3, &n, p2, s2, d2, &m, &t));
        o[0] = n;
        o[1] = p2[1];
        o[2] = s2[2];
        o[3] = d2[1];
        /* A 3-D descriptor read through the 2-D getter. */
        int x[6];
        o[4] = (int)cat(a, a->get2d(d, &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &m, &t));
    }
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
c_setnd_too_long(const api_t *a, int *o)
{
    (void)o;
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    int v[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cudnnStatus_t s = cat(a, a->setnd(d, 7, v, v, v, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
c_setnd_negative(const api_t *a, int *o)
{
    (void)o;
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    int v[2] = {1, 1};
    cudnnStatus_t s = cat(a, a->setnd(d, -1, v, v, v, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
c_groups0(const api_t *a, int *o)
{
    (void)o;
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    cudnnStatus_t s = cat(a, a->set_groups(d, 0));
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
c_math_bad(const api_t *a, int *o)
{
    (void)o;
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    cudnnStatus_t s = cat(a, a->set_math(d, (cudnnMathType_t)9));
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
c_reorder_bad(const api_t *a, int *o)
{
    (void)o;
    cudnnConvolutionDescriptor_t d;
    a->create_conv(&d);
    cudnnStatus_t s = cat(a, a->set_reorder(d, (cudnnReorderType_t)5));
    a->destroy_conv(d);
    return s;
}

static cudnnStatus_t
case_filter4d(const api_t *a, int dt, int fmt, int k, int c, int h, int w)
{
    cudnnFilterDescriptor_t f;
    a->create_filter(&f);
    cudnnStatus_t s = cat(a, a->set_filter4d(f, (cudnnDataType_t)dt, (cudnnTensorFormat_t)fmt, k, c, h, w));
    a->destroy_filter(f);
    return s;
}

#define FILTER_CASE(name, ...)                                 \
    static cudnnStatus_t name(const api_t *a, int *o)          \
    {                                                          \
        (void)o;                                               \
        return case_filter4d(a, __VA_ARGS__);                  \
    }
FILTER_CASE(c_f_ok, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 3, 3)
FILTER_CASE(c_f_nhwc, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NHWC, 8, 3, 5, 1)
FILTER_CASE(c_f_zero, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 0, 3, 3, 3)
FILTER_CASE(c_f_neg, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, -3, 3, 3)
FILTER_CASE(c_f_badfmt, CUDNN_DATA_FLOAT, 9, 8, 3, 3, 3)
FILTER_CASE(c_f_badtype, 99, CUDNN_TENSOR_NCHW, 8, 3, 3, 3)
FILTER_CASE(c_f_vect_float, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW_VECT_C, 8, 4, 3, 3)
FILTER_CASE(c_f_vect_ok, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 8, 4, 3, 3)

static cudnnStatus_t
c_f_nd_too_many(const api_t *a, int *o)
{
    (void)o;
    cudnnFilterDescriptor_t f;
    a->create_filter(&f);
    int dims[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    cudnnStatus_t s = cat(a, a->set_filternd(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 9, dims));
    a->destroy_filter(f);
    return s;
}

/* Output size of x (n,c,h,w) with w (k,cw,r,s), groups g, pad/stride/dil. */
static cudnnStatus_t
case_out(const api_t *a, int *o, int n, int c, int h, int w, int k, int cw, int r, int s, int g, int pad, int str,
         int dil)
{
    cudnnTensorDescriptor_t x;
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t d;
    a->create_tensor(&x);
    a->create_filter(&f);
    a->create_conv(&d);
    a->set_tensor4d(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
    a->set_filter4d(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, cw, r, s);
    a->set2d(d, pad, pad, str, str, dil, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    a->set_groups(d, g);
    cudnnStatus_t st = cat(a, a->out2d(d, x, f, &o[0], &o[1], &o[2], &o[3]));
    a->destroy_tensor(x);
    a->destroy_filter(f);
    a->destroy_conv(d);
    return st;
}

#define OUT_CASE(name, ...)                                    \
    static cudnnStatus_t name(const api_t *a, int *o)          \
    {                                                          \
        return case_out(a, o, __VA_ARGS__);                    \
    }
OUT_CASE(c_out_basic, 2, 3, 7, 6, 4, 3, 3, 3, 1, 1, 1, 1)
OUT_CASE(c_out_stride, 1, 3, 224, 224, 64, 3, 7, 7, 1, 3, 2, 1)
OUT_CASE(c_out_dil, 1, 8, 28, 28, 8, 8, 3, 3, 1, 2, 1, 2)
OUT_CASE(c_out_groups, 1, 8, 9, 9, 6, 4, 3, 3, 2, 0, 1, 1)
OUT_CASE(c_out_chan_mismatch, 1, 8, 9, 9, 6, 3, 3, 3, 1, 0, 1, 1)
OUT_CASE(c_out_group_mismatch, 1, 8, 9, 9, 6, 8, 3, 3, 2, 0, 1, 1)
OUT_CASE(c_out_too_big, 1, 3, 4, 4, 2, 3, 7, 7, 1, 1, 1, 1)
OUT_CASE(c_out_fits_padded, 1, 3, 4, 4, 2, 3, 6, 6, 1, 1, 1, 1)
OUT_CASE(c_out_k_not_multiple, 1, 8, 9, 9, 5, 4, 3, 3, 2, 0, 1, 1)
/* Adversarial sizes (integer overflow in the size formula). */
OUT_CASE(c_out_huge_dilation, 1, 3, 9, 9, 2, 3, 3, 3, 1, 0, 1, 2147483647)
OUT_CASE(c_out_huge_pad_stride, 1, 3, 9, 9, 2, 3, 3, 3, 1, 1000000000, 2147483647, 1)

typedef struct named_case {
    const char *name;
    case_fn fn;
    cudnnStatus_t want; /* per the cuDNN 8.9 documentation */
    bool v9_overflows;  /* cuDNN 9 computes the size in 32 bits and accepts it: not compared */
} named_case_t;

static const named_case_t cases[] = {
    {"set2d ok", c_set2d_ok, CUDNN_STATUS_SUCCESS, false},
    {"set2d conv double", c_set2d_conv_double, CUDNN_STATUS_SUCCESS, false},
    {"set2d negative pad", c_set2d_negpad, CUDNN_STATUS_BAD_PARAM, false},
    {"set2d stride 0", c_set2d_stride0, CUDNN_STATUS_BAD_PARAM, false},
    {"set2d negative stride", c_set2d_negstride, CUDNN_STATUS_BAD_PARAM, false},
    {"set2d dilation 0", c_set2d_dil0, CUDNN_STATUS_BAD_PARAM, false},
    {"set2d bad mode", c_set2d_badmode, CUDNN_STATUS_BAD_PARAM, false},
    {"set2d bad type", c_set2d_badtype, CUDNN_STATUS_BAD_PARAM, false},
    {"setnd 3-D", c_setnd_3d, CUDNN_STATUS_SUCCESS, false},
    {"setnd arrayLength 7", c_setnd_too_long, CUDNN_STATUS_NOT_SUPPORTED, false},
    {"setnd arrayLength -1", c_setnd_negative, CUDNN_STATUS_BAD_PARAM, false},
    {"group count 0", c_groups0, CUDNN_STATUS_BAD_PARAM, false},
    {"math type 9", c_math_bad, CUDNN_STATUS_BAD_PARAM, false},
    {"reorder type 5", c_reorder_bad, CUDNN_STATUS_BAD_PARAM, false},
    {"filter ok", c_f_ok, CUDNN_STATUS_SUCCESS, false},
    {"filter nhwc double", c_f_nhwc, CUDNN_STATUS_SUCCESS, false},
    {"filter zero dim", c_f_zero, CUDNN_STATUS_BAD_PARAM, false},
    {"filter negative dim", c_f_neg, CUDNN_STATUS_BAD_PARAM, false},
    {"filter bad format", c_f_badfmt, CUDNN_STATUS_BAD_PARAM, false},
    {"filter bad type", c_f_badtype, CUDNN_STATUS_BAD_PARAM, false},
    {"filter VECT_C float", c_f_vect_float, CUDNN_STATUS_BAD_PARAM, false},
    {"filter VECT_C int8x4", c_f_vect_ok, CUDNN_STATUS_SUCCESS, false},
    {"filter nd 9 dims", c_f_nd_too_many, CUDNN_STATUS_NOT_SUPPORTED, false},
    {"out basic", c_out_basic, CUDNN_STATUS_SUCCESS, false},
    {"out stride", c_out_stride, CUDNN_STATUS_SUCCESS, false},
    {"out dilation", c_out_dil, CUDNN_STATUS_SUCCESS, false},
    {"out groups", c_out_groups, CUDNN_STATUS_SUCCESS, false},
    {"out channel mismatch", c_out_chan_mismatch, CUDNN_STATUS_BAD_PARAM, false},
    {"out group channel mismatch", c_out_group_mismatch, CUDNN_STATUS_BAD_PARAM, false},
    {"out filter too big", c_out_too_big, CUDNN_STATUS_BAD_PARAM, false},
    {"out filter fits padded", c_out_fits_padded, CUDNN_STATUS_SUCCESS, false},
    {"out K not multiple of groups", c_out_k_not_multiple, CUDNN_STATUS_SUCCESS, false}, /* checked by the ops */
    {"out huge dilation", c_out_huge_dilation, CUDNN_STATUS_BAD_PARAM, true},
    {"out huge pad and stride", c_out_huge_pad_stride, CUDNN_STATUS_SUCCESS, false},
};

static void
test_descriptor_cases(void)
{
    api_t v9;
    memset(&v9, 0, sizeof(v9));
    bool have9 = load_v9(&v9);
    if (!have9)
        printf("cuDNN 9 not found: descriptor cross-check skipped\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int o1[8] = {0}, o2[8] = {0};
        cudnnStatus_t s1 = cases[i].fn(&ours, o1);
        CHECK_MSG(s1 == cases[i].want, "%s: %s, expected %s", cases[i].name, cudnnGetErrorString(s1),
                  cudnnGetErrorString(cases[i].want));
        if (have9 && !cases[i].v9_overflows) {
            cudnnStatus_t s2 = cases[i].fn(&v9, o2);
            CHECK_MSG(s1 == s2, "%s: FreeDNN %s, cuDNN 9 %s", cases[i].name, cudnnGetErrorString(s1),
                      cudnnGetErrorString(s2));
            if (s1 == CUDNN_STATUS_SUCCESS && s2 == CUDNN_STATUS_SUCCESS)
                CHECK_MSG(memcmp(o1, o2, sizeof(o1)) == 0,
                          "%s: outputs differ from cuDNN 9 (%d %d %d %d %d vs %d %d %d %d %d)", cases[i].name, o1[0],
                          o1[1], o1[2], o1[3], o1[4], o2[0], o2[1], o2[2], o2[3], o2[4]);
        }
    }
    /* Exact values. */
    int o[8];
    CHECK_OK(c_out_basic(&ours, o));
    CHECK(o[0] == 2 && o[1] == 4 && o[2] == 7 && o[3] == 6);
    CHECK_OK(c_out_stride(&ours, o));
    CHECK(o[0] == 1 && o[1] == 64 && o[2] == 112 && o[3] == 112);
    CHECK_OK(c_out_dil(&ours, o));
    CHECK(o[2] == 28 && o[3] == 28);
    CHECK_OK(c_out_huge_pad_stride(&ours, o));
    CHECK(o[2] == 1 && o[3] == 1); /* (9 + 2e9 - 3) / (2^31-1) + 1 */
}

static void
test_descriptor_misc(void)
{
    cudnnConvolutionDescriptor_t d;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&d));
    int g = 0;
    CHECK_OK(cudnnGetConvolutionGroupCount(d, &g));
    CHECK(g == 1);
    cudnnMathType_t m;
    CHECK_OK(cudnnGetConvolutionMathType(d, &m));
    CHECK(m == CUDNN_DEFAULT_MATH);
    CHECK_OK(cudnnSetConvolutionMathType(d, CUDNN_TENSOR_OP_MATH));
    CHECK_OK(cudnnGetConvolutionMathType(d, &m));
    CHECK(m == CUDNN_TENSOR_OP_MATH);
    cudnnReorderType_t r;
    CHECK_OK(cudnnGetConvolutionReorderType(d, &r));
    CHECK(r == CUDNN_DEFAULT_REORDER);
    /* Never set: the 2d getter refuses. */
    int a, b, c, e, f, hh;
    cudnnConvolutionMode_t mode;
    cudnnDataType_t t;
    CHECK_STATUS(cudnnGetConvolution2dDescriptor(d, &a, &b, &c, &e, &f, &hh, &mode, &t), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetConvolution2dDescriptor(d, 1, 2, 3, 4, 5, 6, CUDNN_CONVOLUTION, CUDNN_DATA_DOUBLE));
    CHECK_OK(cudnnGetConvolution2dDescriptor(d, &a, &b, &c, &e, &f, &hh, &mode, &t));
    CHECK(a == 1 && b == 2 && c == 3 && e == 4 && f == 5 && hh == 6 && mode == CUDNN_CONVOLUTION &&
          t == CUDNN_DATA_DOUBLE);
    int n = -1, pad[4] = {9, 9, 9, 9}, str[4], dil[4];
    CHECK_OK(cudnnGetConvolutionNdDescriptor(d, 1, &n, pad, str, dil, &mode, &t));
    CHECK(n == 2 && pad[0] == 1 && pad[1] == 9); /* only arrayLengthRequested entries written */
    CHECK_STATUS(cudnnGetConvolutionNdDescriptor(d, -1, &n, pad, str, dil, &mode, &t), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetConvolutionGroupCount(d, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetConvolutionGroupCount(NULL, 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyConvolutionDescriptor(d));
    CHECK_OK(cudnnDestroyConvolutionDescriptor(NULL));

    cudnnFilterDescriptor_t fd;
    CHECK_OK(cudnnCreateFilterDescriptor(&fd));
    size_t bytes = 0;
    CHECK_STATUS(cudnnGetFilterSizeInBytes(fd, &bytes), CUDNN_STATUS_BAD_PARAM); /* never set */
    int dims[5] = {4, 3, 2, 5, 6};
    CHECK_OK(cudnnSetFilterNdDescriptor(fd, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NHWC, 5, dims));
    CHECK_OK(cudnnGetFilterSizeInBytes(fd, &bytes));
    CHECK(bytes == 4 * 3 * 2 * 5 * 6 * 8);
    int nb = 0, got[5] = {0};
    cudnnTensorFormat_t fmt;
    CHECK_OK(cudnnGetFilterNdDescriptor(fd, 5, &t, &fmt, &nb, got));
    CHECK(nb == 5 && t == CUDNN_DATA_DOUBLE && fmt == CUDNN_TENSOR_NHWC && memcmp(got, dims, sizeof(dims)) == 0);
    int k, cc, h, w;
    CHECK_STATUS(cudnnGetFilter4dDescriptor(fd, &t, &fmt, &k, &cc, &h, &w), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 5, 7));
    CHECK_OK(cudnnGetFilter4dDescriptor(fd, &t, &fmt, &k, &cc, &h, &w));
    CHECK(t == CUDNN_DATA_FLOAT && fmt == CUDNN_TENSOR_NCHW && k == 8 && cc == 3 && h == 5 && w == 7);
    CHECK_OK(cudnnDestroyFilterDescriptor(fd));
}

/* A small forward problem with its descriptors and guarded buffers. */
typedef struct fixture {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    float *xb, *wb, *yb;
    size_t xn, wn, yn;
} fixture_t;

static void
fixture_init(fixture_t *f, int n, int c, int h, int wd, int k, int r, int pad)
{
    cudnnCreateTensorDescriptor(&f->x);
    cudnnCreateTensorDescriptor(&f->y);
    cudnnCreateFilterDescriptor(&f->w);
    cudnnCreateConvolutionDescriptor(&f->conv);
    cudnnSetTensor4dDescriptor(f->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, wd);
    cudnnSetFilter4dDescriptor(f->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, r);
    cudnnSetConvolution2dDescriptor(f->conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    int on, oc, oh, ow;
    CHECK_OK(cudnnGetConvolution2dForwardOutputDim(f->conv, f->x, f->w, &on, &oc, &oh, &ow));
    cudnnSetTensor4dDescriptor(f->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow);
    f->xn = (size_t)n * c * h * wd;
    f->wn = (size_t)k * c * r * r;
    f->yn = (size_t)on * oc * oh * ow;
    f->xb = fdnn_guarded_alloc(f->xn * 4);
    f->wb = fdnn_guarded_alloc(f->wn * 4);
    f->yb = fdnn_guarded_alloc(f->yn * 4);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 11);
    for (size_t i = 0; i < f->xn; i++)
        f->xb[i] = (float)fdnn_rng_int(&rng, -3, 3);
    for (size_t i = 0; i < f->wn; i++)
        f->wb[i] = (float)fdnn_rng_int(&rng, -3, 3);
}

static void
fixture_free(fixture_t *f)
{
    cudnnDestroyTensorDescriptor(f->x);
    cudnnDestroyTensorDescriptor(f->y);
    cudnnDestroyFilterDescriptor(f->w);
    cudnnDestroyConvolutionDescriptor(f->conv);
    fdnn_guarded_free(f->xb);
    fdnn_guarded_free(f->wb);
    fdnn_guarded_free(f->yb);
}

static bool
all_nan(const float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            return false;
    return true;
}

static void
test_execution_validation(cudnnHandle_t h)
{
    fixture_t f;
    fixture_init(&f, 2, 3, 6, 5, 4, 3, 1);
    float one = 1, zero = 0;
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, f.x, f.w, f.conv, f.y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                                     &ws));
    CHECK(ws > 0);
    void *wsb = fdnn_guarded_alloc(ws);
    const cudnnConvolutionFwdAlgo_t gemm = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
#define FWD(alpha, xd, xp, wd, wp, conv, algo, wsp, wss, beta, yd, yp) \
    cudnnConvolutionForward(h, alpha, xd, xp, wd, wp, conv, algo, wsp, wss, beta, yd, yp)
    fdnn_poison_f32(f.yb, f.yn);
    CHECK_STATUS(FWD(NULL, f.x, f.xb, f.w, f.wb, f.conv, gemm, wsb, ws, &zero, f.y, f.yb), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(&one, f.x, NULL, f.w, f.wb, f.conv, gemm, wsb, ws, &zero, f.y, f.yb), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, NULL, gemm, wsb, ws, &zero, f.y, f.yb), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, gemm, NULL, ws, &zero, f.y, f.yb), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, gemm, wsb, ws - 1, &zero, f.y, f.yb),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, (cudnnConvolutionFwdAlgo_t)99, wsb, ws, &zero, f.y, f.yb),
                 CUDNN_STATUS_BAD_PARAM);
    /* An algorithm that declines the problem (FFT: dilation 2, same y). */
    cudnnConvolutionDescriptor_t dil2;
    cudnnCreateConvolutionDescriptor(&dil2);
    cudnnSetConvolution2dDescriptor(dil2, 2, 2, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, dil2, CUDNN_CONVOLUTION_FWD_ALGO_FFT, wsb, ws, &zero, f.y, f.yb),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnDestroyConvolutionDescriptor(dil2);
    /* y of the wrong size, channel count, data type. */
    cudnnTensorDescriptor_t bad;
    cudnnCreateTensorDescriptor(&bad);
    cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 5, 5);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, gemm, wsb, ws, &zero, bad, f.yb), CUDNN_STATUS_BAD_PARAM);
    cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 5, 6, 5);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, gemm, wsb, ws, &zero, bad, f.yb), CUDNN_STATUS_BAD_PARAM);
    cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 4, 6, 5);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, f.conv, gemm, wsb, ws, &zero, bad, f.yb), CUDNN_STATUS_BAD_PARAM);
    /* Half data runs (test_conv_lowp), with its FP32 staging buffers in
     * the workspace: the FLOAT size is too small. */
    cudnnTensorDescriptor_t hx, hy;
    cudnnFilterDescriptor_t hw;
    cudnnConvolutionDescriptor_t hc;
    cudnnCreateTensorDescriptor(&hx);
    cudnnCreateTensorDescriptor(&hy);
    cudnnCreateFilterDescriptor(&hw);
    cudnnCreateConvolutionDescriptor(&hc);
    cudnnSetTensor4dDescriptor(hx, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 3, 6, 5);
    cudnnSetTensor4dDescriptor(hy, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 4, 6, 5);
    cudnnSetFilter4dDescriptor(hw, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 4, 3, 3, 3);
    cudnnSetConvolution2dDescriptor(hc, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    CHECK_STATUS(FWD(&one, hx, f.xb, hw, f.wb, hc, gemm, wsb, ws, &zero, hy, f.yb), CUDNN_STATUS_BAD_PARAM);
    /* Float data with a double compute type. */
    cudnnSetConvolution2dDescriptor(hc, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, hc, gemm, wsb, ws, &zero, f.y, f.yb), CUDNN_STATUS_NOT_SUPPORTED);
    /* 3-D conv descriptor on 4-D tensors. */
    int three[3] = {1, 1, 1};
    cudnnSetConvolutionNdDescriptor(hc, 3, three, three, three, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    CHECK_STATUS(FWD(&one, f.x, f.xb, f.w, f.wb, hc, gemm, wsb, ws, &zero, f.y, f.yb), CUDNN_STATUS_BAD_PARAM);
    CHECK(all_nan(f.yb, f.yn)); /* no failing call wrote y */

    /* Backward data / filter with swapped roles. */
    size_t ws2 = 0;
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, f.w, f.y, f.conv, f.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                                          &ws2));
    CHECK_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(h, f.w, f.x, f.conv, f.y,
                                                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws2),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, f.x, f.y, f.conv, f.w,
                                                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, &ws2),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnConvolutionBackwardFilter(h, &one, f.x, f.xb, f.y, f.yb, f.conv,
                                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, NULL, 16, &zero, f.w, f.wb),
                 CUDNN_STATUS_BAD_PARAM);
    int count = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &count));
    CHECK(count == 8);
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &count));
    CHECK(count == 6);
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &count));
    CHECK(count == 7);

    cudnnDestroyTensorDescriptor(bad);
    cudnnDestroyTensorDescriptor(hx);
    cudnnDestroyTensorDescriptor(hy);
    cudnnDestroyFilterDescriptor(hw);
    cudnnDestroyConvolutionDescriptor(hc);
    fdnn_guarded_free(wsb);
    fixture_free(&f);
#undef FWD
}

static void
test_algo_queries(cudnnHandle_t h)
{
    fixture_t f;
    fixture_init(&f, 2, 3, 9, 8, 4, 3, 1);
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int n = 0;
    CHECK_STATUS(cudnnGetConvolutionForwardAlgorithm_v7(h, f.x, f.w, f.conv, f.y, 0, &n, perf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, f.x, f.w, f.conv, f.y, 8, &n, perf));
    CHECK(n == 8);
    bool seen[8] = {false};
    int ok = 0;
    for (int i = 0; i < n; i++) {
        seen[perf[i].algo] = true;
        if (perf[i].status == CUDNN_STATUS_SUCCESS) {
            CHECK(ok == i); /* supported ones first */
            ok++;
            size_t ws = 0;
            CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, f.x, f.w, f.conv, f.y, perf[i].algo, &ws));
            CHECK(ws == perf[i].memory);
        } else {
            CHECK(perf[i].status == CUDNN_STATUS_NOT_SUPPORTED);
        }
    }
    for (int i = 0; i < 8; i++)
        CHECK_MSG(seen[i], "algo %d missing from the _v7 list", i);
    CHECK(ok >= 4);
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, f.x, f.w, f.conv, f.y, 2, &n, perf));
    CHECK(n == 2);

    /* CUDNN_CONV_WSCAP_DBG=0: only algorithms without workspace remain. */
    setenv("CUDNN_CONV_WSCAP_DBG", "0", 1);
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, f.x, f.w, f.conv, f.y, 8, &n, perf));
    for (int i = 0; i < n; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS)
            CHECK(perf[i].memory == 0);
    CHECK(perf[0].status == CUDNN_STATUS_SUCCESS && perf[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
    unsetenv("CUDNN_CONV_WSCAP_DBG");

    /* Find: timed, sorted, successes first. */
    CHECK_OK(cudnnFindConvolutionForwardAlgorithm(h, f.x, f.w, f.conv, f.y, 8, &n, perf));
    CHECK(n == 8);
    for (int i = 0; i + 1 < n; i++) {
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i + 1].status == CUDNN_STATUS_SUCCESS)
            CHECK(perf[i].time <= perf[i + 1].time);
        CHECK(!(perf[i].status != CUDNN_STATUS_SUCCESS && perf[i + 1].status == CUDNN_STATUS_SUCCESS));
    }
    CHECK(perf[0].status == CUDNN_STATUS_SUCCESS && perf[0].time >= 0);

    /* FindEx without workspace: algorithms that need one report ALLOC_FAILED;
     * the others run and leave the correct result in y. */
    float one = 1, zero = 0;
    fdnn_poison_f32(f.yb, f.yn);
    CHECK_OK(cudnnFindConvolutionForwardAlgorithmEx(h, f.x, f.xb, f.w, f.wb, f.conv, f.y, f.yb, 8, &n, perf, NULL,
                                                    0));
    bool direct_ok = false;
    for (int i = 0; i < n; i++) {
        if (perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)
            direct_ok = perf[i].status == CUDNN_STATUS_SUCCESS;
        if (perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM)
            CHECK(perf[i].status == CUDNN_STATUS_ALLOC_FAILED);
    }
    CHECK(direct_ok);
    CHECK(!isnan(f.yb[0]));
    float *want = malloc(f.yn * 4);
    CHECK_OK(cudnnConvolutionForward(h, &one, f.x, f.xb, f.w, f.wb, f.conv, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, NULL,
                                     0, &zero, f.y, want));
    CHECK(memcmp(want, f.yb, f.yn * 4) == 0);
    free(want);

    cudnnConvolutionBwdDataAlgoPerf_t pd[6];
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, f.w, f.y, f.conv, f.x, 6, &n, pd));
    CHECK(n == 6 && pd[0].status == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, f.w, f.y, f.conv, f.x, 6, &n, pd));
    CHECK(n == 6 && pd[0].status == CUDNN_STATUS_SUCCESS);
    cudnnConvolutionBwdFilterAlgoPerf_t pf[7];
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, f.x, f.y, f.conv, f.w, 7, &n, pf));
    CHECK(n == 7 && pf[0].status == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, f.x, f.y, f.conv, f.w, 7, &n, pf));
    CHECK(n == 7 && pf[0].status == CUDNN_STATUS_SUCCESS);
    fixture_free(&f);
}

/* y = act(alpha1 * conv + alpha2 * z + bias) against the reference, with z
 * a separate buffer and z == y. */
static void
test_bias_activation(cudnnHandle_t h)
{
    fixture_t f;
    fixture_init(&f, 2, 3, 7, 6, 4, 3, 1);
    cudnnActivationDescriptor_t act;
    CHECK_OK(cudnnCreateActivationDescriptor(&act));
    cudnnTensorDescriptor_t bd;
    cudnnCreateTensorDescriptor(&bd);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 1, 1);
    float bias[4] = {1, -2, 3, -40};
    float *z = fdnn_guarded_alloc(f.yn * 4);
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 5);
    for (size_t i = 0; i < f.yn; i++)
        z[i] = (float)fdnn_rng_int(&rng, -5, 5);
    /* Reference. */
    fdnn_conv_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n = 2, p.c = 3, p.k = 4, p.g = 1;
    int64_t in[3] = {1, 7, 6}, ker[3] = {1, 3, 3}, pad[3] = {0, 1, 1};
    for (int i = 0; i < 3; i++) {
        p.in[i] = in[i];
        p.ker[i] = ker[i];
        p.pad[i] = pad[i];
        p.stride[i] = p.dil[i] = 1;
        p.out[i] = in[i];
    }
    double *xr = malloc(f.xn * 8), *wr = malloc(f.wn * 8), *yr = malloc(f.yn * 8);
    for (size_t i = 0; i < f.xn; i++)
        xr[i] = f.xb[i];
    for (size_t i = 0; i < f.wn; i++)
        wr[i] = f.wb[i];
    fdnn_ref_conv_fwd(&p, xr, wr, yr);
    size_t osp = f.yn / 8;
    float a1 = 2, a2 = -1;
    for (int relu = 0; relu < 2; relu++) {
        CHECK_OK(cudnnSetActivationDescriptor(act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                              CUDNN_NOT_PROPAGATE_NAN, 0.0));
        for (int algo = 0; algo < 4; algo++) {
            size_t ws = 0;
            CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, f.x, f.w, f.conv, f.y, algo, &ws));
            void *wsb = fdnn_guarded_alloc(ws ? ws : 1);
            for (int inplace = 0; inplace < 2; inplace++) {
                if (inplace)
                    memcpy(f.yb, z, f.yn * 4);
                else
                    fdnn_poison_f32(f.yb, f.yn);
                cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
                    h, &a1, f.x, f.xb, f.w, f.wb, f.conv, algo, wsb, ws, &a2, f.y, inplace ? f.yb : z, bd, bias, act,
                    f.y, f.yb);
                if (!relu && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
                    CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
                    continue;
                }
                CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "bias-act relu %d algo %d: %s", relu, algo,
                          cudnnGetErrorString(st));
                size_t bad = 0;
                for (size_t i = 0; i < f.yn; i++) {
                    double v = a1 * yr[i] + a2 * z[i] + bias[(i / osp) % 4];
                    if (relu && v < 0)
                        v = 0;
                    if (f.yb[i] != (float)v)
                        bad++;
                }
                CHECK_MSG(bad == 0, "bias-act relu %d algo %d inplace %d: %zu wrong", relu, algo, inplace, bad);
            }
            fdnn_guarded_free(wsb);
        }
    }
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(h, &a1, f.x, f.xb, f.w, f.wb, f.conv, 3, NULL, 0, &a2, f.y, z,
                                                       bd, bias, act, f.y, f.yb),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(h, &a1, f.x, f.xb, f.w, f.wb, f.conv, 3, NULL, 0, &a2, f.y, z,
                                                       bd, bias, act, f.y, f.yb),
                 CUDNN_STATUS_BAD_PARAM);
    free(xr);
    free(wr);
    free(yr);
    fdnn_guarded_free(z);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(act);
    fixture_free(&f);
}

/* cudnnIm2Col: the matrix times the packed filter is the convolution. */
static void
test_im2col(cudnnHandle_t h)
{
    for (int mode = 0; mode < 2; mode++) {
        cudnnTensorDescriptor_t xd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        int n = 2, c = 3, hh = 5, ww = 6, k = 4;
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3);
        cudnnSetConvolution2dDescriptor(cd, 1, 1, 2, 1, 1, 2, mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT);
        int on, oc, oh, ow;
        CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
        size_t rows = (size_t)n * oh * ow, cols = (size_t)c * 9;
        float *x = fdnn_guarded_alloc((size_t)n * c * hh * ww * 4), *col = fdnn_guarded_alloc(rows * cols * 4);
        double *xr = malloc(sizeof(double) * n * c * hh * ww), *wr = malloc(sizeof(double) * k * cols),
               *yr = malloc(sizeof(double) * rows * k);
        fdnn_rng_t rng;
        fdnn_rng_seed(&rng, 9);
        for (int i = 0; i < n * c * hh * ww; i++)
            xr[i] = x[i] = (float)fdnn_rng_int(&rng, -3, 3);
        for (size_t i = 0; i < k * cols; i++)
            wr[i] = fdnn_rng_int(&rng, -3, 3);
        fdnn_poison_f32(col, rows * cols);
        CHECK_OK(cudnnIm2Col(h, xd, x, wd, cd, col));
        fdnn_conv_problem_t p;
        memset(&p, 0, sizeof(p));
        p.n = n, p.c = c, p.k = k, p.g = 1, p.flip = mode;
        int64_t in[3] = {1, hh, ww}, ker[3] = {1, 3, 3}, pad[3] = {0, 1, 1}, str[3] = {1, 2, 1}, dil[3] = {1, 1, 2},
                out[3] = {1, oh, ow};
        for (int i = 0; i < 3; i++)
            p.in[i] = in[i], p.ker[i] = ker[i], p.pad[i] = pad[i], p.stride[i] = str[i], p.dil[i] = dil[i],
            p.out[i] = out[i];
        fdnn_ref_conv_fwd(&p, xr, wr, yr);
        size_t bad = 0, osp = (size_t)oh * ow;
        for (size_t r = 0; r < rows; r++)
            for (int kk = 0; kk < k; kk++) {
                double s = 0;
                for (size_t j = 0; j < cols; j++)
                    s += col[r * cols + j] * wr[kk * cols + j];
                size_t nn = r / osp, o = r % osp;
                if (s != yr[(nn * k + kk) * osp + o])
                    bad++;
            }
        CHECK_MSG(bad == 0, "im2col mode %d: %zu products differ from the convolution", mode, bad);
        cudnnSetConvolutionGroupCount(cd, 3);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, 1, 3, 3);
        CHECK_STATUS(cudnnIm2Col(h, xd, x, wd, cd, col), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_STATUS(cudnnIm2Col(h, xd, x, wd, cd, NULL), CUDNN_STATUS_BAD_PARAM);
        fdnn_guarded_free(x);
        fdnn_guarded_free(col);
        free(xr);
        free(wr);
        free(yr);
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
    }
}

/* The backward directions and the FindEx queries check each of their
 * operands by role (inputs, output, alpha, beta, workspace) before
 * anything runs: BAD_PARAM and the output left as it was. */
static void
test_entry_operands(cudnnHandle_t h)
{
    fixture_t f;
    fixture_init(&f, 2, 3, 6, 5, 4, 3, 1);
    float one = 1, zero = 0;
    float *dx = malloc(f.xn * 4), *dw = malloc(f.wn * 4);
    const cudnnConvolutionBwdDataAlgo_t bd = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
    const cudnnConvolutionBwdFilterAlgo_t bf = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
    fdnn_poison_f32(dx, f.xn);
    fdnn_poison_f32(dw, f.wn);
#define BWD_D(alpha, wp, dyp, wsp, wss, beta, dxp) \
    cudnnConvolutionBackwardData(h, alpha, f.w, wp, f.y, dyp, f.conv, bd, wsp, wss, beta, f.x, dxp)
#define BWD_F(alpha, xp, dyp, wsp, wss, beta, dwp) \
    cudnnConvolutionBackwardFilter(h, alpha, f.x, xp, f.y, dyp, f.conv, bf, wsp, wss, beta, f.w, dwp)
    CHECK_STATUS(BWD_D(NULL, f.wb, f.yb, NULL, 0, &zero, dx), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_D(&one, NULL, f.yb, NULL, 0, &zero, dx), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_D(&one, f.wb, NULL, NULL, 0, &zero, dx), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_D(&one, f.wb, f.yb, NULL, 0, NULL, dx), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_D(&one, f.wb, f.yb, NULL, 0, &zero, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_D(&one, f.wb, f.yb, NULL, 16, &zero, dx), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(NULL, f.xb, f.yb, NULL, 0, &zero, dw), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(&one, NULL, f.yb, NULL, 0, &zero, dw), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(&one, f.xb, NULL, NULL, 0, &zero, dw), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(&one, f.xb, f.yb, NULL, 0, NULL, dw), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(&one, f.xb, f.yb, NULL, 0, &zero, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BWD_F(&one, f.xb, f.yb, NULL, 16, &zero, dw), CUDNN_STATUS_BAD_PARAM);
    CHECK(all_nan(dx, f.xn) && all_nan(dw, f.wn));
    /* The roles are right: each call with all operands runs. */
    CHECK_OK(BWD_D(&one, f.wb, f.yb, NULL, 0, &zero, dx));
    CHECK_OK(BWD_F(&one, f.xb, f.yb, NULL, 0, &zero, dw));
    CHECK(!isnan(dx[0]) && !isnan(dw[0]));
#undef BWD_D
#undef BWD_F

    int n = 0;
    cudnnConvolutionFwdAlgoPerf_t pfwd[8];
    cudnnConvolutionBwdDataAlgoPerf_t pd[6];
    cudnnConvolutionBwdFilterAlgoPerf_t pf[7];
    CHECK_STATUS(cudnnFindConvolutionForwardAlgorithmEx(h, f.x, NULL, f.w, f.wb, f.conv, f.y, f.yb, 8, &n, pfwd,
                                                        NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionForwardAlgorithmEx(h, f.x, f.xb, f.w, NULL, f.conv, f.y, f.yb, 8, &n, pfwd,
                                                        NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionForwardAlgorithmEx(h, f.x, f.xb, f.w, f.wb, f.conv, f.y, NULL, 8, &n, pfwd,
                                                        NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardDataAlgorithmEx(h, f.w, NULL, f.y, f.yb, f.conv, f.x, dx, 6, &n, pd,
                                                             NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardDataAlgorithmEx(h, f.w, f.wb, f.y, NULL, f.conv, f.x, dx, 6, &n, pd,
                                                             NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardDataAlgorithmEx(h, f.w, f.wb, f.y, f.yb, f.conv, f.x, NULL, 6, &n, pd,
                                                             NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, f.x, NULL, f.y, f.yb, f.conv, f.w, dw, 7, &n, pf,
                                                               NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, f.x, f.xb, f.y, NULL, f.conv, f.w, dw, 7, &n, pf,
                                                               NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, f.x, f.xb, f.y, f.yb, f.conv, f.w, NULL, 7, &n, pf,
                                                               NULL, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, f.x, f.xb, f.y, f.yb, f.conv, f.w, dw, 7, &n, pf,
                                                               NULL, 64),
                 CUDNN_STATUS_BAD_PARAM);
    /* With every operand, FindEx of each backward direction succeeds. */
    CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, f.w, f.wb, f.y, f.yb, f.conv, f.x, dx, 6, &n, pd, NULL,
                                                         0));
    CHECK(n == 6);
    CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, f.x, f.xb, f.y, f.yb, f.conv, f.w, dw, 7, &n, pf, NULL,
                                                           0));
    CHECK(n == 7);
    free(dx);
    free(dw);
    fixture_free(&f);
}

int
main(void)
{
    test_descriptor_cases();
    test_descriptor_misc();
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    test_execution_validation(h);
    test_algo_queries(h);
    test_entry_operands(h);
    test_bias_activation(h);
    test_im2col(h);
    CHECK_OK(cudnnDestroy(h));
    return fdnn_test_finish("test_conv_api");
}

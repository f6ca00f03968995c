/* SPDX-License-Identifier: Apache-2.0
 * One table of legal (data type, format) pairs for tensor and filter
 * descriptors (docs/descriptors.md), against NVIDIA's cuDNN 9: every data
 * type enumerator (and two outside the enum) with every format, through
 * cudnnSetTensor4dDescriptor, cudnnSetFilter4dDescriptor and
 * cudnnSetFilterNdDescriptor of both libraries; the convolution
 * descriptor's compute type; and the type cudnnDeriveBNTensorDescriptor
 * and cudnnDeriveNormTensorDescriptor give.  The status categories must
 * agree.  The table itself is also checked without cuDNN 9 (skipped
 * comparisons only). */
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

#define SYM9(name) ((__typeof__(&name))fdnn_cudnn9_sym(#name))

static bool have9;

static int
fdnn_vect_of(int dt)
{
    return dt == CUDNN_DATA_INT8x32 ? 32 : dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 ? 4 : 0;
}

static void
check_same(cudnnStatus_t ours, int theirs9, const char *what, int dtype, int format)
{
    if (!have9)
        return;
    cudnnStatus_t theirs = fdnn_cudnn9_category(theirs9);
    CHECK_MSG(ours == theirs, "%s type %d format %d: FreeDNN %s, cuDNN 9 %s (%d)", what, dtype, format,
              cudnnGetErrorString(ours), cudnnGetErrorString(theirs), theirs9);
}

/* C = 32 (a multiple of every vector width) and C = 4 (not of 32). */
static void
test_type_format_pairs(void)
{
    cudnnTensorDescriptor_t t;
    cudnnFilterDescriptor_t f;
    void *t9 = NULL, *f9 = NULL;
    cudnnCreateTensorDescriptor(&t);
    cudnnCreateFilterDescriptor(&f);
    if (have9) {
        SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&t9);
        SYM9(cudnnCreateFilterDescriptor)((cudnnFilterDescriptor_t *)&f9);
    }
    for (int dt = -1; dt <= 19; dt++)
        for (int fmt = 0; fmt <= 3; fmt++)
            for (int ci = 0; ci < 3; ci++) {
                const int c = ci == 0 ? 3 : ci == 1 ? 4 : 32;
                cudnnStatus_t ts = cudnnSetTensor4dDescriptor(t, fmt, dt, 2, c, 3, 3);
                cudnnStatus_t fs = cudnnSetFilter4dDescriptor(f, dt, fmt, 8, c, 3, 3);
                const int dims[5] = {8, c, 3, 3, 3};
                cudnnStatus_t fn = cudnnSetFilterNdDescriptor(f, dt, fmt, 5, dims);
                /* The one table: filters take what tensors take, but INT32. */
                cudnnStatus_t want_fs = dt == CUDNN_DATA_INT32 ? CUDNN_STATUS_BAD_PARAM : ts;
                CHECK_MSG(want_fs == fs, "type %d format %d C %d: tensor %s, filter %s", dt, fmt, c,
                          cudnnGetErrorString(ts), cudnnGetErrorString(fs));
                CHECK_MSG(fs == fn, "type %d format %d C %d: filter 4d %s, Nd %s", dt, fmt, c,
                          cudnnGetErrorString(fs), cudnnGetErrorString(fn));
                if (!have9)
                    continue;
                check_same(ts, SYM9(cudnnSetTensor4dDescriptor)(t9, fmt, dt, 2, c, 3, 3), "tensor 4d", dt, fmt);
                /* Deliberate difference: cuDNN 9 takes an NCHW_VECT_C filter
                 * whose C is not a multiple of the vector width; we refuse
                 * it as for tensors (the vectors would be partial). */
                if (fmt == CUDNN_TENSOR_NCHW_VECT_C && dt >= 0 && dt <= 9 && fdnn_vect_of(dt) != 0 &&
                    c % fdnn_vect_of(dt) != 0)
                    continue;
                check_same(fs, SYM9(cudnnSetFilter4dDescriptor)(f9, dt, fmt, 8, c, 3, 3), c == 3 ? "filter 4d C 3" : c == 4 ? "filter 4d C 4" : "filter 4d C 32", dt, fmt);
                check_same(fn, SYM9(cudnnSetFilterNdDescriptor)(f9, dt, fmt, 5, dims), "filter Nd", dt, fmt);
            }
    /* The legal types, spelled out (a change of the table must be seen). */
    const cudnnDataType_t legal[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,  CUDNN_DATA_INT8,
                                     CUDNN_DATA_INT32, CUDNN_DATA_UINT8,  CUDNN_DATA_BFLOAT16};
    for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
        for (int fmt = 0; fmt <= 1; fmt++) {
            CHECK_OK(cudnnSetTensor4dDescriptor(t, fmt, legal[i], 2, 4, 3, 3));
            CHECK_STATUS(cudnnSetFilter4dDescriptor(f, legal[i], fmt, 8, 4, 3, 3),
                         legal[i] == CUDNN_DATA_INT32 ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS);
        }
    CHECK_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW, 8, 4, 3, 3));
    CHECK_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NHWC, 8, 4, 3, 3));
    CHECK_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_UINT8x4, CUDNN_TENSOR_NCHW_VECT_C, 8, 4, 3, 3));
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT64, CUDNN_TENSOR_NCHW, 8, 4, 3, 3),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_BOOLEAN, CUDNN_TENSOR_NCHW, 8, 4, 3, 3),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FP8_E4M3, CUDNN_TENSOR_NHWC, 8, 4, 3, 3),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 8, 4, 3, 3),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyFilterDescriptor(f);
    if (have9) {
        SYM9(cudnnDestroyTensorDescriptor)(t9);
        SYM9(cudnnDestroyFilterDescriptor)(f9);
    }
}

static void
test_conv_compute_type(void)
{
    cudnnConvolutionDescriptor_t c;
    void *c9 = NULL;
    cudnnCreateConvolutionDescriptor(&c);
    if (have9)
        SYM9(cudnnCreateConvolutionDescriptor)((cudnnConvolutionDescriptor_t *)&c9);
    for (int dt = -1; dt <= 19; dt++) {
        cudnnStatus_t s = cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, dt);
        const int pad[3] = {1, 1, 1}, one[3] = {1, 1, 1};
        cudnnStatus_t n = cudnnSetConvolutionNdDescriptor(c, 3, pad, one, one, CUDNN_CROSS_CORRELATION, dt);
        CHECK_MSG(s == n, "compute type %d: 2d %s, Nd %s", dt, cudnnGetErrorString(s), cudnnGetErrorString(n));
        if (have9) {
            check_same(s, SYM9(cudnnSetConvolution2dDescriptor)(c9, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, dt),
                       "conv 2d compute", dt, 0);
            check_same(n, SYM9(cudnnSetConvolutionNdDescriptor)(c9, 3, pad, one, one, CUDNN_CROSS_CORRELATION, dt),
                       "conv Nd compute", dt, 0);
        }
    }
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32));
    CHECK_STATUS(cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT8x4),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyConvolutionDescriptor(c);
    if (have9)
        SYM9(cudnnDestroyConvolutionDescriptor)(c9);
}

/* The derived descriptor keeps x's type except HALF, BFLOAT16 and INT8
 * (FLOAT parameters); compared with cuDNN 9 type for type. */
static void
test_derive_type(void)
{
    cudnnTensorDescriptor_t x, d;
    void *x9 = NULL, *d9 = NULL;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&d);
    if (have9) {
        SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&x9);
        SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&d9);
    }
    const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                     CUDNN_DATA_INT8,  CUDNN_DATA_UINT8,  CUDNN_DATA_INT32, CUDNN_DATA_INT8x4,
                                     CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, types[i], 2, 4, 3, 3));
        cudnnStatus_t s = cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL);
        cudnnDataType_t got = (cudnnDataType_t)-1, want = types[i];
        int nd = 0, dims[4], strides[4];
        if (s == CUDNN_STATUS_SUCCESS)
            cudnnGetTensorNdDescriptor(d, 4, &got, &nd, dims, strides);
        if (want == CUDNN_DATA_HALF || want == CUDNN_DATA_BFLOAT16 || want == CUDNN_DATA_INT8)
            want = CUDNN_DATA_FLOAT;
        CHECK_MSG(s == CUDNN_STATUS_SUCCESS && got == want, "derive from %d: %s, type %d, expected %d", types[i],
                  cudnnGetErrorString(s), got, want);
        if (!have9)
            continue;
        SYM9(cudnnSetTensor4dDescriptor)(x9, CUDNN_TENSOR_NCHW, types[i], 2, 4, 3, 3);
        int s9 = SYM9(cudnnDeriveBNTensorDescriptor)(d9, x9, CUDNN_BATCHNORM_SPATIAL);
        check_same(s, s9, "derive BN", types[i], 0);
        if (s == CUDNN_STATUS_SUCCESS && s9 == 0) {
            cudnnDataType_t got9 = (cudnnDataType_t)-1;
            SYM9(cudnnGetTensorNdDescriptor)(d9, 4, &got9, &nd, dims, strides);
            CHECK_MSG(got == got9, "derive from %d: type %d, cuDNN 9 %d", types[i], got, got9);
        }
    }
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(d);
    if (have9) {
        SYM9(cudnnDestroyTensorDescriptor)(x9);
        SYM9(cudnnDestroyTensorDescriptor)(d9);
    }
}

int
main(void)
{
    have9 = fdnn_cudnn9_sym("cudnnSetFilter4dDescriptor") != NULL;
    if (!have9)
        printf("cuDNN 9 not found: only our own table is checked\n");
    test_type_format_pairs();
    test_conv_compute_type();
    test_derive_type();
    return fdnn_test_finish("test_desc_types_cudnn9");
}

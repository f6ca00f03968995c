/* SPDX-License-Identifier: Apache-2.0
 * The tensor, op-tensor, reduce-tensor and tensor-transform descriptor
 * functions against NVIDIA's cuDNN 9 (whose descriptor functions run without
 * a GPU): many random and edge-case parameter sets, good and bad, through
 * both libraries; the status categories must agree and, on success, so must
 * everything the Get functions report.  Skipped when cuDNN 9 is absent.
 *
 * Deliberate differences (docs/tensor-ops.md) are checked on our side only:
 * negative strides (9 accepts them, we refuse), Get on a never-set
 * descriptor (9 returns success without writing), a transform format or
 * direction outside the enum (9 takes some), cudnnSetTensorNdDescriptorEx
 * with NHWC and 2 dims (9 reports an uninitialised stride). */
#include <limits.h>
#include <string.h>

#include "cudnn9.h"
#include "testutil.h"

/* cuDNN 9's function `name`, typed as our (8.9) declaration of it. */
#define SYM9(name) ((__typeof__(&name))fdnn_cudnn9_sym(#name))

static fdnn_rng_t rng;
static int compared, differed;

static void
check_same(cudnnStatus_t ours, int theirs9, const char *what)
{
    cudnnStatus_t theirs = fdnn_cudnn9_category(theirs9);
    compared++;
    if (ours != theirs)
        differed++;
    CHECK_MSG(ours == theirs, "%s: FreeDNN %s, cuDNN 9 %s (%d)", what, cudnnGetErrorString(ours),
              cudnnGetErrorString(theirs), theirs9);
}

static int
pick(const int *values, int n)
{
    return values[fdnn_rng_int(&rng, 0, n - 1)];
}

static const int edge_dims[] = {-1, 0, 1, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64, 1000, 65536, INT_MAX};
static const int edge_nbdims[] = {-1, 0, 1, 2, 3, 4, 4, 4, 5, 6, 8, 9};
static const int edge_dtypes[] = {-1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 99};
static const int edge_formats[] = {-1, 0, 0, 1, 1, 2, 2, 3};

/* Compares the two descriptors after both Sets succeeded: GetNd, Get4d and
 * the size in bytes. */
static void
compare_tensor(cudnnTensorDescriptor_t ours, void *theirs, bool skip_strides, const char *what)
{
    cudnnDataType_t t1 = 0, t2 = 0;
    int n1 = 0, n2 = 0, d1[CUDNN_DIM_MAX] = {0}, d2[CUDNN_DIM_MAX] = {0}, s1[CUDNN_DIM_MAX] = {0},
        s2[CUDNN_DIM_MAX] = {0};
    check_same(cudnnGetTensorNdDescriptor(ours, CUDNN_DIM_MAX, &t1, &n1, d1, s1),
               SYM9(cudnnGetTensorNdDescriptor)(theirs, CUDNN_DIM_MAX, &t2, &n2, d2, s2), what);
    CHECK_MSG(t1 == t2 && n1 == n2, "%s: GetNd type %d/%d nbDims %d/%d", what, t1, t2, n1, n2);
    for (int i = 0; i < n1 && i < CUDNN_DIM_MAX; i++) {
        CHECK_MSG(d1[i] == d2[i], "%s: dim %d is %d, cuDNN 9 %d", what, i, d1[i], d2[i]);
        if (!skip_strides)
            CHECK_MSG(s1[i] == s2[i], "%s: stride %d is %d, cuDNN 9 %d", what, i, s1[i], s2[i]);
    }
    if (!skip_strides) {
        size_t z1 = 1, z2 = 2;
        check_same(cudnnGetTensorSizeInBytes(ours, &z1), SYM9(cudnnGetTensorSizeInBytes)(theirs, &z2), what);
        CHECK_MSG(z1 == z2, "%s: size %zu bytes, cuDNN 9 %zu", what, z1, z2);
    }
    int a[8], b[8];
    cudnnDataType_t ta, tb;
    cudnnStatus_t s = cudnnGetTensor4dDescriptor(ours, &ta, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7]);
    if (n1 >= 4) { /* cuDNN 9 reads past a shorter descriptor's dims */
        check_same(s, SYM9(cudnnGetTensor4dDescriptor)(theirs, &tb, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                                                       &b[7]),
                   what);
        if (s == CUDNN_STATUS_SUCCESS)
            CHECK_MSG(memcmp(a, b, skip_strides ? 16 : sizeof(a)) == 0, "%s: Get4d differs", what);
    }
}

static void
test_tensor_sets(void)
{
    cudnnTensorDescriptor_t ours;
    void *theirs;
    CHECK_OK(cudnnCreateTensorDescriptor(&ours));
    CHECK(SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&theirs) == 0);
    char what[200];
    for (int iter = 0; iter < 3000; iter++) {
        int kind = iter % 4; /* 4d, 4dEx, Nd, NdEx */
        int nb = kind < 2 ? 4 : pick(edge_nbdims, (int)(sizeof(edge_nbdims) / sizeof(int)));
        int dtype = pick(edge_dtypes, (int)(sizeof(edge_dtypes) / sizeof(int)));
        int format = pick(edge_formats, (int)(sizeof(edge_formats) / sizeof(int)));
        int dims[16], strides[16];
        /* mostly sane dims with an edge value now and then */
        for (int i = 0; i < 16; i++)
            dims[i] = fdnn_rng_int(&rng, 0, 5) == 0 ? pick(edge_dims, (int)(sizeof(edge_dims) / sizeof(int)))
                                                     : fdnn_rng_int(&rng, 1, 9);
        if (format == 2 && fdnn_rng_int(&rng, 0, 1))
            dims[1] = 4 * fdnn_rng_int(&rng, 1, 16); /* a multiple of the vector width, often */
        /* packed strides in a random dim order, sometimes broken */
        int64_t s = 1;
        int nbs = nb > 0 && nb <= 16 ? nb : 4;
        for (int i = nbs - 1; i >= 0; i--) {
            strides[i] = (int)(s > INT_MAX ? INT_MAX : s);
            s = s > INT_MAX ? s : s * (dims[i] > 0 ? dims[i] : 1); /* stays below 2^62 */
        }
        int mode = fdnn_rng_int(&rng, 0, 7);
        bool negative = false;
        if (mode == 0) {
            strides[fdnn_rng_int(&rng, 0, nbs - 1)] = 0;
        } else if (mode == 1) {
            int i = fdnn_rng_int(&rng, 0, nbs - 1);
            strides[i] = -1;
            negative = dims[i] > 1; /* the stride of an extent-1 dim is never used */
        } else if (mode == 2) { /* overlapping or permuted strides */
            for (int i = 0; i < nbs; i++)
                strides[i] = fdnn_rng_int(&rng, 1, 40);
        } else if (mode == 3) {
            strides[0] = fdnn_rng_int(&rng, 0, 1) ? INT_MAX : 1 << 30;
        }
        cudnnStatus_t st;
        int st9;
        switch (kind) {
        case 0:
            st = cudnnSetTensor4dDescriptor(ours, format, dtype, dims[0], dims[1], dims[2], dims[3]);
            st9 = SYM9(cudnnSetTensor4dDescriptor)(theirs, format, dtype, dims[0], dims[1], dims[2], dims[3]);
            break;
        case 1:
            st = cudnnSetTensor4dDescriptorEx(ours, dtype, dims[0], dims[1], dims[2], dims[3], strides[0], strides[1],
                                              strides[2], strides[3]);
            st9 = SYM9(cudnnSetTensor4dDescriptorEx)(theirs, dtype, dims[0], dims[1], dims[2], dims[3], strides[0],
                                                     strides[1], strides[2], strides[3]);
            break;
        case 2:
            st = cudnnSetTensorNdDescriptor(ours, dtype, nb, dims, strides);
            st9 = SYM9(cudnnSetTensorNdDescriptor)(theirs, dtype, nb, dims, strides);
            break;
        default:
            st = cudnnSetTensorNdDescriptorEx(ours, format, dtype, nb, dims);
            st9 = SYM9(cudnnSetTensorNdDescriptorEx)(theirs, format, dtype, nb, dims);
            break;
        }
        snprintf(what, sizeof(what), "iter %d set%s nb %d type %d format %d dims %d,%d,%d,%d strides %d,%d,%d,%d",
                 iter, (const char *[]){"4d", "4dEx", "Nd", "NdEx"}[kind], nb, dtype, format, dims[0], dims[1],
                 dims[2], dims[3], strides[0], strides[1], strides[2], strides[3]);
        if (negative && (kind == 1 || kind == 2) && fdnn_cudnn9_category(st9) != CUDNN_STATUS_BAD_PARAM) {
            CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM || st == fdnn_cudnn9_category(st9), "%s: negative stride accepted",
                      what);
            continue;
        }
        /* NHWC with 2 dims: cuDNN 9 reads an uninitialised stride (success
         * or NOT_SUPPORTED at random); we lay it out as NCHW. */
        if (kind == 3 && format == CUDNN_TENSOR_NHWC && nb == 2 && dtype >= 0 && dtype <= 9)
            continue;
        /* cuDNN 9 takes NCHW_VECT_C with plain types in NdEx (as vectors
         * of 4); we refuse it */
        bool vector_type = dtype == CUDNN_DATA_INT8x4 || dtype == CUDNN_DATA_UINT8x4 || dtype == CUDNN_DATA_INT8x32;
        if (kind == 3 && format == CUDNN_TENSOR_NCHW_VECT_C && !vector_type && dtype >= 0 && dtype <= 9 && nb >= 2 &&
            fdnn_cudnn9_category(st9) != CUDNN_STATUS_BAD_PARAM) {
            CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM, "%s: NCHW_VECT_C with a plain type accepted", what);
            continue;
        }
        check_same(st, st9, what);
        if (st == CUDNN_STATUS_SUCCESS && fdnn_cudnn9_category(st9) == CUDNN_STATUS_SUCCESS)
            compare_tensor(ours, theirs, false, what);
    }
    cudnnDestroyTensorDescriptor(ours);
    SYM9(cudnnDestroyTensorDescriptor)(theirs);
}

static void
test_op_reduce_sets(void)
{
    cudnnOpTensorDescriptor_t op;
    void *op9;
    cudnnReduceTensorDescriptor_t rd;
    void *rd9;
    cudnnCreateOpTensorDescriptor(&op);
    SYM9(cudnnCreateOpTensorDescriptor)((cudnnOpTensorDescriptor_t *)&op9);
    cudnnCreateReduceTensorDescriptor(&rd);
    SYM9(cudnnCreateReduceTensorDescriptor)((cudnnReduceTensorDescriptor_t *)&rd9);
    char what[160];
    for (int o = -1; o <= 9; o++)
        for (int t = -1; t <= 16; t++)
            for (int nan = -1; nan <= 2; nan++) {
                snprintf(what, sizeof(what), "SetOpTensor op %d type %d nan %d", o, t, nan);
                cudnnStatus_t st = cudnnSetOpTensorDescriptor(op, o, t, nan);
                check_same(st, SYM9(cudnnSetOpTensorDescriptor)(op9, o, t, nan), what);
                if (st == CUDNN_STATUS_SUCCESS) {
                    int a[3], b[3];
                    check_same(cudnnGetOpTensorDescriptor(op, (void *)&a[0], (void *)&a[1], (void *)&a[2]),
                               SYM9(cudnnGetOpTensorDescriptor)(op9, (void *)&b[0], (void *)&b[1], (void *)&b[2]),
                               what);
                    CHECK_MSG(memcmp(a, b, sizeof(a)) == 0, "%s: Get differs", what);
                }
            }
    for (int o = -1; o <= 9; o++)
        for (int t = -1; t <= 16; t++)
            for (int k = 0; k < 6; k++) {
                int nan = fdnn_rng_int(&rng, -1, 2), ind = fdnn_rng_int(&rng, -1, 2), it = fdnn_rng_int(&rng, -1, 4);
                snprintf(what, sizeof(what), "SetReduceTensor op %d type %d nan %d indices %d itype %d", o, t, nan, ind,
                         it);
                cudnnStatus_t st = cudnnSetReduceTensorDescriptor(rd, o, t, nan, ind, it);
                check_same(st, SYM9(cudnnSetReduceTensorDescriptor)(rd9, o, t, nan, ind, it), what);
                if (st == CUDNN_STATUS_SUCCESS) {
                    int a[5], b[5];
                    check_same(cudnnGetReduceTensorDescriptor(rd, (void *)&a[0], (void *)&a[1], (void *)&a[2],
                                                              (void *)&a[3], (void *)&a[4]),
                               SYM9(cudnnGetReduceTensorDescriptor)(rd9, (void *)&b[0], (void *)&b[1], (void *)&b[2],
                                                                    (void *)&b[3], (void *)&b[4]),
                               what);
                    CHECK_MSG(memcmp(a, b, sizeof(a)) == 0, "%s: Get differs", what);
                }
            }
    check_same(cudnnDestroyOpTensorDescriptor(NULL), SYM9(cudnnDestroyOpTensorDescriptor)(NULL), "destroy NULL op");
    check_same(cudnnDestroyReduceTensorDescriptor(NULL), SYM9(cudnnDestroyReduceTensorDescriptor)(NULL),
               "destroy NULL reduce");
    cudnnDestroyOpTensorDescriptor(op);
    SYM9(cudnnDestroyOpTensorDescriptor)(op9);
    cudnnDestroyReduceTensorDescriptor(rd);
    SYM9(cudnnDestroyReduceTensorDescriptor)(rd9);
}

static void
test_transform_sets(void)
{
    cudnnTensorTransformDescriptor_t tr;
    void *tr9;
    cudnnCreateTensorTransformDescriptor(&tr);
    SYM9(cudnnCreateTensorTransformDescriptor)((cudnnTensorTransformDescriptor_t *)&tr9);
    cudnnTensorDescriptor_t src, dst;
    void *src9, *dst9;
    cudnnCreateTensorDescriptor(&src);
    cudnnCreateTensorDescriptor(&dst);
    SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&src9);
    SYM9(cudnnCreateTensorDescriptor)((cudnnTensorDescriptor_t *)&dst9);
    char what[200];
    for (int iter = 0; iter < 600; iter++) {
        static const int nbs[] = {0, 1, 2, 3, 4, 4, 4, 5, 6, 8, 9};
        int nb = pick(nbs, (int)(sizeof(nbs) / sizeof(int)));
        int format = fdnn_rng_int(&rng, 0, 3);                 /* 3 is outside the enum */
        int dir = fdnn_rng_int(&rng, 0, 1);
        int32_t pb[16], pa[16];
        uint32_t fold[16];
        for (int i = 0; i < 16; i++) {
            /* negative pads crop */
            pb[i] = fdnn_rng_int(&rng, 0, 3) == 0 ? fdnn_rng_int(&rng, -3, 3) : 0;
            pa[i] = fdnn_rng_int(&rng, 0, 3) == 0 ? fdnn_rng_int(&rng, -3, 3) : 0;
            fold[i] = fdnn_rng_int(&rng, 0, 3) == 0 ? (uint32_t)fdnn_rng_int(&rng, 1, 3) : 1;
        }
        bool null_pads = fdnn_rng_int(&rng, 0, 5) == 0, null_fold = fdnn_rng_int(&rng, 0, 5) == 0;
        snprintf(what, sizeof(what), "iter %d SetTensorTransform nb %d format %d dir %d", iter, nb, format, dir);
        cudnnStatus_t st = cudnnSetTensorTransformDescriptor(tr, (uint32_t)nb, format, null_pads ? NULL : pb,
                                                             null_pads ? NULL : pa, null_fold ? NULL : fold, dir);
        check_same(st,
                   SYM9(cudnnSetTensorTransformDescriptor)(tr9, (uint32_t)nb, format, null_pads ? NULL : pb,
                                                           null_pads ? NULL : pa, null_fold ? NULL : fold, dir),
                   what);
        if (st != CUDNN_STATUS_SUCCESS)
            continue;
        int32_t gb1[16], ga1[16], gb2[16], ga2[16];
        uint32_t gf1[16], gf2[16];
        int f1 = 0, f2 = 0, d1 = 0, d2 = 0;
        memset(gb1, 0, sizeof(gb1));
        memset(ga1, 0, sizeof(ga1));
        memset(gf1, 0, sizeof(gf1));
        memset(gb2, 0, sizeof(gb2));
        memset(ga2, 0, sizeof(ga2));
        memset(gf2, 0, sizeof(gf2));
        uint32_t req = (uint32_t)fdnn_rng_int(&rng, 0, 9);
        snprintf(what, sizeof(what), "iter %d GetTensorTransform nb %d requested %u", iter, nb, req);
        check_same(cudnnGetTensorTransformDescriptor(tr, req, (void *)&f1, gb1, ga1, gf1, (void *)&d1),
                   SYM9(cudnnGetTensorTransformDescriptor)(tr9, req, (void *)&f2, gb2, ga2, gf2, (void *)&d2), what);
        CHECK_MSG(f1 == f2 && d1 == d2, "%s: Get format/direction differ", what);
        /* Only the descriptor's own dims are defined: past nbDims cuDNN 9
         * reports whatever an earlier Set left there, and it leaves the
         * arrays alone when given NULL (we store no padding, no folding). */
        size_t own = req < (uint32_t)nb ? req : (uint32_t)nb;
        if (!null_pads)
            CHECK_MSG(memcmp(gb1, gb2, own * 4) == 0 && memcmp(ga1, ga2, own * 4) == 0, "%s: Get pads differ", what);
        if (!null_fold && own > 2)
            CHECK_MSG(memcmp(gf1, gf2, (own - 2) * 4) == 0, "%s: Get folds differ", what);
        /* cudnnInitTransformDest from a source of the same rank (with NULL
         * arrays the two descriptors hold different values: see above) */
        if (null_pads || null_fold)
            continue;
        int dims[8];
        for (int i = 0; i < nb; i++)
            dims[i] = fdnn_rng_int(&rng, 1, 9);
        if (format == CUDNN_TENSOR_NCHW_VECT_C)
            continue; /* needs vector types; the tensor tests cover those */
        int dtype = fdnn_rng_int(&rng, 0, 2);
        CHECK_OK(cudnnSetTensorNdDescriptorEx(src, CUDNN_TENSOR_NCHW, dtype, nb, dims));
        SYM9(cudnnSetTensorNdDescriptorEx)(src9, CUDNN_TENSOR_NCHW, dtype, nb, dims);
        size_t z1 = 0, z2 = 0;
        st = cudnnInitTransformDest(tr, src, dst, &z1);
        snprintf(what, sizeof(what), "iter %d InitTransformDest nb %d format %d dir %d dims %d,%d,%d,%d pads %d,%d,%d,%d / %d,%d,%d,%d folds %u,%u", iter, nb, format, dir, dims[0], dims[1], dims[2], dims[3], pb[0], pb[1], pb[2], pb[3], pa[0], pa[1], pa[2], pa[3], fold[0], fold[1]);
        check_same(st, SYM9(cudnnInitTransformDest)(tr9, src9, dst9, &z2), what);
        if (st == CUDNN_STATUS_SUCCESS) {
            CHECK_MSG(z1 == z2, "%s: size %zu, cuDNN 9 %zu", what, z1, z2);
            compare_tensor(dst, dst9, format == CUDNN_TENSOR_NHWC && nb == 2, what);
        }
    }
    check_same(cudnnDestroyTensorTransformDescriptor(NULL), SYM9(cudnnDestroyTensorTransformDescriptor)(NULL),
               "destroy NULL transform");
    cudnnDestroyTensorTransformDescriptor(tr);
    SYM9(cudnnDestroyTensorTransformDescriptor)(tr9);
    cudnnDestroyTensorDescriptor(src);
    cudnnDestroyTensorDescriptor(dst);
    SYM9(cudnnDestroyTensorDescriptor)(src9);
    SYM9(cudnnDestroyTensorDescriptor)(dst9);
}

/* Our side of the deliberate differences. */
static void
test_known_differences(void)
{
    cudnnOpTensorDescriptor_t op;
    cudnnCreateOpTensorDescriptor(&op);
    int a[3];
    CHECK_STATUS(cudnnGetOpTensorDescriptor(op, (void *)&a[0], (void *)&a[1], (void *)&a[2]), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyOpTensorDescriptor(op);
    cudnnTensorTransformDescriptor_t tr;
    cudnnCreateTensorTransformDescriptor(&tr);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(tr, 4, (cudnnTensorFormat_t)-1, NULL, NULL, NULL, 0),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, NULL,
                                                   (cudnnFoldingDirection_t)2),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorTransformDescriptor(tr);
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    int dims[2] = {3, 5}, dt, nb, d[2], s[2];
    CHECK_OK(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, dims));
    CHECK_OK(cudnnGetTensorNdDescriptor(t, 2, (void *)&dt, &nb, d, s));
    CHECK(s[0] == 5 && s[1] == 1);
    cudnnDestroyTensorDescriptor(t);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 0xc0ffee9);
    test_known_differences();
    if (fdnn_cudnn9_sym("cudnnCreateTensorDescriptor") == NULL) {
        printf("cuDNN 9 not found: cross-check skipped\n");
        return fdnn_test_finish("test_tensor_desc_cudnn9");
    }
    test_tensor_sets();
    test_op_reduce_sets();
    test_transform_sets();
    printf("compared %d calls with cuDNN 9, %d differed\n", compared, differed);
    return fdnn_test_finish("test_tensor_desc_cudnn9");
}

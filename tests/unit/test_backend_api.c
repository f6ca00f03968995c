/* SPDX-License-Identifier: Apache-2.0
 * The backend API's descriptors: creation of all 34 types, every class of
 * bad attribute with its status and a reason that names the descriptor type
 * and the attribute, count queries, set-then-get round trips for every
 * descriptor type a caller finalizes, tensor and operation shape rules,
 * operation-graph rules (UIDs, cycles, virtual tensors). */
#include <math.h>
#include <string.h>

#include "core/fail.h"
#include "core/graph_ir.h"
#include "test_backend_build.h"

static char saved_reason[1024];

static void
save_reason(void)
{
    snprintf(saved_reason, sizeof(saved_reason), "%s", fdnn_fail_reason());
}

static bool
reason_in(const char *r, const char *a, const char *b)
{
    bool ok = strstr(r, a) != NULL && (b == NULL || strstr(r, b) != NULL);
    if (!ok)
        fprintf(stderr, "  reason was: %s\n", r);
    return ok;
}

static bool
reason_has(const char *a, const char *b)
{
    return reason_in(fdnn_fail_reason(), a, b);
}

static bool
saved_has(const char *a, const char *b)
{
    return reason_in(saved_reason, a, b);
}

static void
test_create_all_types(void)
{
    for (int t = 0; t < 34; t++) {
        bd_t d = NULL;
        CHECK_OK(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)t, &d));
        CHECK(d != NULL);
        CHECK_OK(cudnnBackendInitialize(d));
        CHECK_OK(cudnnBackendDestroyDescriptor(d));
    }
    bd_t d = NULL;
    CHECK_STATUS(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)34, &d), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendDestroyDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendFinalize(NULL), CUDNN_STATUS_BAD_PARAM);
}

static void
test_bad_attributes(void)
{
    bd_t t = be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t dims[9] = {1, 2, 3, 4, 1, 1, 1, 1, 1};
    int dt = CUDNN_DATA_FLOAT;
    /* wrong element type */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_TENSOR_DATA_TYPE", "CUDNN_BACKEND_TENSOR_DESCRIPTOR"));
    /* counts out of bounds */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 9, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_TENSOR_DIMENSIONS", "9"));
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 2, &dt),
                 CUDNN_STATUS_BAD_PARAM);
    /* NULL elements */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* an attribute of another descriptor type */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_CONVOLUTION_COMP_TYPE", "CUDNN_BACKEND_TENSOR_DESCRIPTOR"));
    /* not an attribute type at all */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, (cudnnBackendAttributeType_t)99, 1, &dt),
                 CUDNN_STATUS_BAD_PARAM);
    /* a computed attribute */
    bd_t g = be_create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT", "computed"));
    /* a descriptor of the wrong type as an element */
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATIONGRAPH_OPS", "an operation"));
    void *junk[1] = {dims};
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, junk),
                 CUDNN_STATUS_BAD_PARAM);
    /* a handle that is none */
    cudnnHandle_t bogus = (cudnnHandle_t)dims;
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &bogus),
                 CUDNN_STATUS_BAD_PARAM);
    /* get before finalize */
    int64_t n = 0;
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &n, NULL),
                 CUDNN_STATUS_NOT_INITIALIZED);
    /* finalize without a required attribute */
    CHECK_STATUS(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_TENSOR_", "required"));
    cudnnBackendDestroyDescriptor(t);
    cudnnBackendDestroyDescriptor(g);

    /* set after finalize, finalize twice */
    int64_t d4[4] = {1, 2, 3, 4};
    t = be_tensor(1, 4, d4, false);
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, d4),
                 CUDNN_STATUS_NOT_INITIALIZED);
    CHECK(reason_has("finalized", "CUDNN_ATTR_TENSOR_UNIQUE_ID"));
    CHECK_STATUS(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);
    /* get with wrong type, negative count, NULL array */
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, 4, &n, d4),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, &n, d4),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &n, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &n, d4),
                 CUDNN_STATUS_BAD_PARAM);

    /* a non-finalized tensor given to an operation: NOT_INITIALIZED at the
     * operation's finalize, and the operation stays usable */
    bd_t raw = be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    bd_t pw = be_pw_desc(CUDNN_POINTWISE_RELU_FWD);
    bd_t y = be_tensor(2, 4, d4, false);
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &pw));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &raw));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CHECK_STATUS(cudnnBackendFinalize(op), CUDNN_STATUS_NOT_INITIALIZED);
    CHECK(reason_has("CUDNN_ATTR_OPERATION_POINTWISE_XDESC", "not finalized"));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t));
    CHECK_OK(cudnnBackendFinalize(op));
    /* the operation owns copies: destroying what it was given is fine */
    cudnnBackendDestroyDescriptor(raw);
    cudnnBackendDestroyDescriptor(pw);
    cudnnBackendDestroyDescriptor(y);
    bd_t got = be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    CHECK_OK(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                      &got));
    int64_t uid = 0;
    CHECK_OK(cudnnBackendGetAttribute(got, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &n, &uid));
    CHECK(uid == 2);
    /* a descriptor of the wrong type to fill */
    bd_t wrong = be_create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    CHECK_STATUS(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &n, &wrong),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(wrong);
    cudnnBackendDestroyDescriptor(got);
    cudnnBackendDestroyDescriptor(op);
    cudnnBackendDestroyDescriptor(t);
}

static void
test_count_query(void)
{
    int64_t d5[5] = {2, 3, 4, 5, 6};
    bd_t t = be_tensor(7, 5, d5, false);
    int64_t n = -1, got[5] = {0};
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &n, NULL));
    CHECK(n == 5);
    /* fewer requested than there are: that many written, the count is all */
    got[2] = -7;
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &n, got));
    CHECK(n == 5 && got[0] == 2 && got[1] == 3 && got[2] == -7);
    /* an attribute never set: count 0 */
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &n, got));
    CHECK(n == 0);
    cudnnBackendDestroyDescriptor(t);
}

static void
test_tensor_rules(void)
{
    int64_t d4[4] = {2, 3, 4, 5}, s4[4] = {60, 20, 5, 1};
    struct {
        const char *what;
        int nd, ns;
        int64_t dim0, stride0, align;
        bool virt, byval;
        int dt;
        cudnnStatus_t want;
    } cases[] = {
        {"ok", 4, 4, 2, 60, 16, false, false, CUDNN_DATA_FLOAT, CUDNN_STATUS_SUCCESS},
        {"fp8 storage", 4, 4, 2, 60, 16, false, false, CUDNN_DATA_FP8_E4M3, CUDNN_STATUS_SUCCESS},
        {"strides count", 4, 3, 2, 60, 16, false, false, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"zero dim", 4, 4, 0, 60, 16, false, false, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"negative stride", 4, 4, 2, -1, 16, false, false, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"alignment 3", 4, 4, 2, 60, 3, false, false, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"virtual by value", 4, 4, 2, 60, 16, true, true, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"by value not scalar", 4, 4, 2, 60, 16, false, true, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {"bad type", 4, 4, 2, 60, 16, false, false, 77, CUDNN_STATUS_BAD_PARAM},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t d[4], s[4];
        memcpy(d, d4, sizeof(d)), memcpy(s, s4, sizeof(s));
        d[0] = cases[i].dim0, s[0] = cases[i].stride0;
        bd_t t = be_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cases[i].dt));
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, cases[i].nd, d));
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, cases[i].ns, s));
        int64_t uid = 5;
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &cases[i].align));
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &cases[i].virt));
        CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &cases[i].byval));
        cudnnStatus_t st = cudnnBackendFinalize(t);
        CHECK_MSG(st == cases[i].want, "tensor case %s: %s", cases[i].what, cudnnGetErrorString(st));
        if (st != CUDNN_STATUS_SUCCESS)
            CHECK(reason_has("CUDNN_BACKEND_TENSOR_DESCRIPTOR", "CUDNN_ATTR_TENSOR_"));
        cudnnBackendDestroyDescriptor(t);
    }
    /* 8-D is the limit */
    int64_t d8[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    bd_t t8 = be_tensor(9, 8, d8, false);
    cudnnBackendDestroyDescriptor(t8);
}

static cudnnStatus_t
conv_status(int64_t out_h)
{
    int64_t xd[4] = {2, 4, 8, 8}, wd[4] = {6, 4, 3, 3}, yd[4] = {2, 6, out_h, 8};
    bd_t x = be_tensor(1, 4, xd, false), w = be_tensor(2, 4, wd, false), y = be_tensor(3, 4, yd, false);
    bd_t c = be_conv_desc(2, 1, 1, 1);
    bd_t op = be_conv_fwd(x, w, y, c, false);
    cudnnStatus_t st = cudnnBackendFinalize(op);
    save_reason();
    bd_t all[] = {x, w, y, c, op};
    for (int i = 0; i < 5; i++)
        cudnnBackendDestroyDescriptor(all[i]);
    return st;
}

static cudnnStatus_t
matmul_status(const int64_t *ad, const int64_t *bdm, const int64_t *cd)
{
    bd_t a = be_tensor(1, 3, ad, false), b = be_tensor(2, 3, bdm, false), c = be_tensor(3, 3, cd, false);
    bd_t mm = be_create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    int ct = CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnBackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendFinalize(mm));
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    CHECK_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm));
    cudnnStatus_t st = cudnnBackendFinalize(op);
    save_reason();
    bd_t all[] = {a, b, c, mm, op};
    for (int i = 0; i < 5; i++)
        cudnnBackendDestroyDescriptor(all[i]);
    return st;
}

static void
test_operation_shapes(void)
{
    CHECK_OK(conv_status(8));
    CHECK_STATUS(conv_status(7), CUDNN_STATUS_BAD_PARAM);
    CHECK(saved_has("CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y"));

    int64_t a[3] = {4, 5, 6}, b[3] = {4, 6, 7}, c[3] = {4, 5, 7}, b1[3] = {1, 6, 7}, bk[3] = {4, 5, 7};
    CHECK_OK(matmul_status(a, b, c));
    CHECK_OK(matmul_status(a, b1, c)); /* broadcast batch */
    CHECK_STATUS(matmul_status(a, bk, c), CUDNN_STATUS_BAD_PARAM);
    CHECK(saved_has("CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR", "K differs"));

    /* pointwise broadcasting: [1,C,1,1] + [N,C,H,W] ok, [N,2C,...] not */
    int64_t x4[4] = {2, 3, 4, 4}, b4[4] = {1, 3, 1, 1}, bad4[4] = {1, 6, 1, 1};
    bd_t x = be_tensor(1, 4, x4, false), bb = be_tensor(2, 4, b4, false), bbad = be_tensor(3, 4, bad4, false);
    bd_t y = be_tensor(4, 4, x4, false), pw = be_pw_desc(CUDNN_POINTWISE_ADD);
    bd_t ok = be_pw_op(pw, x, bb, y);
    bd_t op = be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &bbad);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    CHECK_STATUS(cudnnBackendFinalize(op), CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATION_POINTWISE_BDESC", "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR"));
    /* a binary mode without its second operand */
    bd_t op2 = be_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    CHECK_STATUS(cudnnBackendFinalize(op2), CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATION_POINTWISE_BDESC", "required"));
    /* reshape keeps the element count */
    int64_t r1[2] = {6, 16}, r2[2] = {5, 16};
    bd_t ra = be_tensor(10, 2, r1, false), rb = be_tensor(11, 2, r2, false);
    bd_t rs = be_create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    cudnnBackendSetAttribute(rs, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(rs, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rb);
    CHECK_STATUS(cudnnBackendFinalize(rs), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendSetAttribute(rs, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ra);
    CHECK_OK(cudnnBackendFinalize(rs));
    /* max pooling backward without indices nor x and y */
    int64_t pd[4] = {2, 3, 2, 2};
    bd_t pdy = be_tensor(20, 4, pd, false);
    bd_t rsd = be_create(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    int mode = CUDNN_RESAMPLE_MAXPOOL, ctype = CUDNN_DATA_FLOAT;
    int64_t two = 2, w2[2] = {2, 2}, z2[2] = {0, 0};
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &mode);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ctype);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &two);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, 2, w2);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_INT64, 2, w2);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, z2);
    cudnnBackendSetAttribute(rsd, CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_INT64, 2, z2);
    CHECK_OK(cudnnBackendFinalize(rsd));
    bd_t rbw = be_create(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
    cudnnBackendSetAttribute(rbw, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(rbw, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pdy);
    cudnnBackendSetAttribute(rbw, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rsd);
    CHECK_STATUS(cudnnBackendFinalize(rbw), CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC", "CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR"));
    cudnnBackendSetAttribute(rbw, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(rbw, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pdy);
    CHECK_OK(cudnnBackendFinalize(rbw));
    bd_t all[] = {x, bb, bbad, y, pw, ok, op, op2, ra, rb, rs, pdy, rsd, rbw};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        cudnnBackendDestroyDescriptor(all[i]);
}

static void
test_graph_rules(cudnnHandle_t h)
{
    int64_t d[4] = {1, 2, 3, 3}, d2[4] = {1, 2, 3, 4};
    bd_t relu = be_pw_desc(CUDNN_POINTWISE_RELU_FWD);
    bd_t x = be_tensor(1, 4, d, false), v = be_tensor(2, 4, d, true), y = be_tensor(3, 4, d, false);
    bd_t x_other = be_tensor(1, 4, d2, false); /* uid 1 again, another shape */
    bd_t a = be_pw_op(relu, x, NULL, v), b = be_pw_op(relu, v, NULL, y);
    cudnnStatus_t st;
    bd_t ops[2] = {b, a}; /* consumer first: the graph sorts them */
    bd_t g = be_graph(h, ops, 2, &st);
    CHECK_OK(st);
    int64_t n = 0, count = -1;
    CHECK_OK(cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n,
                                      &count));
    int ne = 0;
    fdnn_graph_engines(&ne);
    CHECK(n == 1 && count == ne);
    be_check_roundtrip(g);
    cudnnBackendDestroyDescriptor(g);

    /* the virtual tensor read, never written */
    bd_t only_b[1] = {b};
    g = be_graph(h, only_b, 1, &st);
    CHECK_STATUS(st, CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("virtual tensor uid 2", "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR"));
    cudnnBackendDestroyDescriptor(g);

    /* two different tensors with one uid */
    bd_t c = be_pw_op(relu, x_other, NULL, be_tensor(4, 4, d2, false));
    bd_t two[2] = {a, c};
    g = be_graph(h, two, 2, &st);
    CHECK_STATUS(st, CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("UNIQUE_ID 1", NULL));
    cudnnBackendDestroyDescriptor(g);

    /* a tensor written twice */
    bd_t a2 = be_pw_op(relu, y, NULL, v);
    bd_t dup[3] = {a, a2, b};
    g = be_graph(h, dup, 3, &st);
    CHECK_STATUS(st, CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("written by operation", NULL));
    cudnnBackendDestroyDescriptor(g);

    /* a cycle: v -> w -> v */
    bd_t w = be_tensor(5, 4, d, true);
    bd_t p = be_pw_op(relu, v, NULL, w), q = be_pw_op(relu, w, NULL, v);
    bd_t cyc[2] = {p, q};
    g = be_graph(h, cyc, 2, &st);
    CHECK_STATUS(st, CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("cycle", NULL));
    cudnnBackendDestroyDescriptor(g);

    /* no handle: required */
    bd_t gh = be_create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    cudnnBackendSetAttribute(gh, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
    CHECK_STATUS(cudnnBackendFinalize(gh), CUDNN_STATUS_BAD_PARAM);
    CHECK(reason_has("CUDNN_ATTR_OPERATIONGRAPH_HANDLE", "required"));
    bd_t all[] = {relu, x, v, y, x_other, a, b, c, a2, w, p, q, gh};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        cudnnBackendDestroyDescriptor(all[i]);
}

/* Every attribute name on every descriptor type with every element type,
 * one zeroed element, then finalize and a read of everything: statuses only,
 * never a crash (run under valgrind / ASan). */
static void
test_everything_zeroed(void)
{
    static const int names[] = {
        0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    100,  101,  102,  103,  104,  105,  106,  200,
        201,  202,  300,  301,  302,  400,  401,  402,  403,  404,  405,  500,  501,  502,  503,  600,  601,  700,
        701,  702,  703,  704,  705,  706,  707,  708,  709,  710,  711,  712,  713,  714,  715,  716,  717,  750,
        751,  752,  753,  754,  755,  756,  757,  758,  770,  771,  772,  773,  774,  780,  781,  782,  783,  784,
        785,  786,  787,  788,  789,  790,  791,  792,  793,  794,  795,  796,  800,  801,  802,  900,  901,  902,
        903,  904,  905,  906,  907,  908,  909,  913,  1000, 1001, 1002, 1003, 1100, 1101, 1200, 1201, 1202, 1203,
        1300, 1301, 1302, 1303, 1304, 1305, 1500, 1503, 1520, 1521, 1522, 1523, 1524, 1525, 1526, 1527, 1600, 1601,
        1610, 1611, 1612, 1620, 1621, 1622, 1623, 1624, 1625, 1626, 1627, 1628, 1629, 1630, 1700, 1701, 1702, 1703,
        1704, 1705, 1706, 1707, 1708, 1710, 1711, 1712, 1713, 1714, 1716, 1720, 1721, 1722, 1723, 1724, 1725, 1726,
        1727, 1800, 1801, 1802, 1803, 1900, 1901, 1902, 1903, 1904, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007,
        2008, 2009, 2010, 2011, 2012, 2013, 2014, 2100, 2101, 2102, 2103, 2104, 2105, 2106, 2107, 2108, 2109, 2110,
        2200, 2201, 2300, 2301, 2302, 2303, 2304, 2305, 2310, 2311, 2312, 2313};
    CHECK(sizeof(names) / sizeof(names[0]) == 210);
    unsigned char zero[64] = {0}, out[64];
    int accepted = 0;
    for (int t = 0; t < 34; t++) {
        bd_t d = be_create((cudnnBackendDescriptorType_t)t);
        for (size_t a = 0; a < sizeof(names) / sizeof(names[0]); a++)
            for (int y = 0; y <= CUDNN_TYPE_RNG_DISTRIBUTION; y++)
                accepted += cudnnBackendSetAttribute(d, (cudnnBackendAttributeName_t)names[a],
                                                     (cudnnBackendAttributeType_t)y, 1, zero) == CUDNN_STATUS_SUCCESS;
        cudnnStatus_t st = cudnnBackendFinalize(d);
        CHECK(st == CUDNN_STATUS_SUCCESS || st == CUDNN_STATUS_BAD_PARAM || st == CUDNN_STATUS_NOT_SUPPORTED);
        for (size_t a = 0; a < sizeof(names) / sizeof(names[0]); a++)
            for (int y = 0; y <= CUDNN_TYPE_RNG_DISTRIBUTION; y++) {
                int64_t n = 0;
                if (y != CUDNN_TYPE_BACKEND_DESCRIPTOR)
                    cudnnBackendGetAttribute(d, (cudnnBackendAttributeName_t)names[a],
                                             (cudnnBackendAttributeType_t)y, 1, &n, out);
            }
        cudnnBackendDestroyDescriptor(d);
    }
    CHECK(accepted > 100);
}

int
main(void)
{
    cudnnHandle_t h = NULL;
    CHECK_OK(cudnnCreate(&h));
    test_create_all_types();
    test_bad_attributes();
    test_count_query();
    test_tensor_rules();
    test_operation_shapes();
    test_graph_rules(h);
    test_everything_zeroed();
    cudnnDestroy(h);
    return fdnn_test_finish("test_backend_api");
}

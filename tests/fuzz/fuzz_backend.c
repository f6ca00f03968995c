/* SPDX-License-Identifier: Apache-2.0
 * Fuzz harness: the graph API (cudnnBackend*).
 *
 * Two halves, chosen by the first byte:
 *
 *  - a program over up to 12 descriptors: create any descriptor type (valid
 *    or not), set any attribute with any attribute type and element count
 *    (elements from the input; descriptor-typed elements are other created
 *    descriptors, finalized or not, of any type; the handle for HANDLE),
 *    get any attribute with any requested count (0 = the count query),
 *    finalize.  Everything is destroyed at the end.  VOID_PTR elements are
 *    never set here: a pointer is the caller's promise of memory, so
 *    Execute runs only in the second half;
 *  - a graph built the way NVIDIA's frontend builds one (tensors, one
 *    operation: pointwise, matmul or convolution forward, then an operation
 *    graph, a heuristic, an execution plan), with fuzzed dims, strides,
 *    data types, modes and virtual flags, then executed on guard-page
 *    buffers sized from the dims and strides the harness gave (a span
 *    larger than the budget is dropped) with the workspace the plan asked
 *    for.
 *
 * Every status must be SUCCESS, BAD_PARAM, NOT_SUPPORTED, NOT_INITIALIZED
 * or ALLOC_FAILED (graph calls use NOT_INITIALIZED for a use before
 * finalize). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cudnn.h"
#include "fuzz_util.h"

#define SLOTS 12

static cudnnStatus_t
check(cudnnStatus_t s, const char *call)
{
    /* NOT_INITIALIZED answers a use before finalize in the graph API. */
    return s == CUDNN_STATUS_NOT_INITIALIZED ? s : fz_check(s, call);
}
#define FB(call) check((call), #call)

/* Attribute names, grouped by descriptor as cudnn_backend.h numbers them:
 * the first value of each group and its size; a fuzzed name is mostly one
 * of these, sometimes any value. */
static const struct {
    int first, count;
} name_groups[] = {
    {0, 10},    {100, 7},   {200, 3},   {300, 3},   {400, 6},   {500, 4},   {600, 2},   {700, 18},
    {750, 9},   {770, 5},   {780, 17},  {800, 3},   {900, 10},  {913, 1},   {1000, 4},  {1100, 2},
    {1200, 4},  {1300, 6},  {1500, 1},  {1503, 1},  {1520, 8},  {1600, 2},  {1610, 3},  {1620, 11},
    {1700, 9},  {1710, 5},  {1716, 1},  {1720, 8},  {1800, 4},  {1900, 5},  {2000, 15}, {2100, 11},
    {2200, 2},  {2300, 6},  {2310, 4},
};

static cudnnBackendAttributeName_t
fuzz_name(struct fz *in)
{
    uint8_t b = fz_u8(in);
    if (b >= 0xf8)
        return (cudnnBackendAttributeName_t)(int)fz_u32(in);
    size_t g = b % (sizeof(name_groups) / sizeof(name_groups[0]));
    return (cudnnBackendAttributeName_t)(name_groups[g].first + fz_u8(in) % name_groups[g].count);
}

/* One attribute value array: up to 8 elements of the largest element type
 * (cudnnFraction_t, 16 bytes; a descriptor or handle pointer), from the
 * input or from the slots. */
typedef union value {
    int64_t i64[16];
    void *ptr[8];
    unsigned char bytes[128];
} value_t;

static int64_t
fuzz_count(struct fz *in)
{
    uint8_t b = fz_u8(in);
    if (b < 0xe0)
        return 1 + b % 8;
    static const int64_t edge[8] = {0, -1, 9, (int64_t)1 << 20, INT64_MAX, INT64_MIN, (int64_t)1 << 31, 64};
    return edge[b % 8];
}

static void
run_program(struct fz *in, cudnnHandle_t handle, cudnnBackendDescriptor_t *slot)
{
    for (int step = 0; step < 48 && in->n > 0; step++) {
        int op = fz_u8(in) % 4;
        int s = fz_u8(in) % SLOTS;
        if (op == 0 || slot[s] == NULL) {
            if (slot[s] != NULL)
                continue;
            int type = fz_enum(in, 34);
            if (FB(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)type, &slot[s])) !=
                CUDNN_STATUS_SUCCESS)
                slot[s] = NULL;
            continue;
        }
        if (op == 3) {
            FB(cudnnBackendFinalize(slot[s]));
            continue;
        }
        cudnnBackendAttributeName_t name = fuzz_name(in);
        cudnnBackendAttributeType_t atype = (cudnnBackendAttributeType_t)fz_enum(in, CUDNN_TYPE_RNG_DISTRIBUTION + 1);
        int64_t count = fuzz_count(in);
        int64_t room = count >= 0 && count <= 8 ? count : 8; /* the elements the buffer holds */
        value_t v;
        memset(&v, 0, sizeof v);
        if (atype == CUDNN_TYPE_BACKEND_DESCRIPTOR || atype == CUDNN_TYPE_HANDLE) {
            /* Pointers must be real descriptors (or the handle): anything
             * else is the caller's undefined behaviour, not a finding. */
            for (int64_t i = 0; i < 8; i++) {
                cudnnBackendDescriptor_t d = slot[fz_u8(in) % SLOTS];
                v.ptr[i] = atype == CUDNN_TYPE_HANDLE ? (void *)handle : (void *)d;
            }
            if (atype == CUDNN_TYPE_BACKEND_DESCRIPTOR)
                for (int64_t i = 0; i < 8; i++)
                    if (v.ptr[i] == NULL)
                        room = i < room ? i : room;
        } else if (atype == CUDNN_TYPE_VOID_PTR) {
            continue; /* see the top of this file */
        } else {
            for (size_t i = 0; i < sizeof v.bytes; i++)
                v.bytes[i] = fz_u8(in);
        }
        if (op == 1) {
            /* A count past the buffer is only given with a NULL array (the
             * library must refuse it before reading). */
            void *elements = count <= room ? (void *)&v : NULL;
            FB(cudnnBackendSetAttribute(slot[s], name, atype, count, elements));
        } else {
            int64_t requested = fz_u8(in) % 9; /* 0: the count query */
            int64_t got = -7;
            if (atype == CUDNN_TYPE_BACKEND_DESCRIPTOR && requested > room)
                requested = room; /* GET fills caller-created descriptors */
            FB(cudnnBackendGetAttribute(slot[s], name, atype, requested, fz_u8(in) & 1 ? &got : NULL,
                                        requested > 0 ? (void *)&v : NULL));
        }
    }
}

/* ---- the frontend-style graph ------------------------------------------- */

typedef struct tensor_spec {
    int64_t uid;
    cudnnDataType_t dtype;
    int nd;
    int64_t dims[8], strides[8];
    int is_virtual;
} tensor_spec_t;

static size_t
dtype_bytes(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2: return 1;
    default: return 4;
    }
}

/* Bytes a tensor spans with the harness's own dims and strides, or
 * SIZE_MAX when a dim or stride is not positive or the span is over the
 * budget (the library must then refuse the tensor or the graph; the
 * harness does not execute it either way). */
static size_t
span_bytes(const tensor_spec_t *t)
{
    double last = 0;
    for (int i = 0; i < t->nd; i++) {
        if (t->dims[i] <= 0 || t->strides[i] <= 0)
            return SIZE_MAX;
        last += (double)(t->dims[i] - 1) * (double)t->strides[i];
    }
    double bytes = (last + 1) * (double)dtype_bytes(t->dtype);
    return fz_fits((size_t)(bytes < 1e18 ? bytes : 1e18)) ? (size_t)bytes : SIZE_MAX;
}

/* Elements of a tensor (its dims' product). */
static double
elems(const tensor_spec_t *t)
{
    double n = 1;
    for (int i = 0; i < t->nd; i++)
        n *= t->dims[i] > 0 ? (double)t->dims[i] : 0.0;
    return n;
}

static int64_t
fuzz_extent(struct fz *in)
{
    uint8_t b = fz_u8(in);
    if (b < 0xf0)
        return 1 + b % 5;
    return fz_dim(in);
}

/* dims like `like` with some entries set to 1 (broadcast), or fuzzed. */
static void
fuzz_tensor(struct fz *in, tensor_spec_t *t, int64_t uid, int nd, const int64_t *like, cudnnDataType_t dtype)
{
    t->uid = uid;
    t->dtype = dtype;
    t->nd = nd;
    t->is_virtual = 0;
    for (int i = 0; i < nd; i++) {
        uint8_t b = fz_u8(in);
        t->dims[i] = like == NULL ? fuzz_extent(in) : b < 0xc0 ? like[i] : b < 0xf0 ? 1 : fz_dim(in);
    }
    /* Packed (any axis order) or fuzzed strides. */
    uint8_t layout = fz_u8(in);
    int64_t s = 1;
    for (int k = nd - 1; k >= 0; k--) {
        int i = layout < 0x80 ? k : layout < 0xe0 ? (k == nd - 1 ? 1 % nd : k == 1 ? nd - 1 : k) : k;
        t->strides[i] = s;
        int64_t d = t->dims[i] > 0 ? t->dims[i] : 1;
        s = s > INT64_MAX / d ? INT64_MAX : s * d; /* (the library must refuse such strides) */
    }
    if (layout >= 0xe0)
        t->strides[fz_u8(in) % nd] = fz_small(in);
}

static cudnnBackendDescriptor_t
make_tensor(const tensor_spec_t *t)
{
    cudnnBackendDescriptor_t d = NULL;
    if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d)) != CUDNN_STATUS_SUCCESS)
        return NULL;
    int64_t align = 16;
    bool is_virtual = t->is_virtual != 0;
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &t->dtype));
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, t->nd, t->dims));
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, t->nd, t->strides));
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &t->uid));
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    FB(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual));
    FB(cudnnBackendFinalize(d));
    return d;
}

/* Up to 6 descriptors the graph owns, destroyed at the end. */
typedef struct owned {
    cudnnBackendDescriptor_t d[16];
    int n;
} owned_t;

static cudnnBackendDescriptor_t
own(owned_t *o, cudnnBackendDescriptor_t d)
{
    if (d != NULL && o->n < 16)
        o->d[o->n++] = d;
    return d;
}

static void
run_graph(struct fz *in, cudnnHandle_t handle)
{
    owned_t o = {.n = 0};
    tensor_spec_t t[3];
    cudnnBackendDescriptor_t td[3] = {NULL, NULL, NULL};
    cudnnBackendDescriptor_t op = NULL;
    cudnnDataType_t dtype = fz_dtype(in);
    int kind = fz_u8(in) % 3;
    int ntensors = 3;

    if (kind == 0) { /* pointwise: y = mode(x, b) with broadcasting */
        int nd = fz_range(in, 1, 5);
        fuzz_tensor(in, &t[0], 1, nd, NULL, dtype);
        fuzz_tensor(in, &t[1], 2, nd, t[0].dims, dtype);
        fuzz_tensor(in, &t[2], 3, nd, t[0].dims, fz_u8(in) < 0xe0 ? dtype : fz_dtype(in));
        for (int i = 0; i < 3; i++)
            td[i] = own(&o, make_tensor(&t[i]));
        cudnnBackendDescriptor_t pw = NULL;
        if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw)) == CUDNN_STATUS_SUCCESS) {
            own(&o, pw);
            static const int modes[] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,
                                        13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  100, 101, 102,
                                        103, 104, 105, 106, 107, 300, 301, 302, 303, 304, 305, 400, 401};
            cudnnPointwiseMode_t mode = (cudnnPointwiseMode_t)modes[fz_u8(in) % (sizeof modes / sizeof *modes)];
            cudnnDataType_t prec = fz_u8(in) < 0xe0 ? CUDNN_DATA_FLOAT : fz_dtype(in);
            FB(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
            FB(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
            FB(cudnnBackendFinalize(pw));
            if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op)) ==
                CUDNN_STATUS_SUCCESS) {
                own(&o, op);
                FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
                                            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw));
                if (td[0] != NULL)
                    FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &td[0]));
                if (td[1] != NULL && fz_u8(in) < 0xc0)
                    FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &td[1]));
                if (td[2] != NULL)
                    FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &td[2]));
            }
        }
    } else if (kind == 1) { /* matmul: [b, m, k] x [b, k, n] = [b, m, n] */
        int64_t b = fuzz_extent(in), m = fuzz_extent(in), k = fuzz_extent(in), n = fuzz_extent(in);
        int64_t ad[3] = {b, m, k}, bd[3] = {fz_u8(in) < 0xc0 ? b : 1, k, n}, cd[3] = {b, m, n};
        fuzz_tensor(in, &t[0], 1, 3, ad, dtype);
        fuzz_tensor(in, &t[1], 2, 3, bd, dtype);
        fuzz_tensor(in, &t[2], 3, 3, cd, dtype);
        for (int i = 0; i < 3; i++)
            td[i] = own(&o, make_tensor(&t[i]));
        cudnnBackendDescriptor_t mm = NULL;
        if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm)) == CUDNN_STATUS_SUCCESS) {
            own(&o, mm);
            cudnnDataType_t comp = fz_u8(in) < 0xe0 ? CUDNN_DATA_FLOAT : fz_dtype(in);
            FB(cudnnBackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
            FB(cudnnBackendFinalize(mm));
            if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op)) ==
                CUDNN_STATUS_SUCCESS) {
                own(&o, op);
                const cudnnBackendAttributeName_t names[3] = {CUDNN_ATTR_OPERATION_MATMUL_ADESC,
                                                              CUDNN_ATTR_OPERATION_MATMUL_BDESC,
                                                              CUDNN_ATTR_OPERATION_MATMUL_CDESC};
                for (int i = 0; i < 3; i++)
                    if (td[i] != NULL)
                        FB(cudnnBackendSetAttribute(op, names[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &td[i]));
                FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                            1, &mm));
            }
        }
    } else { /* convolution forward, 2-D */
        int64_t n = fuzz_extent(in), c = fuzz_extent(in), h = fuzz_extent(in) + 2, w = fuzz_extent(in) + 2;
        int64_t k = fuzz_extent(in), r = fz_range(in, 1, 3), s = fz_range(in, 1, 3);
        int64_t pad[2] = {fz_small(in), fz_small(in)}, post[2] = {pad[0], pad[1]};
        int64_t stride[2] = {fz_range(in, 1, 2), fz_range(in, 1, 2)}, dil[2] = {1, 1};
        if (fz_u8(in) >= 0xf0)
            post[fz_u8(in) & 1] = fz_small(in);
        if (fz_u8(in) >= 0xf0)
            stride[fz_u8(in) & 1] = fz_small(in);
        int64_t ho = (h + pad[0] + post[0] - r) / (stride[0] > 0 ? stride[0] : 1) + 1;
        int64_t wo = (w + pad[1] + post[1] - s) / (stride[1] > 0 ? stride[1] : 1) + 1;
        int64_t xd[4] = {n, c, h, w}, wd[4] = {k, c, r, s}, yd[4] = {n, k, ho, wo};
        fuzz_tensor(in, &t[0], 1, 4, xd, dtype);
        fuzz_tensor(in, &t[1], 2, 4, wd, dtype);
        fuzz_tensor(in, &t[2], 3, 4, yd, dtype);
        for (int i = 0; i < 3; i++)
            td[i] = own(&o, make_tensor(&t[i]));
        cudnnBackendDescriptor_t cv = NULL;
        if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &cv)) == CUDNN_STATUS_SUCCESS) {
            own(&o, cv);
            int64_t nsp = 2;
            cudnnDataType_t comp = fz_u8(in) < 0xe0 ? dtype : fz_dtype(in);
            cudnnConvolutionMode_t mode = fz_u8(in) & 1 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
                                        &mode));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride));
            FB(cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil));
            FB(cudnnBackendFinalize(cv));
            if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op)) ==
                CUDNN_STATUS_SUCCESS) {
                own(&o, op);
                const cudnnBackendAttributeName_t names[3] = {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                                              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                                              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y};
                for (int i = 0; i < 3; i++)
                    if (td[i] != NULL)
                        FB(cudnnBackendSetAttribute(op, names[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &td[i]));
                FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cv));
                float alpha = 1, beta = fz_u8(in) & 1 ? 1.0f : 0.0f;
                double alpha_d = 1, beta_d = beta;
                int dbl = dtype == CUDNN_DATA_DOUBLE;
                FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                            dbl ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT, 1,
                                            dbl ? (void *)&alpha_d : (void *)&alpha));
                FB(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                            dbl ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT, 1,
                                            dbl ? (void *)&beta_d : (void *)&beta));
            }
        }
    }
    if (op == NULL)
        goto out;
    FB(cudnnBackendFinalize(op));

    cudnnBackendDescriptor_t graph = NULL;
    if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph)) != CUDNN_STATUS_SUCCESS)
        goto out;
    own(&o, graph);
    FB(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    FB(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    if (FB(cudnnBackendFinalize(graph)) != CUDNN_STATUS_SUCCESS)
        goto out;

    cudnnBackendDescriptor_t heur = NULL;
    if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur)) != CUDNN_STATUS_SUCCESS)
        goto out;
    own(&o, heur);
    cudnnBackendHeurMode_t hmode = (cudnnBackendHeurMode_t)fz_enum(in, 4);
    FB(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                &graph));
    FB(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hmode));
    if (FB(cudnnBackendFinalize(heur)) != CUDNN_STATUS_SUCCESS)
        goto out;
    int64_t nresults = 0;
    if (FB(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nresults,
                                    NULL)) != CUDNN_STATUS_SUCCESS ||
        nresults <= 0)
        goto out;
    cudnnBackendDescriptor_t cfg = NULL;
    if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg)) != CUDNN_STATUS_SUCCESS)
        goto out;
    own(&o, cfg);
    int64_t got = 0;
    if (FB(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                    &cfg)) != CUDNN_STATUS_SUCCESS ||
        got != 1)
        goto out;

    cudnnBackendDescriptor_t plan = NULL;
    if (FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan)) != CUDNN_STATUS_SUCCESS)
        goto out;
    own(&o, plan);
    FB(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    FB(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                &cfg));
    if (FB(cudnnBackendFinalize(plan)) != CUDNN_STATUS_SUCCESS)
        goto out;
    int64_t ws = -1;
    if (FB(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                    &ws)) != CUDNN_STATUS_SUCCESS ||
        ws < 0 || !fz_fits((size_t)ws))
        goto out;

    /* Buffers from the harness's own dims and strides. */
    void *data[3];
    int64_t uids[3];
    int nptr = 0;
    for (int i = 0; i < ntensors; i++) {
        size_t bytes = span_bytes(&t[i]);
        if (bytes == SIZE_MAX)
            goto out;
        data[nptr] = fz_alloc(bytes, i == 2);
        if (data[nptr] == NULL)
            goto out;
        uids[nptr++] = t[i].uid;
    }
    /* Element visits: every element of every operand (aliasing strides
     * make elements outnumber the bytes), times the filter's or B's
     * elements for a convolution or a matmul. */
    double visits = elems(&t[0]) + elems(&t[1]) + elems(&t[2]);
    if (kind != 0)
        visits += elems(&t[2]) * elems(&t[1]);
    if (!fz_cheap(visits))
        goto out;
    void *wsp = fz_alloc((size_t)ws, 1);
    cudnnBackendDescriptor_t pack = NULL;
    if (wsp == NULL || FB(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack)) !=
                           CUDNN_STATUS_SUCCESS)
        goto out;
    own(&o, pack);
    FB(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, nptr, uids));
    FB(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, nptr, data));
    FB(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp));
    if (FB(cudnnBackendFinalize(pack)) != CUDNN_STATUS_SUCCESS)
        goto out;
    FB(cudnnBackendExecute(handle, plan, pack));
out:
    for (int i = o.n - 1; i >= 0; i--)
        FB(cudnnBackendDestroyDescriptor(o.d[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz in = {data, size};
    cudnnHandle_t handle = fz_handle();
    if (fz_u8(&in) & 1) {
        run_graph(&in, handle);
    } else {
        cudnnBackendDescriptor_t slot[SLOTS] = {NULL};
        run_program(&in, handle, slot);
        for (int i = SLOTS - 1; i >= 0; i--)
            if (slot[i] != NULL)
                FB(cudnnBackendDestroyDescriptor(slot[i]));
    }
    fz_release();
    return 0;
}

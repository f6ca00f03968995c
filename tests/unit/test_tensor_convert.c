/* SPDX-License-Identifier: Apache-2.0
 * cudnnTransformTensor (and Ex / Filter) as a data-type conversion, bit
 * for bit against a reference written here from the contract:
 *     y = alpha * x + beta * y
 * computed in float (in double when either side is DOUBLE or INT32, with
 * alpha and beta read as double only for a DOUBLE destination), stored
 * rounded to nearest even; integer stores round to nearest even and
 * saturate, NaN to 0.  Every pair of FLOAT, DOUBLE, HALF, BFLOAT16, INT8,
 * UINT8, INT32; NCHW, NHWC and strided layouts with gaps (checked
 * untouched); alpha/beta (beta 0 never reads y: y is poisoned NaN); every
 * ISA level with 1 and 2 threads; the vector types INT8x4, UINT8x4,
 * INT8x32 (NCHW_VECT_C) against every plain type and each other; a dense
 * FLOAT <-> HALF/BFLOAT16 tensor large enough for the parallel row-kernel
 * path; cudnnTransformTensorEx between vector widths and a
 * cudnnTransformFilter that converts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "tensor_test_util.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

static const cudnnDataType_t plain_types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                              CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8, CUDNN_DATA_UINT8,
                                              CUDNN_DATA_INT32};
#define NPLAIN 7

static bool
is_int(cudnnDataType_t t)
{
    return t == CUDNN_DATA_INT8 || t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_INT32;
}

/* ---- the reference -------------------------------------------------------------- */

/* Round to nearest even and saturate, NaN to 0 (written without the
 * library's fdnn_sat_round). */
static double
ref_int(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    if (v <= lo)
        return lo;
    if (v >= hi)
        return hi;
    double f = floor(v), d = v - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0))
        f += 1;
    return f;
}

/* Stores v (the result in the compute type) as t at p. */
static void
ref_store(cudnnDataType_t t, unsigned char *p, double v, bool f64)
{
    switch (t) {
    case CUDNN_DATA_INT8: *p = (unsigned char)(int8_t)ref_int(v, -128, 127); return;
    case CUDNN_DATA_UINT8: *p = (unsigned char)ref_int(v, 0, 255); return;
    case CUDNN_DATA_INT32: {
        int32_t i = (int32_t)ref_int(v, -2147483648.0, 2147483647.0);
        memcpy(p, &i, 4);
        return;
    }
    default:
        /* floating types: from float, or through float from double (a double
         * rounds to float first, then to half / bfloat16) */
        if (t == CUDNN_DATA_DOUBLE) {
            memcpy(p, &v, 8);
            return;
        }
        (void)f64;
        tt_put(t, p, (double)(float)v);
        return;
    }
}

static bool
f64_compute(cudnnDataType_t s, cudnnDataType_t d)
{
    return s == CUDNN_DATA_DOUBLE || d == CUDNN_DATA_DOUBLE || s == CUDNN_DATA_INT32 || d == CUDNN_DATA_INT32;
}

/* The expected bytes of one element. */
static void
ref_element(cudnnDataType_t st, const unsigned char *x, cudnnDataType_t dt, const unsigned char *y_old,
            double alpha, double beta, unsigned char *out)
{
    const bool f64 = f64_compute(st, dt);
    /* alpha and beta as the library reads them: double only for DOUBLE y */
    if (dt != CUDNN_DATA_DOUBLE) {
        alpha = (float)alpha;
        beta = (float)beta;
    }
    const double xv = tt_get(st, x); /* exact: every type widens exactly to double */
    if (f64) {
        double r = alpha * xv;
        if (beta != 0)
            r = r + beta * tt_get(dt, y_old);
        ref_store(dt, out, r, true);
    } else {
        float r = (float)alpha * (float)xv;
        if (beta != 0)
            r = r + (float)beta * (float)tt_get(dt, y_old);
        ref_store(dt, out, r, false);
    }
}

/* Equal as stored values: bytes, except that any NaN matches any NaN. */
static bool
same_element(cudnnDataType_t t, const unsigned char *a, const unsigned char *b)
{
    const size_t es = tt_esz(t);
    if (memcmp(a, b, es) == 0)
        return true;
    return !is_int(t) && isnan(tt_get(t, a)) && isnan(tt_get(t, b));
}

/* ---- source values: edges of every destination -------------------------------- */

static double
edge_value(cudnnDataType_t st)
{
    static const double floats[] = {0.0,    -0.0,   0.5,    -0.5,   1.5,      2.5,     -2.5,    127.5,
                                    128.5,  -128.5, -129.0, 255.5,  256.0,    -1.0,    65504.0, 65519.0,
                                    65520.0, 1e5,   -1e5,   3e9,    -3e9,     1e-7,    6e-8,    3e-8,
                                    1e-40,  INFINITY, -INFINITY, NAN, 2147483520.0, 1.00048828125, 1.005859375, 300.25};
    switch (st) {
    case CUDNN_DATA_INT8: return fdnn_rng_int(&rng, -128, 127);
    case CUDNN_DATA_UINT8: return fdnn_rng_int(&rng, 0, 255);
    case CUDNN_DATA_INT32: {
        static const double ints[] = {2147483647.0, -2147483648.0, 16777217.0, -16777217.0, 0, 1, -1, 255, 256, 128};
        if (fdnn_rng_int(&rng, 0, 2) == 0)
            return ints[fdnn_rng_int(&rng, 0, 9)];
        return (double)(int32_t)(uint32_t)fdnn_rng_u64(&rng);
    }
    default:
        switch (fdnn_rng_int(&rng, 0, 3)) {
        case 0: return floats[fdnn_rng_int(&rng, 0, (int)(sizeof(floats) / sizeof(floats[0])) - 1)];
        case 1: return fdnn_rng_uniform(&rng, -300, 300);
        case 2: return ldexp(fdnn_rng_uniform(&rng, -1, 1), fdnn_rng_int(&rng, -30, 40));
        default: return fdnn_rng_int(&rng, -200, 300) / 4.0; /* ties for the integer types */
        }
    }
}

/* ---- plain pairs -------------------------------------------------------------- */

static int pair_failures;

static void
check_plain(cudnnDataType_t st, cudnnDataType_t dt, int xl, int yl, double alpha, double beta)
{
    const int dims[4] = {2, 5, 3, 7};
    tt_t x, y;
    tt_make(&x, &rng, st, 4, dims, xl);
    tt_make(&y, &rng, dt, 4, dims, yl);
    memset(x.buf, GAP_BYTE, x.span * x.esz);
    const int64_t n = tt_count(&x);
    for (int64_t p = 0; p < n; p++)
        tt_put(st, x.buf + tt_offset(&x, p) * (int64_t)x.esz, edge_value(st));
    /* y's old values (read only when beta != 0) */
    unsigned char *y_old = malloc(y.span * y.esz), *want = malloc(y.span * y.esz);
    for (int k = 0; k < tt_combos(); k++) {
        tt_apply_combo(handle, k);
        if (beta != 0) {
            memset(y.buf, GAP_BYTE, y.span * y.esz);
            for (int64_t p = 0; p < n; p++)
                tt_put(dt, y.buf + tt_offset(&y, p) * (int64_t)y.esz, edge_value(dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_FLOAT : dt));
        } else {
            tt_poison(&y);
        }
        memcpy(y_old, y.buf, y.span * y.esz);
        scale_arg_t sa, sb;
        const bool dbl = dt == CUDNN_DATA_DOUBLE;
        CHECK_OK(cudnnTransformTensor(handle, scale_arg(&sa, alpha, dbl), x.desc, x.buf, scale_arg(&sb, beta, dbl),
                                      y.desc, y.buf));
        int bad = 0;
        for (int64_t p = 0; p < n; p++) {
            const int64_t xo = tt_offset(&x, p) * (int64_t)x.esz, yo = tt_offset(&y, p) * (int64_t)y.esz;
            ref_element(st, x.buf + xo, dt, y_old + yo, alpha, beta, want);
            if (!same_element(dt, y.buf + yo, want)) {
                if (bad++ == 0 && pair_failures < 10)
                    fprintf(stderr, "%s -> %s (layouts %d %d, alpha %g beta %g, combo %d): x=%.17g got %.17g want %.17g\n",
                            fdnn_dtype_name(st), fdnn_dtype_name(dt), xl, yl, alpha, beta, k, tt_get(st, x.buf + xo),
                            tt_get(dt, y.buf + yo), tt_get(dt, want));
            }
        }
        bad += !tt_gaps_ok(&y);
        if (bad)
            pair_failures++;
    }
    free(y_old);
    free(want);
    tt_free(&x);
    tt_free(&y);
}

static void
test_plain_pairs(void)
{
    static const double ab[][2] = {{1.0, 0.0}, {2.0, 0.0}, {0.5, 0.25}};
    static const int layouts[][2] = {{LAYOUT_NCHW, LAYOUT_NCHW}, {LAYOUT_NHWC, LAYOUT_NCHW},
                                     {LAYOUT_STRIDED, LAYOUT_STRIDED}};
    pair_failures = 0;
    for (int s = 0; s < NPLAIN; s++)
        for (int d = 0; d < NPLAIN; d++)
            for (int l = 0; l < 3; l++)
                for (int a = 0; a < 3; a++)
                    check_plain(plain_types[s], plain_types[d], layouts[l][0], layouts[l][1], ab[a][0], ab[a][1]);
    CHECK_MSG(pair_failures == 0, "%d plain conversions differ from the reference", pair_failures);
}

/* ---- the vector types ---------------------------------------------------------- */

/* A 4-d tensor (n, c, h, w) as either a plain NCHW / NHWC tensor or an
 * NCHW_VECT_C one; byte offset of logical (n, c, h, w). */
typedef struct vt {
    cudnnDataType_t dt, lane;
    int vect; /* 1: plain */
    bool nhwc;
    int n, c, h, w;
    cudnnTensorDescriptor_t desc;
    unsigned char *buf;
    size_t bytes;
} vt_t;

static void
vt_make(vt_t *t, cudnnDataType_t dt, bool nhwc, int n, int c, int h, int w)
{
    memset(t, 0, sizeof(*t));
    t->dt = dt;
    t->vect = dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 ? 4 : dt == CUDNN_DATA_INT8x32 ? 32 : 1;
    t->lane = dt == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_UINT8 : t->vect > 1 ? CUDNN_DATA_INT8 : dt;
    t->nhwc = nhwc;
    t->n = n, t->c = c, t->h = h, t->w = w;
    t->bytes = (size_t)n * c * h * w * tt_esz(t->lane);
    t->buf = fdnn_guarded_alloc(t->bytes);
    cudnnCreateTensorDescriptor(&t->desc);
    cudnnTensorFormat_t f = t->vect > 1 ? CUDNN_TENSOR_NCHW_VECT_C : nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    CHECK_OK(cudnnSetTensor4dDescriptor(t->desc, f, dt, n, c, h, w));
}

static size_t
vt_offset(const vt_t *t, int n, int c, int h, int w)
{
    size_t e;
    if (t->vect > 1)
        e = ((((size_t)n * (t->c / t->vect) + c / t->vect) * t->h + h) * t->w + w) * t->vect + c % t->vect;
    else if (t->nhwc)
        e = (((size_t)n * t->h + h) * t->w + w) * t->c + c;
    else
        e = (((size_t)n * t->c + c) * t->h + h) * t->w + w;
    return e * tt_esz(t->lane);
}

static void
vt_free(vt_t *t)
{
    cudnnDestroyTensorDescriptor(t->desc);
    fdnn_guarded_free(t->buf);
}

static int vect_failures;

static void
check_vect(cudnnDataType_t st, cudnnDataType_t dt, double alpha)
{
    vt_t x, y;
    const int N = 2, C = 64, H = 3, W = 2;
    vt_make(&x, st, true, N, C, H, W);
    vt_make(&y, dt, false, N, C, H, W);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++)
                    tt_put(x.lane, x.buf + vt_offset(&x, n, c, h, w), edge_value(x.lane));
    for (int k = 0; k < tt_combos(); k++) {
        tt_apply_combo(handle, k);
        memset(y.buf, 0xFF, y.bytes);
        scale_arg_t sa, sb;
        const bool dbl = dt == CUDNN_DATA_DOUBLE;
        CHECK_OK(cudnnTransformTensor(handle, scale_arg(&sa, alpha, dbl), x.desc, x.buf, scale_arg(&sb, 0.0, dbl), y.desc,
                                      y.buf));
        int bad = 0;
        unsigned char want[8];
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                for (int h = 0; h < H; h++)
                    for (int w = 0; w < W; w++) {
                        const unsigned char *got = y.buf + vt_offset(&y, n, c, h, w);
                        ref_element(x.lane, x.buf + vt_offset(&x, n, c, h, w), y.lane, got, alpha, 0.0, want);
                        if (!same_element(y.lane, got, want) && bad++ == 0 && vect_failures < 10)
                            fprintf(stderr, "%s -> %s alpha %g combo %d: (%d,%d,%d,%d) got %g want %g\n",
                                    fdnn_dtype_name(st), fdnn_dtype_name(dt), alpha, k, n, c, h, w, tt_get(y.lane, got),
                                    tt_get(y.lane, want));
                    }
        if (bad)
            vect_failures++;
    }
    vt_free(&x);
    vt_free(&y);
}

static void
test_vect_pairs(void)
{
    static const cudnnDataType_t vts[] = {CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
    vect_failures = 0;
    for (int v = 0; v < 3; v++) {
        for (int p = 0; p < NPLAIN; p++) {
            check_vect(plain_types[p], vts[v], 1.0);
            check_vect(plain_types[p], vts[v], 1.5);
            check_vect(vts[v], plain_types[p], 1.0);
        }
        for (int w = 0; w < 3; w++)
            check_vect(vts[v], vts[w], v == w ? 2.0 : 1.0);
    }
    CHECK_MSG(vect_failures == 0, "%d vector-type conversions differ from the reference", vect_failures);
}

/* ---- a dense tensor on the parallel row-kernel path ------------------------------ */

static void
test_dense_large(void)
{
    const int n = 3, c = 7, h = 101, w = 103; /* 218k elements: several tiles */
    const size_t count = (size_t)n * c * h * w;
    static const cudnnDataType_t halfs[] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    float *x = fdnn_guarded_alloc(count * 4), *back = fdnn_guarded_alloc(count * 4);
    uint16_t *y = fdnn_guarded_alloc(count * 2);
    for (size_t i = 0; i < count; i++)
        x[i] = (float)edge_value(CUDNN_DATA_FLOAT);
    cudnnTensorDescriptor_t xd, yd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w));
    const float one = 1, zero = 0;
    for (int t = 0; t < 2; t++) {
        CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, halfs[t], n, c, h, w));
        for (int k = 0; k < tt_combos(); k++) {
            tt_apply_combo(handle, k);
            memset(y, 0xFF, count * 2);
            fdnn_poison_f32(back, count);
            CHECK_OK(cudnnTransformTensor(handle, &one, xd, x, &zero, yd, y));
            CHECK_OK(cudnnTransformTensor(handle, &one, yd, y, &zero, xd, back));
            size_t bad = 0;
            for (size_t i = 0; i < count; i++) {
                const uint16_t want = t == 0 ? fdnn_float_to_half(x[i]) : fdnn_float_to_bf16(x[i]);
                const float wb = t == 0 ? fdnn_half_to_float(want) : fdnn_bf16_to_float(want);
                bad += y[i] != want;
                bad += !(fdnn_f32_bits(back[i]) == fdnn_f32_bits(wb));
            }
            CHECK_MSG(bad == 0, "dense FLOAT <-> %s, combo %d: %zu elements wrong", fdnn_dtype_name(halfs[t]), k, bad);
        }
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    fdnn_guarded_free(x);
    fdnn_guarded_free(y);
    fdnn_guarded_free(back);
}

/* ---- TransformTensorEx between vector widths, TransformFilter converting --------- */

static void
test_ex_and_filter(void)
{
    /* INT8x4 -> INT8x32 with a W pad of 1 (staged through plain copies) */
    const int N = 1, C = 32, H = 2, W = 3;
    vt_t x, y;
    vt_make(&x, CUDNN_DATA_INT8x4, false, N, C, H, W);
    for (size_t i = 0; i < x.bytes; i++)
        x.buf[i] = (unsigned char)fdnn_rng_int(&rng, 0, 255);
    cudnnTensorTransformDescriptor_t tr;
    CHECK_OK(cudnnCreateTensorTransformDescriptor(&tr));
    const int32_t pb[4] = {0, 0, 0, 1}, pa[4] = {0, 0, 0, 0};
    const uint32_t fold[2] = {1, 1};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW_VECT_C, pb, pa, fold, CUDNN_TRANSFORM_FOLD));
    vt_make(&y, CUDNN_DATA_INT8x32, false, N, C, H, W + 1);
    memset(y.buf, 0x77, y.bytes);
    const float one = 1, zero = 0;
    CHECK_OK(cudnnTransformTensorEx(handle, tr, &one, x.desc, x.buf, &zero, y.desc, y.buf));
    int bad = 0;
    for (int c = 0; c < C; c++)
        for (int h = 0; h < H; h++)
            for (int w = 0; w <= W; w++) {
                const unsigned char got = y.buf[vt_offset(&y, 0, c, h, w)];
                bad += got != (w == 0 ? 0 : x.buf[vt_offset(&x, 0, c, h, w - 1)]);
            }
    CHECK_MSG(bad == 0, "TransformTensorEx INT8x4 -> INT8x32 with a pad: %d bytes wrong", bad);
    vt_free(&x);
    vt_free(&y);

    /* cudnnTransformFilter: FLOAT KCRS -> HALF KRSC (NHWC), alpha 0.5 */
    cudnnFilterDescriptor_t fs, fd;
    cudnnCreateFilterDescriptor(&fs);
    cudnnCreateFilterDescriptor(&fd);
    const int K = 3, FC = 5, R = 2, S = 3;
    CHECK_OK(cudnnSetFilter4dDescriptor(fs, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, FC, R, S));
    CHECK_OK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, K, FC, R, S));
    const int32_t z[4] = {0, 0, 0, 0};
    CHECK_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NHWC, z, z, fold, CUDNN_TRANSFORM_FOLD));
    float *w = fdnn_guarded_alloc(K * FC * R * S * 4);
    uint16_t *wh = fdnn_guarded_alloc(K * FC * R * S * 2);
    for (int i = 0; i < K * FC * R * S; i++)
        w[i] = (float)edge_value(CUDNN_DATA_FLOAT);
    memset(wh, 0xFF, K * FC * R * S * 2);
    const float half_alpha = 0.5f;
    CHECK_OK(cudnnTransformFilter(handle, tr, &half_alpha, fs, w, &zero, fd, wh));
    bad = 0;
    for (int k = 0; k < K; k++)
        for (int c = 0; c < FC; c++)
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++) {
                    const uint16_t want = fdnn_float_to_half(0.5f * w[((k * FC + c) * R + r) * S + s]);
                    const uint16_t got = wh[((k * R + r) * S + s) * FC + c];
                    bad += !(got == want || (isnan(fdnn_half_to_float(got)) && isnan(fdnn_half_to_float(want))));
                }
    CHECK_MSG(bad == 0, "cudnnTransformFilter FLOAT KCRS -> HALF KRSC: %d elements wrong", bad);
    cudnnDestroyFilterDescriptor(fs);
    cudnnDestroyFilterDescriptor(fd);
    cudnnDestroyTensorTransformDescriptor(tr);
    fdnn_guarded_free(w);
    fdnn_guarded_free(wh);
}

int
main(void)
{
    /* helpers of tensor_test_util.h this test does not need */
    (void)tt_random_dims, (void)tt_round_ref, (void)tt_error, (void)tt_tol, (void)tt_fill;
    fdnn_rng_seed(&rng, 1313);
    CHECK_OK(cudnnCreate(&handle));
    test_plain_pairs();
    test_vect_pairs();
    test_dense_large();
    test_ex_and_filter();
    cudnnDestroy(handle);
    return fdnn_test_finish("test_tensor_convert");
}

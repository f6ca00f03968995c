/* SPDX-License-Identifier: Apache-2.0
 * Graphs with FP8 (E4M3, E5M2) inputs and outputs, "storage with FP32
 * compute", on every engine that runs them, against float64 compositions:
 *   - pointwise: E4M3 x times a FLOAT tensor into E5M2, values that
 *     saturate, NaN; every output code equal to the reference's encoding of
 *     the FLOAT result (a reference encoder written here: nearest of the 256
 *     decoded codes, ties to the even code, overflow saturating);
 *   - matmul (batched, B broadcast) and convolution (forward, backward data,
 *     backward filter) with FP8 operands, FLOAT and FP8 outputs;
 *   - reductions: AMAX of an E4M3 tensor (exact), ADD into an E5M2 output;
 *   - the FP8 epilogue: conv -> x descale -> x scale -> E4M3 output, with
 *     the amax of the unscaled output (ABS + MAX reduction) beside it, on
 *     the fused engine (bitwise equal to the generic engine where it runs)
 *     and the generic one;
 *   - what cuDNN 8.9 refuses (FP8 as a compute type or math precision, FP8
 *     operands with DOUBLE compute, FAST_FLOAT_FOR_FP8 without FP8): status
 *     NOT_SUPPORTED and a logged reason. */
#include "cpu/tensor/convert_fp8.h"
#include "test_graph_engines.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

/* ---- the reference encoding ---------------------------------------------- */

static double
decode_def(unsigned c, bool e5m2)
{
    int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    double sign = (c & 0x80u) ? -1.0 : 1.0;
    unsigned e = (c & 0x7Fu) >> m, man = c & ((1u << m) - 1u);
    if (!e5m2 && (c & 0x7Fu) == 0x7Fu)
        return NAN;
    if (e5m2 && e == 31)
        return man ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp(man, 1 - bias - m);
    return sign * ldexp(man | (1u << m), (int)e - bias - m);
}

/* Nearest finite code, ties to the even code; beyond the largest finite
 * value by half a step or more (a tie there goes to the next, virtual, odd
 * code for E5M2 and to 448 for E4M3) it saturates. */
static unsigned
encode_ref(double v, bool e5m2)
{
    if (isnan(v))
        return 0x7Fu;
    unsigned maxc = e5m2 ? 0x7Bu : 0x7Eu;
    double top = decode_def(maxc, e5m2), step = top - decode_def(maxc - 1, e5m2);
    unsigned sign = signbit(v) ? 0x80u : 0;
    double a = fabs(v);
    if (a > top + step / 2 || (a == top + step / 2 && (maxc & 1u)))
        return sign | maxc;
    unsigned best = 0;
    for (unsigned c = 1; c <= maxc; c++) {
        double d = fabs(decode_def(c, e5m2) - a), db = fabs(decode_def(best, e5m2) - a);
        if (d < db || (d == db && (c & 1u) == 0))
            best = c;
    }
    return sign | best;
}

/* A code accepted for a FLOAT-computed value whose float64 reference is r:
 * the encoding of r or of r moved by rel (a result within the FLOAT
 * rounding of a tie may round either way). */
static bool
code_ok(unsigned got, double r, double rel, bool e5m2)
{
    return got == encode_ref(r, e5m2) || got == encode_ref(r * (1 + rel), e5m2) ||
           got == encode_ref(r * (1 - rel), e5m2);
}

static bool
is_e5m2(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FP8_E5M2;
}

/* Fill a tensor with values that are exact in its type. */
static void
fill(gb_t *b, int t, double lo, double hi)
{
    gb_fill(b, t, &rng, lo, hi);
}

/* ---- pointwise ------------------------------------------------------------ */

static void
test_pointwise(void)
{
    int64_t dims[3] = {3, 5, 37};
    int64_t bdims[3] = {1, 5, 1};
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, dims, false);
    int s = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, bdims, false);
    int y = gb_tensor(&b, CUDNN_DATA_FP8_E5M2, 3, dims, false);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, x, s, FDNN_GRAPH_NONE, y);
    fill(&b, x, -460, 460);
    for (int i = 0; i < 5; i++)
        gb_set(&b, s, i, i == 4 ? 300.0 : ldexp(1.37, 3 * i - 6)); /* 300 * 448 saturates E5M2 */
    ((uint8_t *)b.data[x])[7] = 0x7F;                             /* NaN */
    ((uint8_t *)b.data[x])[8] = 0x80;                             /* -0 */
    for (int ei = 0; ei < 2; ei++) {
        int64_t eng = ei == 0 ? FDNN_GRAPH_ENGINE_GENERIC : FDNN_GRAPH_ENGINE_FUSED_EPILOGUE;
        cudnnStatus_t st = gb_run(handle, gb_engine(eng), &b);
        if (eng == FDNN_GRAPH_ENGINE_FUSED_EPILOGUE) {
            CHECK(st == CUDNN_STATUS_NOT_SUPPORTED); /* no conv / matmul: not its pattern */
            continue;
        }
        CHECK_OK(st);
        int bad = 0;
        for (int64_t i = 0; i < gb_count(&b, y); i++) {
            int64_t c = (i / 37) % 5;
            unsigned xc = ((uint8_t *)b.data[x])[i];
            float prod = (float)(decode_def(xc, false) * (double)(float)gb_get(&b, s, c)); /* FLOAT math */
            unsigned want = encode_ref(prod, true), got = ((uint8_t *)b.data[y])[i];
            if (got != want && bad++ < 5)
                fdnn_test_fail(__FILE__, __LINE__, "pointwise: element %lld: x 0x%02x -> 0x%02x, want 0x%02x",
                               (long long)i, xc, got, want);
        }
        CHECK(bad == 0);
        CHECK(((uint8_t *)b.data[y])[7] == 0x7F);
        CHECK(((uint8_t *)b.data[y])[8] == 0x80 || ((uint8_t *)b.data[y])[8] == 0x00);
    }
    gb_free(&b);
}

/* ---- matmul ----------------------------------------------------------------- */

static void
test_matmul(cudnnDataType_t ta, cudnnDataType_t tb, cudnnDataType_t tc, cudnnDataType_t ct)
{
    int64_t ad[3] = {2, 5, 7}, bd[3] = {1, 7, 6}, cd[3] = {2, 5, 6};
    gb_t b;
    gb_init(&b);
    int A = gb_tensor(&b, ta, 3, ad, false);
    int B = gb_tensor(&b, tb, 3, bd, false);
    int C = gb_tensor(&b, tc, 3, cd, false);
    gb_matmul(&b, ct, A, B, C);
    fill(&b, A, -4, 4);
    fill(&b, B, -3, 3);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int bt = 0; bt < 2; bt++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 6; j++) {
                double r = 0;
                for (int k = 0; k < 7; k++)
                    r += gb_get(&b, A, (bt * 5 + i) * 7 + k) * gb_get(&b, B, k * 6 + j);
                int64_t f = (bt * 5 + i) * 6 + j;
                bool ok = gx_is_fp8(tc) ? code_ok(((uint8_t *)b.data[C])[f], r, 1e-5, is_e5m2(tc))
                                        : fabs(gb_get(&b, C, f) - r) <= 1e-5 * (1 + fabs(r));
                if (!ok && bad++ < 5)
                    fdnn_test_fail(__FILE__, __LINE__, "matmul %s x %s -> %s: C[%lld] = %g, want %g",
                                   gx_dtype_name(ta), gx_dtype_name(tb), gx_dtype_name(tc), (long long)f,
                                   gb_get(&b, C, f), r);
            }
    CHECK(bad == 0);
    /* the fused engine takes FP8 only in the chain: it declines FP8 A/B */
    if (gx_is_fp8(ta) || gx_is_fp8(tb)) {
        CHECK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_FUSED_EPILOGUE), &b) == CUDNN_STATUS_NOT_SUPPORTED);
    }
    gb_free(&b);
}

/* ---- convolution ------------------------------------------------------------ */

/* x [2,3,6,5], w [4,3,3,3], pad 1, stride 1: y [2,4,6,5]. */
static double
conv_ref(gb_t *b, int x, int w, int n, int k, int oh, int ow)
{
    double r = 0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                int ih = oh + i - 1, iw = ow + j - 1;
                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 5)
                    continue;
                r += gb_get(b, x, ((n * 3 + c) * 6 + ih) * 5 + iw) * gb_get(b, w, ((k * 3 + c) * 3 + i) * 3 + j);
            }
    return r;
}

static void
test_conv_fwd(cudnnDataType_t tx, cudnnDataType_t tw, cudnnDataType_t ty, cudnnDataType_t ct)
{
    int64_t xd[4] = {2, 3, 6, 5}, wd[4] = {4, 3, 3, 3}, yd[4] = {2, 4, 6, 5};
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, tx, 4, xd, false);
    int w = gb_tensor(&b, tw, 4, wd, false);
    int y = gb_tensor(&b, ty, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, ct, x, w, y, 1, 1);
    fill(&b, x, -2, 2);
    fill(&b, w, -1, 1);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int n = 0; n < 2; n++)
        for (int k = 0; k < 4; k++)
            for (int oh = 0; oh < 6; oh++)
                for (int ow = 0; ow < 5; ow++) {
                    double r = conv_ref(&b, x, w, n, k, oh, ow);
                    int64_t f = ((n * 4 + k) * 6 + oh) * 5 + ow;
                    bool ok = gx_is_fp8(ty) ? code_ok(((uint8_t *)b.data[y])[f], r, 1e-5, is_e5m2(ty))
                                            : fabs(gb_get(&b, y, f) - r) <= 1e-5 * (1 + fabs(r));
                    if (!ok && bad++ < 5)
                        fdnn_test_fail(__FILE__, __LINE__, "conv fwd %s * %s -> %s: y[%lld] = %g, want %g",
                                       gx_dtype_name(tx), gx_dtype_name(tw), gx_dtype_name(ty), (long long)f,
                                       gb_get(&b, y, f), r);
                }
    CHECK(bad == 0);
    gb_free(&b);
}

/* Backward data (dx from FP8 dy and w) and backward filter (dw from FP8 x
 * and dy), against the same float64 sums. */
static void
test_conv_bwd(void)
{
    int64_t xd[4] = {2, 3, 6, 5}, wd[4] = {4, 3, 3, 3}, yd[4] = {2, 4, 6, 5};
    /* backward data: dx[n,c,ih,iw] = sum dy[n,k,oh,ow] w[k,c,i,j], ih = oh + i - 1 */
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, wd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FP8_E5M2, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_BWD_DATA, CUDNN_DATA_FLOAT, x, w, y, 1, 1);
    fill(&b, w, -1, 1);
    fill(&b, y, -2, 2);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    double err = 0;
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int ih = 0; ih < 6; ih++)
                for (int iw = 0; iw < 5; iw++) {
                    double r = 0;
                    for (int k = 0; k < 4; k++)
                        for (int i = 0; i < 3; i++)
                            for (int j = 0; j < 3; j++) {
                                int oh = ih - i + 1, ow = iw - j + 1;
                                if (oh < 0 || oh >= 6 || ow < 0 || ow >= 5)
                                    continue;
                                r += gb_get(&b, y, ((n * 4 + k) * 6 + oh) * 5 + ow) *
                                     gb_get(&b, w, ((k * 3 + c) * 3 + i) * 3 + j);
                            }
                    double e = fabs(gb_get(&b, x, ((n * 3 + c) * 6 + ih) * 5 + iw) - r) / (1 + fabs(r));
                    err = e > err || isnan(e) ? e : err;
                }
    CHECK_MSG(err <= 1e-5, "conv bwd data with FP8 dy, w: error %g", err);
    gb_free(&b);
    /* backward filter into an E4M3 dw */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, xd, false);
    w = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, wd, false);
    y = gb_tensor(&b, CUDNN_DATA_FP8_E5M2, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_BWD_FILTER, CUDNN_DATA_FLOAT, x, w, y, 1, 1);
    fill(&b, x, -2, 2);
    fill(&b, y, -1, 1);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double r = 0;
                    for (int n = 0; n < 2; n++)
                        for (int oh = 0; oh < 6; oh++)
                            for (int ow = 0; ow < 5; ow++) {
                                int ih = oh + i - 1, iw = ow + j - 1;
                                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 5)
                                    continue;
                                r += gb_get(&b, y, ((n * 4 + k) * 6 + oh) * 5 + ow) *
                                     gb_get(&b, x, ((n * 3 + c) * 6 + ih) * 5 + iw);
                            }
                    int64_t f = ((k * 3 + c) * 3 + i) * 3 + j;
                    if (!code_ok(((uint8_t *)b.data[w])[f], r, 1e-5, false) && bad++ < 5)
                        fdnn_test_fail(__FILE__, __LINE__, "conv bwd filter: dw[%lld] = %g, want %g", (long long)f,
                                       gb_get(&b, w, f), r);
                }
    CHECK(bad == 0);
    gb_free(&b);
}

/* ---- reductions ------------------------------------------------------------- */

static void
test_reduction(void)
{
    int64_t xd[3] = {4, 9, 13}, yd[3] = {1, 1, 1}, rd[3] = {4, 1, 13};
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, xd, false);
    int amax = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, yd, false);
    gb_reduction(&b, CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, x, amax);
    fill(&b, x, -100, 100);
    gb_set(&b, x, 77, -300.0); /* the largest magnitude, negative */
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    double want = 0;
    for (int64_t i = 0; i < gb_count(&b, x); i++)
        want = fmax(want, fabs(gb_get(&b, x, i)));
    CHECK_MSG(gb_get(&b, amax, 0) == want && want == 288.0, "AMAX of E4M3: %g, want %g (= 288, -300 rounded)",
              gb_get(&b, amax, 0), want);
    gb_free(&b);
    /* ADD over dim 1 into E5M2 */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, xd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FP8_E5M2, 3, rd, false);
    gb_reduction(&b, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, x, y);
    fill(&b, x, -8, 8);
    CHECK_OK(gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), &b));
    int bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 13; j++) {
            double r = 0;
            for (int c = 0; c < 9; c++)
                r += gb_get(&b, x, (i * 9 + c) * 13 + j);
            if (!code_ok(((uint8_t *)b.data[y])[i * 13 + j], r, 1e-6, true) && bad++ < 5)
                fdnn_test_fail(__FILE__, __LINE__, "ADD into E5M2: %g, want %g", gb_get(&b, y, i * 13 + j), r);
        }
    CHECK(bad == 0);
    gb_free(&b);
}

/* ---- the FP8 epilogue ---------------------------------------------------- */

/* y = E4M3(conv(x, w) * descale * scale); amax = max |conv(x, w) * descale|
 * when with_amax.  x and w of type tin. */
static void
test_epilogue(cudnnDataType_t tin, bool with_amax)
{
    int64_t xd[4] = {2, 3, 6, 5}, wd[4] = {4, 3, 3, 3}, yd[4] = {2, 4, 6, 5}, sd[4] = {1, 1, 1, 1};
    const float descale = 0.75f, scale = 24.0f;
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, tin, 4, xd, false);
    int w = gb_tensor(&b, tin, 4, wd, false);
    int c0 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int c1 = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
    int y = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, yd, false);
    int ds = gb_scalar_f32(&b, descale), sc = gb_scalar_f32(&b, scale);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, c0, 1, 1);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, c0, ds, FDNN_GRAPH_NONE, c1);
    gb_pw(&b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, c1, sc, FDNN_GRAPH_NONE, y);
    int amax = -1;
    if (with_amax) {
        int ab = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, true);
        amax = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, sd, false);
        gb_pw(&b, CUDNN_POINTWISE_ABS, CUDNN_DATA_FLOAT, c1, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, ab);
        gb_reduction(&b, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, ab, amax);
    }
    fill(&b, x, -2, 2);
    fill(&b, w, -1, 1);
    uint8_t *generic = malloc((size_t)gb_count(&b, y));
    bool fused_runs = !gx_is_fp8(tin) && !with_amax;
    for (int ei = 0; ei < 2; ei++) {
        int64_t eng = ei == 0 ? FDNN_GRAPH_ENGINE_GENERIC : FDNN_GRAPH_ENGINE_FUSED_EPILOGUE;
        cudnnStatus_t st = gb_run(handle, gb_engine(eng), &b);
        if (ei == 1 && !fused_runs) {
            CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED && strlen(fdnn_fail_reason()) > 0,
                      "fused engine on an FP8 %s graph: %s", with_amax ? "amax" : "operand",
                      cudnnGetErrorString(st));
            continue;
        }
        CHECK_OK(st);
        int bad = 0;
        double am = 0;
        for (int n = 0; n < 2; n++)
            for (int k = 0; k < 4; k++)
                for (int oh = 0; oh < 6; oh++)
                    for (int ow = 0; ow < 5; ow++) {
                        double r = conv_ref(&b, x, w, n, k, oh, ow) * descale;
                        am = fmax(am, fabs(r));
                        int64_t f = ((n * 4 + k) * 6 + oh) * 5 + ow;
                        if (!code_ok(((uint8_t *)b.data[y])[f], r * scale, 1e-5, false) && bad++ < 5)
                            fdnn_test_fail(__FILE__, __LINE__, "epilogue (engine %lld): y[%lld] = %g, want %g",
                                           (long long)eng, (long long)f, gb_get(&b, y, f), r * scale);
                    }
        CHECK(bad == 0);
        if (with_amax)
            CHECK_MSG(fabs(gb_get(&b, amax, 0) - am) <= 1e-5 * am, "amax %g, want %g", gb_get(&b, amax, 0), am);
        if (ei == 0)
            memcpy(generic, b.data[y], (size_t)gb_count(&b, y));
        else
            CHECK_MSG(memcmp(generic, b.data[y], (size_t)gb_count(&b, y)) == 0,
                      "fused and generic engines differ on the FP8 output");
    }
    free(generic);
    gb_free(&b);
}

/* ---- what 8.9 refuses ------------------------------------------------------ */

static void
expect_refused(gb_t *b, const char *what, const char *needle)
{
    cudnnStatus_t st = gb_run(handle, gb_engine(FDNN_GRAPH_ENGINE_GENERIC), b);
    CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "%s: %s, expected NOT_SUPPORTED", what, cudnnGetErrorString(st));
    CHECK_MSG(strstr(fdnn_fail_reason(), needle) != NULL, "%s: reason \"%s\" lacks \"%s\"", what, fdnn_fail_reason(),
              needle);
    gb_free(b);
}

static void
test_refused(void)
{
    int64_t d[3] = {2, 3, 4}, ad[3] = {1, 3, 4}, bd[3] = {1, 4, 5}, cd[3] = {1, 3, 5};
    gb_t b;
    /* FP8 as the pointwise math precision */
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, d, false);
    int y = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, d, false);
    gb_pw(&b, CUDNN_POINTWISE_ABS, CUDNN_DATA_FP8_E4M3, x, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    expect_refused(&b, "pointwise math precision FP8", "math precision");
    /* FP8 as the matmul compute type */
    gb_init(&b);
    int A = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, ad, false);
    int B = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, bd, false);
    int C = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, false);
    gb_matmul(&b, CUDNN_DATA_FP8_E4M3, A, B, C);
    expect_refused(&b, "matmul compute type FP8", "compute type FP8_E4M3");
    /* FP8 operands with DOUBLE compute */
    gb_init(&b);
    A = gb_tensor(&b, CUDNN_DATA_FP8_E5M2, 3, ad, false);
    B = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, bd, false);
    C = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, false);
    gb_matmul(&b, CUDNN_DATA_DOUBLE, A, B, C);
    expect_refused(&b, "matmul FP8 with DOUBLE compute", "FP8 computes in FLOAT");
    /* FP8 with a HALF operand */
    gb_init(&b);
    A = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, ad, false);
    B = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, bd, false);
    C = gb_tensor(&b, CUDNN_DATA_HALF, 3, cd, false);
    gb_matmul(&b, CUDNN_DATA_FLOAT, A, B, C);
    expect_refused(&b, "matmul FP8 into HALF", "FP8 or FLOAT");
    /* FAST_FLOAT_FOR_FP8 without FP8 operands */
    gb_init(&b);
    A = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, ad, false);
    B = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, bd, false);
    C = gb_tensor(&b, CUDNN_DATA_FLOAT, 3, cd, false);
    gb_matmul(&b, CUDNN_DATA_FAST_FLOAT_FOR_FP8, A, B, C);
    expect_refused(&b, "FAST_FLOAT_FOR_FP8 without FP8", "FAST_FLOAT_FOR_FP8 without FP8");
    /* conv with FP8 operands and DOUBLE compute */
    int64_t xd[4] = {1, 2, 4, 4}, wd[4] = {2, 2, 3, 3};
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 4, wd, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, (int64_t[4]){1, 2, 4, 4}, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_DOUBLE, x, w, y, 1, 1);
    expect_refused(&b, "conv FP8 with DOUBLE compute", "FP8 computes in FLOAT");
    /* reduction of FP8 with DOUBLE compute */
    gb_init(&b);
    x = gb_tensor(&b, CUDNN_DATA_FP8_E4M3, 3, d, false);
    y = gb_tensor(&b, CUDNN_DATA_DOUBLE, 3, (int64_t[3]){1, 1, 1}, false);
    gb_reduction(&b, CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_DOUBLE, x, y);
    expect_refused(&b, "reduction FP8 with DOUBLE compute", "FP8 x or y with FLOAT compute");
}

int
main(void)
{
    fdnn_rng_seed(&rng, 8);
    CHECK_OK(cudnnCreate(&handle));
    test_pointwise();
    const cudnnDataType_t f8[2] = {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FP8_E5M2};
    for (int i = 0; i < 2; i++) {
        test_matmul(f8[i], f8[1 - i], CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
        test_matmul(f8[i], CUDNN_DATA_FLOAT, f8[i], CUDNN_DATA_FAST_FLOAT_FOR_FP8);
        test_conv_fwd(f8[i], f8[i], CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
        test_conv_fwd(f8[i], CUDNN_DATA_FP8_E4M3, f8[1 - i], CUDNN_DATA_FAST_FLOAT_FOR_FP8);
    }
    test_conv_bwd();
    test_reduction();
    test_epilogue(CUDNN_DATA_FLOAT, false);
    test_epilogue(CUDNN_DATA_FLOAT, true);
    test_epilogue(CUDNN_DATA_FP8_E4M3, false);
    test_epilogue(CUDNN_DATA_FP8_E5M2, true);
    test_refused();
    CHECK_OK(cudnnDestroy(handle));
    return fdnn_test_finish("test_graph_fp8");
}

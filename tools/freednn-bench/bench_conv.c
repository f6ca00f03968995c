/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench: runs convolution problems through the cuDNN API.
 *
 *   freednn-bench [options] [conv key=value ...]
 *     --file F       problem lines to read (default: shared/bench/shapes.txt)
 *     --match S      only problems whose name contains S
 *     --dir D        fwd, bwd_d, bwd_w or all (default: the line's dir key)
 *     --algo N       algorithm number (default: the first of the _v7 list)
 *     --find         use cudnnFind*Algorithm's choice instead
 *     --threads T    worker threads (default: every processor)
 *     --iters N      timed runs, the median is reported (default 5)
 *     --layout L     nchw or nhwc user tensors (default nchw); with nhwc the
 *                    oneDNN side is given NHWC tensors too (FP32 only)
 *     --no-dnnl      skip the oneDNN comparison
 *     --dt T         f32, f16 or bf16 storage for every problem (default:
 *                    the line's dt key, f32 without one); f16/bf16 run as
 *                    PSEUDO_HALF / PSEUDO_BFLOAT16; bf16 against oneDNN's
 *                    bfloat16 convolution (NCHW bfloat16 user tensors,
 *                    reorders counted), f16 without the oneDNN side
 *     --math M       the descriptor's math type: default, tensor_op,
 *                    allow_conversion or fma
 *
 * One output line per problem and direction: time (median ms), GFLOP/s
 * (2 * multiply-adds of the direct formula / time), the max relative error
 * against oneDNN (or against the float64 reference for small problems), and
 * with oneDNN the time of the same problem on NCHW user tensors with all
 * reorders counted, and the ratio oneDNN time / FreeDNN time (> 1: FreeDNN is
 * faster).  FREEDNN_LOG=1 makes the library print each call's problem
 * string, which this driver reads back as a problem line.
 *
 * Environment: FREEDNN_BENCH_CPU_TIME=1 times the calling thread's CPU
 * time; FREEDNN_BENCH_FLUSH_MB=N writes and reads N MB of another buffer
 * before every run of either library (operands out of cache, as inside a
 * network); FREEDNN_BENCH_DNNL_CONV_ONLY=1 times oneDNN's convolution
 * primitive alone, its reorders outside the clock (as inside a network,
 * where oneDNN keeps its tensors in its own layouts: the default, reorders
 * counted, flatters FreeDNN on the 1x1 layers by 5-20%). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "net.h"
#include "core/conv.h"
#include "core/cpu.h"
#include "cpu/simd/cvt.h"
#include "cudnn.h"
#include "freednn.h"
#include "ref/conv_ref.h"

#define CHECK(expr)                                                                                   \
    do {                                                                                              \
        cudnnStatus_t s_ = (expr);                                                                    \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                             \
            fprintf(stderr, "freednn-bench: %s: %s\n", #expr, cudnnGetErrorString(s_));               \
            return -1;                                                                                \
        }                                                                                             \
    } while (0)

typedef struct options {
    const char *file, *match;
    int dir; /* -1: from the line; 0, 1, 2; 3: all */
    int algo; /* -1: _v7's first */
    bool find, dnnl, nhwc;
    int threads, iters;
    int dt;   /* -1: the line's dt key; else a cudnnDataType_t */
    int math; /* cudnnMathType_t of the convolution descriptor */
} options_t;

/* FP32 <-> the 16-bit storage of the f16 / bf16 problems (round to nearest
 * even). */
static void
to_storage(const float *src, uint16_t *dst, size_t n, cudnnDataType_t dt)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = dt == CUDNN_DATA_HALF ? fdnn_f32_to_f16(src[i]) : fdnn_f32_to_bf16(src[i]);
}

static void
from_storage(const uint16_t *src, float *dst, size_t n, cudnnDataType_t dt)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = dt == CUDNN_DATA_HALF ? fdnn_f16_to_f32(src[i]) : fdnn_bf16_to_f32(src[i]);
}

/* FREEDNN_BENCH_CPU_TIME=1: the calling thread's CPU time instead of the
 * wall clock, for single-thread measurements on a shared, loaded machine
 * (time spent descheduled is not counted). */
static double
now_ms(void)
{
    struct timespec ts;
    const char *v = getenv("FREEDNN_BENCH_CPU_TIME");
    clock_gettime(v != NULL && v[0] == '1' ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void
bench_settle(void)
{
    static long ms = -1;
    if (ms < 0) {
        const char *v = getenv("FREEDNN_BENCH_SETTLE_MS");
        ms = v != NULL ? atol(v) : 30;
        if (ms < 0)
            ms = 0;
    }
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

void
bench_flush_caches(void)
{
    static float *buf;
    static size_t n;
    static int read_env;
    if (!read_env) {
        read_env = 1;
        const char *v = getenv("FREEDNN_BENCH_FLUSH_MB");
        long mb = v != NULL ? atol(v) : 0;
        n = mb > 0 ? (size_t)mb * 262144 : 0;
        buf = n > 0 ? calloc(n, sizeof(float)) : NULL;
        if (buf == NULL)
            n = 0;
    }
    volatile float sink = 0;
    float s = 0;
    for (size_t i = 0; i < n; i += 16) {
        buf[i] += 1.0f;
        s += buf[i];
    }
    sink = s;
    (void)sink;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void
fill(float *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(((i + seed) * 2654435761u) % 2001) * 0.001f - 1.0f;
}

static double
max_rel_err(const float *a, const float *b, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
        if (!(d <= e))
            e = isnan(d) ? INFINITY : d;
    }
    return e;
}

/* Strides of an N, C, spatial tensor (rank nb) in NCHW or NHWC. */
static void
strides_of(int nb, const int *dims, bool nhwc, int *st)
{
    int s = 1;
    if (nhwc) {
        st[1] = 1;
        s = dims[1];
        for (int i = nb - 1; i >= 2; i--) {
            st[i] = s;
            s *= dims[i];
        }
        st[0] = s;
    } else {
        for (int i = nb - 1; i >= 0; i--) {
            st[i] = s;
            s *= dims[i];
        }
    }
}

/* NHWC buffer -> NCHW order (for comparisons). */
static void
to_nchw(const float *src, float *dst, int nb, const int *dims)
{
    int st[5];
    strides_of(nb, dims, true, st);
    size_t count = 1;
    for (int i = 0; i < nb; i++)
        count *= (size_t)dims[i];
    for (size_t idx = 0; idx < count; idx++) {
        size_t rest = idx, off = 0;
        for (int i = nb - 1; i >= 0; i--) {
            off += (rest % (size_t)dims[i]) * (size_t)st[i];
            rest /= (size_t)dims[i];
        }
        dst[idx] = src[off];
    }
}

/* The operands and the workspace as a cuDNN program gets them from
 * cudaMalloc (FreeDNN's host runtime aligns to 256 bytes, as CUDA does):
 * malloc's blocks sit 16 bytes past a 64-byte line, so every 16-float
 * vector of an NHWC channel block spanned two lines, while oneDNN's side
 * runs on its own aligned memory (session 9, dwnhwc: NHWC depthwise cells
 * at or above oneDNN 16 -> 31 of 108 with aligned buffers, same code). */
static void *
device_alloc(size_t bytes)
{
    return aligned_alloc(256, (bytes + 255) / 256 * 256);
}

static int
run_problem(cudnnHandle_t h, const bench_problem_t *bp, int dir, const options_t *o)
{
    static const char *const dirs[3] = {"fwd", "bwd_d", "bwd_w"};
    int nb = bp->nsp + 2, off = 3 - bp->nsp;
    int xd[5] = {bp->mb, bp->ic}, wd[5] = {bp->oc, bp->ic / bp->g}, yd[5] = {bp->mb, bp->oc};
    int pad[3], str[3], dil[3];
    for (int i = 0; i < bp->nsp; i++) {
        xd[2 + i] = bp->in[off + i];
        wd[2 + i] = bp->k[off + i];
        yd[2 + i] = bench_out(bp, off + i);
        pad[i] = bp->p[off + i];
        str[i] = bp->s[off + i];
        dil[i] = bp->d[off + i];
    }
    int xs[5], ys[5];
    strides_of(nb, xd, o->nhwc, xs);
    strides_of(nb, yd, o->nhwc, ys);
    size_t xn = 1, wn = 1, yn = 1;
    for (int i = 0; i < nb; i++) {
        xn *= (size_t)xd[i];
        wn *= (size_t)wd[i];
        yn *= (size_t)yd[i];
    }
    cudnnTensorDescriptor_t xdesc, ydesc;
    cudnnFilterDescriptor_t wdesc;
    cudnnConvolutionDescriptor_t cdesc;
    CHECK(cudnnCreateTensorDescriptor(&xdesc));
    CHECK(cudnnCreateTensorDescriptor(&ydesc));
    CHECK(cudnnCreateFilterDescriptor(&wdesc));
    CHECK(cudnnCreateConvolutionDescriptor(&cdesc));
    cudnnDataType_t dt = (cudnnDataType_t)(o->dt >= 0 ? o->dt : bp->dt);
    CHECK(cudnnSetTensorNdDescriptor(xdesc, dt, nb, xd, xs));
    CHECK(cudnnSetTensorNdDescriptor(ydesc, dt, nb, yd, ys));
    CHECK(cudnnSetFilterNdDescriptor(wdesc, dt, o->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wd));
    CHECK(cudnnSetConvolutionNdDescriptor(cdesc, bp->nsp, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    CHECK(cudnnSetConvolutionGroupCount(cdesc, bp->g));
    CHECK(cudnnSetConvolutionMathType(cdesc, (cudnnMathType_t)o->math));
    float *x = device_alloc(xn * 4), *w = device_alloc(wn * 4), *y = device_alloc(yn * 4);
    fill(x, xn, 1);
    fill(w, wn, 2);
    fill(y, yn, 3);
    size_t out_n = dir == 0 ? yn : dir == 1 ? xn : wn;
    float *out = dir == 0 ? y : dir == 1 ? x : w;
    /* The buffers the calls see: the FP32 ones, or 16-bit copies. */
    bool half = dt != CUDNN_DATA_FLOAT;
    void *xc = x, *wc = w, *yc = y;
    if (half) {
        xc = device_alloc(xn * 2);
        wc = device_alloc(wn * 2);
        yc = device_alloc(yn * 2);
        to_storage(x, xc, xn, dt);
        to_storage(w, wc, wn, dt);
        to_storage(y, yc, yn, dt);
    }
    void *outc = dir == 0 ? yc : dir == 1 ? xc : wc;

    /* The algorithm. */
    int algo = o->algo, n = 0;
    if (algo < 0) {
        cudnnConvolutionFwdAlgoPerf_t perf[8];
        if (dir == 0)
            CHECK(o->find ? cudnnFindConvolutionForwardAlgorithm(h, xdesc, wdesc, cdesc, ydesc, 1, &n, perf)
                          : cudnnGetConvolutionForwardAlgorithm_v7(h, xdesc, wdesc, cdesc, ydesc, 1, &n, perf));
        else if (dir == 1)
            CHECK(o->find ? cudnnFindConvolutionBackwardDataAlgorithm(h, wdesc, ydesc, cdesc, xdesc, 1, &n,
                                                                      (cudnnConvolutionBwdDataAlgoPerf_t *)perf)
                          : cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wdesc, ydesc, cdesc, xdesc, 1, &n,
                                                                        (cudnnConvolutionBwdDataAlgoPerf_t *)perf));
        else
            CHECK(o->find ? cudnnFindConvolutionBackwardFilterAlgorithm(h, xdesc, ydesc, cdesc, wdesc, 1, &n,
                                                                        (cudnnConvolutionBwdFilterAlgoPerf_t *)perf)
                          : cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                h, xdesc, ydesc, cdesc, wdesc, 1, &n, (cudnnConvolutionBwdFilterAlgoPerf_t *)perf));
        algo = (int)perf[0].algo;
    }
    size_t wsb = 0;
    if (dir == 0)
        CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, xdesc, wdesc, cdesc, ydesc, algo, &wsb));
    else if (dir == 1)
        CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wdesc, ydesc, cdesc, xdesc, algo, &wsb));
    else
        CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xdesc, ydesc, cdesc, wdesc, algo, &wsb));
    void *ws = wsb ? device_alloc(wsb) : NULL;
    float one = 1, zero = 0;
    double t[64];
    int iters = o->iters < 64 ? o->iters : 64;
    /* 2 threads and more: the vCPU placement this row ran in (bench.h) */
    double rt_before = o->threads >= 2 ? bench_core_roundtrip_ns() : -1;
    bench_settle();
    for (int i = -1; i < iters; i++) {
        bench_flush_caches();
        double t0 = now_ms();
        if (dir == 0)
            CHECK(cudnnConvolutionForward(h, &one, xdesc, xc, wdesc, wc, cdesc, algo, ws, wsb, &zero, ydesc, yc));
        else if (dir == 1)
            CHECK(cudnnConvolutionBackwardData(h, &one, wdesc, wc, ydesc, yc, cdesc, algo, ws, wsb, &zero, xdesc,
                                               xc));
        else
            CHECK(cudnnConvolutionBackwardFilter(h, &one, xdesc, xc, ydesc, yc, cdesc, algo, ws, wsb, &zero, wdesc,
                                                 wc));
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    double ms = t[iters / 2];
    double macs = (double)bp->mb * bp->oc * (bp->ic / bp->g);
    for (int i = 0; i < 3; i++)
        macs *= (double)bp->k[i] * bench_out(bp, i);
    double gflops = 2 * macs / (ms * 1e6);

    if (half) /* the output, widened (the error then includes the inputs' rounding) */
        from_storage(outc, out, out_n, dt);
    /* Inputs again (the output overwrote one of them) for the comparison. */
    float *result = malloc(out_n * 4), *nchw = malloc(out_n * 4);
    if (o->nhwc && dir != 2)
        to_nchw(out, result, nb, dir == 0 ? yd : xd);
    else if (o->nhwc)
        to_nchw(out, result, nb, wd);
    else
        memcpy(result, out, out_n * 4);
    fill(x, xn, 1);
    fill(w, wn, 2);
    fill(y, yn, 3);
    float *xi = x, *wi = w, *yi = y, *tmp[3] = {NULL, NULL, NULL};
    if (o->nhwc) { /* the references take NCHW / KCRS inputs */
        tmp[0] = malloc(xn * 4);
        tmp[1] = malloc(wn * 4);
        tmp[2] = malloc(yn * 4);
        to_nchw(x, tmp[0], nb, xd);
        to_nchw(w, tmp[1], nb, wd);
        to_nchw(y, tmp[2], nb, yd);
        xi = tmp[0];
        wi = tmp[1];
        yi = tmp[2];
    }
    double err = -1, dms = -1;
    if (o->dnnl && !half && o->nhwc) {
        dms = bench_onednn_nhwc(bp, dir, o->threads, o->iters, xi, wi, yi, nchw, out_n);
        if (dms >= 0)
            err = max_rel_err(result, nchw, out_n);
    } else if (o->dnnl && !half) {
        dms = bench_onednn(bp, dir, o->threads, o->iters, xi, wi, yi, nchw);
        if (dms >= 0)
            err = max_rel_err(result, nchw, out_n);
    } else if (o->dnnl && !o->nhwc && dt == CUDNN_DATA_BFLOAT16) {
        /* oneDNN's bfloat16 convolution; the error is then between two
         * bfloat16 results (both round the output) */
        dms = bench_onednn_bf16(bp, dir, o->threads, o->iters, xi, wi, yi, nchw);
        if (dms >= 0)
            err = max_rel_err(result, nchw, out_n);
    }
    if (err < 0 && macs < 2e8) {
        fdnn_conv_problem_t p;
        memset(&p, 0, sizeof(p));
        p.n = bp->mb, p.c = bp->ic, p.k = bp->oc, p.g = bp->g, p.nsp = bp->nsp;
        for (int i = 0; i < 3; i++) {
            p.in[i] = bp->in[i], p.ker[i] = bp->k[i], p.pad[i] = bp->p[i], p.stride[i] = bp->s[i];
            p.dil[i] = bp->d[i], p.out[i] = bench_out(bp, i);
        }
        double *dx = malloc(xn * 8), *dw = malloc(wn * 8), *dy = malloc(yn * 8), *ref = malloc(out_n * 8);
        for (size_t i = 0; i < xn; i++)
            dx[i] = xi[i];
        for (size_t i = 0; i < wn; i++)
            dw[i] = wi[i];
        for (size_t i = 0; i < yn; i++)
            dy[i] = yi[i];
        if (dir == 0)
            fdnn_ref_conv_fwd(&p, dx, dw, ref);
        else if (dir == 1)
            fdnn_ref_conv_bwd_data(&p, dy, dw, ref);
        else
            fdnn_ref_conv_bwd_filter(&p, dx, dy, ref);
        for (size_t i = 0; i < out_n; i++)
            nchw[i] = (float)ref[i];
        err = max_rel_err(result, nchw, out_n);
        free(dx);
        free(dw);
        free(dy);
        free(ref);
    }
    printf("%-28s mb=%-3d %-5s algo=%d %9.3f ms %8.1f GFLOP/s err=%-9.2g", bp->name, bp->mb, dirs[dir], algo, ms,
           gflops, err);
    if (dms >= 0)
        printf(" onednn %9.3f ms ratio %.2f", dms, dms / ms);
    if (half)
        printf(" dt=%s math=%d", dt == CUDNN_DATA_HALF ? "f16" : "bf16", o->math);
    if (rt_before >= 0)
        printf(" rt=%.0f,%.0f ns", rt_before, bench_core_roundtrip_ns());
    printf("\n");
    fflush(stdout);
    for (int i = 0; i < 3; i++)
        free(tmp[i]);
    free(result);
    free(nchw);
    free(ws);
    free(x);
    free(w);
    free(y);
    if (half) {
        free(xc);
        free(wc);
        free(yc);
    }
    cudnnDestroyTensorDescriptor(xdesc);
    cudnnDestroyTensorDescriptor(ydesc);
    cudnnDestroyFilterDescriptor(wdesc);
    cudnnDestroyConvolutionDescriptor(cdesc);
    return 0;
}

static int
run_line(cudnnHandle_t h, const char *line, const options_t *o)
{
    bench_problem_t bp;
    if (!bench_parse_line(line, &bp))
        return 0;
    if (o->match != NULL && strstr(bp.name, o->match) == NULL)
        return 0;
    int rc = 0;
    for (int dir = 0; dir < 3; dir++) {
        bool want = o->dir == 3 || o->dir == dir || (o->dir < 0 && (dir == 0 ? bp.fwd : bp.bwd));
        if (want && run_problem(h, &bp, dir, o) != 0)
            rc = 1;
    }
    return rc;
}

int
main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--net") == 0)
            return net_main(argc, argv); /* whole networks: net_main.c */
    options_t o = {FDNN_SHAPES_FILE, NULL, -1, -1, false, true, false, (int)fdnn_cpu_usable_count(), 5, -1,
                   CUDNN_DEFAULT_MATH};
    char line[1024] = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(a, "--file") == 0)
            o.file = v, i++;
        else if (strcmp(a, "--match") == 0)
            o.match = v, i++;
        else if (strcmp(a, "--dir") == 0) {
            o.dir = strcmp(v, "fwd") == 0     ? 0
                    : strcmp(v, "bwd_d") == 0 ? 1
                    : strcmp(v, "bwd_w") == 0 ? 2
                    : strcmp(v, "all") == 0   ? 3
                                              : -2;
            if (o.dir == -2) {
                fprintf(stderr, "freednn-bench: --dir takes fwd, bwd_d, bwd_w or all, not '%s'\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--algo") == 0)
            o.algo = atoi(v), i++;
        else if (strcmp(a, "--find") == 0)
            o.find = true;
        else if (strcmp(a, "--threads") == 0)
            o.threads = atoi(v), i++;
        else if (strcmp(a, "--iters") == 0)
            o.iters = atoi(v) > 0 ? atoi(v) : 1, i++;
        else if (strcmp(a, "--layout") == 0) {
            if (strcmp(v, "nhwc") != 0 && strcmp(v, "nchw") != 0) {
                fprintf(stderr, "freednn-bench: --layout takes nchw or nhwc, not '%s'\n", v);
                return 2;
            }
            o.nhwc = strcmp(v, "nhwc") == 0, i++;
        }
        else if (strcmp(a, "--no-dnnl") == 0)
            o.dnnl = false;
        else if (strcmp(a, "--dt") == 0) {
            o.dt = strcmp(v, "f16") == 0 ? CUDNN_DATA_HALF : strcmp(v, "bf16") == 0 ? CUDNN_DATA_BFLOAT16
                                                                                   : CUDNN_DATA_FLOAT;
            i++;
        } else if (strcmp(a, "--math") == 0) {
            o.math = strcmp(v, "tensor_op") == 0          ? CUDNN_TENSOR_OP_MATH
                     : strcmp(v, "allow_conversion") == 0 ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
                     : strcmp(v, "fma") == 0              ? CUDNN_FMA_MATH
                                                          : CUDNN_DEFAULT_MATH;
            i++;
        }
        else if (strncmp(a, "--", 2) == 0) {
            /* a misspelt option would otherwise become a problem line that
             * matches nothing: a run that measures nothing and exits 0 */
            fprintf(stderr, "freednn-bench: unknown option '%s'\n", a);
            return 2;
        } else {
            /* The rest of the command line is one problem line. */
            size_t len = strlen(line);
            snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", a);
        }
    }
    if (o.nhwc && o.dt != CUDNN_DATA_FLOAT && o.dt != -1)
        o.dnnl = false; /* the oneDNN side models NHWC user tensors in FP32 only */
    cudnnHandle_t h;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS || freednnSetNumThreads(h, o.threads) != CUDNN_STATUS_SUCCESS)
        return 1;
    const char *isa = "";
    freednnGetIsa(h, &isa);
    printf("# freednn-bench: %s, %d threads, isa %s, %s tensors\n", fdnn_cpu_name(), o.threads, isa,
           o.nhwc ? "NHWC" : "NCHW");
    int rc = 0;
    if (line[0] != '\0') {
        rc = run_line(h, line, &o);
    } else {
        FILE *f = fopen(o.file, "r");
        if (f == NULL) {
            fprintf(stderr, "freednn-bench: cannot open %s\n", o.file);
            return 1;
        }
        char buf[1024];
        while (fgets(buf, sizeof(buf), f) != NULL)
            rc |= run_line(h, buf, &o);
        fclose(f);
    }
    cudnnDestroy(h);
    return rc;
}

#ifndef FDNN_BENCH_HAVE_DNNL
double
bench_onednn(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
             const float *dy, float *result)
{
    (void)p, (void)dir, (void)threads, (void)iters, (void)x, (void)w, (void)dy, (void)result;
    return -1; /* built without oneDNN */
}

double
bench_onednn_nhwc(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                  const float *dy, float *result, size_t result_n)
{
    (void)p, (void)dir, (void)threads, (void)iters, (void)x, (void)w, (void)dy, (void)result, (void)result_n;
    return -1; /* built without oneDNN */
}

double
bench_onednn_bf16(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                  const float *dy, float *result)
{
    (void)p, (void)dir, (void)threads, (void)iters, (void)x, (void)w, (void)dy, (void)result;
    return -1; /* built without oneDNN */
}
#endif

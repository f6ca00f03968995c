/* SPDX-License-Identifier: Apache-2.0
 * bench-int8: integer convolutions against FreeDNN's FP32 forward.
 *
 *   bench-int8 [--match S] [--threads T] [--iters N] [--file shapes.txt] [--cols fxunDw]
 *
 * Times are the calling thread's CPU time (run with --threads 1 and
 * OMP_NUM_THREADS=1: every run then stays on that thread), so that other
 * processes on a shared machine do not inflate them.
 *
 * For every forward problem line (the grammar of shared/bench/shapes.txt)
 * whose name contains S: the median time of
 *   f32      cudnnConvolutionForward, FLOAT NCHW, _v7's first algorithm;
 *   s8x4     INT8x4_CONFIG, NCHW_VECT_C, IMPLICIT_PRECOMP_GEMM;
 *   u8x4     UINT8x4_CONFIG (u8 data, s8 filter), NCHW_VECT_C;
 *   s8nhwc   INT8_CONFIG, NHWC, IMPLICIT_PRECOMP_GEMM;
 *   dnnl     oneDNN's u8 x s8 -> u8 convolution from NCHW user tensors, its
 *            reorders of data and weights into its own layouts timed (the
 *            comparison issue #13 asks for; when built with oneDNN);
 *   dnnl_w1  the same on NHWC user tensors with the weights reordered once
 *            outside the timing (oneDNN's best case);
 * and the speedups over f32 and of dnnl over the integer runs.  --cols
 * keeps only the columns named by their letters (f f32, x s8x4, u u8x4,
 * n s8nhwc, D dnnl, w dnnl_w1; the others print -1).  Input channels that are
 * not a multiple of 4 (the RGB stem) are padded with zero channels for the
 * integer runs, as an INT8 network does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "core/cpu.h"
#include "cudnn.h"
#include "freednn.h"

#ifdef BENCH_INT8_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* 1 thread: robust to a shared machine */
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return t[n / 2];
}

typedef struct run {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    int algo;
    size_t ws_bytes;
    void *xb, *wb, *yb, *ws;
} run_t;

/* Sets up p in data type dt (FLOAT, INT8 or INT8x4) with format fmt; c is
 * the (padded) input channel count.  Returns false when the call fails. */
static bool
setup(run_t *r, cudnnHandle_t h, const bench_problem_t *p, int c, cudnnDataType_t dt, cudnnTensorFormat_t fmt)
{
    memset(r, 0, sizeof(*r));
    r->h = h;
    cudnnCreateTensorDescriptor(&r->x);
    cudnnCreateTensorDescriptor(&r->y);
    cudnnCreateFilterDescriptor(&r->w);
    cudnnCreateConvolutionDescriptor(&r->conv);
    const int oh = bench_out(p, 1), ow = bench_out(p, 2);
    bool ok = cudnnSetTensor4dDescriptor(r->x, fmt, dt, p->mb, c, p->in[1], p->in[2]) == 0 &&
              cudnnSetTensor4dDescriptor(r->y, fmt, dt, p->mb, p->oc, oh, ow) == 0 &&
              cudnnSetFilter4dDescriptor(r->w, dt == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_INT8x4 : dt, fmt, p->oc, c / p->g, p->k[1], p->k[2]) == 0 &&
              cudnnSetConvolution2dDescriptor(r->conv, p->p[1], p->p[2], p->s[1], p->s[2], p->d[1], p->d[2],
                                              CUDNN_CROSS_CORRELATION,
                                              dt == CUDNN_DATA_FLOAT ? CUDNN_DATA_FLOAT : CUDNN_DATA_INT32) == 0 &&
              cudnnSetConvolutionGroupCount(r->conv, p->g) == 0;
    if (!ok)
        return false;
    if (dt == CUDNN_DATA_FLOAT) {
        cudnnConvolutionFwdAlgoPerf_t perf;
        int got = 0;
        if (cudnnGetConvolutionForwardAlgorithm_v7(h, r->x, r->w, r->conv, r->y, 1, &got, &perf) != 0 || got < 1)
            return false;
        r->algo = perf.algo;
    } else {
        r->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    }
    if (cudnnGetConvolutionForwardWorkspaceSize(h, r->x, r->w, r->conv, r->y, r->algo, &r->ws_bytes) != 0)
        return false;
    const size_t es = dt == CUDNN_DATA_FLOAT ? 4 : 1;
    const size_t xn = (size_t)p->mb * c * p->in[1] * p->in[2], yn = (size_t)p->mb * p->oc * oh * ow,
                 wn = (size_t)p->oc * (c / p->g) * p->k[1] * p->k[2];
    r->xb = malloc(xn * es);
    r->wb = malloc(wn * es);
    r->yb = malloc(yn * es);
    r->ws = r->ws_bytes > 0 ? malloc(r->ws_bytes) : NULL;
    for (size_t i = 0; i < xn * es; i++)
        ((unsigned char *)r->xb)[i] = es == 4 ? (i % 4 == 3 ? 0x3c : 0) : (unsigned char)(i * 7 % 61);
    for (size_t i = 0; i < wn * es; i++)
        ((unsigned char *)r->wb)[i] = es == 4 ? (i % 4 == 3 ? 0x3c : 0) : (unsigned char)((i * 13 % 31) - 15);
    return true;
}

static double
time_run(run_t *r, int iters)
{
    const float alpha = 1.0f / 256, beta = 0;
    double t[64];
    if (iters > 64)
        iters = 64;
    for (int i = -1; i < iters; i++) {
        double t0 = now_ms();
        if (cudnnConvolutionForward(r->h, &alpha, r->x, r->xb, r->w, r->wb, r->conv, r->algo, r->ws, r->ws_bytes,
                                    &beta, r->y, r->yb) != 0)
            return -1;
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    return median(t, iters);
}

static void
teardown(run_t *r)
{
    if (r->h == NULL) /* never set up */
        return;
    cudnnDestroyTensorDescriptor(r->x);
    cudnnDestroyTensorDescriptor(r->y);
    cudnnDestroyFilterDescriptor(r->w);
    cudnnDestroyConvolutionDescriptor(r->conv);
    free(r->xb);
    free(r->wb);
    free(r->yb);
    free(r->ws);
    r->h = NULL;
}

#ifdef BENCH_INT8_HAVE_DNNL
/* oneDNN u8 x s8 -> u8, output scale 1/256, the primitive choosing its own
 * layouts (format "any").  honest: the user tensors are plain NCHW (u8 data,
 * s8 OIHW filter, as FreeDNN's callers hand theirs) and every reorder into
 * and out of the primitive's layouts is timed, the weights' too (FreeDNN
 * packs its filter in every call); otherwise the user tensors are NHWC and
 * the weights are reordered once, untimed (oneDNN's best case). */
static double
time_dnnl(const bench_problem_t *p, int c, int iters, bool honest)
{
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success)
        return -1;
    dnnl_stream_create(&stream, eng, dnnl_stream_default_flags);
    const int oh = bench_out(p, 1), ow = bench_out(p, 2);
    dnnl_dims_t sd = {p->mb, c, p->in[1], p->in[2]}, dd = {p->mb, p->oc, oh, ow};
    dnnl_dims_t st = {p->s[1], p->s[2]}, dl = {p->d[1] - 1, p->d[2] - 1}, pl = {p->p[1], p->p[2]};
    const dnnl_format_tag_t act_tag = honest ? dnnl_nchw : dnnl_nhwc;
    dnnl_memory_desc_t smd, wmd, dmd, suser, duser, wuser;
    dnnl_memory_desc_init_by_tag(&suser, 4, sd, dnnl_u8, act_tag);
    dnnl_memory_desc_init_by_tag(&duser, 4, dd, dnnl_u8, act_tag);
    dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_u8, honest ? dnnl_format_tag_any : act_tag);
    dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_u8, honest ? dnnl_format_tag_any : act_tag);
    double ms = -1;
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr;
    dnnl_primitive_attr_create(&attr);
    float scale = 1.0f / 256;
    dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL, wre = NULL, sre = NULL, dre = NULL;
    if (p->g == 1) {
        dnnl_dims_t wd = {p->oc, c, p->k[1], p->k[2]};
        dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_s8, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&wuser, 4, wd, dnnl_s8, honest ? dnnl_oihw : dnnl_ohwi);
    } else {
        dnnl_dims_t wd = {p->g, p->oc / p->g, c / p->g, p->k[1], p->k[2]};
        dnnl_memory_desc_init_by_tag(&wmd, 5, wd, dnnl_s8, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&wuser, 5, wd, dnnl_s8, dnnl_goihw);
    }
    if (dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd,
                                                   &wmd, NULL, &dmd, st, dl, pl, pl) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &cd, attr, eng, NULL) != dnnl_success)
        goto out;
    const dnnl_memory_desc_t *wq = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *sq = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *dq = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    const bool s_same = dnnl_memory_desc_equal(sq, &suser), d_same = dnnl_memory_desc_equal(dq, &duser);
    dnnl_memory_t msu, ms_, mw, mwu, md, mdu;
    dnnl_memory_create(&msu, &suser, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&mdu, &duser, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&ms_, sq, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md, dq, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&mw, wq, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&mwu, &wuser, eng, DNNL_MEMORY_ALLOCATE);
    void *hp;
    dnnl_memory_get_data_handle(msu, &hp);
    memset(hp, 3, dnnl_memory_desc_get_size(&suser));
    dnnl_memory_get_data_handle(ms_, &hp);
    memset(hp, 3, dnnl_memory_desc_get_size(sq));
    dnnl_memory_get_data_handle(mwu, &hp);
    memset(hp, 1, dnnl_memory_desc_get_size(&wuser));
    dnnl_primitive_desc_t rpd;
    if (dnnl_reorder_primitive_desc_create(&rpd, &wuser, eng, wq, eng, NULL) == dnnl_success) {
        dnnl_primitive_create(&wre, rpd);
        dnnl_primitive_desc_destroy(rpd);
    }
    if (!s_same && dnnl_reorder_primitive_desc_create(&rpd, &suser, eng, sq, eng, NULL) == dnnl_success) {
        dnnl_primitive_create(&sre, rpd);
        dnnl_primitive_desc_destroy(rpd);
    }
    if (!d_same && dnnl_reorder_primitive_desc_create(&rpd, dq, eng, &duser, eng, NULL) == dnnl_success) {
        dnnl_primitive_create(&dre, rpd);
        dnnl_primitive_desc_destroy(rpd);
    }
    dnnl_exec_arg_t wa[2] = {{DNNL_ARG_FROM, mwu}, {DNNL_ARG_TO, mw}};
    dnnl_exec_arg_t sa[2] = {{DNNL_ARG_FROM, msu}, {DNNL_ARG_TO, ms_}};
    dnnl_exec_arg_t da[2] = {{DNNL_ARG_FROM, md}, {DNNL_ARG_TO, mdu}};
    if (wre != NULL && !honest) {
        dnnl_primitive_execute(wre, stream, 2, wa);
        dnnl_stream_wait(stream);
    }
    dnnl_primitive_create(&prim, pd);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms_}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    double t[64];
    if (iters > 64)
        iters = 64;
    for (int i = -1; i < iters; i++) {
        double t0 = now_ms();
        if (honest) {
            if (wre != NULL)
                dnnl_primitive_execute(wre, stream, 2, wa);
            if (sre != NULL)
                dnnl_primitive_execute(sre, stream, 2, sa);
        }
        dnnl_primitive_execute(prim, stream, 3, args);
        if (honest && dre != NULL)
            dnnl_primitive_execute(dre, stream, 2, da);
        dnnl_stream_wait(stream);
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    ms = median(t, iters);
    dnnl_primitive_destroy(prim);
    if (wre != NULL)
        dnnl_primitive_destroy(wre);
    if (sre != NULL)
        dnnl_primitive_destroy(sre);
    if (dre != NULL)
        dnnl_primitive_destroy(dre);
    dnnl_memory_destroy(msu);
    dnnl_memory_destroy(mdu);
    dnnl_memory_destroy(ms_);
    dnnl_memory_destroy(md);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(mwu);
out:
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return ms;
}
#else
static double
time_dnnl(const bench_problem_t *p, int c, int iters, bool honest)
{
    (void)p, (void)c, (void)iters, (void)honest;
    return -1;
}
#endif

static double
ratio(double num, double den)
{
    return num > 0 && den > 0 ? num / den : 0;
}

/* ms: f32, s8x4, u8x4, s8nhwc, dnnl (NCHW, reorders timed), dnnl_w1. */
static void
print_row(const char *name, int mb, const double ms[6])
{
    printf("%-28s %4d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f %7.2f %7.2f %7.2f\n", name, mb, ms[0], ms[1],
           ms[2], ms[3], ms[4], ms[5], ratio(ms[0], ms[1]), ratio(ms[0], ms[3]), ratio(ms[4], ms[1]),
           ratio(ms[4], ms[2]), ratio(ms[4], ms[3]));
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    const char *file = FDNN_SHAPES_FILE, *match = "", *cols = "fxunDw";
    int threads = 1, iters = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--match") == 0)
            match = argv[i + 1];
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--file") == 0)
            file = argv[i + 1];
        else if (strcmp(argv[i], "--cols") == 0)
            cols = argv[i + 1];
    }
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "bench-int8: cannot open %s\n", file);
        return 1;
    }
    cudnnHandle_t h;
    if (cudnnCreate(&h) != 0 || freednnSetNumThreads(h, threads) != 0)
        return 1;
    const char *isa = "?";
    freednnGetIsa(h, &isa);
    printf("# bench-int8: %s, %d threads, isa %s%s, median of %d\n", fdnn_cpu_name(), threads, isa,
           fdnn_cpu_features()->avx512_vnni ? " (VNNI)" : "", iters);
    printf("%-28s %4s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %7s\n", "problem", "mb", "f32_ms", "s8x4_ms",
           "u8x4_ms", "s8nhwc_ms", "dnnl_ms", "dnnl_w1", "x4/f32", "nhwc/f", "dnl/x4", "dnl/u4", "dnl/nh");
    char line[1024];
    /* Sums per batch size, in the order the sizes come. */
    enum { MAXMB = 8 };
    int mbs[MAXMB], nmb = 0;
    double tot[MAXMB][6] = {{0}};
    while (fgets(line, sizeof(line), f) != NULL) {
        bench_problem_t p;
        if (!bench_parse_line(line, &p) || !p.fwd || p.nsp != 2 || strstr(p.name, match) == NULL)
            continue;
        const int c4 = (p.ic / p.g + 3) / 4 * 4 * p.g;
        run_t r = {0};
        double ms[6] = {-1, -1, -1, -1, -1, -1};
        if (strchr(cols, 'f') != NULL && setup(&r, h, &p, p.ic, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW))
            ms[0] = time_run(&r, iters);
        teardown(&r);
        if (strchr(cols, 'x') != NULL && setup(&r, h, &p, c4, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C))
            ms[1] = time_run(&r, iters);
        teardown(&r);
        if (strchr(cols, 'u') != NULL && setup(&r, h, &p, c4, CUDNN_DATA_UINT8x4, CUDNN_TENSOR_NCHW_VECT_C))
            ms[2] = time_run(&r, iters);
        teardown(&r);
        if (strchr(cols, 'n') != NULL && setup(&r, h, &p, c4, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC))
            ms[3] = time_run(&r, iters);
        teardown(&r);
        if (strchr(cols, 'D') != NULL)
            ms[4] = time_dnnl(&p, c4, iters, true);
        if (strchr(cols, 'w') != NULL)
            ms[5] = time_dnnl(&p, c4, iters, false);
        print_row(p.name, p.mb, ms);
        int b = 0;
        while (b < nmb && mbs[b] != p.mb)
            b++;
        if (b == nmb && nmb < MAXMB)
            mbs[nmb++] = p.mb;
        if (b < nmb)
            for (int i = 0; i < 6; i++)
                tot[b][i] += ms[i];
    }
    for (int b = 0; b < nmb; b++)
        print_row("total", mbs[b], tot[b]);
    fclose(f);
    cudnnDestroy(h);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * The convolution-solver engines (src/cpu/graph/engine_conv.c): one graph
 * engine per solver of the ordered list, global indices 3..22.
 *   - the heuristics (fdnn_graph_heuristic, what ENGINEHEUR returns) list
 *     the conv-solver engines of a convolution graph in the order of
 *     cudnnGetConvolution{Forward,BackwardData,BackwardFilter}Algorithm_v7's
 *     applicable algorithms for the same problem (forward, backward data,
 *     backward filter, a strided one, and a grouped one where _v7 moves
 *     DIRECT first);
 *   - each conv-solver engine's workspace holds its solver's (_v7's memory)
 *     and its output has the bits of the legacy cudnnConvolution* call with
 *     its algorithm;
 *   - 1 and 2 threads give the same bits on every engine that runs;
 *   - every engine by global index either runs the graph and gives the
 *     float64 answer (1e-5 of the largest |y|; FFT / Winograd engines, which
 *     carry those numerical notes, 1e-4) or declines with NOT_SUPPORTED and a
 *     reason (another direction, a solver that does not apply, no
 *     convolution in the graph). */
#include "core/conv_solver.h"
#include "test_graph_engines.h"

static cudnnHandle_t handle;
static fdnn_rng_t rng;

typedef struct {
    int n, c, h, w, k, r, s, pad, stride, groups;
} shape_t;

static int
out_size(int in, int f, int pad, int stride)
{
    return (in + 2 * pad - f) / stride + 1;
}

/* y, dx or dw of the problem in float64 from the graph's inputs. */
static double
ref_at(gb_t *b, const shape_t *p, int x, int w, int y, fdnn_graph_op_kind_t kind, int64_t flat)
{
    int oh = out_size(p->h, p->r, p->pad, p->stride), ow = out_size(p->w, p->s, p->pad, p->stride);
    int cg = p->c / p->groups, kg = p->k / p->groups;
    double r = 0;
    if (kind == FDNN_GOP_CONV_FWD) {
        int j = (int)(flat % ow), i = (int)(flat / ow % oh), k = (int)(flat / ow / oh % p->k),
            n = (int)(flat / ow / oh / p->k);
        int g = k / kg;
        for (int c = 0; c < cg; c++)
            for (int u = 0; u < p->r; u++)
                for (int v = 0; v < p->s; v++) {
                    int ih = i * p->stride + u - p->pad, iw = j * p->stride + v - p->pad;
                    if (ih >= 0 && ih < p->h && iw >= 0 && iw < p->w)
                        r += gb_get(b, x, ((int64_t)(n * p->c + g * cg + c) * p->h + ih) * p->w + iw) *
                             gb_get(b, w, ((int64_t)(k * cg + c) * p->r + u) * p->s + v);
                }
    } else if (kind == FDNN_GOP_CONV_BWD_DATA) {
        int iw = (int)(flat % p->w), ih = (int)(flat / p->w % p->h), c = (int)(flat / p->w / p->h % p->c),
            n = (int)(flat / p->w / p->h / p->c);
        int g = c / cg;
        for (int kk = 0; kk < kg; kk++)
            for (int u = 0; u < p->r; u++)
                for (int v = 0; v < p->s; v++) {
                    int th = ih + p->pad - u, tw = iw + p->pad - v;
                    if (th < 0 || tw < 0 || th % p->stride || tw % p->stride || th / p->stride >= oh ||
                        tw / p->stride >= ow)
                        continue;
                    int k = g * kg + kk;
                    r += gb_get(b, y, ((int64_t)(n * p->k + k) * oh + th / p->stride) * ow + tw / p->stride) *
                         gb_get(b, w, ((int64_t)(k * cg + c - g * cg) * p->r + u) * p->s + v);
                }
    } else {
        int v = (int)(flat % p->s), u = (int)(flat / p->s % p->r), c = (int)(flat / p->s / p->r % cg),
            k = (int)(flat / p->s / p->r / cg);
        int g = k / kg;
        for (int n = 0; n < p->n; n++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    int ih = i * p->stride + u - p->pad, iw = j * p->stride + v - p->pad;
                    if (ih >= 0 && ih < p->h && iw >= 0 && iw < p->w)
                        r += gb_get(b, y, ((int64_t)(n * p->k + k) * oh + i) * ow + j) *
                             gb_get(b, x, ((int64_t)(n * p->c + g * cg + c) * p->h + ih) * p->w + iw);
                }
    }
    return r;
}

/* The legacy call with algorithm `algo` on the graph's buffers into out
 * (alpha 1, beta 0): what a conv-solver engine must reproduce bit for bit. */
static void
legacy_run(cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
           cudnnTensorDescriptor_t yd, fdnn_conv_dir_t dir, int algo, gb_t *b, int x, int w, int y, float *out,
           size_t ws_bytes)
{
    float one = 1, zero = 0;
    void *ws = ws_bytes ? fdnn_guarded_alloc(ws_bytes) : NULL;
    if (dir == FDNN_CONV_FWD)
        CHECK_OK(cudnnConvolutionForward(handle, &one, xd, b->data[x], wd, b->data[w], cd,
                                         (cudnnConvolutionFwdAlgo_t)algo, ws, ws_bytes, &zero, yd, out));
    else if (dir == FDNN_CONV_BWD_DATA)
        CHECK_OK(cudnnConvolutionBackwardData(handle, &one, wd, b->data[w], yd, b->data[y], cd,
                                              (cudnnConvolutionBwdDataAlgo_t)algo, ws, ws_bytes, &zero, xd, out));
    else
        CHECK_OK(cudnnConvolutionBackwardFilter(handle, &one, xd, b->data[x], yd, b->data[y], cd,
                                                (cudnnConvolutionBwdFilterAlgo_t)algo, ws, ws_bytes, &zero, wd, out));
    fdnn_guarded_free(ws);
}

/* The names "conv_<solver>" of _v7's applicable algorithms, in its order,
 * their workspace sizes, and (out != NULL) each one's legacy result
 * (count floats apiece) on the graph's buffers. */
static int
v7_names(const shape_t *p, fdnn_conv_dir_t dir, const char **names, size_t *memory, gb_t *b, int x, int w, int y,
         float *out, int64_t count)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int oh = out_size(p->h, p->r, p->pad, p->stride), ow = out_size(p->w, p->s, p->pad, p->stride);
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p->n, p->c, p->h, p->w));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p->n, p->k, oh, ow));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p->k, p->c / p->groups, p->r, p->s));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cd, p->pad, p->pad, p->stride, p->stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cd, p->groups));
    int nperf = 0, n = 0;
    if (dir == FDNN_CONV_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[8];
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, cd, yd, 8, &nperf, perf));
        for (int i = 0; i < nperf; i++)
            if (perf[i].status == CUDNN_STATUS_SUCCESS) {
                memory[n] = perf[i].memory;
                names[n++] = fdnn_conv_solver_for(dir, (int)perf[i].algo, NULL)->name;
            }
    } else if (dir == FDNN_CONV_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[6];
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, wd, yd, cd, xd, 6, &nperf, perf));
        for (int i = 0; i < nperf; i++)
            if (perf[i].status == CUDNN_STATUS_SUCCESS) {
                memory[n] = perf[i].memory;
                names[n++] = fdnn_conv_solver_for(dir, (int)perf[i].algo, NULL)->name;
            }
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[7];
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, xd, yd, cd, wd, 7, &nperf, perf));
        for (int i = 0; i < nperf; i++)
            if (perf[i].status == CUDNN_STATUS_SUCCESS) {
                memory[n] = perf[i].memory;
                names[n++] = fdnn_conv_solver_for(dir, (int)perf[i].algo, NULL)->name;
            }
    }
    for (int i = 0; i < n; i++) {
        const fdnn_conv_solver_t *sv = NULL;
        for (int a = 0; a < 8 && sv == NULL; a++) {
            const fdnn_conv_solver_t *t = fdnn_conv_solver_for(dir, a, NULL);
            if (t != NULL && strcmp(t->name, names[i]) == 0)
                sv = t;
        }
        legacy_run(xd, wd, cd, yd, dir, sv->algo, b, x, w, y, out + i * count, memory[i]);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
    return n;
}

static void
check_problem(const shape_t *p, fdnn_graph_op_kind_t kind)
{
    fdnn_conv_dir_t dir = kind == FDNN_GOP_CONV_FWD        ? FDNN_CONV_FWD
                          : kind == FDNN_GOP_CONV_BWD_DATA ? FDNN_CONV_BWD_DATA
                                                           : FDNN_CONV_BWD_FILTER;
    int oh = out_size(p->h, p->r, p->pad, p->stride), ow = out_size(p->w, p->s, p->pad, p->stride);
    int64_t xd[4] = {p->n, p->c, p->h, p->w}, wd[4] = {p->k, p->c / p->groups, p->r, p->s},
            yd[4] = {p->n, p->k, oh, ow};
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_conv(&b, kind, CUDNN_DATA_FLOAT, x, w, y, p->pad, p->stride);
    int out = kind == FDNN_GOP_CONV_FWD ? y : kind == FDNN_GOP_CONV_BWD_DATA ? x : w;
    for (int t = 0; t < 3; t++)
        if (t != out)
            gb_fill(&b, t, &rng, -1, 1);
    /* heuristics against _v7 */
    int ne = 0;
    fdnn_graph_engines(&ne);
    const fdnn_graph_engine_t *res[64];
    char why[1024];
    int nres = fdnn_graph_heuristic(&b.g, false, res, why, sizeof(why));
    const char *want[16];
    size_t memory[16];
    int64_t count = gb_count(&b, out);
    float *legacy = malloc(sizeof(float) * (size_t)count * 8);
    int nwant = v7_names(p, dir, want, memory, &b, x, w, y, legacy, count);
    int k = 0;
    bool same = true;
    char got_list[512] = "", want_list[512] = "";
    for (int i = 0; i < nres; i++)
        if (strncmp(res[i]->name, "conv_", 5) == 0) {
            same &= k < nwant && strcmp(res[i]->name + 5, want[k]) == 0;
            k++;
            strncat(got_list, res[i]->name + 5, sizeof(got_list) - strlen(got_list) - 2);
            strcat(got_list, " ");
        }
    for (int i = 0; i < nwant; i++) {
        strncat(want_list, want[i], sizeof(want_list) - strlen(want_list) - 2);
        strcat(want_list, " ");
    }
    CHECK_MSG(same && k == nwant, "%s: heuristics give [%s], _v7 [%s]", fdnn_graph_op_name(kind), got_list,
              want_list);
    CHECK(nres > 0 && strcmp(res[nres - 1]->name, "generic") == 0);
    /* every engine by global index: the float64 answer, or declined with a reason */
    double *ref = malloc(sizeof(double) * (size_t)count), big = 0;
    for (int64_t i = 0; i < count; i++) {
        ref[i] = ref_at(&b, p, x, w, y, kind, i);
        big = fmax(big, fabs(ref[i]));
    }
    int ran = 0;
    for (int64_t gi = 0; gi < ne; gi++) {
        const fdnn_graph_engine_t *e = gb_engine(gi);
        CHECK(e != NULL);
        cudnnStatus_t st = gb_run(handle, e, &b);
        if (st != CUDNN_STATUS_SUCCESS) {
            CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED && strlen(fdnn_fail_reason()) > 0,
                      "engine %lld (%s): %s without a reason", (long long)gi, e->name, cudnnGetErrorString(st));
            continue;
        }
        ran++;
        /* the same bits on one thread as on two */
        float *two = malloc(sizeof(float) * (size_t)count);
        memcpy(two, b.data[out], sizeof(float) * (size_t)count);
        CHECK_OK(freednnSetNumThreads(handle, 1));
        CHECK_OK(gb_run(handle, e, &b));
        CHECK_MSG(memcmp(two, b.data[out], sizeof(float) * (size_t)count) == 0, "%s: 1 and 2 threads differ",
                  e->name);
        CHECK_OK(freednnSetNumThreads(handle, 2));
        free(two);
        /* a conv-solver engine's workspace holds its solver's (as _v7 reports it) */
        for (int i = 0; i < nwant; i++)
            if (strncmp(e->name, "conv_", 5) == 0 && strcmp(e->name + 5, want[i]) == 0) {
                fdnn_graph_knobs_t knobs = {0};
                size_t ws = 0;
                CHECK_OK(e->workspace(&b.g, &knobs, &ws));
                CHECK_MSG(ws >= memory[i], "%s: workspace %zu below the solver's %zu", e->name, ws, memory[i]);
                CHECK_MSG(memcmp(b.data[out], legacy + i * count, sizeof(float) * (size_t)count) == 0,
                          "%s: other bits than the legacy call with its algorithm", e->name);
            }
        double tol = (e->numerical_notes != 0 ? 1e-4 : 1e-5) * (1 + big), err = 0;
        for (int64_t i = 0; i < count; i++) {
            double d = fabs(gb_get(&b, out, i) - ref[i]);
            err = d > err || isnan(d) ? d : err;
        }
        CHECK_MSG(err <= tol, "%s engine %lld (%s): error %g (tolerance %g)", fdnn_graph_op_name(kind),
                  (long long)gi, e->name, err, tol);
    }
    CHECK_MSG(ran == nwant + 1 + (gb_engine(1)->supports(&b.g) == CUDNN_STATUS_SUCCESS),
              "%s: %d engines ran, %d solvers apply", fdnn_graph_op_name(kind), ran, nwant);
    free(ref);
    free(legacy);
    gb_free(&b);
}

/* Declined engines and their reasons. */
static void
check_declines(void)
{
    shape_t p = {1, 4, 9, 9, 4, 3, 3, 1, 2, 1}; /* stride 2: FFT and Winograd decline */
    int oh = out_size(p.h, p.r, p.pad, p.stride), ow = out_size(p.w, p.s, p.pad, p.stride);
    int64_t xd[4] = {p.n, p.c, p.h, p.w}, wd[4] = {p.k, p.c, p.r, p.s}, yd[4] = {p.n, p.k, oh, ow};
    gb_t b;
    gb_init(&b);
    int x = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, xd, false);
    int w = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, wd, false);
    int y = gb_tensor(&b, CUDNN_DATA_FLOAT, 4, yd, false);
    gb_conv(&b, FDNN_GOP_CONV_FWD, CUDNN_DATA_FLOAT, x, w, y, p.pad, p.stride);
    gb_fill(&b, x, &rng, -1, 1);
    gb_fill(&b, w, &rng, -1, 1);
    const fdnn_graph_engine_t *fft = gb_engine(8), *bwd = gb_engine(11);
    CHECK(fft != NULL && strcmp(fft->name, "conv_fwd_fft") == 0);
    CHECK_STATUS(gb_run(handle, fft, &b), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(fdnn_fail_reason(), "fwd_fft declines") != NULL, "reason: %s", fdnn_fail_reason());
    CHECK_STATUS(gb_run(handle, bwd, &b), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(fdnn_fail_reason(), "another direction") != NULL, "reason: %s", fdnn_fail_reason());
    gb_free(&b);
    /* no convolution */
    gb_init(&b);
    int64_t d[2] = {3, 4};
    x = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, d, false);
    y = gb_tensor(&b, CUDNN_DATA_FLOAT, 2, d, false);
    gb_pw(&b, CUDNN_POINTWISE_ABS, CUDNN_DATA_FLOAT, x, FDNN_GRAPH_NONE, FDNN_GRAPH_NONE, y);
    CHECK_STATUS(gb_run(handle, gb_engine(3), &b), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(fdnn_fail_reason(), "no convolution node") != NULL, "reason: %s", fdnn_fail_reason());
    gb_free(&b);
    /* indices are dense: every index below the count has an engine */
    int ne = 0;
    fdnn_graph_engines(&ne);
    for (int64_t gi = 0; gi < ne; gi++)
        CHECK_MSG(gb_engine(gi) != NULL, "no engine has global index %lld", (long long)gi);
    CHECK(ne == 23 && gb_engine(ne) == NULL);
}

int
main(void)
{
    fdnn_rng_seed(&rng, 3);
    CHECK_OK(cudnnCreate(&handle));
    CHECK_OK(freednnSetNumThreads(handle, 2));
    const shape_t plain = {2, 8, 10, 9, 16, 3, 3, 1, 1, 1};
    const shape_t strided = {2, 6, 11, 11, 8, 3, 3, 1, 2, 1};
    const shape_t grouped = {2, 8, 12, 12, 8, 3, 3, 1, 1, 8}; /* depthwise: _v7 puts DIRECT first */
    const shape_t pointwise = {2, 16, 7, 7, 8, 1, 1, 0, 1, 1};
    const fdnn_graph_op_kind_t kinds[3] = {FDNN_GOP_CONV_FWD, FDNN_GOP_CONV_BWD_DATA, FDNN_GOP_CONV_BWD_FILTER};
    for (int k = 0; k < 3; k++) {
        check_problem(&plain, kinds[k]);
        check_problem(&strided, kinds[k]);
        check_problem(&grouped, kinds[k]);
    }
    check_problem(&pointwise, FDNN_GOP_CONV_FWD);
    /* above the size where the solvers use the thread pool (1 M MACs) */
    const shape_t large = {2, 16, 24, 24, 32, 3, 3, 1, 1, 1};
    for (int k = 0; k < 3; k++)
        check_problem(&large, kinds[k]);
    check_declines();
    CHECK_OK(cudnnDestroy(handle));
    return fdnn_test_finish("test_graph_conv_engines");
}

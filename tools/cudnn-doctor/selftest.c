/* SPDX-License-Identifier: Apache-2.0
 * The self-test: one small convolution through the library under test,
 * compared bit for bit with the doctor's own reference, then a short
 * timing loop.  It runs inside the probe's child process (probe.c; on
 * Windows plat_win32.c's --probe-dll child), so a crash here is reported,
 * not suffered.  Symbols come from dr_plat_sym (dlsym / GetProcAddress).
 *
 * Problem: N=1, C=3, H=W=32, K=8, 3x3 filter, padding 1, stride 1,
 * cross-correlation, NCHW float, algorithm IMPLICIT_GEMM.  Inputs are small
 * integers in [-2, 2]: every product and partial sum (|sum| <= 27*4) is an
 * integer that float represents exactly, so any correct algorithm gives
 * exactly the reference's numbers whatever its summation order.
 *
 * The functions are looked up by name and called through pointers of the
 * cuDNN 8.9 signatures, which cuDNN 9 kept for these calls; enumerators are
 * passed as their documented values (NCHW 0, FLOAT 0, CROSS_CORRELATION 1,
 * IMPLICIT_GEMM 0).  FreeDNN takes host pointers; for NVIDIA's library the
 * buffers are device memory from libcudart (the doctor loads the runtime of
 * the major cuDNN reports: libcudart.so.N, cudart64_N.dll).  On FreeDNN the convolution is checked at every
 * instruction-set level the CPU has (freednnSetIsa) with 1 and 2 threads
 * (freednnSetNumThreads), then timed in the handle's default setting. */
#include "doctor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1, C = 3, H = 32, W = 32, K = 8, R = 3, S = 3, PAD = 1, P = 32, Q = 32 };

typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef int (*set_tensor4d_fn)(void *, int, int, int, int, int, int);
typedef int (*set_filter4d_fn)(void *, int, int, int, int, int, int);
typedef int (*set_conv2d_fn)(void *, int, int, int, int, int, int, int, int);
typedef int (*ws_size_fn)(void *, void *, void *, void *, void *, int, size_t *);
typedef int (*conv_fwd_fn)(void *, const void *, void *, const void *, void *, const void *, void *, int,
                           void *, size_t, const void *, void *, void *);
typedef const char *(*error_string_fn)(int);

/* Memory for the library: host memory (FreeDNN) or device memory. */
struct mem {
    bool device;
    int (*malloc_)(void **, size_t);
    int (*free_)(void *);
    int (*memcpy_)(void *, const void *, size_t, int);
    int (*sync)(void);
};

static void *
mem_alloc(struct mem *m, size_t bytes)
{
    if (!m->device)
        return malloc(bytes > 0 ? bytes : 1);
    void *p = NULL;
    return m->malloc_(&p, bytes > 0 ? bytes : 1) == 0 ? p : NULL;
}

static void
mem_free(struct mem *m, void *p)
{
    if (p == NULL)
        return;
    if (m->device)
        m->free_(p);
    else
        free(p);
}

static int
mem_put(struct mem *m, void *dst, const void *src, size_t bytes)
{
    if (!m->device) {
        memcpy(dst, src, bytes);
        return 0;
    }
    return m->memcpy_(dst, src, bytes, 1 /* cudaMemcpyHostToDevice */);
}

static int
mem_get(struct mem *m, void *dst, const void *src, size_t bytes)
{
    if (!m->device) {
        memcpy(dst, src, bytes);
        return 0;
    }
    return m->memcpy_(dst, src, bytes, 2 /* cudaMemcpyDeviceToHost */);
}

/* Small integers in [-2, 2] from a fixed LCG, the same on every run. */
static void
fill(float *v, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((int)((seed >> 16) % 5u) - 2);
    }
}

/* y[k][p][q] = sum_{c,r,s} x[c][p+r-PAD][q+s-PAD] * w[k][c][r][s]. */
static void
reference(const float *x, const float *w, double *y)
{
    for (int k = 0; k < K; k++)
        for (int p = 0; p < P; p++)
            for (int q = 0; q < Q; q++) {
                double acc = 0.0;
                for (int c = 0; c < C; c++)
                    for (int r = 0; r < R; r++)
                        for (int s = 0; s < S; s++) {
                            int ih = p + r - PAD, iw = q + s - PAD;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            acc += (double)x[(c * H + ih) * W + iw] * (double)w[((k * C + c) * R + r) * S + s];
                        }
                y[(k * P + p) * Q + q] = acc;
            }
}

static bool
is_not_supported(int status)
{
    return status == 9 || (status >= 3000 && status < 4000);
}

/* Records a failing status of `step` and classifies it. */
static void
failed(struct dr_selftest *out, void *lib, const char *step, int status)
{
    error_string_fn es = (error_string_fn)dr_plat_sym(lib, "cudnnGetErrorString");
    const char *name = es != NULL ? es(status) : NULL;
    out->status = status;
    dr_copy(out->step, sizeof out->step, step);
    out->result = is_not_supported(status) ? DR_ST_NOT_SUPPORTED : DR_ST_ERROR;
    dr_fmt(out->detail, sizeof out->detail, "%s returned %d (%s)", step, status, name != NULL ? name : "?");
}

#define SYM(type, name) type name##_p = (type)dr_plat_sym(lib, #name)

void
dr_selftest_run(void *lib, bool is_freednn, long cudart, struct dr_selftest *out)
{
    memset(out, 0, sizeof *out);
    SYM(create_fn, cudnnCreate);
    SYM(destroy_fn, cudnnDestroy);
    SYM(create_fn, cudnnCreateTensorDescriptor);
    SYM(set_tensor4d_fn, cudnnSetTensor4dDescriptor);
    SYM(create_fn, cudnnCreateFilterDescriptor);
    SYM(set_filter4d_fn, cudnnSetFilter4dDescriptor);
    SYM(create_fn, cudnnCreateConvolutionDescriptor);
    SYM(set_conv2d_fn, cudnnSetConvolution2dDescriptor);
    SYM(ws_size_fn, cudnnGetConvolutionForwardWorkspaceSize);
    SYM(conv_fwd_fn, cudnnConvolutionForward);
    if (!cudnnCreate_p || !cudnnDestroy_p || !cudnnCreateTensorDescriptor_p || !cudnnSetTensor4dDescriptor_p ||
        !cudnnCreateFilterDescriptor_p || !cudnnSetFilter4dDescriptor_p || !cudnnCreateConvolutionDescriptor_p ||
        !cudnnSetConvolution2dDescriptor_p || !cudnnGetConvolutionForwardWorkspaceSize_p ||
        !cudnnConvolutionForward_p) {
        out->result = DR_ST_ERROR;
        dr_copy(out->step, sizeof out->step, "dlsym");
        dr_copy(out->detail, sizeof out->detail, "the library lacks a function of the legacy convolution API");
        return;
    }

    void *handle = NULL;
    int st = cudnnCreate_p(&handle);
    if (st != 0) {
        failed(out, lib, "cudnnCreate", st);
        /* NOT_INITIALIZED (8.x: 1, 9.x: 1001) from NVIDIA's library means
         * no usable GPU or driver, which is not a fault of the install. */
        if (!is_freednn && (st == 1 || st == 1001)) {
            out->result = DR_ST_NO_DEVICE;
            dr_fmt(out->detail, sizeof out->detail, "cudnnCreate returned %d (NOT_INITIALIZED)", st);
        }
        return;
    }

    struct mem m = {0};
    void *cudart_lib = NULL;
    if (!is_freednn) {
        char name[64];
        cudart_lib = dr_plat_open_cudart(cudart, name, sizeof name);
        if (cudart_lib != NULL) {
            m.malloc_ = (int (*)(void **, size_t))dr_plat_sym(cudart_lib, "cudaMalloc");
            m.free_ = (int (*)(void *))dr_plat_sym(cudart_lib, "cudaFree");
            m.memcpy_ = (int (*)(void *, const void *, size_t, int))dr_plat_sym(cudart_lib, "cudaMemcpy");
            m.sync = (int (*)(void))dr_plat_sym(cudart_lib, "cudaDeviceSynchronize");
        }
        if (cudart_lib == NULL || !m.malloc_ || !m.free_ || !m.memcpy_ || !m.sync) {
            out->result = DR_ST_ERROR;
            dr_copy(out->step, sizeof out->step, "dlopen libcudart");
            dr_fmt(out->detail, sizeof out->detail, "cannot load %s to allocate device memory", name);
            cudnnDestroy_p(handle);
            return;
        }
        m.device = true;
    }

    size_t xn = (size_t)N * C * H * W, wn = (size_t)K * C * R * S, yn = (size_t)N * K * P * Q;
    float *hx = malloc(xn * sizeof(float)), *hw = malloc(wn * sizeof(float)), *hy = malloc(yn * sizeof(float));
    double *ref = malloc(yn * sizeof(double));
    void *x = mem_alloc(&m, xn * sizeof(float)), *w = mem_alloc(&m, wn * sizeof(float));
    void *y = mem_alloc(&m, yn * sizeof(float)), *ws = NULL;
    void *xd = NULL, *yd = NULL, *wd = NULL, *cd = NULL;
    if (!hx || !hw || !hy || !ref || !x || !w || !y) {
        out->result = DR_ST_ERROR;
        dr_copy(out->step, sizeof out->step, "allocation");
        dr_copy(out->detail, sizeof out->detail, "out of memory");
        goto out_free;
    }
    fill(hx, (int)xn, 1u);
    fill(hw, (int)wn, 2u);
    reference(hx, hw, ref);
    for (size_t i = 0; i < yn; i++)
        hy[i] = NAN;                     /* poison: beta = 0 must overwrite */
    mem_put(&m, x, hx, xn * sizeof(float));
    mem_put(&m, w, hw, wn * sizeof(float));
    mem_put(&m, y, hy, yn * sizeof(float));

#define STEP(call, name)                                                                                  \
    do {                                                                                                  \
        int s_ = (call);                                                                                  \
        if (s_ != 0) {                                                                                    \
            failed(out, lib, name, s_);                                                                   \
            goto out_free;                                                                                \
        }                                                                                                 \
    } while (0)
    STEP(cudnnCreateTensorDescriptor_p(&xd), "cudnnCreateTensorDescriptor");
    STEP(cudnnCreateTensorDescriptor_p(&yd), "cudnnCreateTensorDescriptor");
    STEP(cudnnSetTensor4dDescriptor_p(xd, 0, 0, N, C, H, W), "cudnnSetTensor4dDescriptor");
    STEP(cudnnSetTensor4dDescriptor_p(yd, 0, 0, N, K, P, Q), "cudnnSetTensor4dDescriptor");
    STEP(cudnnCreateFilterDescriptor_p(&wd), "cudnnCreateFilterDescriptor");
    STEP(cudnnSetFilter4dDescriptor_p(wd, 0, 0, K, C, R, S), "cudnnSetFilter4dDescriptor");
    STEP(cudnnCreateConvolutionDescriptor_p(&cd), "cudnnCreateConvolutionDescriptor");
    STEP(cudnnSetConvolution2dDescriptor_p(cd, PAD, PAD, 1, 1, 1, 1, 1, 0), "cudnnSetConvolution2dDescriptor");
    size_t ws_size = 0;
    STEP(cudnnGetConvolutionForwardWorkspaceSize_p(handle, xd, wd, cd, yd, 0, &ws_size),
         "cudnnGetConvolutionForwardWorkspaceSize");
    if (ws_size > 0 && (ws = mem_alloc(&m, ws_size)) == NULL) {
        out->result = DR_ST_ERROR;
        dr_copy(out->step, sizeof out->step, "allocation");
        dr_fmt(out->detail, sizeof out->detail, "cannot allocate a %zu-byte workspace", ws_size);
        goto out_free;
    }
    const float one = 1.0f, zero = 0.0f;
    /* FreeDNN: every instruction-set level the CPU has, with 1 and 2
     * threads (results must not depend on either); NVIDIA: one run. */
    typedef int (*set_isa_fn)(void *, const char *);
    typedef int (*get_isa_fn)(void *, const char **);
    typedef int (*set_threads_fn)(void *, int);
    typedef int (*get_threads_fn)(void *, int *);
    set_isa_fn set_isa = is_freednn ? (set_isa_fn)dr_plat_sym(lib, "freednnSetIsa") : NULL;
    get_isa_fn get_isa = is_freednn ? (get_isa_fn)dr_plat_sym(lib, "freednnGetIsa") : NULL;
    set_threads_fn set_threads = is_freednn ? (set_threads_fn)dr_plat_sym(lib, "freednnSetNumThreads") : NULL;
    get_threads_fn get_threads = is_freednn ? (get_threads_fn)dr_plat_sym(lib, "freednnGetNumThreads") : NULL;
    const char *isa0 = NULL;
    int threads0 = 0;
    bool vary = set_isa && get_isa && set_threads && get_threads && get_isa(handle, &isa0) == 0 &&
                get_threads(handle, &threads0) == 0 && isa0 != NULL;
    char isa0_copy[16];
    dr_copy(isa0_copy, sizeof isa0_copy, isa0);
    static const char *const isas[] = {"scalar", "avx2", "avx512", "neon"}; /* those of another CPU are skipped */
    char configs[120] = "";
    for (int ci = 0; ci < (vary ? 8 : 1); ci++) {
        if (vary) {
            if (set_isa(handle, isas[ci / 2]) != 0)
                continue;                /* not on this CPU */
            set_threads(handle, 1 + ci % 2);
        }
        for (size_t i = 0; i < yn; i++)
            hy[i] = NAN;
        mem_put(&m, y, hy, yn * sizeof(float));
        STEP(cudnnConvolutionForward_p(handle, &one, xd, x, wd, w, cd, 0, ws, ws_size, &zero, yd, y),
             "cudnnConvolutionForward");
        if (m.device)
            m.sync();
        mem_get(&m, hy, y, yn * sizeof(float));
        double worst = 0.0;
        size_t bad = 0;
        for (size_t i = 0; i < yn; i++) {
            double d = fabs((double)hy[i] - ref[i]);
            if (!(d == 0.0)) {           /* also catches NaN */
                bad++;
                worst = isnan(d) || d > worst ? (isnan(d) ? INFINITY : d) : worst;
            }
        }
        if (bad > 0) {
            out->result = DR_ST_MISMATCH;
            out->max_abs_diff_x1e6 = isinf(worst) ? -1 : (long)(worst * 1e6);
            if (vary)
                dr_fmt(out->detail, sizeof out->detail, "%zu of %zu outputs differ from the exact reference (%s, "
                       "%d thread%s)", bad, yn, isas[ci / 2], 1 + ci % 2, ci % 2 ? "s" : "");
            else
                dr_fmt(out->detail, sizeof out->detail, "%zu of %zu outputs differ from the exact reference", bad,
                       yn);
            goto out_free;
        }
        if (vary && ci % 2 == 0) {
            size_t len = strlen(configs);
            snprintf(configs + len, sizeof configs - len, "%s%s", len ? "/" : "", isas[ci / 2]);
        }
    }
    if (vary) {
        set_isa(handle, isa0_copy);      /* time the default configuration */
        set_threads(handle, threads0);
    }
    out->result = DR_ST_PASS;

    /* Timing: at least 3 calls, until 0.3 s or 200 calls. */
    int iters = 0;
    double t0 = dr_plat_now(), t = t0;
    while (iters < 200 && (iters < 3 || t - t0 < 0.3)) {
        cudnnConvolutionForward_p(handle, &one, xd, x, wd, w, cd, 0, ws, ws_size, &zero, yd, y);
        if (m.device)
            m.sync();
        iters++;
        t = dr_plat_now();
    }
    out->ms_per_call = 1e3 * (t - t0) / iters;
    double flops = 2.0 * N * K * P * Q * C * R * S;
    out->gflops = flops / ((t - t0) / iters) * 1e-9;
    if (vary)
        dr_fmt(out->detail, sizeof out->detail, "bit-exact at %s x 1 and 2 threads; %.3f ms per call (%.2f GFLOP/s, "
               "%d calls, %s, %d threads)", configs, out->ms_per_call, out->gflops, iters, isa0_copy, threads0);
    else
        dr_fmt(out->detail, sizeof out->detail, "bit-exact; %.3f ms per call (%.2f GFLOP/s, %d calls)",
               out->ms_per_call, out->gflops, iters);

out_free:
    {
        destroy_fn dt = (destroy_fn)dr_plat_sym(lib, "cudnnDestroyTensorDescriptor");
        destroy_fn df = (destroy_fn)dr_plat_sym(lib, "cudnnDestroyFilterDescriptor");
        destroy_fn dc = (destroy_fn)dr_plat_sym(lib, "cudnnDestroyConvolutionDescriptor");
        if (dt != NULL && xd != NULL)
            dt(xd);
        if (dt != NULL && yd != NULL)
            dt(yd);
        if (df != NULL && wd != NULL)
            df(wd);
        if (dc != NULL && cd != NULL)
            dc(cd);
    }
    mem_free(&m, x);
    mem_free(&m, w);
    mem_free(&m, y);
    mem_free(&m, ws);
    free(hx);
    free(hw);
    free(hy);
    free(ref);
    cudnnDestroy_p(handle);
}


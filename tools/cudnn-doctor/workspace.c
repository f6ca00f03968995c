/* SPDX-License-Identifier: Apache-2.0
 * `cudnn-doctor workspace "PROBLEM"`: the fifth classic failure of NVIDIA's
 * deployment guide, CUDNN_STATUS_ALLOC_FAILED / out of memory because the
 * algorithm that Find* or *_v7 chose wants a workspace larger than the free
 * memory.  For one convolution problem this lists every algorithm's
 * workspace through the library that loads (FreeDNN's or NVIDIA's), the
 * free memory (host memory for FreeDNN; cudaMemGetInfo through the CUDA
 * runtime for NVIDIA's, or "no GPU" when there is none), which algorithms
 * fit, and the fixes.  `--free MIB` sizes for another amount of free
 * memory (the GPU a job will run on).
 *
 * PROBLEM is a problem string as the library's logs (FREEDNN_LOG=1,
 * CUDNN_LOGINFO_DBG) and freednn-bench print it, or a freednn-bench line:
 *   conv dir=fwd dt=f32 mb=32 ic=64 oc=64 g=1 ih=56 iw=56 kh=3 kw=3 sh=1 sw=1
 *        ph=1 pw=1 dh=1 dw=1 mode=xcorr x=nchw w=nchw y=nchw
 * (3-D: id kd sd pd dd too; dir=fwd,bwd or bwd_d / bwd_w; dt f32 f16 bf16
 * f64; missing keys take freednn-bench's defaults).  The questions are asked
 * in a child process (dr_run_child), so a library that crashes is
 * reported, not suffered.  Exit status: 0 when the algorithm the heuristics
 * rank first fits in the free memory in every direction asked (or when
 * there is no GPU to ask), 1 when it does not, 2 on a usage error. */
#include "doctor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER, N_DIRS, MAX_ALGOS = 8 };

struct problem {
    int nsp;                 /* 2 or 3 spatial dims */
    int mb, ic, oc, g;
    int in[3], k[3], s[3], p[3], d[3];   /* D, H, W */
    int dtype;               /* cudnnDataType_t */
    int mode;                /* 0 CONVOLUTION, 1 CROSS_CORRELATION */
    int x_nhwc, w_nhwc, y_nhwc;
    bool dirs[N_DIRS];
};

static const char *const dir_names[N_DIRS] = {"fwd", "bwd_d", "bwd_w"};
static const int algo_counts[N_DIRS] = {8, 6, 7};
static const char *const algo_names[N_DIRS][MAX_ALGOS] = {
    {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD",
     "WINOGRAD_NONFUSED"},
    {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"},
    {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"},
};

/* What the child learns; sent back as bytes. */
struct ws_dir {
    int n;
    int status[MAX_ALGOS];   /* of the *WorkspaceSize query */
    size_t bytes[MAX_ALGOS];
    int pick;                /* the *_v7 heuristics' first choice, -1 if none */
    size_t pick_bytes;
    int smaller_mb;          /* largest batch at which the pick fits, 0 if not asked */
};
struct ws_result {
    bool loaded;
    char error[300];
    bool freednn;
    long version;            /* normalised */
    bool have_mem;
    size_t free_bytes, total_bytes;
    char mem_source[96];
    bool no_gpu;
    char note[240];          /* why there is no answer */
    struct ws_dir d[N_DIRS];
};

/* ---- the problem string ---------------------------------------------------- */

static bool
parse_problem(const char *text, struct problem *p, char *err, size_t n)
{
    char buf[1024];
    dr_copy(buf, sizeof buf, text);
    memset(p, 0, sizeof *p);
    p->nsp = 2;
    p->g = 1;
    p->mode = 1;
    for (int i = 0; i < 3; i++)
        p->in[i] = p->k[i] = p->s[i] = p->d[i] = 1;
    bool any_dir = false;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t\r\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            continue;                    /* "conv", a benchmark name */
        *eq = 0;
        const char *key = tok, *val = eq + 1;
        char *end;
        long v = strtol(val, &end, 10);
        bool number = end != val && *end == 0 && v >= 0 && v < (1L << 30);
        static const char arrays[5] = {'i', 'k', 's', 'p', 'd'};
        int *dst[5] = {p->in, p->k, p->s, p->p, p->d};
        static const char dims[3] = {'d', 'h', 'w'};
        bool done = false;
        for (int a = 0; a < 5 && !done; a++)
            for (int i = 0; i < 3 && !done; i++)
                if (key[0] == arrays[a] && key[1] == dims[i] && key[2] == 0) {
                    if (!number) {
                        dr_fmt(err, n, "%s=%s is not a number", key, val);
                        return false;
                    }
                    dst[a][i] = (int)v;
                    if (i == 0)
                        p->nsp = 3;
                    done = true;
                }
        if (done)
            continue;
        int *field = strcmp(key, "mb") == 0 ? &p->mb : strcmp(key, "ic") == 0 ? &p->ic
                   : strcmp(key, "oc") == 0 ? &p->oc : strcmp(key, "g") == 0 ? &p->g : NULL;
        if (field != NULL) {
            if (!number) {
                dr_fmt(err, n, "%s=%s is not a number", key, val);
                return false;
            }
            *field = (int)v;
        } else if (strcmp(key, "dir") == 0) {
            any_dir = true;
            p->dirs[DIR_FWD] |= strstr(val, "fwd") != NULL;
            bool bwd_all = strstr(val, "bwd") != NULL && strstr(val, "bwd_") == NULL;
            p->dirs[DIR_BWD_DATA] |= bwd_all || strstr(val, "bwd_d") != NULL;
            p->dirs[DIR_BWD_FILTER] |= bwd_all || strstr(val, "bwd_w") != NULL;
        } else if (strcmp(key, "dt") == 0) {
            p->dtype = strcmp(val, "f32") == 0 || strcmp(val, "float") == 0 ? 0
                     : strcmp(val, "f64") == 0 || strcmp(val, "double") == 0 ? 1
                     : strcmp(val, "f16") == 0 || strcmp(val, "half") == 0 ? 2
                     : strcmp(val, "bf16") == 0 ? 9 : -1;
            if (p->dtype < 0) {
                dr_fmt(err, n, "dt=%s: f32, f16, bf16 or f64", val);
                return false;
            }
        } else if (strcmp(key, "mode") == 0) {
            p->mode = strcmp(val, "conv") == 0 ? 0 : 1;
        } else if (strcmp(key, "x") == 0 || strcmp(key, "w") == 0 || strcmp(key, "y") == 0) {
            int nhwc = strcmp(val, "nhwc") == 0 || strcmp(val, "ndhwc") == 0;
            *(key[0] == 'x' ? &p->x_nhwc : key[0] == 'w' ? &p->w_nhwc : &p->y_nhwc) = nhwc;
        }
    }
    if (!any_dir)
        p->dirs[DIR_FWD] = true;
    if (p->mb <= 0 || p->ic <= 0 || p->oc <= 0 || p->g <= 0 || p->ic % p->g || p->oc % p->g) {
        dr_copy(err, n, "mb, ic and oc must be given, positive, and ic and oc multiples of g");
        return false;
    }
    for (int i = 3 - p->nsp; i < 3; i++) {
        long out = ((long)p->in[i] + 2L * p->p[i] - ((long)(p->k[i] - 1) * p->d[i] + 1));
        if (p->s[i] <= 0 || p->d[i] <= 0 || p->k[i] <= 0 || out < 0) {
            dr_copy(err, n, "impossible geometry: the filter is larger than the padded input, or a stride, "
                    "dilation or filter size is 0");
            return false;
        }
    }
    return true;
}

static void
problem_string(const struct problem *p, char *buf, size_t n)
{
    char dirs[32] = "";
    for (int d = 0; d < N_DIRS; d++)
        if (p->dirs[d]) {
            strncat(dirs, dirs[0] ? "," : "", sizeof dirs - strlen(dirs) - 1);
            strncat(dirs, dir_names[d], sizeof dirs - strlen(dirs) - 1);
        }
    static const char *const dts[10] = {"f32", "f64", "f16", "", "", "", "", "", "", "bf16"};
    int len = snprintf(buf, n, "conv dir=%s dt=%s mb=%d ic=%d oc=%d g=%d", dirs, dts[p->dtype], p->mb, p->ic, p->oc,
                       p->g);
    if (p->nsp == 3 && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " id=%d kd=%d sd=%d pd=%d dd=%d", p->in[0], p->k[0], p->s[0],
                        p->p[0], p->d[0]);
    if (len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len,
                 " ih=%d iw=%d kh=%d kw=%d sh=%d sw=%d ph=%d pw=%d dh=%d dw=%d mode=%s x=%s w=%s y=%s", p->in[1],
                 p->in[2], p->k[1], p->k[2], p->s[1], p->s[2], p->p[1], p->p[2], p->d[1], p->d[2],
                 p->mode ? "xcorr" : "conv", p->x_nhwc ? "nhwc" : "nchw", p->w_nhwc ? "nhwc" : "nchw",
                 p->y_nhwc ? "nhwc" : "nchw");
}

/* ---- in the child ------------------------------------------------------------ */

/* The cuDNN 8.9 perf record (cudnnConvolution*AlgoPerf_t, 48 bytes; cuDNN
 * 9 kept it). */
struct perf {
    int algo, status;
    float time;
    size_t memory;
    int determinism, math_type, reserved[3];
};

typedef int (*fn_create)(void **);
typedef int (*fn_tensor_nd_ex)(void *, int, int, int, const int *);
typedef int (*fn_filter_nd)(void *, int, int, int, const int *);
typedef int (*fn_conv_nd)(void *, int, const int *, const int *, const int *, int, int);
typedef int (*fn_group)(void *, int);
typedef int (*fn_out_dim)(void *, void *, void *, int, int *);
typedef int (*fn_ws)(void *, void *, void *, void *, void *, int, size_t *);
typedef int (*fn_v7)(void *, void *, void *, void *, void *, int, int *, struct perf *);

/* Host memory the library can take: MemAvailable, or less under a cgroup
 * memory limit. */
static void
host_memory(struct ws_result *r)
{
    unsigned char *text;
    size_t size;
    if (dr_read_file("/proc/meminfo", 1 << 16, &text, &size) != 0)
        return;
    const char *avail = strstr((const char *)text, "MemAvailable:");
    const char *total = strstr((const char *)text, "MemTotal:");
    if (avail != NULL && total != NULL) {
        r->free_bytes = (size_t)strtoull(avail + 13, NULL, 10) << 10;
        r->total_bytes = (size_t)strtoull(total + 9, NULL, 10) << 10;
        r->have_mem = true;
        dr_copy(r->mem_source, sizeof r->mem_source, "host memory (MemAvailable in /proc/meminfo)");
    }
    free(text);
    unsigned char *max, *cur;
    if (dr_read_file("/sys/fs/cgroup/memory.max", 64, &max, &size) == 0) {
        if (dr_read_file("/sys/fs/cgroup/memory.current", 64, &cur, &size) == 0) {
            unsigned long long lim = strtoull((const char *)max, NULL, 10), used = strtoull((const char *)cur, NULL, 10);
            if (max[0] >= '0' && max[0] <= '9' && lim > used && lim - used < r->free_bytes) {
                r->free_bytes = (size_t)(lim - used);
                dr_copy(r->mem_source, sizeof r->mem_source, "host memory, cgroup limit (memory.max)");
            }
            free(cur);
        }
        free(max);
    }
}

/* Device memory through the CUDA runtime NVIDIA's cuDNN was built with. */
static void
device_memory(void *lib, struct ws_result *r)
{
    size_t (*cudart_version)(void) = (size_t (*)(void))dlsym(lib, "cudnnGetCudartVersion");
    long major = cudart_version != NULL ? (long)cudart_version() / 1000 : 0;
    char name[48];
    dr_fmt(name, sizeof name, "libcudart.so.%ld", major);
    void *rt = major > 0 ? dlopen(name, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (rt == NULL)
        rt = dlopen("libcudart.so", RTLD_NOW | RTLD_LOCAL);
    int (*mem_info)(size_t *, size_t *) = rt != NULL ? (int (*)(size_t *, size_t *))dlsym(rt, "cudaMemGetInfo") : NULL;
    if (mem_info == NULL) {
        r->no_gpu = true;
        dr_fmt(r->note, sizeof r->note, "no CUDA runtime (%s) loads, so the free GPU memory is unknown", name);
        return;
    }
    int st = mem_info(&r->free_bytes, &r->total_bytes);
    if (st != 0) {
        r->no_gpu = true;
        dr_fmt(r->note, sizeof r->note, "cudaMemGetInfo returned error %d: no GPU/device usable here", st);
        return;
    }
    r->have_mem = true;
    dr_fmt(r->mem_source, sizeof r->mem_source, "GPU memory (cudaMemGetInfo through %s)", name);
}

static void
workspace_child(void *argp, void *outp)
{
    const void *const *a = argp;
    const char *path = a[0];
    const struct problem *p = a[1];
    struct ws_result *r = outp;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        dr_copy(r->error, sizeof r->error, dlerror());
        return;
    }
    r->loaded = true;
    r->freednn = dlsym(lib, "freednnSetIsa") != NULL;
    size_t (*get_version)(void) = (size_t (*)(void))dlsym(lib, "cudnnGetVersion");
    r->version = get_version != NULL ? dr_norm_cudnn_version((long)get_version()) : 0;
    if (r->freednn)
        host_memory(r);
    else
        device_memory(lib, r);
    if (a[2] != NULL) {
        /* --free: the memory of the machine the user plans for. */
        r->free_bytes = (size_t)(*(const double *)a[2] * 1048576.0);
        if (!r->have_mem)
            r->total_bytes = r->free_bytes;
        r->have_mem = true;
        dr_copy(r->mem_source, sizeof r->mem_source, "as given with --free");
    }

#define SYM(type, name) type name = (type)dlsym(lib, #name)
    SYM(fn_create, cudnnCreate);
    SYM(fn_create, cudnnCreateTensorDescriptor);
    SYM(fn_create, cudnnCreateFilterDescriptor);
    SYM(fn_create, cudnnCreateConvolutionDescriptor);
    SYM(fn_tensor_nd_ex, cudnnSetTensorNdDescriptorEx);
    SYM(fn_filter_nd, cudnnSetFilterNdDescriptor);
    SYM(fn_conv_nd, cudnnSetConvolutionNdDescriptor);
    SYM(fn_group, cudnnSetConvolutionGroupCount);
    SYM(fn_out_dim, cudnnGetConvolutionNdForwardOutputDim);
    fn_ws ws[N_DIRS] = {(fn_ws)dlsym(lib, "cudnnGetConvolutionForwardWorkspaceSize"),
                        (fn_ws)dlsym(lib, "cudnnGetConvolutionBackwardDataWorkspaceSize"),
                        (fn_ws)dlsym(lib, "cudnnGetConvolutionBackwardFilterWorkspaceSize")};
    fn_v7 v7[N_DIRS] = {(fn_v7)dlsym(lib, "cudnnGetConvolutionForwardAlgorithm_v7"),
                        (fn_v7)dlsym(lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7"),
                        (fn_v7)dlsym(lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7")};
#undef SYM
    void *h = NULL, *x = NULL, *w = NULL, *y = NULL, *c = NULL;
    int st = cudnnCreate != NULL ? cudnnCreate(&h) : -1;
    if (st != 0) {
        if (!r->freednn)
            r->no_gpu = true;
        dr_fmt(r->note, sizeof r->note, "cudnnCreate returned status %d%s", st,
               r->freednn ? "" : ": no GPU/device, so NVIDIA's library cannot size workspaces here");
        return;
    }
    if (cudnnCreate == NULL || cudnnSetTensorNdDescriptorEx == NULL || cudnnSetFilterNdDescriptor == NULL ||
        cudnnSetConvolutionNdDescriptor == NULL || cudnnGetConvolutionNdForwardOutputDim == NULL ||
        ws[0] == NULL) {
        dr_copy(r->note, sizeof r->note, "the library does not export the legacy convolution API");
        return;
    }

    int nb = p->nsp + 2, off = 3 - p->nsp;
    int xd[5] = {p->mb, p->ic}, wd[5] = {p->oc, p->ic / p->g}, yd[5];
    int pad[3], str[3], dil[3];
    for (int i = 0; i < p->nsp; i++) {
        xd[2 + i] = p->in[off + i];
        wd[2 + i] = p->k[off + i];
        pad[i] = p->p[off + i];
        str[i] = p->s[off + i];
        dil[i] = p->d[off + i];
    }
    int compute = p->dtype == 1 ? 1 : 0;     /* double stays double; the rest accumulate in float */
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&c);
    if ((st = cudnnSetTensorNdDescriptorEx(x, p->x_nhwc, p->dtype, nb, xd)) != 0 ||
        (st = cudnnSetFilterNdDescriptor(w, p->dtype, p->w_nhwc, nb, wd)) != 0 ||
        (st = cudnnSetConvolutionNdDescriptor(c, p->nsp, pad, str, dil, p->mode, compute)) != 0 ||
        (cudnnSetConvolutionGroupCount != NULL && (st = cudnnSetConvolutionGroupCount(c, p->g)) != 0) ||
        (st = cudnnGetConvolutionNdForwardOutputDim(c, x, w, nb, yd)) != 0 ||
        (st = cudnnSetTensorNdDescriptorEx(y, p->y_nhwc, p->dtype, nb, yd)) != 0) {
        dr_fmt(r->note, sizeof r->note, "the library rejects the problem's descriptors (status %d)", st);
        return;
    }
    for (int d = 0; d < N_DIRS; d++) {
        struct ws_dir *o = &r->d[d];
        o->pick = -1;
        if (!p->dirs[d] || ws[d] == NULL)
            continue;
        /* Argument order: fwd (x, w, conv, y); bwd data (w, dy, conv, dx);
         * bwd filter (x, dy, conv, dw). */
        void *a1 = d == DIR_BWD_DATA ? w : x, *a2 = d == DIR_FWD ? w : y, *a4 = d == DIR_BWD_FILTER ? w : d == DIR_FWD ? y : x;
        o->n = algo_counts[d];
        for (int k = 0; k < o->n; k++)
            o->status[k] = ws[d](h, a1, a2, c, a4, k, &o->bytes[k]);
        struct perf perf[MAX_ALGOS];
        int got = 0;
        memset(perf, 0, sizeof perf);
        if (v7[d] != NULL && v7[d](h, a1, a2, c, a4, MAX_ALGOS, &got, perf) == 0 && got > 0 && perf[0].status == 0) {
            o->pick = perf[0].algo;
            o->pick_bytes = perf[0].memory;
        }
        /* The largest batch at which the pick fits, by halving. */
        if (o->pick >= 0 && r->have_mem && o->pick_bytes > r->free_bytes) {
            int xs[5], ys[5];
            memcpy(xs, xd, sizeof xs);
            memcpy(ys, yd, sizeof ys);
            for (int mb = p->mb / 2; mb >= 1; mb /= 2) {
                xs[0] = ys[0] = mb;
                size_t bytes = 0;
                if (cudnnSetTensorNdDescriptorEx(x, p->x_nhwc, p->dtype, nb, xs) != 0 ||
                    cudnnSetTensorNdDescriptorEx(y, p->y_nhwc, p->dtype, nb, ys) != 0 ||
                    ws[d](h, a1, a2, c, a4, o->pick, &bytes) != 0)
                    break;
                if (bytes <= r->free_bytes) {
                    o->smaller_mb = mb;
                    break;
                }
            }
            cudnnSetTensorNdDescriptorEx(x, p->x_nhwc, p->dtype, nb, xd);
            cudnnSetTensorNdDescriptorEx(y, p->y_nhwc, p->dtype, nb, yd);
        }
    }
}

/* ---- the parent: pick the library, ask, report ------------------------------- */

static void
mib(char *dst, size_t n, size_t bytes)
{
    if (bytes < (1u << 20))
        dr_fmt(dst, n, "%zu B", bytes);
    else
        dr_fmt(dst, n, "%.1f MiB", (double)bytes / (1 << 20));
}

/* The library a program would load: libcudnn.so.8 as the loader finds it,
 * else libcudnn.so.9, else a copy off the loader path (NVIDIA's cuDNN 9 in
 * /usr/local/cuda, say). */
static bool
pick_library(struct dr_ctx *ctx, char *path, size_t n, char *how, size_t hn)
{
    dr_search_init(ctx);
    dr_search_cudnn(ctx);
    for (int pass = 0; pass < 2; pass++)
        for (int fam = 8; fam <= 9; fam++) {
            struct dr_soname *s = dr_family_shim(ctx, fam);
            for (int k = 0; s != NULL && k < s->n; k++) {
                const struct dr_copy *c = &s->copies[k];
                if ((pass == 0 ? k != s->winner : c->on_path) || !c->loadable)
                    continue;
                dr_copy(path, n, c->path);
                dr_fmt(how, hn, pass == 0 ? "%s as the loader finds it (%s)" : "%s off the loader path (%s)",
                       s->name, c->origin);
                return true;
            }
        }
    return false;
}

int
dr_workspace_main(int argc, char **argv)
{
    static struct dr_ctx ctx;
    bool json = false;
    const char *lib = NULL, *text = NULL;
    int timeout = 60;
    double free_mib = -1;                /* --free: size for this much memory instead */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
            lib = argv[++i];
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            timeout = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 60;
        else if (strcmp(argv[i], "--free") == 0 && i + 1 < argc && atof(argv[i + 1]) >= 0)
            free_mib = atof(argv[++i]);
        else if (strcmp(argv[i], "--no-system") == 0)
            ctx.opt.no_system = true;
        else if (argv[i][0] != '-' && text == NULL)
            text = argv[i];
        else {
            fprintf(stderr, "usage: cudnn-doctor workspace [--json] [--lib FILE] [--free MIB] [--timeout S] [--no-system] "
                    "\"conv mb=.. ic=.. oc=.. ih=.. iw=.. kh=.. kw=.. ...\"\n");
            return 2;
        }
    }
    struct problem p;
    char err[200], canon[512], path[DR_PATH], how[DR_PATH + 200];
    if (text == NULL) {
        fprintf(stderr, "cudnn-doctor workspace: give the problem string, e.g. \"conv mb=32 ic=64 oc=64 ih=56 "
                "iw=56 kh=3 kw=3 ph=1 pw=1\"\n");
        return 2;
    }
    if (!parse_problem(text, &p, err, sizeof err)) {
        fprintf(stderr, "cudnn-doctor workspace: %s\n", err);
        return 2;
    }
    problem_string(&p, canon, sizeof canon);
    ctx.opt.timeout_s = timeout;
    if (lib != NULL) {
        dr_copy(path, sizeof path, lib);
        dr_copy(how, sizeof how, "--lib");
    } else if (!pick_library(&ctx, path, sizeof path, how, sizeof how)) {
        fprintf(stderr, "cudnn-doctor workspace: no cuDNN library found (run cudnn-doctor to see why), or "
                "name one with --lib\n");
        return 1;
    }
    static struct ws_result r;
    const void *args[3] = {path, &p, free_mib >= 0 ? &free_mib : NULL};
    int sig;
    bool timed_out;
    char cerr[400];
    if (!dr_run_child(workspace_child, (void *)args, &r, sizeof r, timeout, &sig, &timed_out, cerr, sizeof cerr)) {
        memset(&r, 0, sizeof r);
        dr_copy(r.error, sizeof r.error, cerr);
    }

    /* Verdict per direction: does the heuristics' first choice fit? */
    int worst = 0;
    char fixes[4][400];
    int n_fixes = 0;
    bool any_pick_too_big = false, zero_exists[N_DIRS] = {false, false, false};
    int smaller = 0;
    for (int d = 0; d < N_DIRS; d++) {
        if (!p.dirs[d] || r.d[d].n == 0)
            continue;
        for (int k = 0; k < r.d[d].n; k++)
            zero_exists[d] |= r.d[d].status[k] == 0 && r.d[d].bytes[k] == 0;
        if (r.have_mem && r.d[d].pick >= 0 && r.d[d].pick_bytes > r.free_bytes) {
            any_pick_too_big = true;
            if (r.d[d].smaller_mb > smaller)
                smaller = r.d[d].smaller_mb;
        }
    }
    if (!r.loaded || (!r.no_gpu && r.note[0] != 0))
        worst = 1;
    if (any_pick_too_big) {
        worst = 1;
        dr_fmt(fixes[n_fixes++], sizeof fixes[0], "cap the workspace the heuristics and Find* may choose: "
               "export CUDNN_CONV_WSCAP_DBG=%zu (MiB; cuDNN 8.x and FreeDNN honour it)", r.free_bytes >> 20);
        dr_copy(fixes[n_fixes++], sizeof fixes[0], "choose an algorithm whose workspace is 0 (listed with 0 B "
                "below) or that fits, e.g. PyTorch torch.backends.cudnn.benchmark=False, TensorFlow "
                "TF_CUDNN_WORKSPACE_LIMIT_IN_MB, Paddle FLAGS_conv_workspace_size_limit");
        if (smaller > 0)
            dr_fmt(fixes[n_fixes++], sizeof fixes[0], "use a smaller batch: at mb=%d the chosen algorithm's "
                   "workspace fits", smaller);
        else
            dr_copy(fixes[n_fixes++], sizeof fixes[0], "use a smaller batch, or free memory (other processes, the "
                    "framework's caching allocator)");
    }

    if (json) {
        printf("{\"tool\":\"cudnn-doctor\",\"command\":\"workspace\",\"problem\":");
        dr_json_str(canon);
        printf(",\"library\":");
        dr_json_str(path);
        printf(",\"found_as\":");
        dr_json_str(how);
        printf(",\"loaded\":%s,\"error\":", r.loaded ? "true" : "false");
        dr_json_str(r.error);
        printf(",\"freednn\":%s,\"version_number\":%ld,\"no_gpu\":%s,\"note\":", r.freednn ? "true" : "false",
               r.version, r.no_gpu ? "true" : "false");
        dr_json_str(r.note);
        if (r.have_mem) {
            printf(",\"memory\":{\"free\":%zu,\"total\":%zu,\"source\":", r.free_bytes, r.total_bytes);
            dr_json_str(r.mem_source);
            printf("}");
        } else {
            printf(",\"memory\":null");
        }
        printf(",\"directions\":[");
        bool first = true;
        for (int d = 0; d < N_DIRS; d++) {
            if (!p.dirs[d])
                continue;
            printf("%s{\"dir\":\"%s\",\"algorithms\":[", first ? "" : ",", dir_names[d]);
            first = false;
            for (int k = 0; k < r.d[d].n; k++) {
                printf("%s{\"algo\":%d,\"name\":\"%s\",\"status\":%d,\"workspace\":", k ? "," : "", k,
                       algo_names[d][k], r.d[d].status[k]);
                if (r.d[d].status[k] == 0)
                    printf("%zu,\"fits\":%s}", r.d[d].bytes[k],
                           !r.have_mem ? "null" : r.d[d].bytes[k] <= r.free_bytes ? "true" : "false");
                else
                    printf("null,\"fits\":null}");
            }
            printf("],\"heuristic_pick\":");
            if (r.d[d].pick >= 0)
                printf("{\"algo\":%d,\"name\":\"%s\",\"workspace\":%zu,\"fits\":%s}", r.d[d].pick,
                       r.d[d].pick < algo_counts[d] ? algo_names[d][r.d[d].pick] : "?", r.d[d].pick_bytes,
                       !r.have_mem ? "null" : r.d[d].pick_bytes <= r.free_bytes ? "true" : "false");
            else
                printf("null");
            printf(",\"smaller_batch\":%d}", r.d[d].smaller_mb);
        }
        printf("],\"fixes\":[");
        for (int i = 0; i < n_fixes; i++) {
            printf("%s", i ? "," : "");
            dr_json_str(fixes[i]);
        }
        printf("]}\n");
        return worst;
    }

    char a[48], b[48], v[32];
    printf("cudnn-doctor workspace: %s\n", canon);
    dr_version_str(v, sizeof v, r.version);
    printf("  library: %s, %s%s\n", path, r.freednn ? "FreeDNN " : "cuDNN ", v);
    printf("  found as: %s\n", how);
    if (!r.loaded) {
        printf("  it does not load: %s\n", r.error);
        return 1;
    }
    if (r.have_mem) {
        mib(a, sizeof a, r.free_bytes);
        mib(b, sizeof b, r.total_bytes);
        printf("  free memory: %s of %s (%s)\n", a, b, r.mem_source);
    }
    if (r.note[0] != 0)
        printf("  %s: %s\n", r.no_gpu ? "no GPU" : "note", r.note);
    for (int d = 0; d < N_DIRS; d++) {
        if (!p.dirs[d] || r.d[d].n == 0)
            continue;
        printf("\n  %s algorithms:\n", dir_names[d]);
        for (int k = 0; k < r.d[d].n; k++) {
            if (r.d[d].status[k] != 0) {
                printf("    %-2d %-22s not available for this problem (status %d)\n", k, algo_names[d][k],
                       r.d[d].status[k]);
                continue;
            }
            mib(a, sizeof a, r.d[d].bytes[k]);
            printf("    %-2d %-22s %12s  %s%s\n", k, algo_names[d][k], a,
                   !r.have_mem ? "" : r.d[d].bytes[k] <= r.free_bytes ? "fits" : "DOES NOT FIT",
                   k == r.d[d].pick ? "  <- the heuristics' first choice (_v7)" : "");
        }
        if (!zero_exists[d])
            printf("    (no algorithm of this direction runs without a workspace)\n");
    }
    if (n_fixes > 0) {
        printf("\n  The algorithm the heuristics choose first needs more than the free memory: calls fail with "
               "CUDNN_STATUS_ALLOC_FAILED / out of memory (the fifth failure of NVIDIA's deployment guide). "
               "With CUDNN_LOGERR_DBG=1 the library names the workspace asked for and the one given.\n  Fixes:\n");
        for (int i = 0; i < n_fixes; i++)
            printf("    - %s\n", fixes[i]);
    } else if (r.have_mem && !r.no_gpu && r.note[0] == 0) {
        printf("\n  The heuristics' first choice fits in the free memory.\n");
    }
    return worst;
}

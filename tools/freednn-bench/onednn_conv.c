/* SPDX-License-Identifier: Apache-2.0
 * The oneDNN side of freednn-bench (oneDNN 2.x C API): the same convolution
 * on NCHW user tensors.  The primitive picks its own layouts (format "any")
 * and every reorder a cuDNN user holding NCHW data would pay is inside the
 * timed region: inputs into the primitive's layouts, the output back to
 * NCHW.  With bfloat16 (bench_onednn_bf16) the user tensors are NCHW
 * bfloat16 and the convolution runs in bfloat16 (oneDNN's AVX512-BF16 /
 * AMX kernels where the CPU has them), reorders counted the same way.
 * See bench.h. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench.h"

#define MAX_STEPS 8

typedef struct step {
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[4];
} step_t;

typedef struct run {
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    step_t steps[MAX_STEPS];
    int nsteps;
    dnnl_memory_t mems[16];
    int nmems;
    dnnl_primitive_desc_t pds[16];
    int npds;
} run_t;

static int
ok(dnnl_status_t s, const char *what)
{
    if (s != dnnl_success)
        fprintf(stderr, "freednn-bench: oneDNN %s failed (%d)\n", what, (int)s);
    return s == dnnl_success;
}

/* FP32 -> bfloat16, round to nearest even (NaN kept quiet). */
static uint16_t
to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* A memory of md filled from the FP32 values init (converted when md holds
 * bfloat16), or zeros. */
static dnnl_memory_t
mem(run_t *r, const dnnl_memory_desc_t *md, const float *init)
{
    dnnl_memory_t m = NULL;
    if (!ok(dnnl_memory_create(&m, md, r->eng, DNNL_MEMORY_ALLOCATE), "memory_create"))
        return NULL;
    r->mems[r->nmems++] = m;
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    size_t bytes = dnnl_memory_desc_get_size(md);
    if (init != NULL && md->data_type == dnnl_bf16)
        for (size_t i = 0; i < bytes / 2; i++)
            ((uint16_t *)h)[i] = to_bf16(init[i]);
    else if (init != NULL)
        memcpy(h, init, bytes);
    else
        memset(h, 0, bytes);
    return m;
}

static void
add_step(run_t *r, dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args)
{
    step_t *s = &r->steps[r->nsteps++];
    s->prim = p;
    s->nargs = nargs;
    memcpy(s->args, args, sizeof(args[0]) * (size_t)nargs);
}

/* A memory in the primitive's layout `want`, fed from (or, with `back`,
 * drained into) the user memory `user` by a reorder step when the layouts
 * differ. */
static dnnl_memory_t
bind(run_t *r, dnnl_memory_t user, const dnnl_memory_desc_t *user_md, const dnnl_memory_desc_t *want, bool back)
{
    if (dnnl_memory_desc_equal(user_md, want))
        return user;
    dnnl_memory_t m = mem(r, want, NULL);
    dnnl_primitive_desc_t rpd;
    if (!ok(back ? dnnl_reorder_primitive_desc_create(&rpd, want, r->eng, user_md, r->eng, NULL)
                 : dnnl_reorder_primitive_desc_create(&rpd, user_md, r->eng, want, r->eng, NULL),
            "reorder"))
        return NULL;
    r->pds[r->npds++] = rpd;
    dnnl_primitive_t rp;
    dnnl_primitive_create(&rp, rpd);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, back ? m : user}, {DNNL_ARG_TO, back ? user : m}};
    if (!back)
        add_step(r, rp, 2, args);
    else
        r->steps[MAX_STEPS - 1] = (step_t){rp, 2, {args[0], args[1]}}; /* appended after the op */
    return m;
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

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* dt: dnnl_f32, or dnnl_bf16 for every tensor (bfloat16 user tensors in
 * NCHW, converted from the FP32 values outside the timing). */
/* NCHW (n x c x sp) <-> NHWC order; `back`: from NHWC. */
static void
swap_channels_last(const float *src, float *dst, int n, int c, size_t sp, bool back)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < c; k++)
            for (size_t s = 0; s < sp; s++) {
                size_t a = ((size_t)i * (size_t)c + (size_t)k) * sp + s, b = ((size_t)i * sp + s) * (size_t)c + (size_t)k;
                if (back)
                    dst[a] = src[b];
                else
                    dst[b] = src[a];
            }
}

/* User tensor layouts of run_onednn: NCHW with the primitive's own layouts,
 * NHWC with them, NHWC with the primitive on NHWC. */
enum { USER_NCHW, USER_NHWC_ANY, USER_NHWC_FORCED };

static double
run_onednn(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
           const float *dy, float *result, dnnl_data_type_t dt, int user)
{
    omp_set_num_threads(threads);
    run_t r;
    memset(&r, 0, sizeof(r));
    if (!ok(dnnl_engine_create(&r.eng, dnnl_cpu, 0), "engine") ||
        !ok(dnnl_stream_create(&r.stream, r.eng, dnnl_stream_default_flags), "stream"))
        return -1;
    int nsp = p->nsp, off = 3 - nsp, nd = nsp + 2;
    dnnl_dims_t xd = {p->mb, p->ic}, yd = {p->mb, p->oc}, wd, st, dl, pl, pr;
    int wnd = p->g > 1 ? nd + 1 : nd;
    if (p->g > 1) {
        wd[0] = p->g, wd[1] = p->oc / p->g, wd[2] = p->ic / p->g;
    } else {
        wd[0] = p->oc, wd[1] = p->ic;
    }
    for (int i = 0; i < nsp; i++) {
        int d = off + i;
        int out = bench_out(p, d);
        xd[2 + i] = p->in[d];
        yd[2 + i] = out;
        wd[wnd - nsp + i] = p->k[d];
        st[i] = p->s[d];
        dl[i] = p->d[d] - 1; /* oneDNN counts dilation from 0 */
        pl[i] = p->p[d];
        pr[i] = (out - 1) * p->s[d] + (p->k[d] - 1) * p->d[d] + 1 - p->in[d] - p->p[d];
    }
    bool nhwc = user != USER_NCHW;
    dnnl_format_tag_t act_tag = nsp == 3 ? (nhwc ? dnnl_ndhwc : dnnl_ncdhw) : (nhwc ? dnnl_nhwc : dnnl_nchw);
    dnnl_format_tag_t wei_tag = nsp == 3 ? (p->g > 1 ? dnnl_goidhw : dnnl_oidhw) : (p->g > 1 ? dnnl_goihw : dnnl_oihw);
    dnnl_memory_desc_t xu, wu, yu, xa, wa, ya;
    dnnl_memory_desc_init_by_tag(&xu, nd, xd, dt, act_tag);
    dnnl_memory_desc_init_by_tag(&yu, nd, yd, dt, act_tag);
    dnnl_memory_desc_init_by_tag(&wu, wnd, wd, dt, wei_tag);
    dnnl_format_tag_t prim_tag = user == USER_NHWC_FORCED ? act_tag : dnnl_format_tag_any;
    dnnl_memory_desc_init_by_tag(&xa, nd, xd, dt, prim_tag);
    dnnl_memory_desc_init_by_tag(&ya, nd, yd, dt, prim_tag);
    dnnl_memory_desc_init_by_tag(&wa, wnd, wd, dt, dnnl_format_tag_any);

    dnnl_convolution_desc_t fd;
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    if (!ok(dnnl_dilated_convolution_forward_desc_init(&fd, dir == 0 ? dnnl_forward_inference : dnnl_forward_training,
                                                       dnnl_convolution_direct, &xa, &wa, NULL, &ya, st, dl, pl, pr),
            "forward desc") ||
        !ok(dnnl_primitive_desc_create(&fpd, &fd, NULL, r.eng, NULL), "forward pd"))
        return -1;
    r.pds[r.npds++] = fpd;
    if (dir == 0) {
        pd = fpd;
    } else if (dir == 1) {
        dnnl_convolution_desc_t bd;
        if (!ok(dnnl_dilated_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &xa, &wa, &ya, st, dl,
                                                                 pl, pr),
                "bwd data desc") ||
            !ok(dnnl_primitive_desc_create(&pd, &bd, NULL, r.eng, fpd), "bwd data pd"))
            return -1;
        r.pds[r.npds++] = pd;
    } else {
        dnnl_convolution_desc_t bd;
        if (!ok(dnnl_dilated_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &xa, &wa, NULL, &ya,
                                                                    st, dl, pl, pr),
                "bwd weights desc") ||
            !ok(dnnl_primitive_desc_create(&pd, &bd, NULL, r.eng, fpd), "bwd weights pd"))
            return -1;
        r.pds[r.npds++] = pd;
    }
    dnnl_primitive_t prim;
    if (!ok(dnnl_primitive_create(&prim, pd), "primitive"))
        return -1;
    const dnnl_memory_desc_t *src_md = dnnl_primitive_desc_query_md(pd, dir == 1 ? dnnl_query_diff_src_md : dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *wei_md = dnnl_primitive_desc_query_md(pd, dir == 2 ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *dst_md = dnnl_primitive_desc_query_md(pd, dir == 0 ? dnnl_query_dst_md : dnnl_query_diff_dst_md, 0);
    size_t sp_x = 1, sp_y = 1;
    for (int i = 0; i < nsp; i++)
        sp_x *= (size_t)xd[2 + i], sp_y *= (size_t)yd[2 + i];
    float *xh = NULL, *yh = NULL;
    if (nhwc) { /* the user's NHWC copies, made outside the timing */
        xh = malloc(sp_x * (size_t)p->mb * (size_t)p->ic * 4);
        yh = malloc(sp_y * (size_t)p->mb * (size_t)p->oc * 4);
        swap_channels_last(x, xh, p->mb, p->ic, sp_x, false);
        swap_channels_last(dy, yh, p->mb, p->oc, sp_y, false);
        x = xh;
        dy = yh;
    }
    dnnl_memory_t xm = mem(&r, &xu, dir == 1 ? NULL : x), wm = mem(&r, &wu, dir == 2 ? NULL : w),
                  ym = mem(&r, &yu, dir == 0 ? NULL : dy);
    dnnl_memory_t out_user = dir == 0 ? ym : dir == 1 ? xm : wm;
    dnnl_memory_t xp = bind(&r, xm, &xu, src_md, dir == 1);
    dnnl_memory_t wp = bind(&r, wm, &wu, wei_md, dir == 2);
    dnnl_memory_t yp = bind(&r, ym, &yu, dst_md, dir == 0);
    bool has_back = r.steps[MAX_STEPS - 1].prim != NULL;
    step_t back = r.steps[MAX_STEPS - 1];
    r.steps[MAX_STEPS - 1].prim = NULL;
    dnnl_exec_arg_t args[3];
    if (dir == 0) {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, xp};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, wp};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, yp};
    } else if (dir == 1) {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, xp};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, wp};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, yp};
    } else {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, xp};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, wp};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, yp};
    }
    add_step(&r, prim, 3, args);
    if (has_back)
        r.steps[r.nsteps++] = back;

    double t[64];
    if (iters > 64)
        iters = 64;
    /* FREEDNN_BENCH_DNNL_CONV_ONLY=1: the convolution primitive alone is
     * timed, its reorders run outside the clock (as inside a network whose
     * tensors stay in oneDNN's layouts). */
    const char *conv_only = getenv("FREEDNN_BENCH_DNNL_CONV_ONLY");
    bool only = conv_only != NULL && conv_only[0] == '1';
    bench_settle();
    for (int i = -1; i < iters; i++) {
        bench_flush_caches();
        double t0 = 0, t1 = 0;
        if (!only)
            t0 = now_ms();
        for (int s = 0; s < r.nsteps; s++) {
            bool timed = r.steps[s].prim == prim;
            if (only && timed)
                t0 = now_ms();
            dnnl_primitive_execute(r.steps[s].prim, r.stream, r.steps[s].nargs, r.steps[s].args);
            if (only && timed) {
                dnnl_stream_wait(r.stream);
                t1 = now_ms();
            }
        }
        dnnl_stream_wait(r.stream);
        if (!only)
            t1 = now_ms();
        if (i >= 0)
            t[i] = t1 - t0;
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    void *h = NULL;
    dnnl_memory_get_data_handle(out_user, &h);
    const dnnl_memory_desc_t *out_md = dir == 0 ? &yu : dir == 1 ? &xu : &wu;
    if (dt == dnnl_bf16)
        for (size_t i = 0; i < dnnl_memory_desc_get_size(out_md) / 2; i++) {
            uint32_t u = (uint32_t)((const uint16_t *)h)[i] << 16;
            memcpy(&result[i], &u, 4);
        }
    else if (nhwc && dir != 2)
        swap_channels_last(h, result, p->mb, dir == 0 ? p->oc : p->ic, dir == 0 ? sp_y : sp_x, true);
    else
        memcpy(result, h, dnnl_memory_desc_get_size(out_md));
    free(xh);
    free(yh);
    for (int s = 0; s < r.nsteps; s++)
        dnnl_primitive_destroy(r.steps[s].prim);
    for (int i = 0; i < r.nmems; i++)
        dnnl_memory_destroy(r.mems[i]);
    for (int i = 0; i < r.npds; i++)
        dnnl_primitive_desc_destroy(r.pds[i]);
    dnnl_stream_destroy(r.stream);
    dnnl_engine_destroy(r.eng);
    return t[iters / 2];
}

double
bench_onednn(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
             const float *dy, float *result)
{
    return run_onednn(p, dir, threads, iters, x, w, dy, result, dnnl_f32, USER_NCHW);
}

double
bench_onednn_nhwc(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                  const float *dy, float *result, size_t result_n)
{
    double any = run_onednn(p, dir, threads, iters, x, w, dy, result, dnnl_f32, USER_NHWC_ANY);
    float *other = malloc(result_n * 4);
    double forced = run_onednn(p, dir, threads, iters, x, w, dy, other, dnnl_f32, USER_NHWC_FORCED);
    if (forced >= 0 && (any < 0 || forced < any)) {
        memcpy(result, other, result_n * 4);
        any = forced;
    }
    free(other);
    return any;
}

double
bench_onednn_bf16(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                  const float *dy, float *result)
{
    return run_onednn(p, dir, threads, iters, x, w, dy, result, dnnl_bf16, USER_NCHW);
}

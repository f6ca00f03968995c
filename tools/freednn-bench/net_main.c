/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net NAME[,NAME...]: a whole network's training step (or,
 * with --infer, its inference) in FreeDNN, PyTorch and oneDNN in the same
 * run, each side in a process of its own so that its peak RSS is its own.
 *
 * By default FreeDNN's and oneDNN's steps alternate: both sides' processes
 * set up and warm up, then this process drives them one step at a time
 * (net_child.c) in the order F O, O F, F O, ... (so neither side always goes
 * first), and each pair's ratio oneDNN / FreeDNN is taken within the same
 * few seconds: a neighbour that slows the machine for a minute slows both
 * sides of the pairs it covers.  The median of the pair ratios is the
 * onednn-ratio.  PyTorch runs on its own, before the pairs (sequentially).
 *
 *   --net resnet50,mobilenet_v2   the networks (net_models.c)
 *   --threads T   threads of every side (default: every usable processor)
 *   --mb N        images per step (default 32 for training, 1 for --infer)
 *   --infer       inference (forward, BN with running statistics)
 *   --iters N     timed steps per side (and FreeDNN layout) after one
 *                 warm-up; medians are reported (default 5)
 *   --sequential  each side's steps on their own, one side after the other
 *                 (FreeDNN, PyTorch, oneDNN), as before the alternation
 *   --no-torch, --no-dnnl   leave a side out
 *   --profile [ops|nodes]   ops (the default): each side's time per op kind
 *                 and direction; nodes: that, and per node and direction on
 *                 both sides, printed as a table grouped by layer shape and
 *                 sorted by FreeDNN - oneDNN (net_nodes.c).  A clock read
 *                 per call on the FreeDNN side; oneDNN's stream is waited
 *                 for after each primitive
 *   --spec        print the node list and exit
 *   --clock cpu   time by CPU time instead of wall time, for runs on a busy
 *                 machine: at 1 thread the calling thread's (every side does
 *                 its work there; the process's would add the peers' idle
 *                 runtime threads: OpenMP, BLAS, PyTorch's pools), at T
 *                 threads the process's (the sum over its threads)
 *   --no-fuse     BN and its ReLU as two layers on both sides (default:
 *                 fused, net_bn_relu_fusable in net.h)
 *   --layout L    FreeDNN's tensors: nchw, nhwc, or both (default), the
 *                 faster reported (PyTorch likewise gets the faster of its
 *                 two memory formats; oneDNN picks its own layouts); with
 *                 both, one oneDNN process pairs with each layout's in turn
 *   --check       fail (exit 1) unless FreeDNN's loss and weight-gradient
 *                 norm, on each layout run, agree with oneDNN's (the same weights and images on
 *                 both sides) to 1e-4 and 1e-3 relative: a whole-network
 *                 test of forward and backward against an independent
 *                 library (ctest bench_net_check)
 *
 * Alternated, a line per pair as it ends, then per FreeDNN layout their summary:
 *   # pair K NCHW: FreeDNN X ms, oneDNN Y ms, ratio Y/X (FreeDNN|oneDNN first)
 *   # pairs NCHW: oneDNN/FreeDNN median R (min A, max B) over N pairs; ...
 * The last line per network is
 *   NAME train|infer mb=N threads=T FreeDNN X ms PyTorch Y ms oneDNN Z ms
 *   torch-ratio R onednn-ratio Q
 * with ratios other / FreeDNN (> 1: FreeDNN is faster), X the median step
 * of FreeDNN's faster layout; alternated, Z is oneDNN's median over the steps
 * paired with that layout and Q the median of those pairs' ratios
 * (sequential: the ratio of the medians).  PyTorch runs
 * Debian's python3-torch (/usr/bin/python3) with OMP_NUM_THREADS and
 * OPENBLAS_NUM_THREADS set to T and torch.set_num_threads(T), without the
 * OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE overrides, contiguous and
 * channels-last, and reports the faster. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cpu.h"
#include "bench.h"
#include "net.h"

#ifndef FDNN_NET_TORCH_SCRIPT
#define FDNN_NET_TORCH_SCRIPT "tools/freednn-bench/net_torch.py"
#endif

double
net_clock_ms(const net_run_t *run)
{
    struct timespec t;
    clockid_t id = !run->cpu_clock ? CLOCK_MONOTONIC : run->threads == 1 ? CLOCK_THREAD_CPUTIME_ID
                                                                          : CLOCK_PROCESS_CPUTIME_ID;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

typedef struct side_report {
    net_result_t result; /* median_ms: the median of the timed steps */
    long peak_rss_kib;
    net_node_prof_t *nodes; /* --profile: per node, ms per step */
} side_report_t;

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v); 0 for none. */
static double
median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Ends a side's child into its report, with the median of its steps. */
static void
finish(net_child_t *ch, side_report_t *rep, const net_t *net, const net_run_t *run, double *ms, int n)
{
    free(rep->nodes);
    rep->nodes = run->profile ? calloc((size_t)net->count, sizeof(net_node_prof_t)) : NULL;
    bool good = net_child_close(ch, &rep->result, &rep->peak_rss_kib, rep->nodes);
    if (!good || n < 1) {
        free(rep->nodes);
        rep->nodes = NULL;
    }
    if (good && n < 1) {
        rep->result.ok = false;
        snprintf(rep->result.why, sizeof(rep->result.why), "no timed step");
    }
    rep->result.median_ms = median(ms, n);
}

/* One side on its own: open, `iters` steps, close (--sequential, or
 * without a partner). */
static side_report_t
run_alone(const net_side_api_t *api, const net_t *net, const net_run_t *run)
{
    side_report_t rep = {0};
    net_child_t ch = {.pid = -1, .to = -1, .from = -1};
    double *ms = calloc((size_t)run->iters, sizeof(double));
    int n = 0;
    if (ms != NULL && net_child_open(&ch, api, net, run))
        while (n < run->iters && net_child_step(&ch, &ms[n]))
            n++;
    else if (ms == NULL)
        snprintf(ch.result.why, sizeof(ch.result.why), "out of memory");
    finish(&ch, &rep, net, run, ms, n);
    free(ms);
    return rep;
}

/* PyTorch: the script reads the node list and prints one line
 * "result MEDIAN_MS CHECK PEAK_RSS_KIB LAYOUT GRAD_NORM" (and its own comment
 * lines); GRAD_NORM is of PyTorch's own random weights, not comparable. */
static side_report_t
run_torch(const net_t *net, const net_run_t *run, const char *script)
{
    side_report_t rep = {0};
    char spec[] = "/tmp/freednn-net-XXXXXX";
    int fd = mkstemp(spec);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        snprintf(rep.result.why, sizeof(rep.result.why), "cannot write the node list");
        return rep;
    }
    net_write_spec(net, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d "
             "/usr/bin/python3 %s --spec %s --threads %d --mb %d --iters %d %s%s",
             run->threads, run->threads, script, spec, run->threads, run->mb, run->iters,
             run->train ? "--train" : "--infer", run->cpu_clock ? " --cpu-clock" : "");
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    char line[512];
    while (p != NULL && fgets(line, sizeof(line), p) != NULL) {
        char layout[32];
        if (sscanf(line, "result %lf %lf %ld %31s %lf", &rep.result.median_ms, &rep.result.check,
                   &rep.peak_rss_kib, layout, &rep.result.grad_norm) == 5)
            rep.result.ok = true;
        else
            fputs(line, stdout); /* the script's comment lines */
    }
    if (p == NULL || pclose(p) != 0 || !rep.result.ok) {
        rep.result.ok = false;
        snprintf(rep.result.why, sizeof(rep.result.why), "%s failed (is python3-torch installed?)", script);
    }
    remove(spec);
    return rep;
}

static void
print_side(const char *who, const side_report_t *r, bool train)
{
    if (r->result.ok && train)
        printf("# %-8s %10.1f ms  loss %.7g  gradient norm %.7g  peak RSS %ld MiB\n", who, r->result.median_ms,
               r->result.check, r->result.grad_norm, r->peak_rss_kib / 1024);
    else if (r->result.ok)
        printf("# %-8s %10.1f ms  mean logit %.7g  peak RSS %ld MiB\n", who, r->result.median_ms, r->result.check,
               r->peak_rss_kib / 1024);
    else
        printf("# %-8s skipped: %s\n", who, r->result.why[0] ? r->result.why : "not run");
}

static bool
agree(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-6;
}

/* --check: FreeDNN against oneDNN, same weights and images. */
static bool
check_sides(const side_report_t *ours, const side_report_t *dn, bool train)
{
    if (!ours->result.ok || !dn->result.ok) {
        printf("# check FAILED: a side did not run\n");
        return false;
    }
    bool good = agree(ours->result.check, dn->result.check, 1e-4) &&
                (!train || agree(ours->result.grad_norm, dn->result.grad_norm, 1e-3));
    printf("# check %s: %s %.7g vs %.7g, gradient norm %.7g vs %.7g (FreeDNN vs oneDNN)\n", good ? "passed" : "FAILED",
           train ? "loss" : "mean logit", ours->result.check, dn->result.check, ours->result.grad_norm,
           dn->result.grad_norm);
    return good;
}

static double
ratio(const side_report_t *other, const side_report_t *ours)
{
    return other->result.ok && ours->result.ok ? other->result.median_ms / ours->result.median_ms : 0.0;
}

/* The pairs of one FreeDNN layout with the oneDNN process: per pair the
 * ratio oneDNN / FreeDNN, and each side's step times. */
typedef struct pairs {
    int n;
    double *ours, *theirs, *ratio;
    double ratio_median, ratio_min, ratio_max, theirs_median;
} pairs_t;

/* FreeDNN's layout `run->nhwc` against the running oneDNN child `dn`:
 * `iters` pairs, F O then O F, alternately.  A oneDNN failure ends the
 * pairs (FreeDNN's remaining steps then run alone). */
static side_report_t
run_pairs(const net_t *net, const net_run_t *run, net_child_t *dn, pairs_t *p, double *dn_all, int *dn_count)
{
    side_report_t rep = {0};
    net_child_t ch = {.pid = -1, .to = -1, .from = -1};
    int n = 0;
    p->n = 0;
    if (net_child_open(&ch, &net_cudnn_api, net, run)) {
        while (n < run->iters) {
            double f = 0, o = 0;
            bool dn_first = n % 2 == 1, paired = dn->alive;
            double rt = run->threads >= 2 ? bench_core_roundtrip_ns() : -1; /* the placement (bench.h) */
            /* bench_settle before each step: the other side's idle threads
             * stop spinning first (bench.h). */
            if (paired && dn_first && (bench_settle(), !net_child_step(dn, &o)))
                paired = false;
            bench_settle();
            if (!net_child_step(&ch, &f))
                break;
            if (paired && !dn_first && (bench_settle(), !net_child_step(dn, &o)))
                paired = false;
            p->ours[n] = f;
            n++;
            if (paired) {
                p->theirs[p->n] = dn_all[(*dn_count)++] = o;
                p->ratio[p->n++] = o / f;
                printf("# pair %d %s: FreeDNN %.1f ms, oneDNN %.1f ms, ratio %.3f (%s first)", n,
                       run->nhwc ? "NHWC" : "NCHW", f, o, o / f, dn_first ? "oneDNN" : "FreeDNN");
                if (rt >= 0)
                    printf(", core round trip %.0f ns", rt);
                printf("\n");
                fflush(stdout);
            }
        }
    }
    finish(&ch, &rep, net, run, p->ours, n);
    if (p->n > 0) {
        double *r = malloc((size_t)p->n * sizeof(double));
        if (r != NULL) {
            memcpy(r, p->ratio, (size_t)p->n * sizeof(double));
            p->ratio_median = median(r, p->n);
            p->ratio_min = r[0];
            p->ratio_max = r[p->n - 1];
            memcpy(r, p->theirs, (size_t)p->n * sizeof(double));
            p->theirs_median = median(r, p->n);
            free(r);
        }
    }
    return rep;
}

/* Parses --profile's optional argument at argv[*i + 1]. */
static bool
parse_profile(int argc, char **argv, int *i, net_run_t *run)
{
    run->profile = true;
    if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
        return true; /* a flag on its own: ops */
    const char *v = argv[++*i];
    if (strcmp(v, "nodes") == 0)
        run->profile_nodes = true;
    else if (strcmp(v, "ops") != 0) {
        fprintf(stderr, "freednn-bench --net: invalid --profile argument '%s' (ops or nodes)\n", v);
        return false;
    }
    return true;
}

int
net_main(int argc, char **argv)
{
    net_run_t run = {-1, (int)fdnn_cpu_usable_count(), 5, true, false, false, false, false, true};
    const char *names = "resnet50", *script = FDNN_NET_TORCH_SCRIPT;
    bool torch = true, dnnl = true, spec_only = false, check = false, try_nchw = true, try_nhwc = true;
    bool sequential = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(a, "--net") == 0)
            names = v, i++;
        else if (strcmp(a, "--threads") == 0)
            run.threads = atoi(v), i++;
        else if (strcmp(a, "--mb") == 0)
            run.mb = atoi(v), i++;
        else if (strcmp(a, "--iters") == 0)
            run.iters = atoi(v) > 0 ? atoi(v) : 1, i++;
        else if (strcmp(a, "--infer") == 0)
            run.train = false;
        else if (strcmp(a, "--train") == 0)
            run.train = true;
        else if (strcmp(a, "--no-torch") == 0)
            torch = false;
        else if (strcmp(a, "--no-dnnl") == 0)
            dnnl = false;
        else if (strcmp(a, "--sequential") == 0)
            sequential = true;
        else if (strcmp(a, "--profile") == 0) {
            if (!parse_profile(argc, argv, &i, &run))
                return 2;
        } else if (strcmp(a, "--no-fuse") == 0)
            run.fuse = false;
        else if (strcmp(a, "--spec") == 0)
            spec_only = true;
        else if (strcmp(a, "--check") == 0)
            check = true;
        else if (strcmp(a, "--layout") == 0) {
            try_nchw = strcmp(v, "nhwc") != 0;
            try_nhwc = strcmp(v, "nchw") != 0;
            i++;
        } else if (strcmp(a, "--clock") == 0)
            run.cpu_clock = strcmp(v, "cpu") == 0, i++;
        else if (strcmp(a, "--torch-script") == 0)
            script = v, i++;
        else {
            fprintf(stderr, "freednn-bench --net: unknown option %s\n", a);
            return 2;
        }
    }
    if (run.mb <= 0)
        run.mb = run.train ? 32 : 1;
    if (run.threads <= 0)
        run.threads = 1;
    int rc = 0;
    char list[256];
    snprintf(list, sizeof(list), "%s", names);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
        net_t net;
        if (!net_build(name, &net)) {
            fprintf(stderr, "freednn-bench --net: unknown network %s (resnet50, mobilenet_v2)\n", name);
            return 2;
        }
        if (spec_only) {
            net_write_spec(&net, stdout);
            net_free(&net);
            continue;
        }
        const char *mode = run.train ? "train" : "infer";
        bool alternate = dnnl && !sequential;
        printf("# %s %s mb=%d threads=%d: %d nodes, %.2f GMAC forward per image, %d timed steps (median, %s time)%s\n",
               name, mode, run.mb, run.threads, net.count, net_forward_macs(&net) * 1e-9, run.iters,
               run.cpu_clock ? "CPU" : "wall", alternate ? ", FreeDNN and oneDNN alternated" : "");
        side_report_t ours = {0}, per_layout[2], pt = {0}, dn = {0};
        memset(per_layout, 0, sizeof(per_layout));
        pairs_t pairs[2];
        memset(pairs, 0, sizeof(pairs));
        double *dn_all = NULL;
        int dn_count = 0;
        net_child_t dn_child = {.pid = -1, .to = -1, .from = -1};
        if (alternate) {
            /* PyTorch first, alone; then the oneDNN process stays up while
             * each FreeDNN layout's process pairs with it */
            if (torch)
                pt = run_torch(&net, &run, script);
            dn_all = calloc(2 * (size_t)run.iters, sizeof(double));
            for (int k = 0; k < 2; k++) {
                pairs[k].ours = calloc((size_t)run.iters, sizeof(double));
                pairs[k].theirs = calloc((size_t)run.iters, sizeof(double));
                pairs[k].ratio = calloc((size_t)run.iters, sizeof(double));
            }
            if (dn_all == NULL || !pairs[0].ours || !pairs[0].theirs || !pairs[0].ratio || !pairs[1].ours ||
                !pairs[1].theirs || !pairs[1].ratio) {
                fprintf(stderr, "freednn-bench --net: out of memory\n");
                return 2;
            }
            if (!net_child_open(&dn_child, &net_onednn_api, &net, &run))
                printf("# oneDNN did not start (%s): FreeDNN alone\n", dn_child.result.why);
        }
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            if (!(nhwc ? try_nhwc : try_nchw))
                continue;
            run.nhwc = nhwc;
            const char *lay = nhwc ? "NHWC" : "NCHW";
            side_report_t one = per_layout[nhwc] =
                alternate ? run_pairs(&net, &run, &dn_child, &pairs[nhwc], dn_all, &dn_count)
                          : run_alone(&net_cudnn_api, &net, &run);
            printf("# FreeDNN %s: %.1f ms%s%s%s\n", lay, one.result.median_ms, one.result.ok ? "" : " (failed: ",
                   one.result.ok ? "" : one.result.why, one.result.ok ? "" : ")");
            const pairs_t *p = &pairs[nhwc];
            if (alternate && p->n > 0)
                printf("# pairs %s: oneDNN/FreeDNN median %.3f (min %.3f, max %.3f) over %d pairs; "
                       "FreeDNN median %.1f ms, oneDNN median %.1f ms\n",
                       lay, p->ratio_median, p->ratio_min, p->ratio_max, p->n, one.result.median_ms,
                       p->theirs_median);
            if (one.result.ok && (!ours.result.ok || one.result.median_ms < ours.result.median_ms))
                ours = one;
            else if (!ours.result.ok && !one.result.ok)
                ours = one;
        }
        if (alternate) {
            finish(&dn_child, &dn, &net, &run, dn_all, dn_count);
            if (!dn.result.ok && dn.result.why[0] == '\0')
                snprintf(dn.result.why, sizeof(dn.result.why), "%s", dn_child.result.why);
        }
        print_side("FreeDNN", &ours, run.train);
        if (torch && !alternate)
            pt = run_torch(&net, &run, script);
        if (torch)
            print_side("PyTorch", &pt, run.train);
        if (dnnl && !alternate)
            dn = run_alone(&net_onednn_api, &net, &run);
        if (dnnl)
            print_side("oneDNN", &dn, run.train);
        double dn_ms = dn.result.median_ms, dn_ratio = ratio(&dn, &ours);
        for (int nhwc = 0; alternate && nhwc < 2; nhwc++)
            if (ours.result.ok && per_layout[nhwc].result.ok &&
                per_layout[nhwc].result.median_ms == ours.result.median_ms && pairs[nhwc].n > 0)
                dn_ms = pairs[nhwc].theirs_median, dn_ratio = pairs[nhwc].ratio_median;
        printf("%s %s mb=%d threads=%d FreeDNN %.1f ms PyTorch %.1f ms oneDNN %.1f ms torch-ratio %.2f "
               "onednn-ratio %.2f\n",
               name, mode, run.mb, run.threads, ours.result.median_ms, pt.result.median_ms, dn_ms,
               ratio(&pt, &ours), dn_ratio);
        rc |= ours.result.ok ? 0 : 1;
        for (int nhwc = 0; check && nhwc < 2; nhwc++) /* every layout that ran */
            if ((nhwc ? try_nhwc : try_nchw) && !check_sides(&per_layout[nhwc], &dn, run.train))
                rc = 1;
        for (int nhwc = 0; run.profile_nodes && nhwc < 2; nhwc++) {
            const side_report_t *f = &per_layout[nhwc];
            if (f->nodes == NULL)
                continue;
            char title[128];
            snprintf(title, sizeof(title), "%s %s mb=%d threads=%d, FreeDNN %s", name, mode, run.mb, run.threads,
                     nhwc ? "NHWC" : "NCHW");
            bool have = dn.result.ok && dn.nodes != NULL;
            net_print_node_table(&net, &run, title, f->nodes, f->result.median_ms, have ? dn.nodes : NULL,
                                 alternate && pairs[nhwc].n > 0 ? pairs[nhwc].theirs_median : dn.result.median_ms);
        }
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            free(per_layout[nhwc].nodes);
            free(pairs[nhwc].ours);
            free(pairs[nhwc].theirs);
            free(pairs[nhwc].ratio);
        }
        free(dn.nodes);
        free(dn_all);
        net_free(&net);
    }
    return rc;
}

#ifndef FDNN_BENCH_NET_HAVE_DNNL
static void *
no_onednn_open(const net_t *net, const net_run_t *run, net_result_t *r)
{
    (void)net, (void)run;
    snprintf(r->why, sizeof(r->why), "freednn-bench was built without oneDNN");
    return NULL;
}

const net_side_api_t net_onednn_api = {no_onednn_open, NULL, NULL};
#endif

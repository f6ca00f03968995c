/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench --net NAME[,NAME...]: a whole network's training step (or,
 * with --infer, its inference) in FreeDNN, PyTorch and oneDNN, one after the
 * other in the same run, each side in a process of its own so that its peak
 * RSS is its own.
 *
 *   --net resnet50,mobilenet_v2   the networks (net_models.c)
 *   --threads T   threads of every side (default: every usable processor)
 *   --mb N        images per step (default 32 for training, 1 for --infer)
 *   --infer       inference (forward, BN with running statistics)
 *   --iters N     timed steps after one warm-up; the median is reported
 *                 (default 5)
 *   --no-torch, --no-dnnl   leave a side out
 *   --profile     FreeDNN's time per op kind and direction
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
 *                 two memory formats; oneDNN picks its own layouts)
 *   --check       fail (exit 1) unless FreeDNN's loss and weight-gradient
 *                 norm, on each layout run, agree with oneDNN's (the same weights and images on
 *                 both sides) to 1e-4 and 1e-3 relative: a whole-network
 *                 test of forward and backward against an independent
 *                 library (ctest bench_net_check)
 *
 * The last line per network is
 *   NAME train|infer mb=N threads=T FreeDNN X ms PyTorch Y ms oneDNN Z ms
 *   torch-ratio R onednn-ratio Q
 * with ratios other / FreeDNN (> 1: FreeDNN is faster).  PyTorch runs
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
    net_result_t result;
    long peak_rss_kib;
} side_report_t;

/* Runs one C side in a child process; its report comes back through a pipe. */
static side_report_t
run_child(net_result_t (*side)(const net_t *, const net_run_t *), const net_t *net, const net_run_t *run)
{
    side_report_t rep = {0};
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0) {
        snprintf(rep.result.why, sizeof(rep.result.why), "pipe failed");
        return rep;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        side_report_t mine = {side(net, run), 0};
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        mine.peak_rss_kib = ru.ru_maxrss;
        ssize_t w = write(fd[1], &mine, sizeof(mine));
        fflush(stdout);
        _exit(w == (ssize_t)sizeof(mine) ? 0 : 1);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep)) {
        memset(&rep, 0, sizeof(rep));
        snprintf(rep.result.why, sizeof(rep.result.why), "the side's process ended without a report");
    }
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
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

int
net_main(int argc, char **argv)
{
    net_run_t run = {-1, (int)fdnn_cpu_usable_count(), 5, true, false, false, false, true};
    const char *names = "resnet50", *script = FDNN_NET_TORCH_SCRIPT;
    bool torch = true, dnnl = true, spec_only = false, check = false, try_nchw = true, try_nhwc = true;
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
        else if (strcmp(a, "--profile") == 0)
            run.profile = true;
        else if (strcmp(a, "--no-fuse") == 0)
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
        printf("# %s %s mb=%d threads=%d: %d nodes, %.2f GMAC forward per image, %d timed steps (median, %s time)\n",
               name, mode, run.mb, run.threads, net.count, net_forward_macs(&net) * 1e-9, run.iters,
               run.cpu_clock ? "CPU" : "wall");
        side_report_t ours = {0}, per_layout[2];
        memset(per_layout, 0, sizeof(per_layout));
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            if (!(nhwc ? try_nhwc : try_nchw))
                continue;
            run.nhwc = nhwc;
            side_report_t one = per_layout[nhwc] = run_child(net_run_cudnn, &net, &run);
            printf("# FreeDNN %s: %.1f ms%s\n", nhwc ? "NHWC" : "NCHW", one.result.median_ms,
                   one.result.ok ? "" : " (failed)");
            if (one.result.ok && (!ours.result.ok || one.result.median_ms < ours.result.median_ms))
                ours = one;
            else if (!ours.result.ok && !one.result.ok)
                ours = one;
        }
        print_side("FreeDNN", &ours, run.train);
        side_report_t pt = {0}, dn = {0};
        if (torch) {
            pt = run_torch(&net, &run, script);
            print_side("PyTorch", &pt, run.train);
        }
        if (dnnl) {
            dn = run_child(net_run_onednn, &net, &run);
            print_side("oneDNN", &dn, run.train);
        }
        printf("%s %s mb=%d threads=%d FreeDNN %.1f ms PyTorch %.1f ms oneDNN %.1f ms torch-ratio %.2f "
               "onednn-ratio %.2f\n",
               name, mode, run.mb, run.threads, ours.result.median_ms, pt.result.median_ms, dn.result.median_ms,
               ratio(&pt, &ours), ratio(&dn, &ours));
        rc |= ours.result.ok ? 0 : 1;
        for (int nhwc = 0; check && nhwc < 2; nhwc++) /* every layout that ran */
            if ((nhwc ? try_nhwc : try_nchw) && !check_sides(&per_layout[nhwc], &dn, run.train))
                rc = 1;
        net_free(&net);
    }
    return rc;
}

#ifndef FDNN_BENCH_NET_HAVE_DNNL
net_result_t
net_run_onednn(const net_t *net, const net_run_t *run)
{
    (void)net, (void)run;
    net_result_t r = {0};
    snprintf(r.why, sizeof(r.why), "freednn-bench was built without oneDNN");
    return r;
}
#endif

/* SPDX-License-Identifier: Apache-2.0
 * The handle's worker threads sleep between calls (core/pool.c): after a
 * computing call returns, no worker may keep burning CPU time once the
 * linger time (FREEDNN_WORKER_WAIT, docs/threads.md) has passed.  Measured
 * with each worker thread's CPU clock (Linux: the clock id of a thread id,
 * see clock_getcpuclockid(3) and posix-cpu-timers), over a quiet interval
 * after the call.  With FREEDNN_WORKER_WAIT=spin the workers look for work
 * for 100 ms; that run is printed as the control (not asserted). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_TASKS 64
#define ELEMS (1 << 22)

/* The CPU-time clock of thread `tid` (the kernel's encoding: per-thread,
 * scheduler clock). */
static clockid_t
thread_cpu_clock(pid_t tid)
{
    return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

static double
thread_cpu_ms(pid_t tid)
{
    struct timespec ts;
    if (clock_gettime(thread_cpu_clock(tid), &ts) != 0)
        return -1;
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Thread ids of this process other than the calling thread. */
static int
other_threads(pid_t *tids)
{
    pid_t self = (pid_t)syscall(SYS_gettid);
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < MAX_TASKS;) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != self)
            tids[n++] = tid;
    }
    closedir(d);
    return n;
}

static void
sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Runs a parallel ReLU on a fresh 2-thread handle, then returns the most CPU
 * time any other thread used during the following `quiet_ms`. */
static double
worker_cpu_after_call(const char *wait_policy, float *x, float *y, long quiet_ms)
{
    setenv("FREEDNN_NUM_THREADS", "2", 1);
    if (wait_policy != NULL)
        setenv("FREEDNN_WORKER_WAIT", wait_policy, 1);
    else
        unsetenv("FREEDNN_WORKER_WAIT");
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnTensorDescriptor_t t;
    cudnnActivationDescriptor_t act;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, 64, 128, 128));
    CHECK_OK(cudnnCreateActivationDescriptor(&act));
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    float one = 1, zero = 0;
    for (int rep = 0; rep < 3; rep++)
        CHECK_OK(cudnnActivationForward(h, act, &one, t, x, &zero, t, y));

    pid_t tids[MAX_TASKS];
    double before[MAX_TASKS];
    int n = other_threads(tids);
    CHECK_MSG(n >= 1, "a 2-thread handle has no worker thread");
    for (int i = 0; i < n; i++)
        before[i] = thread_cpu_ms(tids[i]);
    sleep_ms(quiet_ms);
    double most = 0;
    for (int i = 0; i < n; i++) {
        double used = thread_cpu_ms(tids[i]) - before[i];
        if (before[i] >= 0 && used > most)
            most = used;
    }
    CHECK(y[0] == (x[0] > 0 ? x[0] : 0));
    CHECK_OK(cudnnDestroyActivationDescriptor(act));
    CHECK_OK(cudnnDestroyTensorDescriptor(t));
    CHECK_OK(cudnnDestroy(h));
    return most;
}

int
main(void)
{
    float *x = malloc(sizeof(float) * ELEMS), *y = malloc(sizeof(float) * ELEMS);
    for (int i = 0; i < ELEMS; i++)
        x[i] = (float)((long)i * 7919 % 201 - 100);

    double spin = worker_cpu_after_call("spin", x, y, 200);
    double parked = worker_cpu_after_call(NULL, x, y, 200);
    double at_once = worker_cpu_after_call("sleep", x, y, 200);
    double linger5 = worker_cpu_after_call("5000", x, y, 200);
    printf("worker CPU time in the 200 ms after a call: %.1f ms by default (1 ms linger), %.1f ms with "
           "FREEDNN_WORKER_WAIT=sleep, %.1f ms with 5000 (us), %.1f ms with spin\n",
           parked, at_once, linger5, spin);
    /* Parked workers wait on a futex: nothing but the linger time (at most
     * 1 ms, or 5 ms) and scheduler noise. */
    CHECK_MSG(parked < 10, "workers used %.1f ms of CPU after the call returned", parked);
    CHECK_MSG(at_once < 10, "workers used %.1f ms of CPU after the call returned (sleep)", at_once);
    CHECK_MSG(linger5 < 15, "workers used %.1f ms of CPU after the call returned (5 ms linger)", linger5);

    free(x);
    free(y);
    return fdnn_test_finish("test_handle_workers");
}

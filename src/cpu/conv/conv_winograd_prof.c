/* SPDX-License-Identifier: Apache-2.0
 * The phase timers of conv_winograd_prof.h (only with FDNN_WINO_PROFILE).
 * Each thread gets a row of counters on its first mark (up to MAX_THREADS
 * rows; later threads are not counted); the rows are printed at exit.
 * Nothing is counted before the end of the process's first call. */
#ifdef FDNN_WINO_PROFILE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */
#endif
#include "cpu/conv/conv_winograd_prof.h"

#ifdef FDNN_WINO_PROFILE
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define MAX_THREADS 16

static const char *const phase_names[WPROF_PHASES] = {
    "f_filter", "f_input", "f_product", "f_output", "f_call", "b_x", "b_dy", "b_product", "b_finish", "b_call",
};

static struct {
    long long calls, cpu_ns, wall_ns;
} table[MAX_THREADS][WPROF_PHASES];
static _Atomic int rows_used;
/* Set when the first call ends: the first call's page faults on a fresh
 * workspace (several ms under this VM's hypervisor) are not counted. */
static _Atomic int armed;
static _Thread_local int my_row = -1;

static long long
ns_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

fdnn_wprof_mark_t
fdnn_wprof_now(void)
{
    fdnn_wprof_mark_t m = {ns_of(CLOCK_THREAD_CPUTIME_ID), ns_of(CLOCK_MONOTONIC)};
    return m;
}

void
fdnn_wprof_add(int phase, fdnn_wprof_mark_t since)
{
    fdnn_wprof_mark_t now = fdnn_wprof_now();
    if (!atomic_load(&armed)) {
        if (phase == WPROF_F_CALL || phase == WPROF_B_CALL)
            atomic_store(&armed, 1);
        return;
    }
    if (my_row < 0)
        my_row = atomic_fetch_add(&rows_used, 1);
    if (my_row >= MAX_THREADS)
        return;
    table[my_row][phase].calls++;
    table[my_row][phase].cpu_ns += now.cpu_ns - since.cpu_ns;
    table[my_row][phase].wall_ns += now.wall_ns - since.wall_ns;
}

__attribute__((destructor)) static void
print_table(void)
{
    int rows = atomic_load(&rows_used);
    for (int t = 0; t < rows && t < MAX_THREADS; t++)
        for (int p = 0; p < WPROF_PHASES; p++)
            if (table[t][p].calls != 0)
                fprintf(stderr, "wprof thread %d phase %s calls %lld cpu_ms %.3f wall_ms %.3f\n", t, phase_names[p],
                        table[t][p].calls, table[t][p].cpu_ns * 1e-6, table[t][p].wall_ns * 1e-6);
}
#else
typedef int fdnn_wprof_unused_t; /* an empty translation unit is not ISO C */
#endif

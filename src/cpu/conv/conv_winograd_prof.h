/* SPDX-License-Identifier: Apache-2.0
 * Per-thread phase timers of the Winograd solvers, for finding where the
 * second thread's time goes (docs/performance.md, session 9, wino2t).
 * Off unless the build defines FDNN_WINO_PROFILE (a separate build
 * directory: cmake -DCMAKE_C_FLAGS=-DFDNN_WINO_PROFILE); then every thread
 * adds, per phase, its own CPU time (CLOCK_THREAD_CPUTIME_ID) and wall
 * time between WPROF_BEGIN and WPROF_END, and at process exit one line per
 * thread and phase goes to stderr:
 *   wprof thread T phase NAME calls C cpu_ms X wall_ms Y
 * A thread's wall time above its CPU time in a phase is time it was
 * descheduled (a neighbour on the core); the phases of the two threads at
 * 2 threads against the one thread's at 1 show the work each repeats or
 * slows down.  Nothing here changes what is computed. */
#ifndef FDNN_CONV_WINOGRAD_PROF_H
#define FDNN_CONV_WINOGRAD_PROF_H

enum {
    WPROF_F_FILTER,  /* fused: filter transform (its parallel step, per item) */
    WPROF_F_INPUT,   /* fused: gathers and input transforms of a block */
    WPROF_F_PRODUCT, /* fused: the 36 products of one 96-channel chunk */
    WPROF_F_OUTPUT,  /* fused: output transforms and stores of one chunk */
    WPROF_F_CALL,    /* fused: a whole call, caller only */
    WPROF_B_X,       /* backward filter: x gathers and transforms of a block */
    WPROF_B_DY,      /* backward filter: dy gathers and transforms of a block */
    WPROF_B_PRODUCT, /* backward filter: the products of a block */
    WPROF_B_FINISH,  /* backward filter: G^T S G into dw */
    WPROF_B_CALL,    /* backward filter: a whole call, caller only */
    WPROF_PHASES
};

#ifdef FDNN_WINO_PROFILE
typedef struct fdnn_wprof_mark {
    long long cpu_ns, wall_ns;
} fdnn_wprof_mark_t;
fdnn_wprof_mark_t fdnn_wprof_now(void);
void fdnn_wprof_add(int phase, fdnn_wprof_mark_t since);
#define WPROF_BEGIN(var) fdnn_wprof_mark_t var = fdnn_wprof_now()
#define WPROF_END(var, phase) fdnn_wprof_add((phase), var)
#else
#define WPROF_BEGIN(var) ((void)0)
#define WPROF_END(var, phase) ((void)0)
#endif

#endif /* FDNN_CONV_WINOGRAD_PROF_H */

/* SPDX-License-Identifier: Apache-2.0
 * freednn-bench: one convolution problem as read from a problem line, and
 * the oneDNN side.  See CMakeLists.txt. */
#ifndef FDNN_BENCH_CONV_H
#define FDNN_BENCH_CONV_H

#include <stdbool.h>
#include <stddef.h>

/* A problem line: "conv <name> key=value ..." with the keys of
 * shared/bench/shapes.txt (mb ic oc g id kd sd pd dd ih iw kh kw sh sw ph pw
 * dh dw dir, and dt=f32|f16|bf16); dilation is cuDNN-style (1 = dense).  The problem strings
 * FREEDNN_LOG=1 prints ("conv dir=fwd dt=f32 mb=...") parse too. */
typedef struct bench_problem {
    char name[64];
    int nsp; /* 2 or 3 */
    int mb, ic, oc, g;
    int in[3], k[3], s[3], p[3], d[3]; /* D, H, W */
    bool fwd, bwd;
    /* dt=f32 (default), f16 or bf16: the storage type of x, w, y (compute
     * type FLOAT); other values of logged strings (f64, s8) are ignored. */
    int dt; /* cudnnDataType_t */
} bench_problem_t;

/* Parses one line; returns false (and says why on stderr) for lines that are
 * not convolution problems or are malformed.  Comments and blank lines give
 * false silently. */
bool bench_parse_line(const char *line, bench_problem_t *p);

/* Output size along dimension i. */
int bench_out(const bench_problem_t *p, int i);

/* oneDNN: median ms of the forward (dir 0), backward data (1) or backward
 * weights (2) of p on NCHW user tensors with every reorder counted;
 * `result` (the output in NCHW / KCRS order) is filled from the last run.
 * Returns a negative value when oneDNN is not built in or fails. */
double bench_onednn(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                    const float *dy, float *result);
/* The same on NHWC (NDHWC) user tensors: the faster of oneDNN's own
 * layouts (reorders from and to NHWC counted) and the primitive run on NHWC
 * directly.  x, dy and result stay in NCHW order (converted outside the
 * timing); the filter is given to oneDNN as OIHW, which for depthwise
 * (one input channel per group) is the same memory as cuDNN's KRSC. */
double bench_onednn_nhwc(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                         const float *dy, float *result, size_t result_n);
/* The same in bfloat16: NCHW bfloat16 user tensors (the FP32 inputs
 * rounded to nearest even), every tensor bfloat16; result widened. */
double bench_onednn_bf16(const bench_problem_t *p, int dir, int threads, int iters, const float *x, const float *w,
                         const float *dy, float *result);

/* FREEDNN_BENCH_FLUSH_MB=N (N > 0): before every run, both libraries, N MB
 * of an unrelated buffer are written and read, so the run starts with the
 * caches holding none of its operands, as a layer inside a network does
 * (its inputs produced a few layers earlier).  No-op when unset. */
void bench_flush_caches(void);

/* Before either library's timed runs: a pause long enough for the other
 * library's idle worker threads to stop spinning and sleep (GNU OpenMP's
 * default wait spins for milliseconds after a parallel region; FreeDNN's
 * pool lingers 1 ms), so neither side is timed while the other still holds
 * a core.  Each side's own runs stay back to back.  FREEDNN_BENCH_SETTLE_MS
 * sets it (default 30; 0: none). */
void bench_settle(void);

/* The median round trip, in ns, of one cache line passed between this
 * thread and a second one (5 batches of 2000): on a virtual machine it
 * tells which placement of the vCPUs a 2-thread time was measured in
 * (placement.c says why that matters).  -1 with one online CPU or with
 * FREEDNN_BENCH_PROBE=0.  It spins both threads for 1-7 ms. */
double bench_core_roundtrip_ns(void);

#endif /* FDNN_BENCH_CONV_H */

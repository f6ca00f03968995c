/* SPDX-License-Identifier: Apache-2.0
 * The test harness shared by every C test.
 *
 * - CHECK / CHECK_STATUS record a failure with file and line and go on, so
 *   one run reports every broken case; fdnn_test_finish() prints the summary
 *   line "N passed, N failed" and gives the exit code.
 * - Buffers come from fdnn_guarded_alloc: the last byte sits just before an
 *   inaccessible page and the first just after one, so any write outside the
 *   buffer faults at once.
 * - Outputs are poisoned (NaN / 0xFF bytes) before each run so a kernel that
 *   skips an element cannot pass by luck.
 * - fdnn_rng_* is a fixed, seedable generator (splitmix64) so every failure
 *   can be replayed. */
#ifndef FDNN_TESTUTIL_H
#define FDNN_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudnn.h"

/* Atomic: CHECK may run on several threads at once (test_threads, test_pool). */
extern _Atomic int fdnn_test_passed;
extern _Atomic int fdnn_test_failed;

void fdnn_test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__MINGW32__) /* MinGW's own printf: see FDNN_PRINTF in src/core/fail.h */
    __attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define CHECK(cond)                                                     \
    do {                                                                \
        if (cond)                                                       \
            fdnn_test_passed++;                                         \
        else                                                            \
            fdnn_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);     \
    } while (0)

#define CHECK_MSG(cond, ...)                                            \
    do {                                                                \
        if (cond)                                                       \
            fdnn_test_passed++;                                         \
        else                                                            \
            fdnn_test_fail(__FILE__, __LINE__, __VA_ARGS__);            \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                          \
    do {                                                                                      \
        cudnnStatus_t got_ = (expr);                                                          \
        if (got_ == (expected))                                                               \
            fdnn_test_passed++;                                                               \
        else                                                                                  \
            fdnn_test_fail(__FILE__, __LINE__, "%s returned %s, expected %s", #expr,          \
                           cudnnGetErrorString(got_), cudnnGetErrorString(expected));         \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, CUDNN_STATUS_SUCCESS)

/* Prints "<name>: N passed, N failed" and returns the process exit code. */
int fdnn_test_finish(const char *name);

/* Guarded buffers.  The returned pointer is 8-byte aligned; bytes == 0 gives
 * a valid pointer to zero bytes. */
void *fdnn_guarded_alloc(size_t bytes);
void fdnn_guarded_free(void *p);

/* Poison: NaN for floating-point buffers, 0xFF bytes otherwise. */
void fdnn_poison_f32(float *p, size_t n);
void fdnn_poison_f64(double *p, size_t n);
void fdnn_poison_bytes(void *p, size_t n);

/* Writes `text` to root/path, creating the folders on the way (fake /proc
 * and /sys trees for the CPU tests); a failure is a test failure. */
void fdnn_test_put_file(const char *root, const char *path, const char *text);

/* Deterministic random numbers. */
typedef struct fdnn_rng {
    uint64_t state;
} fdnn_rng_t;

void fdnn_rng_seed(fdnn_rng_t *rng, uint64_t seed);
uint64_t fdnn_rng_u64(fdnn_rng_t *rng);
/* Uniform in [lo, hi). */
double fdnn_rng_uniform(fdnn_rng_t *rng, double lo, double hi);
/* Uniform integer in [lo, hi]. */
int fdnn_rng_int(fdnn_rng_t *rng, int lo, int hi);

/* Largest |a-b| / max(1, |b|) over n elements; NaN in either counts as
 * infinite error unless both are NaN. */
double fdnn_max_rel_error_f32(const float *a, const float *b, size_t n);

/* ISA levels available on this machine (for loops over every level the
 * machine has, with freednnSetIsa). */
int fdnn_test_isa_count(void);
const char *fdnn_test_isa_name(int i);

#endif /* FDNN_TESTUTIL_H */

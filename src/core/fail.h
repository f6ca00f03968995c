/* SPDX-License-Identifier: Apache-2.0
 * Failure reasons.  Every failing path of the library returns a status from
 * cudnnStatus_t and leaves a one-line reason that the API layer logs with the
 * error record (CUDNN_LOGERR_DBG, cudnnSetCallback).  Usage:
 *
 *     if (n <= 0)
 *         return FDNN_BAD_PARAM("n is %d, must be positive", n);
 *
 * The macros evaluate to the status; they never return by themselves.
 * RETURN_IF_ERROR(expr) does return, as its name says. */
#ifndef FDNN_CORE_FAIL_H
#define FDNN_CORE_FAIL_H

#include "cudnn.h"

/* MinGW builds use MinGW's own printf (__USE_MINGW_ANSI_STDIO: %zu, %lld),
 * which GCC checks as gnu_printf; its `printf` there means the CRT's. */
#if defined(__MINGW32__)
#define FDNN_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define FDNN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FDNN_PRINTF(f, a)
#endif

/* Record `fmt` as the reason of the current failure (thread-local) and return
 * `status`.  A later reason in the same call replaces an earlier one. */
cudnnStatus_t fdnn_fail(cudnnStatus_t status, const char *fmt, ...) FDNN_PRINTF(2, 3);

/* The reason recorded by the last fdnn_fail on this thread ("" if none). */
const char *fdnn_fail_reason(void);
void fdnn_fail_clear(void);

#define FDNN_BAD_PARAM(...) fdnn_fail(CUDNN_STATUS_BAD_PARAM, __VA_ARGS__)
#define FDNN_NOT_SUPPORTED(...) fdnn_fail(CUDNN_STATUS_NOT_SUPPORTED, __VA_ARGS__)

/* A gap: a request that cuDNN 8.9 accepts and FreeDNN does not do (yet).
 * The status is NOT_SUPPORTED, like FDNN_NOT_SUPPORTED, which stays for
 * what cuDNN itself refuses with NOT_SUPPORTED (and for algorithms that do
 * not apply, as cuDNN reports them).  tools/gen_api.py lists every
 * FDNN_GAP site (file, line, reason) in docs/coverage.md and marks the
 * public functions it reaches as *partial*, so the page cannot claim more
 * than the code does.  The first argument must be a string literal. */
#define FDNN_GAP(...) fdnn_fail(CUDNN_STATUS_NOT_SUPPORTED, __VA_ARGS__)
#define FDNN_ALLOC_FAILED(...) fdnn_fail(CUDNN_STATUS_ALLOC_FAILED, __VA_ARGS__)
#define FDNN_INTERNAL_ERROR(...) fdnn_fail(CUDNN_STATUS_INTERNAL_ERROR, __VA_ARGS__)

#define RETURN_IF_ERROR(expr)                          \
    do {                                               \
        cudnnStatus_t fdnn_status_ = (expr);           \
        if (fdnn_status_ != CUDNN_STATUS_SUCCESS)      \
            return fdnn_status_;                       \
    } while (0)

/* Checks of a required pointer argument, with the argument's name in the
 * reason. */
#define RETURN_IF_NULL(ptr)                                              \
    do {                                                                 \
        if ((ptr) == NULL)                                               \
            return FDNN_BAD_PARAM("%s is NULL", #ptr);                   \
    } while (0)

#endif /* FDNN_CORE_FAIL_H */

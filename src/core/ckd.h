/* SPDX-License-Identifier: Apache-2.0
 * Checked integer arithmetic: the one layer through which every size,
 * offset, element count and byte count derived from user integers is
 * computed (descriptors, workspace / reserve / weight-space queries, folds,
 * RNN / attention / CTC layouts).  An overflow is a failure the caller turns
 * into CUDNN_STATUS_BAD_PARAM with a reason, never a wrapped value.
 *
 * FDNN_CKD_ADD / FDNN_CKD_SUB / FDNN_CKD_MUL(r, a, b) have the contract of
 * C23 <stdckdint.h>'s ckd_add / ckd_sub / ckd_mul: *r receives a op b
 * computed in infinite precision and converted to *r's type; the value is
 * true when that conversion lost information (the result does not fit),
 * false when *r is exact.  They are type-generic; operands are converted
 * exactly, so mixing int, int64_t and size_t is safe.  With a C23 compiler
 * they are <stdckdint.h> itself, otherwise the GCC / Clang builtins that
 * C23 standardised.
 *
 * The typed helpers below return bool "ok" (true = exact) and are meant to
 * be chained with &&, e.g.
 *
 *     int64_t n;
 *     if (!fdnn_ckd_mul3_i64(g, h, h, &n) || !fdnn_ckd_add_i64(base, n, &base))
 *         return FDNN_BAD_PARAM("the weight space of ... overflows");
 *
 * docs/reliability-arithmetic.md lists where the layer is used and audits
 * the multiplications that remain outside it. */
#ifndef FDNN_CORE_CKD_H
#define FDNN_CORE_CKD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L && defined(__has_include)
#if __has_include(<stdckdint.h>)
#include <stdckdint.h>
#define FDNN_HAVE_STDCKDINT 1
#endif
#endif

#if defined(FDNN_HAVE_STDCKDINT)
#define FDNN_CKD_ADD(r, a, b) ckd_add((r), (a), (b))
#define FDNN_CKD_SUB(r, a, b) ckd_sub((r), (a), (b))
#define FDNN_CKD_MUL(r, a, b) ckd_mul((r), (a), (b))
#elif defined(__GNUC__) || defined(__clang__)
#define FDNN_CKD_ADD(r, a, b) __builtin_add_overflow((a), (b), (r))
#define FDNN_CKD_SUB(r, a, b) __builtin_sub_overflow((a), (b), (r))
#define FDNN_CKD_MUL(r, a, b) __builtin_mul_overflow((a), (b), (r))
#else
#error "FreeDNN needs <stdckdint.h> (C23) or __builtin_*_overflow (GCC, Clang)"
#endif

/* ---- int64_t: element counts, offsets, dims (signed, as the views hold them) */

static inline bool
fdnn_ckd_add_i64(int64_t a, int64_t b, int64_t *out)
{
    return !FDNN_CKD_ADD(out, a, b);
}

static inline bool
fdnn_ckd_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    return !FDNN_CKD_SUB(out, a, b);
}

static inline bool
fdnn_ckd_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    return !FDNN_CKD_MUL(out, a, b);
}

static inline bool
fdnn_ckd_mul3_i64(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t t;
    return fdnn_ckd_mul_i64(a, b, &t) && fdnn_ckd_mul_i64(t, c, out);
}

/* *acc += a * b. */
static inline bool
fdnn_ckd_madd_i64(int64_t *acc, int64_t a, int64_t b)
{
    int64_t t;
    return fdnn_ckd_mul_i64(a, b, &t) && fdnn_ckd_add_i64(*acc, t, acc);
}

/* The product of n values (1 for n == 0). */
static inline bool
fdnn_ckd_prod_i64(const int64_t *v, int n, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (!fdnn_ckd_mul_i64(p, v[i], &p))
            return false;
    *out = p;
    return true;
}

/* The same over int dims (descriptor arrays). */
static inline bool
fdnn_ckd_prod_int(const int *v, int n, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (!fdnn_ckd_mul_i64(p, v[i], &p))
            return false;
    *out = p;
    return true;
}

/* ceil(a / b) for a >= 0, b > 0, without forming a + b - 1. */
static inline int64_t
fdnn_ckd_div_up_i64(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

/* Narrowing: true when v fits an int32_t (dims and strides of descriptors). */
static inline bool
fdnn_ckd_to_i32(int64_t v, int32_t *out)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

/* ---- size_t: byte counts ------------------------------------------------- */

static inline bool
fdnn_ckd_add_size(size_t a, size_t b, size_t *out)
{
    return !FDNN_CKD_ADD(out, a, b);
}

static inline bool
fdnn_ckd_mul_size(size_t a, size_t b, size_t *out)
{
    return !FDNN_CKD_MUL(out, a, b);
}

/* Bytes of `elems` elements of `esize` bytes: elems must be >= 0 and the
 * product at most PTRDIFF_MAX, so any byte offset inside the buffer is a
 * valid pointer difference and an int64_t. */
static inline bool
fdnn_ckd_bytes(int64_t elems, size_t esize, size_t *out)
{
    size_t b;
    if (elems < 0 || FDNN_CKD_MUL(&b, (uint64_t)elems, esize) || b > (size_t)PTRDIFF_MAX)
        return false;
    *out = b;
    return true;
}

#endif /* FDNN_CORE_CKD_H */

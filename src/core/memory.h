/* SPDX-License-Identifier: Apache-2.0
 * Aligned allocation and workspace arithmetic. */
#ifndef FDNN_CORE_MEMORY_H
#define FDNN_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ckd.h"

/* Alignment of every buffer the library allocates: one cache line, enough
 * for any vector load. */
#define FDNN_ALIGNMENT 64

/* `bytes` rounded up to FDNN_ALIGNMENT; NULL-safe free. */
void *fdnn_aligned_alloc(size_t bytes);
void fdnn_aligned_free(void *p);

/* `n` rounded up to a multiple of FDNN_ALIGNMENT. */
static inline size_t
fdnn_align_up(size_t n)
{
    return (n + FDNN_ALIGNMENT - 1) & ~(size_t)(FDNN_ALIGNMENT - 1);
}

/* Overflow-checked size arithmetic: false when the result does not fit
 * (the checked layer of src/core/ckd.h, under the names solvers use). */
static inline bool
fdnn_mul_size(size_t a, size_t b, size_t *out)
{
    return fdnn_ckd_mul_size(a, b, out);
}

static inline bool
fdnn_add_size(size_t a, size_t b, size_t *out)
{
    return fdnn_ckd_add_size(a, b, out);
}

/* Carves consecutive aligned pieces out of one workspace.  Used twice per
 * solver: once with base == NULL to size the workspace, once to lay it out,
 * so the size query and the execution can never disagree. */
typedef struct fdnn_carver {
    char *base;
    size_t used;
} fdnn_carver_t;

static inline void *
fdnn_carve(fdnn_carver_t *c, size_t bytes)
{
    void *p = c->base != NULL ? c->base + c->used : NULL;
    c->used += fdnn_align_up(bytes);
    return p;
}

#endif /* FDNN_CORE_MEMORY_H */

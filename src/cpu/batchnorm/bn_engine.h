/* SPDX-License-Identifier: Apache-2.0
 * The batch-norm pass engine: walks up to five tensors of the same shape
 * (x, y, z, dy, dx) plus a one-byte-per-element mask in rows and applies one
 * of four element passes, in parallel on the handle's pool.
 *
 * Determinism: work is cut into row segments ("items") of at most
 * BN_SEGMENT elements and the items into a number of chunks that depends on
 * the shape only.  A reduction pass sums each chunk into its own slot and
 * the slots are added in chunk order, so the result is bitwise the same for
 * any number of threads. */
#ifndef FDNN_CPU_BATCHNORM_BN_ENGINE_H
#define FDNN_CPU_BATCHNORM_BN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"
#include "cpu/batchnorm/bn_kernels.h"

#define BN_SEGMENT 1024 /* elements per item: 8 KiB double buffers stay in L1 */
#define BN_MAX_CHUNKS 64

enum { BN_X, BN_Y, BN_Z, BN_DY, BN_DX, BN_MASK, BN_NT };

typedef enum bn_pass_kind {
    BN_PASS_STATS,  /* s1 += x - fa; s2 += (x - fa)^2                          */
    BN_PASS_APPLY,  /* v = fa*x + fb [+ z] [relu, mask]; y = alpha*v + beta*y  */
    BN_PASS_BSTATS, /* dy' = dy [*mask]; [dz = dy']; s1 += dy'; s2 += dy'*(x - fa) */
    BN_PASS_BAPPLY, /* dy' = dy [*mask]; v = fa*dy' + fb*x + fc; dx = alpha*v + beta*dx */
} bn_pass_kind_t;

/* A walk over an nd-dimensional index space.  For each tensor t, stride[t]
 * gives its element strides (all zero when the tensor is absent), fstride the
 * feature index step per dimension.  The mask (BN_MASK) is indexed by the
 * packed NCHW order of dims. */
typedef struct bn_walk {
    int nd;
    int64_t dims[CUDNN_DIM_MAX];
    int64_t fstride[CUDNN_DIM_MAX];
    int64_t stride[BN_NT][CUDNN_DIM_MAX];
    int64_t features; /* F: number of statistics slots */
} bn_walk_t;

typedef struct bn_pass {
    bn_pass_kind_t kind;
    const void *x, *z, *dy;
    void *y, *dx, *dz;
    uint8_t *mask;
    cudnnDataType_t dtype[BN_NT];
    const double *fa, *fb, *fc; /* per-feature coefficients, length F */
    double alpha, beta;
    bool relu;       /* APPLY: clamp at 0 and, if mask != NULL, record v > 0 */
    bool relu_nan;   /* APPLY: NaN passes the ReLU (and counts as passed) */
    bool use_mask;   /* BSTATS/BAPPLY: zero dy where the mask is 0 */
    double *s1, *s2; /* STATS/BSTATS results, length F (overwritten) */
} bn_pass_t;

/* Scratch bytes run() needs for a walk (the maximum over every pass). */
size_t fdnn_bn_engine_scratch(const bn_walk_t *w);

/* Runs one pass.  `scratch` holds fdnn_bn_engine_scratch(w) bytes, 64-byte
 * aligned. */
void fdnn_bn_engine_run(cudnnHandle_t handle, const bn_walk_t *w, const bn_pass_t *p, void *scratch);

#endif /* FDNN_CPU_BATCHNORM_BN_ENGINE_H */

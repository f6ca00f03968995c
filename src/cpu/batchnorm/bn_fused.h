/* SPDX-License-Identifier: Apache-2.0
 * The fused FP32 batch-norm paths for the two common layouts, spatial mode
 * without the Ex extras (z, ReLU): float tensors whose spatial block of
 * each (n, c) is contiguous ("planes", NCHW) or whose channels are
 * contiguous in rows of a constant stride ("rows", NHWC).  Arithmetic in
 * float64 as in the pass engine (bn_engine.h); different summation order.
 *
 * The normalisation itself (y from x, dx from dy and x) runs in float: with
 * the per-channel coefficients rounded to float, y = alpha * (a * x + b)
 * [+ beta * y] in float multiplies and adds, none contracted, the same on
 * every ISA level (float64 there cost 2-3x the time: the widening and
 * narrowing, not the memory, bounded the kernels).  The statistics and the
 * gradient sums run in float too, in short blocks: each block's float
 * partials (at most BN_STATS_BLOCK_LANE terms per lane or channel) are added
 * into float64 sums in a fixed order (docs/ops-normalization.md gives the
 * error bound).
 *
 * Training, planes: one task per channel (per group of channels on planes
 * of fewer than 128 floats) takes the statistics of its N planes and at
 * once normalises them while they are still in L2, so x is read from
 * memory once instead of twice.  Rows: the statistics of fixed
 * row blocks (a number that depends on the shape only), added in block
 * order, then the normalisation.  Either way every sum has one fixed order:
 * results are bitwise the same for any thread count.
 *
 * Outputs larger than BN_STREAM_MIN_BYTES with beta == 0 (y of the
 * forward, planes and rows; dx of the planes backward) are written with
 * non-temporal stores where the ISA level has them (AVX-512): they would
 * not stay in the caches anyway and the stores then skip the read for
 * ownership.  The values are the same. */
#ifndef FDNN_CPU_BATCHNORM_BN_FUSED_H
#define FDNN_CPU_BATCHNORM_BN_FUSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "cpu/batchnorm/bn.h"

#define BN_FUSED_LANES 32
#define BN_STREAM_MIN_BYTES ((size_t)8 << 20)
/* Planes shorter than this many floats are never streamed: each run ends
 * in a fence and starts with a masked head, which on 7x7 .. 28x28 planes
 * cost up to 6x the plain stores (32x2048x7x7 forward: 20 ms vs 3 ms, 1
 * thread); from 56x56 up streaming wins (8.5 ms vs 11.8). */
#define BN_STREAM_MIN_PLANE 2048

/* The statistics' float blocks: a lane (planes) or a channel (rows) sums at
 * most this many float terms before its partial goes into float64.  16
 * keeps the float rounding of a partial within 15 units of 2^-24 of its
 * terms' magnitude sum, and the float64 additions to one per 16 elements
 * (a sixteenth of the old cost). */
#define BN_STATS_BLOCK_LANE 16
/* The planes kernels' block: BN_STATS_BLOCK_LANE terms in each of the
 * BN_FUSED_LANES lanes. */
#define BN_STATS_BLOCK (BN_STATS_BLOCK_LANE * BN_FUSED_LANES)

/* Per-ISA kernels (bn_fused_kernels.inc), FP32 data; the statistics in
 * float blocks summed in float64. */
typedef struct fdnn_bn_fused_kernels {
    /* With L = BN_FUSED_LANES, l = i % L and blocks of BN_STATS_BLOCK
     * elements (i counted from 0 at each call): in float, per block from
     * +0, p1[l] += d, p2[l] += d * d with d = x[i] - shift; at each block's
     * end acc[l] += p1[l], acc[L + l] += p2[l] in float64.  shift is a
     * float: one of the channel's elements (bn_stats.h). */
    void (*run_stats)(const float *x, int64_t n, float shift, double *acc);
    /* y[i] = alpha * (a * x[i] + b) [+ beta * y[i]] in float; y may be x;
     * stream: non-temporal stores allowed (only with beta == 0). */
    void (*run_apply)(float *y, const float *x, int64_t n, float a, float b, float alpha, float beta, bool stream);
    /* R rows of C floats, row r at x + r * xs: s1[c] += sum (x - shift[c]),
     * s2[c] += sum (x - shift[c])^2.  The rows in chunks of
     * BN_STATS_BLOCK_LANE (the last one shorter); in a chunk, in float from
     * +0, rows in groups of four (p1 += (d0 + d1) + (d2 + d3), p2 +=
     * (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3)), the chunk's last R % 4
     * rows one by one; then s1[c] += p1, s2[c] += p2 in float64. */
    void (*rows_stats)(const float *x, int64_t xs, int64_t R, int64_t C, const float *shift, double *s1,
                       double *s2);
    /* y[r * ys + c] = alpha * (a[c] * x[r * xs + c] + b[c]) [+ beta * y];
     * y may be x; stream as run_apply. */
    void (*rows_apply)(float *y, int64_t ys, const float *x, int64_t xs, int64_t R, int64_t C, const float *a,
                       const float *b, float alpha, float beta, bool stream);

    /* The backward, same conventions.  run_bstats: the float blocks of
     * run_stats with p1[l] += dy[i], p2[l] += dy[i] * (x[i] - mean), mean a
     * float (the caller corrects the sums for its rounding: x - mean is
     * exact when x is within a factor 2 of mean, which the float64 mean
     * would not give).  run_bapply: dx[i] = alpha * ((a * dy[i] + b * x[i])
     * + c) [+ beta * dx[i]] in float; dx may be dy or x; stream as
     * run_apply.
     * rows_bstats: s1[c] += sum dy, s2[c] += sum dy * (x - mean[c]) in the
     * chunks and groups of rows_stats.  rows_bapply: run_bapply per row with
     * per-channel a, b, c. */
    void (*run_bstats)(const float *dy, const float *x, int64_t n, float mean, double *acc);
    void (*run_bapply)(float *dx, const float *dy, const float *x, int64_t n, float a, float b, float c, float alpha,
                       float beta, bool stream);
    void (*rows_bstats)(const float *dy, int64_t ds, const float *x, int64_t xs, int64_t R, int64_t C,
                        const float *mean, double *s1, double *s2);
    void (*rows_bapply)(float *dx, int64_t os, const float *dy, int64_t ds, const float *x, int64_t xs, int64_t R,
                        int64_t C, const float *a, const float *b, const float *c, float alpha, float beta);

    /* The Ex extras (planes only).  run_apply_relu: v = a * x[i] + b (+
     * z[i] when z is given), passed = v > 0 (or v NaN with relu_nan),
     * y[i] = alpha * (passed ? v : 0) [+ beta * y[i]], mask[i] = passed
     * (when mask is given); stream as run_apply.  run_bstats_mask / run_bapply_mask: run_bstats
     * / run_bapply with dy[i] taken as 0 where mask[i] == 0; bstats also
     * writes that masked dy to dz when dz is given (after its sums: dz may
     * be dy). */
    void (*run_apply_relu)(float *y, const float *x, const float *z, int64_t n, float a, float b, float alpha,
                           float beta, bool relu_nan, uint8_t *mask, bool stream);
    void (*run_bstats_mask)(const float *dy, const float *x, const uint8_t *mask, int64_t n, float mean,
                            double *acc, float *dz);
    void (*run_bapply_mask)(float *dx, const float *dy, const float *x, const uint8_t *mask, int64_t n, float a,
                            float b, float c, float alpha, float beta, bool stream);

    /* The Ex extras on rows (channels-last): the run_*_relu / _mask
     * arithmetic of one element, with per-channel a, b (c) as rows_apply /
     * rows_bapply.  The mask is packed channels-last: row r's C bytes at
     * mask + r * C, whatever the tensors' row strides.  rows_apply_relu:
     * z row r at z + r * zs (z may be NULL); stream as rows_apply.
     * rows_bstats_mask: the sums of rows_bstats (rows in groups of four)
     * with dy taken as 0 where the mask is 0, and that masked dy written to
     * dz (row stride zs) when dz is given, each element after it was read
     * (dz may be dy). */
    void (*rows_apply_relu)(float *y, int64_t ys, const float *x, int64_t xs, const float *z, int64_t zs, int64_t R,
                            int64_t C, const float *a, const float *b, float alpha, float beta, bool relu_nan,
                            uint8_t *mask, bool stream);
    void (*rows_bstats_mask)(const float *dy, int64_t ds, const float *x, int64_t xs, const uint8_t *mask, int64_t R,
                             int64_t C, const float *mean, double *s1, double *s2, float *dz, int64_t zs);
    void (*rows_bapply_mask)(float *dx, int64_t os, const float *dy, int64_t ds, const float *x, int64_t xs,
                             const uint8_t *mask, int64_t R, int64_t C, const float *a, const float *b, const float *c,
                             float alpha, float beta);
} fdnn_bn_fused_kernels_t;

extern const fdnn_bn_fused_kernels_t fdnn_bn_fused_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const fdnn_bn_fused_kernels_t fdnn_bn_fused_avx2;
extern const fdnn_bn_fused_kernels_t fdnn_bn_fused_avx512;
#endif

/* Scratch bytes the fused paths need for problem p (0 when none applies). */
size_t fdnn_bn_fused_scratch(const fdnn_bn_problem_t *p);

/* Whether the fused paths take the problem (x and y as described above).
 * With the Ex extras (ReLU, add) z must have the layout of x as well.  The
 * ReLU mask (the reserve space after its header, bn.c) is in each layout's
 * own order: packed NCHW for planes, packed channels-last for rows; the
 * caller checks that this is the order the mask was written in. */
bool fdnn_bn_fused_applies(const fdnn_bn_problem_t *p);

/* Training forward on a fused path: mean, var (biased) and inv of the C
 * channels, and y, from the per-channel scale/bias (float64, gathered).
 * scratch: fdnn_bn_fused_scratch(p) bytes. */
void fdnn_bn_fused_training(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                            const float *x, const float *z, float *y, const double *scale, const double *bias,
                            double *mean, double *var, double *inv, uint8_t *mask, void *scratch);

/* y = alpha * (a[c] * x + b[c]) + beta * y on a fused path; scratch:
 * fdnn_bn_fused_scratch(p) bytes. */
void fdnn_bn_fused_apply(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                         const float *x, const float *z, float *y, const double *a, const double *b, void *scratch);

/* The backward (spatial, FP32 x, dy and dx in one of the two layouts; with
 * the ReLU mask (and dz), in the layout's order as above, dy is masked and
 * dz receives it): planes, one task per channel or group of channels as
 * the forward (their sums over the N planes, then their dx while they are
 * still in L2); rows, the sums in fixed row blocks
 * added in block order, then dx in tiles.  The caller gives the saved mean
 * and inverse deviation and the gathered scale (float64); the sums come
 * back in sum_dy and sum_dyx (of dy * (x - mean)), per channel.  With M
 * samples per channel and k = scale * inv:
 *   dx = alpha * (k * dy + kb * x + kc) + beta * dx,
 *   kb = -k * inv^2 * sum_dyx / M,  kc = -k * sum_dy / M - kb * mean.
 * Bitwise the same for any thread count. */
bool fdnn_bn_fused_backward_applies(const fdnn_bn_problem_t *p);
size_t fdnn_bn_fused_backward_scratch(const fdnn_bn_problem_t *p);
void fdnn_bn_fused_backward(cudnnHandle_t handle, const fdnn_bn_problem_t *p, double alpha, double beta,
                            const float *x, const float *dy, float *dx, const double *scale, const double *mean,
                            const double *inv, double *sum_dy, double *sum_dyx, const uint8_t *mask, float *dz,
                            void *scratch);

#endif /* FDNN_CPU_BATCHNORM_BN_FUSED_H */

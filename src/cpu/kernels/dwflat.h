/* SPDX-License-Identifier: Apache-2.0
 * Flat-plane depthwise kernels (FP32): one channel's H x W plane read in
 * place as one row of H*W positions, 16 positions per vector whatever W
 * is, for stride-1 problems whose output plane has the input's size
 * (src/cpu/conv/conv_depthwise_flat.c).  A filter tap (dh, dw) is the
 * plane shifted by dh*W + dw; the padding, the row wrap-around and the
 * plane's ends are lanes a mask turns off (a masked load reads nothing
 * there), so nothing is copied and nothing outside the plane is read.
 *
 * Masks: for vector v (positions 16v .. 16v+15) and tap t, masks[v*ld + t]
 * has bit l set where position p = 16v + l is inside the plane (p < H*W)
 * and its tap's source (p / W + dh_t, p % W + dw_t) is inside it too;
 * masks[v*ld + ld - 1] (ld == taps + 1) has the bits of the positions
 * inside the plane.
 *
 * Rows kernel (forward, backward data), for the positions of vectors
 * v0 .. v0+nv-1:
 *
 *   out[p] = alpha * sum_{t < taps} w[t] * src[p + off[t]]   (beta == 0)
 *   out[p] = alpha * sum + beta * out[p]                     (otherwise)
 *
 * the sum in tap order, one FMA per term (interior vectors of a 3x3
 * filter: per filter column in tap order, the columns added in order);
 * out is not read when beta == 0.
 *
 * Gradient kernel (backward filter), for t < taps and lanes l < 16:
 *
 *   lanes[t*16 + l] += sum over the vectors v in order of
 *                      dy[16v + l] * src[16v + l + off[t]]
 *
 * one FMA per term (masked-off lanes add nothing); the caller adds the
 * lanes in a fixed order after its last call.
 *
 * No allocation, no threads. */
#ifndef FDNN_CPU_KERNELS_DWFLAT_H
#define FDNN_CPU_KERNELS_DWFLAT_H

#include <stddef.h>
#include <stdint.h>

/* Positions per vector, and the most taps one kernel call takes (the
 * gradient's accumulators; callers split larger filters). */
#define FDNN_DWFLAT_VL 16
#define FDNN_DWFLAT_MAX_TAPS 9

typedef struct fdnn_f32_dwflat_args {
    const float *src, *dy; /* the plane (x or dy), and dy (gradient) */
    const int64_t *off;    /* taps shifts, in floats */
    const float *w;        /* taps weights (rows kernel) */
    const uint16_t *masks; /* the table (above), from vector 0 */
    size_t ld, taps;       /* masks per vector (all taps + 1), this call's taps */
    size_t t0;             /* this call's first tap (its masks column) */
    size_t v0, nv;         /* vectors */
    /* Interior vectors [in0, in1): every tap's source of every lane inside
     * the plane's memory and in a row of the plane, so only the column can
     * be outside, the same for the taps of one filter column.  With a 3x3
     * filter in one call (taps 9, t0 0, kw 3) they load unmasked and mask
     * each filter column's sum (rows), or merge-mask each FMA with the
     * column's mask (gradient): masks[v*ld + qw] (tap (0, qw)'s).  Either way a
     * wrapped-around element never reaches a sum (no 0 * Inf). */
    size_t in0, in1, kw;
    float *out;            /* rows kernel: the output plane */
    float alpha, beta;
    float *lanes; /* gradient: taps x 16, added to */
} fdnn_f32_dwflat_args_t;

typedef struct fdnn_f32_dwflat_kernels {
    /* The mask table of an H x W plane (masks above): dh, dw per tap. */
    void (*masks)(int64_t h, int64_t w, const int64_t *dh, const int64_t *dw, size_t taps, uint16_t *masks,
                  size_t ld);
    void (*rows)(const fdnn_f32_dwflat_args_t *a);
    void (*grad)(const fdnn_f32_dwflat_args_t *a);
} fdnn_f32_dwflat_kernels_t;

extern const fdnn_f32_dwflat_kernels_t fdnn_f32_dwflat__avx512;

#endif /* FDNN_CPU_KERNELS_DWFLAT_H */

/* SPDX-License-Identifier: Apache-2.0
 * A small mixed-radix FFT for the FFT convolution solvers.
 *
 * Batched complex DFTs of one length n (any product of 2, 3 and 5; other
 * prime factors work through the generic radix, slowly), in float and
 * double, data split into real and imaginary arrays.  A batch of B
 * transforms is stored "transform index outermost, batch innermost":
 * element j of transform b is at re[j * B + b], im[j * B + b], so every
 * butterfly is a loop over B (times the stride of the stage) contiguous
 * elements that the compiler vectorises; there is no transpose.
 *
 * Algorithm: Stockham autosort, decimation in frequency, radix 4 first, then
 * 2, 3 (specialised butterflies), 5 and others (a generic loop): stage s
 * with radix r on the current length n_s = r * m reads a_j = x[p + j*m]
 * (j < r) for p < m and writes
 * y[r*p + t] = w_{n_s}^{p t} * sum_j a_j w_r^{j t}, ping-ponging between the
 * data and a scratch array of the same size.  Output in natural order.
 * Forward: w_n = exp(-2 pi i / n); inverse: exp(+2 pi i / n), unscaled (the
 * caller divides by n).  Twiddles are computed in double precision.
 *
 * Nothing here allocates or starts threads; results depend only on (n, B,
 * data, ISA) -- never on who calls. */
#ifndef FDNN_CPU_FFT_FFT_H
#define FDNN_CPU_FFT_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"

#define FDNN_FFT_MAX_STAGES 40

typedef struct fdnn_fft_plan {
    int n;
    int nstages;
    int radix[FDNN_FFT_MAX_STAGES];
    /* Twiddles of stage s: w_{n_s}^{p t} for p < m_s, t < r_s at
     * tw_re/tw_im[tw_off[s] + p * r_s + t] (forward sign). */
    size_t tw_off[FDNN_FFT_MAX_STAGES];
    const double *tw_re, *tw_im;
} fdnn_fft_plan_t;

/* The cheapest transform length >= n: a 2^a 3^b 5^c in [n, 2n] of least
 * estimated arithmetic (so 32 rather than 30, 36 rather than 35). */
int64_t fdnn_fft_good_size(int64_t n);

/* Doubles of twiddle storage a plan of length n needs (re and im). */
size_t fdnn_fft_twiddle_doubles(int n);

/* Plans length n, filling `storage` (fdnn_fft_twiddle_doubles(n) doubles),
 * which must outlive the plan. */
void fdnn_fft_plan_init(fdnn_fft_plan_t *pl, int n, double *storage);

/* B transforms (layout above) of re/im; sre/sim: scratch of n * B elements
 * each.  sign -1: forward, +1: inverse (unscaled).  Returns 0 when the
 * result is in re/im, 1 when it is in sre/sim (odd stage counts: the
 * Stockham passes ping-pong and a copy back would cost a pass). */
typedef int (*fdnn_fft_f32_fn)(const fdnn_fft_plan_t *pl, int sign, size_t B, float *re, float *im, float *sre,
                                float *sim);
typedef int (*fdnn_fft_f64_fn)(const fdnn_fft_plan_t *pl, int sign, size_t B, double *re, double *im,
                                double *sre, double *sim);

/* Complex matrix products of FDNN_CGEMM_LANES(T) independent frequencies at
 * once (64 bytes of T: 16 floats, 8 doubles), split complex, each operand
 * element a vector of lanes:
 *   C(m, q) = sum_{r < R} A(m, r) * B(r, q)      m < M, q < Q, per lane
 * with A(m, r) = ar/ai + (m*ams + r*ars) * lanes, conjugated when a_sign is
 * -1, B(r, q) = br/bi + (r*brs + q) * lanes, conjugated when b_sign is -1,
 * and C(m, q) = cr/ci + (m*cms + q) * lanes, overwritten.  Summation over r
 * in increasing order for every element. */
#define FDNN_CGEMM_LANES(T) ((int)(64 / sizeof(T)))
typedef void (*fdnn_cgemm_f32_fn)(size_t M, size_t R, size_t Q, const float *ar, const float *ai, size_t ams,
                                  size_t ars, int a_sign, const float *br, const float *bi, size_t brs, int b_sign,
                                  float *cr, float *ci, size_t cms);
typedef void (*fdnn_cgemm_f64_fn)(size_t M, size_t R, size_t Q, const double *ar, const double *ai, size_t ams,
                                  size_t ars, int a_sign, const double *br, const double *bi, size_t brs,
                                  int b_sign, double *cr, double *ci, size_t cms);

typedef struct fdnn_fft_kernels {
    fdnn_fft_f32_fn fft_f32;
    fdnn_fft_f64_fn fft_f64;
    fdnn_cgemm_f32_fn cgemm_f32;
    fdnn_cgemm_f64_fn cgemm_f64;
} fdnn_fft_kernels_t;

/* The kernels of an ISA level (the portable ones where the build has none). */
const fdnn_fft_kernels_t *fdnn_fft_kernels(fdnn_isa_t isa);

#define FDNN_FFT_DECLARE(isa)                                                                                      \
    int fdnn_fft_f32__##isa(const fdnn_fft_plan_t *pl, int sign, size_t B, float *re, float *im, float *sre,      \
                             float *sim);                                                                          \
    int fdnn_fft_f64__##isa(const fdnn_fft_plan_t *pl, int sign, size_t B, double *re, double *im, double *sre,  \
                             double *sim);                                                                         \
    void fdnn_cgemm_f32__##isa(size_t M, size_t R, size_t Q, const float *ar, const float *ai, size_t ams,        \
                               size_t ars, int a_sign, const float *br, const float *bi, size_t brs, int b_sign,   \
                               float *cr, float *ci, size_t cms);                                                  \
    void fdnn_cgemm_f64__##isa(size_t M, size_t R, size_t Q, const double *ar, const double *ai, size_t ams,      \
                               size_t ars, int a_sign, const double *br, const double *bi, size_t brs,            \
                               int b_sign, double *cr, double *ci, size_t cms);
FDNN_FFT_DECLARE(scalar)
FDNN_FFT_DECLARE(avx2)
FDNN_FFT_DECLARE(avx512)

#endif /* FDNN_CPU_FFT_FFT_H */

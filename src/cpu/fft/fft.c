/* SPDX-License-Identifier: Apache-2.0
 * FFT plans (factorisation, twiddle tables) and the ISA dispatch of the
 * kernels (fft.h). */
#include <math.h>

#include "cpu/fft/fft.h"
#include "cpu/config/config.h"

#define TWO_PI 6.28318530717958647692528676655900577

/* Rough arithmetic per point of one stage of a radix: the specialised 2, 3
 * and 4 butterflies, the generic loop for the others. */
static double
stage_cost(int r)
{
    return r == 4 ? 8.5 : r == 2 ? 5 : r == 3 ? 8 : 5.0 * r;
}

static int factorise(int n, int *radix);

int64_t
fdnn_fft_good_size(int64_t n)
{
    if (n < 1)
        n = 1;
    int64_t best = 0;
    double best_cost = 0;
    /* Every 2,3,5-smooth length in [n, 2n] (a power of two is always
     * among them), by estimated cost n * sum of stage costs. */
    for (int64_t m = n; m <= 2 * n; m++) {
        int64_t r = m;
        while (r % 2 == 0)
            r /= 2;
        while (r % 3 == 0)
            r /= 3;
        while (r % 5 == 0)
            r /= 5;
        if (r != 1)
            continue;
        int radix[FDNN_FFT_MAX_STAGES];
        int ns = factorise((int)m, radix);
        double c = 0;
        for (int i = 0; i < ns; i++)
            c += stage_cost(radix[i]);
        c *= (double)m;
        if (best == 0 || c < best_cost) {
            best = m;
            best_cost = c;
        }
    }
    return best;
}

/* Radices of n in stage order: 4s, then 2, 3, 5, then other primes. */
static int
factorise(int n, int *radix)
{
    int ns = 0;
    while (n % 4 == 0) {
        radix[ns++] = 4;
        n /= 4;
    }
    for (int f = 2; n > 1; f++)
        while (n % f == 0) {
            radix[ns++] = f;
            n /= f;
        }
    return ns;
}

size_t
fdnn_fft_twiddle_doubles(int n)
{
    /* Stage s holds n_s entries and n_s at least halves each stage, so
     * fewer than 2n per part. */
    return 4 * (size_t)(n < 1 ? 1 : n);
}

void
fdnn_fft_plan_init(fdnn_fft_plan_t *pl, int n, double *storage)
{
    pl->n = n;
    pl->nstages = factorise(n, pl->radix);
    size_t half = 2 * (size_t)(n < 1 ? 1 : n);
    double *re = storage, *im = storage + half;
    size_t off = 0;
    int len = n;
    for (int s = 0; s < pl->nstages; s++) {
        int r = pl->radix[s], m = len / r;
        pl->tw_off[s] = off;
        for (int p = 0; p < m; p++)
            for (int t = 0; t < r; t++) {
                /* Exponent reduced mod len first, so the angle stays in
                 * [0, 2 pi) and sin/cos are accurate. */
                long e = ((long)p * t) % len;
                double a = -TWO_PI * (double)e / (double)len;
                re[off + (size_t)(p * r + t)] = cos(a);
                im[off + (size_t)(p * r + t)] = sin(a);
            }
        off += (size_t)len;
        len = m;
    }
    pl->tw_re = re;
    pl->tw_im = im;
}

const fdnn_fft_kernels_t *
fdnn_fft_kernels(fdnn_isa_t isa)
{
    return &fdnn_isa_config(isa)->fft;
}

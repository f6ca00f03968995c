/* SPDX-License-Identifier: Apache-2.0
 * The FFT core of the FFT convolution solvers (src/cpu/fft/fft.h): batched
 * forward and inverse transforms against a naive double-precision DFT, for
 * lengths with factors 2, 3, 4, 5 (and a 7, the generic radix), batches 1 to
 * 19, float and double, every ISA level of the machine; and the complex
 * product against a naive loop, with each conjugation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/fft/fft.h"
#include "testutil.h"

#define TWO_PI 6.28318530717958647692528676655900577

static void
naive_dft(int n, int sign, const double *xr, const double *xi, double *yr, double *yi)
{
    for (int k = 0; k < n; k++) {
        double sr = 0, si = 0;
        for (int j = 0; j < n; j++) {
            double a = sign * TWO_PI * (double)(((long)j * k) % n) / n;
            sr += xr[j] * cos(a) - xi[j] * sin(a);
            si += xr[j] * sin(a) + xi[j] * cos(a);
        }
        yr[k] = sr;
        yi[k] = si;
    }
}

static void
test_fft_sizes(void)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 25, 27, 30, 32, 45, 60, 64, 81, 96, 100,
                                125, 128, 7, 14, 256, 512};
    static const int batches[] = {1, 3, 16, 19};
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 5);
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++) {
        const fdnn_fft_kernels_t *k = fdnn_fft_kernels((fdnn_isa_t)isa);
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (size_t bi = 0; bi < sizeof(batches) / sizeof(batches[0]); bi++)
                for (int sign = -1; sign <= 1; sign += 2) {
                    int n = sizes[si];
                    size_t B = (size_t)batches[bi], tot = (size_t)n * B;
                    double *tw = malloc(sizeof(double) * fdnn_fft_twiddle_doubles(n));
                    fdnn_fft_plan_t pl;
                    fdnn_fft_plan_init(&pl, n, tw);
                    double *xr = malloc(sizeof(double) * tot * 2), *xi = xr + tot;
                    float *fr = malloc(sizeof(float) * tot * 4), *fi = fr + tot, *fsr = fi + tot, *fsi = fsr + tot;
                    double *dr = malloc(sizeof(double) * tot * 4), *di = dr + tot, *dsr = di + tot,
                           *dsi = dsr + tot;
                    for (size_t u = 0; u < tot; u++) {
                        xr[u] = (double)(float)fdnn_rng_uniform(&rng, -1, 1);
                        xi[u] = (double)(float)fdnn_rng_uniform(&rng, -1, 1);
                        fr[u] = (float)xr[u];
                        fi[u] = (float)xi[u];
                        dr[u] = xr[u];
                        di[u] = xi[u];
                    }
                    if (k->fft_f32(&pl, sign, B, fr, fi, fsr, fsi)) {
                        fr = fsr;
                        fi = fsi;
                    }
                    if (k->fft_f64(&pl, sign, B, dr, di, dsr, dsi)) {
                        dr = dsr;
                        di = dsi;
                    }
                    CHECK(pl.nstages % 2 == 0 || (fr == fsr && dr == dsr));
                    double err32 = 0, err64 = 0;
                    double *cr = malloc(sizeof(double) * (size_t)n * 4), *ci = cr + n, *or_ = ci + n, *oi = or_ + n;
                    for (size_t b = 0; b < B; b++) {
                        for (int j = 0; j < n; j++) {
                            cr[j] = xr[(size_t)j * B + b];
                            ci[j] = xi[(size_t)j * B + b];
                        }
                        naive_dft(n, sign, cr, ci, or_, oi);
                        for (int j = 0; j < n; j++) {
                            size_t o = (size_t)j * B + b;
                            err32 = fmax(err32, fmax(fabs(fr[o] - or_[j]), fabs(fi[o] - oi[j])));
                            err64 = fmax(err64, fmax(fabs(dr[o] - or_[j]), fabs(di[o] - oi[j])));
                        }
                    }
                    /* Error of an FFT grows like log n; sqrt(n) times the
                     * input magnitude bounds each output. */
                    double scale = sqrt((double)n) * 2;
                    CHECK_MSG(err32 <= 1e-6 * scale * 4 && err64 <= 1e-14 * scale * 4,
                              "isa %d n %d B %zu sign %d: error f32 %g f64 %g", isa, n, B, sign, err32, err64);
                    free(cr);
                    free(xr);
                    free(fr == fsr ? fr - 2 * tot : fr);
                    free(dr == dsr ? dr - 2 * tot : dr);
                    free(tw);
                }
    }
}

/* Per-lane complex products against a naive loop, exact on small
 * integers, with every conjugation and odd sizes (edge blocks). */
static void
test_cgemm(void)
{
    fdnn_rng_t rng;
    fdnn_rng_seed(&rng, 9);
    const size_t M = 7, R = 5, Q = 13, ams = 11, ars = 2, brs = 17, cms = 15, L = 8;
    size_t na = (M * ams + R * ars + 1) * L, nb = R * brs * L, nc = M * cms * L;
    double *ar = calloc(na, sizeof(double)), *ai = calloc(na, sizeof(double));
    double *br = calloc(nb, sizeof(double)), *bi = calloc(nb, sizeof(double));
    double *cr = calloc(nc, sizeof(double)), *ci = calloc(nc, sizeof(double));
    CHECK(FDNN_CGEMM_LANES(double) == (int)L && FDNN_CGEMM_LANES(float) == 16);
    for (size_t u = 0; u < na; u++) {
        ar[u] = fdnn_rng_int(&rng, -3, 3);
        ai[u] = fdnn_rng_int(&rng, -3, 3);
    }
    for (size_t u = 0; u < nb; u++) {
        br[u] = fdnn_rng_int(&rng, -3, 3);
        bi[u] = fdnn_rng_int(&rng, -3, 3);
    }
    for (int isa = 0; isa < fdnn_test_isa_count(); isa++)
        for (int as = -1; as <= 1; as += 2)
            for (int bs = -1; bs <= 1; bs += 2) {
                fdnn_fft_kernels((fdnn_isa_t)isa)->cgemm_f64(M, R, Q, ar, ai, ams, ars, as, br, bi, brs, bs, cr, ci,
                                                             cms);
                size_t bad = 0;
                for (size_t m = 0; m < M; m++)
                    for (size_t q = 0; q < Q; q++)
                        for (size_t v = 0; v < L; v++) {
                            double sr = 0, si = 0;
                            for (size_t r = 0; r < R; r++) {
                                double xr = ar[(m * ams + r * ars) * L + v], xi = as * ai[(m * ams + r * ars) * L + v];
                                double yr = br[(r * brs + q) * L + v], yi = bs * bi[(r * brs + q) * L + v];
                                sr += xr * yr - xi * yi;
                                si += xr * yi + xi * yr;
                            }
                            bad += cr[(m * cms + q) * L + v] != sr || ci[(m * cms + q) * L + v] != si;
                        }
                CHECK_MSG(bad == 0, "cgemm isa %d signs %d %d: %zu wrong", isa, as, bs, bad);
            }
    free(ar);
    free(ai);
    free(br);
    free(bi);
    free(cr);
    free(ci);
}

static void
test_good_size(void)
{
    /* At least n, 2,3,5-smooth, never more than 2n; powers of two and
     * 3 * 2^k preferred over nearby lengths with a 5. */
    for (int64_t n = 1; n <= 600; n++) {
        int64_t g = fdnn_fft_good_size(n), r = g;
        while (r % 2 == 0)
            r /= 2;
        while (r % 3 == 0)
            r /= 3;
        while (r % 5 == 0)
            r /= 5;
        CHECK_MSG(g >= n && g <= 2 * n && r == 1, "good size of %lld is %lld", (long long)n, (long long)g);
    }
    CHECK(fdnn_fft_good_size(1) == 1);
    CHECK(fdnn_fft_good_size(30) == 32);
    CHECK(fdnn_fft_good_size(33) == 36);
    CHECK(fdnn_fft_good_size(64) == 64);
}

int
main(void)
{
    test_good_size();
    test_fft_sizes();
    test_cgemm();
    return fdnn_test_finish("test_fft");
}

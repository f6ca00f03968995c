/* SPDX-License-Identifier: Apache-2.0
 * The FLOAT GELU rows (gx_pw_erf.h's vector erfc at the AVX2 and AVX-512
 * levels, libm at the portable one) on every step of 2^-12 over [-16, 16]
 * against double libm: GELU within 2e-7 of max(1, |y|), GELU_BWD within
 * 3e-7 of max(1, |dx|) (gx_pw_erf.h documents 1.4e-7 and 2.0e-7 measured on
 * a 2^-16 grid); NaN gives NaN, GELU(+inf) = +inf, and the vector levels
 * agree with the portable one on GELU(-inf) (NaN: -inf x 0). */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "cpu/graph/graph_exec.h"
#include "testutil.h"

static void
check_level(fdnn_isa_t isa)
{
    gx_pw_t pw;
    memset(&pw, 0, sizeof(pw));
    pw.alpha1 = pw.alpha2 = 1;
    pw.isa = isa;
    float x[GX_CHUNK], y[GX_CHUNK], one[GX_CHUNK];
    for (int i = 0; i < GX_CHUNK; i++)
        one[i] = 1;
    for (int bwd = 0; bwd < 2; bwd++) {
        pw.mode = bwd ? CUDNN_POINTWISE_GELU_BWD : CUDNN_POINTWISE_GELU_FWD;
        double worst = 0, at = 0;
        for (int64_t k = 0; k < 32 * 4096; k += GX_CHUNK - 3) { /* odd chunks: the tails too */
            int n = GX_CHUNK - 3;
            for (int i = 0; i < n; i++)
                x[i] = -16.0f + (float)(k + i) / 4096.0f;
            gx_pw_row_f32(&pw, n, y, x, one, NULL);
            for (int i = 0; i < n; i++) {
                double v = x[i];
                double want = bwd ? 0.5 * erfc(-v / sqrt(2.0)) + v * exp(-v * v / 2) / 2.5066282746310002
                                  : 0.5 * v * erfc(-v / sqrt(2.0));
                double e = fabs(y[i] - want) / (fabs(want) > 1 ? fabs(want) : 1);
                if (!(e <= worst)) {
                    worst = e;
                    at = v;
                }
            }
        }
        double tol = bwd ? 3e-7 : 2e-7;
        CHECK_MSG(worst <= tol, "%s GELU%s: error %.3g at x = %g (tolerance %.1g)", fdnn_isa_name(isa),
                  bwd ? "_BWD" : "", worst, at, tol);
    }
    pw.mode = CUDNN_POINTWISE_GELU_FWD;
    float sp[3] = {NAN, INFINITY, -INFINITY}, out[3];
    gx_pw_row_f32(&pw, 3, out, sp, one, NULL);
    CHECK_MSG(isnan(out[0]) && out[1] == INFINITY && isnan(out[2]), "%s GELU of NaN, +inf, -inf: %g %g %g",
              fdnn_isa_name(isa), out[0], out[1], out[2]);
}

int
main(void)
{
    for (int isa = 0; isa <= (int)fdnn_cpu_max_isa(); isa++)
        check_level((fdnn_isa_t)isa);
    return fdnn_test_finish("test_graph_erf");
}

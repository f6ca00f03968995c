/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference softmax.  A group is a set of indices: for CHANNEL mode
 * (n, c, s) for c in 0..C, for INSTANCE mode (n, c, s) for all c, s.  In
 * NCHW order index (n, c, s) is (n * C + c) * S + s.
 *
 *   softmax:     y_i = exp(x_i - m) / sum_j exp(x_j - m),  m = max_j x_j
 *   log-softmax: y_i = x_i - m - log sum_j exp(x_j - m)
 *   backward:    dx_i = y_i (dy_i - sum_j y_j dy_j)         (softmax)
 *                dx_i = dy_i - exp(y_i) sum_j dy_j          (log-softmax) */
#include "ref/softmax_ref.h"

#include <math.h>

static int64_t
index_of(bool channel, int64_t C, int64_t S, int64_t g, int64_t e)
{
    if (channel) /* g = n * S + s, e = c */
        return ((g / S) * C + e) * S + g % S;
    return g * C * S + e; /* g = n, e = c * S + s */
}

void
fdnn_ref_softmax_forward(bool is_log, bool channel, int64_t N, int64_t C, int64_t S, double alpha, const double *x,
                         double beta, double *y)
{
    int64_t groups = channel ? N * S : N, len = channel ? C : C * S;
    for (int64_t g = 0; g < groups; g++) {
        double m = -INFINITY, sum = 0;
        for (int64_t e = 0; e < len; e++)
            m = fmax(m, x[index_of(channel, C, S, g, e)]);
        for (int64_t e = 0; e < len; e++)
            sum += exp(x[index_of(channel, C, S, g, e)] - m);
        for (int64_t e = 0; e < len; e++) {
            int64_t i = index_of(channel, C, S, g, e);
            double r = is_log ? x[i] - m - log(sum) : exp(x[i] - m) / sum;
            y[i] = beta == 0.0 ? alpha * r : alpha * r + beta * y[i];
        }
    }
}

void
fdnn_ref_softmax_backward(bool is_log, bool channel, int64_t N, int64_t C, int64_t S, double alpha, const double *y,
                          const double *dy, double beta, double *dx)
{
    int64_t groups = channel ? N * S : N, len = channel ? C : C * S;
    for (int64_t g = 0; g < groups; g++) {
        double d = 0;
        for (int64_t e = 0; e < len; e++) {
            int64_t i = index_of(channel, C, S, g, e);
            d += is_log ? dy[i] : y[i] * dy[i];
        }
        for (int64_t e = 0; e < len; e++) {
            int64_t i = index_of(channel, C, S, g, e);
            double r = is_log ? dy[i] - exp(y[i]) * d : y[i] * (dy[i] - d);
            dx[i] = beta == 0.0 ? alpha * r : alpha * r + beta * dx[i];
        }
    }
}

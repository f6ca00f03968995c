/* SPDX-License-Identifier: Apache-2.0
 * Float64 reference activations.  The formulas (cuDNN 8.9 definitions):
 *
 *   SIGMOID        f = 1 / (1 + e^-x)            f' = y (1 - y)
 *   RELU           f = max(x, 0)                 f' = [x > 0]
 *   TANH           f = tanh x                    f' = 1 - y^2
 *   CLIPPED_RELU   f = min(max(x, 0), c)         f' = [0 < x < c]
 *   ELU            f = x > 0 ? x : c (e^x - 1)   f' = x > 0 ? 1 : y + c
 *   SWISH          f = x s(bx), s = sigmoid      f' = s(bx) (1 + b x (1 - s(bx)))
 *   IDENTITY       f = x                         f' = 1
 *
 * c is the descriptor's coef, b its swish beta.  NaN: RELU and CLIPPED_RELU
 * give 0 for a NaN x unless the descriptor asks to propagate NaN (then NaN,
 * also in the gradient); the other functions propagate NaN by arithmetic. */
#include "ref/activation_ref.h"

#include <math.h>

static double
sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

static double
forward_one(const fdnn_activation_t *a, double x)
{
    if (isnan(x) && (a->mode == CUDNN_ACTIVATION_RELU || a->mode == CUDNN_ACTIVATION_CLIPPED_RELU))
        return a->propagate_nan ? x : 0.0;
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigmoid(x);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH: return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return fmin(x > 0 ? x : 0.0, a->coef);
    case CUDNN_ACTIVATION_ELU: return x > 0 ? x : a->coef * expm1(x);
    case CUDNN_ACTIVATION_SWISH: return x * sigmoid(a->swish_beta * x);
    case CUDNN_ACTIVATION_IDENTITY: return x;
    }
    return NAN;
}

static double
backward_one(const fdnn_activation_t *a, double x, double y, double dy)
{
    if (isnan(x) && a->propagate_nan && (a->mode == CUDNN_ACTIVATION_RELU || a->mode == CUDNN_ACTIVATION_CLIPPED_RELU))
        return x;
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? dy : 0.0;
    case CUDNN_ACTIVATION_TANH: return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x > 0 && x < a->coef ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU: return x > 0 ? dy : dy * (y + a->coef);
    case CUDNN_ACTIVATION_SWISH: {
        double s = sigmoid(a->swish_beta * x);
        return dy * s * (1.0 + a->swish_beta * x * (1.0 - s));
    }
    case CUDNN_ACTIVATION_IDENTITY: return dy;
    }
    return NAN;
}

void
fdnn_ref_activation_forward(const fdnn_activation_t *act, double alpha, const double *x, double beta, double *y,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double r = alpha * forward_one(act, x[i]);
        y[i] = beta == 0.0 ? r : r + beta * y[i];
    }
}

void
fdnn_ref_activation_backward(const fdnn_activation_t *act, double alpha, const double *x, const double *y,
                             const double *dy, double beta, double *dx, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double r = alpha * backward_one(act, x[i], y[i], dy[i]);
        dx[i] = beta == 0.0 ? r : r + beta * dx[i];
    }
}

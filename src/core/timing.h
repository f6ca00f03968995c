/* SPDX-License-Identifier: Apache-2.0
 * Wall-clock timing for the Find*Algorithm searches: one clock and one
 * median, so every search measures the same way. */
#ifndef FDNN_CORE_TIMING_H
#define FDNN_CORE_TIMING_H

#include <stddef.h>

/* Milliseconds on the monotonic clock (an arbitrary origin). */
double fdnn_now_ms(void);

/* The median of t[0..n) (n >= 1; the upper one of the two middle values
 * when n is even); sorts t in place. */
double fdnn_median_ms(double *t, size_t n);

#endif /* FDNN_CORE_TIMING_H */

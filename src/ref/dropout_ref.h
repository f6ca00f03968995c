/* SPDX-License-Identifier: Apache-2.0
 * Dropout, reference: an independent, plain transcription of
 * Philox4x32-10 and of the mask rule of src/cpu/dropout/dropout.h.
 *
 *   r(i)   = Philox4x32-10(counter = (i/4 low, i/4 high, call low, call high),
 *                          key = (seed low, seed high))[i mod 4]
 *   keep   = r(i) >= p * 2^32
 *   y[i]   = keep ? x[i] / (1 - p) : 0           (i in packed NCHW order) */
#ifndef FDNN_REF_DROPOUT_REF_H
#define FDNN_REF_DROPOUT_REF_H

#include <stdbool.h>
#include <stdint.h>

void fdnn_ref_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

bool fdnn_ref_dropout_keep(uint64_t seed, uint64_t call, uint64_t i, float p);

/* y[i] for packed x of n elements. */
void fdnn_ref_dropout_forward(uint64_t seed, uint64_t call, float p, const double *x, int64_t n, double *y);

#endif /* FDNN_REF_DROPOUT_REF_H */

/* SPDX-License-Identifier: Apache-2.0
 * Entry points of the SIMD wrapper that the rest of the library (and the
 * tests) can call without ISA flags: apply one of the wrapper's
 * transcendental functions to an array with a chosen ISA. */
#ifndef FDNN_SIMD_SIMD_H
#define FDNN_SIMD_SIMD_H

#include <stddef.h>

#include "core/cpu.h"

typedef enum fdnn_simd_fn {
    FDNN_SIMD_EXP = 0,
    FDNN_SIMD_EXPM1 = 1,
    FDNN_SIMD_TANH = 2,
    FDNN_SIMD_SIGMOID = 3,
    FDNN_SIMD_LOG = 4, /* positive normal inputs only */
} fdnn_simd_fn_t;

/* y[i] = fn(x[i]) for i < n, computed with the wrapper of `isa` (which the
 * caller guarantees the CPU has).  x and y may be the same array. */
void fdnn_simd_f32_apply(fdnn_isa_t isa, fdnn_simd_fn_t fn, const float *x, float *y, size_t n);

void fdnn_simd_f32_apply__scalar(fdnn_simd_fn_t fn, const float *x, float *y, size_t n);
void fdnn_simd_f32_apply__avx2(fdnn_simd_fn_t fn, const float *x, float *y, size_t n);
void fdnn_simd_f32_apply__avx512(fdnn_simd_fn_t fn, const float *x, float *y, size_t n);
void fdnn_simd_f32_apply__neon(fdnn_simd_fn_t fn, const float *x, float *y, size_t n);

#endif /* FDNN_SIMD_SIMD_H */

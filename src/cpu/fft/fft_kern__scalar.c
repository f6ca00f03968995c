/* SPDX-License-Identifier: Apache-2.0
 * The FFT kernels (fft.h) compiled for the scalar level: fft_kern.inc for
 * float and double, MADD as two operations (no FMA on the portable level). */
#include <math.h>

#include "cpu/fft/fft.h"

#define T float
#define SFX(name) name##_f32_scalar
#define ISA_SFX(name) fdnn_##name##_f32__scalar
#define MADD(a, b, c) ((a) * (b) + (c))
#include "cpu/fft/fft_kern.inc"
#undef T
#undef SFX
#undef ISA_SFX
#undef MADD

#define T double
#define SFX(name) name##_f64_scalar
#define ISA_SFX(name) fdnn_##name##_f64__scalar
#define MADD(a, b, c) ((a) * (b) + (c))
#include "cpu/fft/fft_kern.inc"
#undef T
#undef SFX
#undef ISA_SFX
#undef MADD

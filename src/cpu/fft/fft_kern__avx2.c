/* SPDX-License-Identifier: Apache-2.0
 * The FFT kernels (fft.h) compiled for the avx2 level: fft_kern.inc for
 * float and double, MADD as fused multiply-adds (vectorised by the compiler). */
#include <math.h>

#include "cpu/fft/fft.h"

#define T float
#define SFX(name) name##_f32_avx2
#define ISA_SFX(name) fdnn_##name##_f32__avx2
#define MADD(a, b, c) fmaf(a, b, c)
#include "cpu/fft/fft_kern.inc"
#undef T
#undef SFX
#undef ISA_SFX
#undef MADD

#define T double
#define SFX(name) name##_f64_avx2
#define ISA_SFX(name) fdnn_##name##_f64__avx2
#define MADD(a, b, c) fma(a, b, c)
#include "cpu/fft/fft_kern.inc"
#undef T
#undef SFX
#undef ISA_SFX
#undef MADD

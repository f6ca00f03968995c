/* SPDX-License-Identifier: Apache-2.0
 * ISA dispatch of fdnn_simd_f32_apply.  On non-x86 builds the __avx files
 * are not compiled and every level runs the scalar code. */
#include "cpu/simd/simd.h"

void
fdnn_simd_f32_apply(fdnn_isa_t isa, fdnn_simd_fn_t fn, const float *x, float *y, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa >= FDNN_ISA_AVX512) {
        fdnn_simd_f32_apply__avx512(fn, x, y, n);
        return;
    }
    if (isa >= FDNN_ISA_AVX2) {
        fdnn_simd_f32_apply__avx2(fn, x, y, n);
        return;
    }
#else
    (void)isa;
#endif
    fdnn_simd_f32_apply__scalar(fn, x, y, n);
}

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_transpose_ptrs__avx512: the transpose of transpose_ptrs.h in
 * registers: up to 16 row loads (masked when nj < 16, zeros past ni), the
 * 16 x 16 transpose of transpose_f32_avx512.h, up to 16 stores (masked when
 * ni < 16). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/transpose_f32_avx512.h"
#include "cpu/kernels/transpose_ptrs.h"

void
fdnn_f32_transpose_ptrs__avx512(size_t ni, size_t nj, const float *const *src, float *const *dst)
{
    assert(ni <= 16 && nj <= 16);
    __mmask16 load_mask = (__mmask16)((1u << nj) - 1u), store_mask = (__mmask16)((1u << ni) - 1u);
    __m512 v[16];
#pragma GCC unroll 16
    for (size_t i = 0; i < 16; i++) {
        if (i < ni)
            v[i] = nj == 16 ? _mm512_loadu_ps(src[i]) : _mm512_maskz_loadu_ps(load_mask, src[i]);
        else
            v[i] = _mm512_setzero_ps();
    }
    transpose16(v);
    /* Constant indices only, so v[] stays in registers. */
#pragma GCC unroll 16
    for (size_t j = 0; j < 16; j++)
        if (j < nj) {
            if (ni == 16)
                _mm512_storeu_ps(dst[j], v[j]);
            else
                _mm512_mask_storeu_ps(dst[j], store_mask, v[j]);
        }
}

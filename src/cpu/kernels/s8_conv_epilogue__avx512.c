/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_epilogue__avx512: the blend-free integer epilogue, 16 lanes
 * at a time.  See s8_conv.h. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/s8_conv.h"

void
fdnn_s8_conv_epilogue__avx512(const int32_t *s, const int32_t *comp, const float *bias, float alpha, int relu,
                              int out, int count, void *q)
{
    const __mmask16 m = (__mmask16)((1u << count) - 1u);
    __m512i si = _mm512_maskz_loadu_epi32(m, s);
    if (comp != NULL)
        si = _mm512_sub_epi32(si, _mm512_maskz_loadu_epi32(m, comp));
    __m512 v = _mm512_mul_ps(_mm512_set1_ps(alpha), _mm512_cvtepi32_ps(si));
    /* (No contraction of the multiply into the add below.) */
    __asm__("" : "+v"(v));
    if (bias != NULL)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias));
    const __m512 zero = _mm512_setzero_ps();
    if (relu) {
        __mmask16 keep = _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        v = _mm512_maskz_mov_ps(keep, v);
    }
    if (out == 2) {
        _mm512_mask_storeu_ps(q, m, v);
        return;
    }
    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v); /* NaN: 0 */
    const float lo = out == 1 ? 0.0f : -128.0f, hi = out == 1 ? 255.0f : 127.0f;
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    __m512i r = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_mask_storeu_epi8(q, m, _mm512_cvtepi32_epi8(r));
}

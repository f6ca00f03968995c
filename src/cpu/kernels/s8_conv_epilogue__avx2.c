/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_epilogue__avx2: the blend-free integer epilogue, 8 lanes at
 * a time.  See s8_conv.h. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/s8_conv.h"

void
fdnn_s8_conv_epilogue__avx2(const int32_t *s, const int32_t *comp, const float *bias, float alpha, int relu,
                            int out, int count, void *q)
{
    int32_t sb[16] = {0}, cb[16] = {0};
    float bb[16] = {0}, vb[16];
    memcpy(sb, s, (size_t)count * 4);
    if (comp != NULL)
        memcpy(cb, comp, (size_t)count * 4);
    if (bias != NULL)
        memcpy(bb, bias, (size_t)count * 4);
    const float lo = out == 1 ? 0.0f : -128.0f, hi = out == 1 ? 255.0f : 127.0f;
    int32_t rb[16];
    for (int h = 0; h < count; h += 8) {
        __m256i si = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(sb + h)),
                                      _mm256_loadu_si256((const __m256i *)(cb + h)));
        __m256 v = _mm256_mul_ps(_mm256_set1_ps(alpha), _mm256_cvtepi32_ps(si));
        __asm__("" : "+x"(v)); /* no contraction into the add */
        if (bias != NULL)
            v = _mm256_add_ps(v, _mm256_loadu_ps(bb + h));
        if (relu) {
            __m256 keep = _mm256_or_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ),
                                       _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            v = _mm256_and_ps(v, keep);
        }
        if (out == 2) {
            _mm256_storeu_ps(vb + h, v);
            continue;
        }
        v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
        v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
        _mm256_storeu_si256((__m256i *)(rb + h), _mm256_cvtps_epi32(v)); /* MXCSR: nearest even */
    }
    if (out == 2) {
        memcpy(q, vb, (size_t)count * 4);
        return;
    }
    uint8_t *b = q;
    for (int l = 0; l < count; l++)
        b[l] = (uint8_t)rb[l];
}

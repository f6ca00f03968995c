/* SPDX-License-Identifier: Apache-2.0
 * fdnn_s8_conv_fused__avx512vnni: the integer convolution's VNNI kernel
 * with its epilogue in registers, and the filter packing it reads (contract
 * in s8_conv.h).  6 pixels x 4 blocks of 16 output channels: per 4-byte
 * unit 4 filter loads and 6 broadcasts feed 24 vpdpbusd.  The sums start
 * at -comp, so the +128 bias of INT8 inputs costs nothing at the end; the
 * epilogue converts, scales, adds the bias, clamps, rounds and narrows 16
 * lanes at a time, without the int32 sums going through memory.  The file
 * gets the AVX-512 flags from its name (CMakeLists.txt); VNNI is switched
 * on per function, and the caller checks the CPU has it. */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/s8_conv.h"

#define S8F_ATTR __attribute__((target("avx512vnni")))

enum { MR = 6 };

static inline S8F_ATTR __m512i
bcast(const uint8_t *p, const int flip, const __m512i bias)
{
    int32_t v;
    memcpy(&v, p, 4);
    const __m512i b = _mm512_set1_epi32(v);
    return flip ? _mm512_xor_si512(b, bias) : b;
}

/* Lanes 4j .. 4j + 3 of q to p + j * qs, j < count / 4. */
static inline S8F_ATTR void
store_quads(uint8_t *p, int64_t qs, __m128i q, int count)
{
    int32_t v = _mm_cvtsi128_si32(q);
    memcpy(p, &v, 4);
    if (count > 4) {
        v = _mm_extract_epi32(q, 1);
        memcpy(p + qs, &v, 4);
    }
    if (count > 8) {
        v = _mm_extract_epi32(q, 2);
        memcpy(p + 2 * qs, &v, 4);
    }
    if (count > 12) {
        v = _mm_extract_epi32(q, 3);
        memcpy(p + 3 * qs, &v, 4);
    }
}

/* q[i] (16 bytes: 4 channel quads of pixel i, i < 6) to 6 adjacent pixels
 * of count / 4 planes qs bytes apart: plane j receives quad j of every
 * pixel, 24 bytes. */
static inline S8F_ATTR void
store_planes6(uint8_t *p, int64_t qs, const __m128i q[6], int count)
{
    __m512i z = _mm512_castsi128_si512(q[0]);
    z = _mm512_inserti32x4(z, q[1], 1);
    z = _mm512_inserti32x4(z, q[2], 2);
    z = _mm512_inserti32x4(z, q[3], 3);
    /* 128-bit lane j: quad j of pixels 0..3 */
    z = _mm512_permutexvar_epi32(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), z);
    __m256i z2 = _mm256_inserti128_si256(_mm256_castsi128_si256(q[4]), q[5], 1);
    /* 8-byte chunk j: quad j of pixels 4, 5 */
    z2 = _mm256_permutevar8x32_epi32(z2, _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0));
    int64_t v;
    _mm_storeu_si128((__m128i *)(void *)p, _mm512_castsi512_si128(z));
    v = _mm256_extract_epi64(z2, 0);
    memcpy(p + 16, &v, 8);
    if (count > 4) {
        _mm_storeu_si128((__m128i *)(void *)(p + qs), _mm512_extracti32x4_epi32(z, 1));
        v = _mm256_extract_epi64(z2, 1);
        memcpy(p + qs + 16, &v, 8);
    }
    if (count > 8) {
        _mm_storeu_si128((__m128i *)(void *)(p + 2 * qs), _mm512_extracti32x4_epi32(z, 2));
        v = _mm256_extract_epi64(z2, 2);
        memcpy(p + 2 * qs + 16, &v, 8);
    }
    if (count > 12) {
        _mm_storeu_si128((__m128i *)(void *)(p + 3 * qs), _mm512_extracti32x4_epi32(z, 3));
        v = _mm256_extract_epi64(z2, 3);
        memcpy(p + 3 * qs + 16, &v, 8);
    }
}

/* nkb, flip and pf (prefetch x_next's units) are constants at each call site: each instance keeps its 6
 * x nkb accumulators in registers. */
static inline __attribute__((always_inline)) S8F_ATTR void
fused_body(const fdnn_s8_conv_fused_args_t *a, const int nkb, const int flip, const int pf)
{
    __m512i acc[MR][4];
    const uint8_t *px[MR];
    __m512i init[4];
#pragma GCC unroll 4
    for (int b = 0; b < 4; b++)
        init[b] = b < nkb && a->comp != NULL
                      ? _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_loadu_si512((const void *)(a->comp + 16 * b)))
                      : _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        px[i] = a->x[i < a->m ? i : 0];
#pragma GCC unroll 4
        for (int b = 0; b < 4; b++)
            acc[i][b] = init[b];
    }
    const __m512i flip_bits = _mm512_set1_epi32((int32_t)0x80808080u);
    const uint8_t *w = a->w;
    const int64_t wu = a->w_unit;
/* One unit: 4 filter loads, 6 broadcasts, 6 x nkb vpdpbusd. */
#define S8F_UNIT(off)                                                                                   \
    do {                                                                                               \
        __m512i wv[4];                                                                                 \
        _Pragma("GCC unroll 4") for (int b = 0; b < 4; b++) wv[b] =                                   \
            b < nkb ? _mm512_loadu_si512((const void *)(w + 64 * b)) : _mm512_setzero_si512();        \
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)                                           \
        {                                                                                              \
            const __m512i xb = bcast(px[i] + (off), flip, flip_bits);                                  \
            _Pragma("GCC unroll 4") for (int b = 0; b < 4; b++) if (b < nkb) acc[i][b] =               \
                _mm512_dpbusd_epi32(acc[i][b], xb, wv[b]);                                             \
        }                                                                                              \
    } while (0)
    const int64_t *xo = a->x_off;
    const uint8_t *xn = a->x_next;
    for (int64_t j = 0; j < a->nj; j++, w += wu) {
        if (pf)
            __builtin_prefetch(xn + xo[j]);
        S8F_UNIT(xo[j]);
    }
#undef S8F_UNIT

    if (a->out == 3) {
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            if (i >= a->m)
                break;
#pragma GCC unroll 4
            for (int b = 0; b < 4; b++)
                if (b < nkb)
                    _mm512_storeu_si512((void *)(a->acc + (i * 4 + b) * 16), acc[i][b]);
        }
        return;
    }
    const __m512 alpha = _mm512_set1_ps(a->alpha), zero = _mm512_setzero_ps();
    const __m512 hi = _mm512_set1_ps(a->out == 1 ? 255.0f : 127.0f);
    /* NCHW_VECT_C outputs of 6 adjacent pixels: each plane's 24 bytes in
     * two stores after a transpose, rather than 6 of 4 bytes. */
    const bool planes6 = a->quad_stride != 4 && a->m == 6 && a->y_adjacent;
#pragma GCC unroll 4
    for (int b = 0; b < 4; b++) {
        if (b >= nkb)
            break;
        __m128i qv[MR];
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
            qv[i] = _mm_setzero_si128();
        const int count = b == nkb - 1 ? a->last : 16;
        const __mmask16 mask = (__mmask16)(count == 16 ? 0xffffu : (1u << count) - 1u);
        const __m512 bias = a->bias != NULL ? _mm512_maskz_loadu_ps(mask, a->bias + 16 * b) : zero;
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            if (i >= a->m)
                break;
            __m512 v = _mm512_mul_ps(alpha, _mm512_cvtepi32_ps(acc[i][b]));
            __asm__("" : "+v"(v)); /* no contraction of the multiply into the add */
            if (a->bias != NULL)
                v = _mm512_add_ps(v, bias);
            if (a->relu) {
                if (a->nan_free) /* max(-0, +0) is +0, as the portable ReLU gives */
                    v = _mm512_max_ps(v, zero);
                else
                    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ) |
                                                _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                                            v);
            }
            uint8_t *y = a->y[i] + a->y_blk[b];
            if (a->out == 2) {
                _mm512_mask_storeu_ps(y, mask, v);
                continue;
            }
            __m128i q;
            if (a->out == 1) {
                /* max returns its second operand for a NaN: NaN -> 0 */
                v = _mm512_min_ps(_mm512_max_ps(v, zero), hi);
                q = _mm512_cvtepi32_epi8(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            } else {
                if (!a->nan_free)
                    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
                /* Below -128 (down to -inf, converted to INT32_MIN) the
                 * signed narrowing saturates: the same as clamping first. */
                v = _mm512_min_ps(v, hi);
                q = _mm512_cvtsepi32_epi8(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            }
            if (planes6)
                qv[i] = q;
            else if (a->quad_stride != 4)
                store_quads(y, a->quad_stride, q, count);
            else if (count == 16)
                _mm_storeu_si128((__m128i *)(void *)y, q);
            else
                _mm_mask_storeu_epi8(y, mask, q);
        }
        if (planes6 && a->out != 2)
            store_planes6(a->y[0] + a->y_blk[b], a->quad_stride, qv, count);
    }
}

S8F_ATTR void
fdnn_s8_conv_fused__avx512vnni(const fdnn_s8_conv_fused_args_t *a)
{
    switch (a->nkb * 4 + (a->flip != 0) * 2 + (a->x_next != NULL)) {
    case 4: fused_body(a, 1, 0, 0); break;
    case 5: fused_body(a, 1, 0, 1); break;
    case 6: fused_body(a, 1, 1, 0); break;
    case 7: fused_body(a, 1, 1, 1); break;
    case 8: fused_body(a, 2, 0, 0); break;
    case 9: fused_body(a, 2, 0, 1); break;
    case 10: fused_body(a, 2, 1, 0); break;
    case 11: fused_body(a, 2, 1, 1); break;
    case 12: fused_body(a, 3, 0, 0); break;
    case 13: fused_body(a, 3, 0, 1); break;
    case 14: fused_body(a, 3, 1, 0); break;
    case 15: fused_body(a, 3, 1, 1); break;
    case 16: fused_body(a, 4, 0, 0); break;
    case 17: fused_body(a, 4, 0, 1); break;
    case 18: fused_body(a, 4, 1, 0); break;
    default: fused_body(a, 4, 1, 1); break;
    }
}

/* 16 vectors r[l] (16 dwords each) transposed in place: r[j] lane l =
 * old r[l] lane j.  Dwords, then pairs, then 128-bit lanes twice. */
static inline S8F_ATTR void
transpose16(__m512i r[16])
{
    __m512i t[16], u[16];
    for (int k = 0; k < 8; k++) {
        t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
    }
    /* u[4k + m], 128-bit lane L: column 4L + m of rows 4k .. 4k + 3 */
    for (int k = 0; k < 4; k++) {
        u[4 * k + 0] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
        u[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
        u[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
        u[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
    }
    for (int m = 0; m < 4; m++) {
        const __m512i e = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x44), f = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xee);
        const __m512i g = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x44),
                      h = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xee);
        r[m] = _mm512_shuffle_i32x4(e, g, 0x88);
        r[4 + m] = _mm512_shuffle_i32x4(e, g, 0xdd);
        r[8 + m] = _mm512_shuffle_i32x4(f, h, 0x88);
        r[12 + m] = _mm512_shuffle_i32x4(f, h, 0xdd);
    }
}

S8F_ATTR void
fdnn_s8_conv_pack_block__avx512vnni(const int8_t *rows, int64_t row_stride, int lanes, const int64_t *off, int64_t n,
                                    uint8_t *dst, int64_t dst_step, int32_t *sum)
{
    const __mmask16 live = (__mmask16)(lanes >= 16 ? 0xffffu : (1u << lanes) - 1u);
    const __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                           _mm512_set1_epi32((int32_t)row_stride));
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i s = _mm512_setzero_si512();
    int64_t j = 0;
    while (j < n) {
        /* 16 units adjacent in every row (NHWC filters, 1x1 NCHW_VECT_C
         * ones): 16 row loads and a transpose. */
        bool run = j + 16 <= n;
        for (int i = 1; i < 16 && run; i++)
            run = off[j + i] == off[j] + 4 * i;
        if (run) {
            __m512i r[16];
            for (int l = 0; l < 16; l++)
                r[l] = l < lanes ? _mm512_loadu_si512((const void *)(rows + l * row_stride + off[j]))
                                 : _mm512_setzero_si512();
            transpose16(r);
            for (int i = 0; i < 16; i++) {
                _mm512_storeu_si512((void *)(dst + (j + i) * dst_step), r[i]);
                s = _mm512_dpbusd_epi32(s, ones, r[i]);
            }
            j += 16;
            continue;
        }
        /* Otherwise 16 rows' 4 bytes at off[j]: one gather (row_stride *
         * 15 fits an int32: the caller checks). */
        const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), live, idx, rows + off[j], 1);
        _mm512_storeu_si512((void *)(dst + j * dst_step), v);
        s = _mm512_dpbusd_epi32(s, ones, v);
        j++;
    }
    _mm512_storeu_si512((void *)sum, s);
}

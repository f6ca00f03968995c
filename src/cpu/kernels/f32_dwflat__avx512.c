/* SPDX-License-Identifier: Apache-2.0
 * The flat-plane depthwise kernels of dwflat.h with AVX-512: 16 positions
 * per zmm, every tap one masked load (masked-off lanes are not read, so
 * the padding and the plane's ends cost no copy and no branch). */
#include <immintrin.h>

#include "cpu/kernels/dwflat.h"

/* The mask table: per vector the lanes' rows and columns (kept by adding
 * 16 and wrapping, no division), then per tap two unsigned compares. */
static void
dwflat_masks(int64_t h, int64_t w, const int64_t *dh, const int64_t *dw, size_t taps, uint16_t *masks, size_t ld)
{
    int64_t hw = h * w;
    size_t nv = (size_t)((hw + FDNN_DWFLAT_VL - 1) / FDNN_DWFLAT_VL);
    __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i wv = _mm512_set1_epi32((int)w), hv = _mm512_set1_epi32((int)h), one = _mm512_set1_epi32(1);
    __m512i sixteen = _mm512_set1_epi32(FDNN_DWFLAT_VL);
    /* Lane l of vector 0: row l / w, column l % w. */
    __m512i col = lane, row = _mm512_setzero_si512();
    for (__mmask16 m = _mm512_cmpge_epi32_mask(col, wv); m != 0; m = _mm512_cmpge_epi32_mask(col, wv)) {
        col = _mm512_mask_sub_epi32(col, m, col, wv);
        row = _mm512_mask_add_epi32(row, m, row, one);
    }
    for (size_t v = 0; v < nv; v++) {
        int64_t left = hw - (int64_t)v * FDNN_DWFLAT_VL;
        __mmask16 inside = left >= FDNN_DWFLAT_VL ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        for (size_t t = 0; t < taps; t++) {
            __mmask16 c = _mm512_cmplt_epu32_mask(_mm512_add_epi32(col, _mm512_set1_epi32((int)dw[t])), wv);
            __mmask16 r = _mm512_cmplt_epu32_mask(_mm512_add_epi32(row, _mm512_set1_epi32((int)dh[t])), hv);
            masks[v * ld + t] = (uint16_t)(c & r & inside);
        }
        masks[v * ld + taps] = (uint16_t)inside;
        col = _mm512_add_epi32(col, sixteen);
        for (__mmask16 m = _mm512_cmpge_epi32_mask(col, wv); m != 0; m = _mm512_cmpge_epi32_mask(col, wv)) {
            col = _mm512_mask_sub_epi32(col, m, col, wv);
            row = _mm512_mask_add_epi32(row, m, row, one);
        }
    }
}

/* The epilogue of one output vector (dwflat.h). */
static inline __attribute__((always_inline)) void
dwflat_store(const fdnn_f32_dwflat_args_t *a, float *o, __mmask16 inside, __m512 acc)
{
    if (a->beta != 0.0f) {
        __m512 old = _mm512_maskz_loadu_ps(inside, o);
        acc = _mm512_fmadd_ps(_mm512_set1_ps(a->beta), old, _mm512_mul_ps(_mm512_set1_ps(a->alpha), acc));
    } else if (a->alpha != 1.0f) {
        acc = _mm512_mul_ps(_mm512_set1_ps(a->alpha), acc);
    }
    _mm512_mask_storeu_ps(o, inside, acc);
}

/* UV vectors from v of TN taps (TN > 0: the weights in registers wt; 0:
 * any a->taps from memory): independent sums, since a tap's FMA waits on
 * the one before it. */
static inline __attribute__((always_inline)) void
dwflat_rows_block(const fdnn_f32_dwflat_args_t *a, size_t v, const __m512 *wt, const int64_t *off, const int TN,
                  const int UV)
{
    size_t taps = TN > 0 ? (size_t)TN : a->taps;
    const uint16_t *m = a->masks + v * a->ld + a->t0;
    const float *s = a->src + v * FDNN_DWFLAT_VL;
    __m512 acc[4];
    for (int u = 0; u < UV; u++)
        acc[u] = _mm512_setzero_ps();
    for (size_t t = 0; t < taps; t++) {
        __m512 wv = TN > 0 ? wt[t] : _mm512_set1_ps(a->w[t]);
        const float *st = s + off[t];
#pragma GCC unroll 4
        for (int u = 0; u < UV; u++)
            acc[u] = _mm512_fmadd_ps(
                wv, _mm512_maskz_loadu_ps((__mmask16)m[(size_t)u * a->ld + t], st + u * FDNN_DWFLAT_VL), acc[u]);
    }
    for (int u = 0; u < UV; u++)
        dwflat_store(a, a->out + (v + (size_t)u) * FDNN_DWFLAT_VL, (__mmask16)m[(size_t)u * a->ld + a->ld - 1 - a->t0],
                     acc[u]);
}

/* UV interior vectors from v of a 3x3 filter (args' in0, in1): unmasked
 * loads, one sum per filter column, each masked by its column. */
static inline __attribute__((always_inline)) void
dwflat_rows_3x3(const fdnn_f32_dwflat_args_t *a, size_t v, const __m512 *wt, const int64_t *off, const int UV)
{
    const uint16_t *m = a->masks + v * a->ld;
    const float *s = a->src + v * FDNN_DWFLAT_VL;
    __m512 acc[4][3];
    for (int u = 0; u < UV; u++)
        for (int g = 0; g < 3; g++)
            acc[u][g] = _mm512_setzero_ps();
#pragma GCC unroll 9
    for (int t = 0; t < 9; t++)
#pragma GCC unroll 4
        for (int u = 0; u < UV; u++)
            acc[u][t % 3] = _mm512_fmadd_ps(wt[t], _mm512_loadu_ps(s + off[t] + u * FDNN_DWFLAT_VL), acc[u][t % 3]);
    for (int u = 0; u < UV; u++) {
        const uint16_t *mu = m + (size_t)u * a->ld;
        __m512 sum = _mm512_maskz_mov_ps((__mmask16)mu[0], acc[u][0]);
        sum = _mm512_mask_add_ps(sum, (__mmask16)mu[1], sum, acc[u][1]);
        sum = _mm512_mask_add_ps(sum, (__mmask16)mu[2], sum, acc[u][2]);
        dwflat_store(a, a->out + (v + (size_t)u) * FDNN_DWFLAT_VL, (__mmask16)mu[a->ld - 1], sum);
    }
}

/* Vectors [v, end) the masked way. */
static inline __attribute__((always_inline)) void
dwflat_rows_masked(const fdnn_f32_dwflat_args_t *a, size_t v, size_t end, const __m512 *wt, const int TN)
{
    for (; v + 4 <= end; v += 4)
        dwflat_rows_block(a, v, wt, a->off, TN, 4);
    for (; v < end; v++)
        dwflat_rows_block(a, v, wt, a->off, TN, 1);
}

static inline __attribute__((always_inline)) void
dwflat_rows_n(const fdnn_f32_dwflat_args_t *a, const int TN)
{
    __m512 wt[FDNN_DWFLAT_MAX_TAPS];
    for (int t = 0; t < TN; t++)
        wt[t] = _mm512_set1_ps(a->w[t]);
    size_t end = a->v0 + a->nv;
    if (TN != 9 || a->kw != 3 || a->t0 != 0) {
        dwflat_rows_masked(a, a->v0, end, wt, TN);
        return;
    }
    size_t i0 = a->in0 > a->v0 ? a->in0 : a->v0, i1 = a->in1 < end ? a->in1 : end;
    i0 = i0 < end ? i0 : end;
    i1 = i1 > i0 ? i1 : i0;
    int64_t off[9];
    for (int t = 0; t < 9; t++)
        off[t] = a->off[t];
    dwflat_rows_masked(a, a->v0, i0, wt, TN);
    size_t v = i0;
    for (; v + 4 <= i1; v += 4)
        dwflat_rows_3x3(a, v, wt, off, 4);
    for (; v < i1; v++)
        dwflat_rows_3x3(a, v, wt, off, 1);
    dwflat_rows_masked(a, i1, end, wt, TN);
}

static void
dwflat_rows(const fdnn_f32_dwflat_args_t *a)
{
    if (a->taps == 9)
        dwflat_rows_n(a, 9);
    else
        dwflat_rows_n(a, 0);
}

/* The gradient of TN taps (a->t0 .. a->t0+TN-1) over vectors [v, end),
 * masked loads. */
static inline __attribute__((always_inline)) void
dwflat_grad_masked(const fdnn_f32_dwflat_args_t *a, size_t v, size_t end, __m512 *acc, const int64_t *off,
                   const int TN)
{
    size_t in_col = a->ld - 1; /* the "inside" column */
    for (; v < end; v++) {
        const uint16_t *m = a->masks + v * a->ld;
        const float *s = a->src + v * FDNN_DWFLAT_VL;
        __m512 d = _mm512_maskz_loadu_ps((__mmask16)m[in_col], a->dy + v * FDNN_DWFLAT_VL);
#pragma GCC unroll 9
        for (int t = 0; t < TN; t++)
            acc[t] = _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps((__mmask16)m[a->t0 + (size_t)t], s + off[t]), acc[t]);
    }
}

static inline __attribute__((always_inline)) void
dwflat_grad_n(const fdnn_f32_dwflat_args_t *a, const int TN)
{
    __m512 acc[FDNN_DWFLAT_MAX_TAPS];
    int64_t off[FDNN_DWFLAT_MAX_TAPS];
    for (int t = 0; t < TN; t++) {
        acc[t] = _mm512_loadu_ps(a->lanes + t * FDNN_DWFLAT_VL);
        off[t] = a->off[t];
    }
    size_t end = a->v0 + a->nv;
    if (TN != 9 || a->kw != 3 || a->t0 != 0) {
        dwflat_grad_masked(a, a->v0, end, acc, off, TN);
    } else {
        size_t i0 = a->in0 > a->v0 ? a->in0 : a->v0, i1 = a->in1 < end ? a->in1 : end;
        i0 = i0 < end ? i0 : end;
        i1 = i1 > i0 ? i1 : i0;
        dwflat_grad_masked(a, a->v0, i0, acc, off, TN);
        /* Interior: the plane read unmasked, each FMA merge-masked by
         * its filter column (three masks a vector, not one a tap): the
         * lanes off keep their sums (zeroing dy instead would let an Inf
         * of the wrapped-around column turn 0 * Inf into NaN; masked loads
         * cost 1.1x at mb=32). */
        for (size_t v = i0; v < i1; v++) {
            const uint16_t *m = a->masks + v * a->ld;
            const float *s = a->src + v * FDNN_DWFLAT_VL;
            __m512 d = _mm512_loadu_ps(a->dy + v * FDNN_DWFLAT_VL);
            __mmask16 kg[3] = {(__mmask16)m[0], (__mmask16)m[1], (__mmask16)m[2]};
#pragma GCC unroll 9
            for (int t = 0; t < TN; t++)
                acc[t] = _mm512_mask3_fmadd_ps(d, _mm512_loadu_ps(s + off[t]), acc[t], kg[t % 3]);
        }
        dwflat_grad_masked(a, i1, end, acc, off, TN);
    }
    for (int t = 0; t < TN; t++)
        _mm512_storeu_ps(a->lanes + t * FDNN_DWFLAT_VL, acc[t]);
}

static void
dwflat_grad(const fdnn_f32_dwflat_args_t *a)
{
    switch (a->taps) {
    case 1: dwflat_grad_n(a, 1); break;
    case 2: dwflat_grad_n(a, 2); break;
    case 3: dwflat_grad_n(a, 3); break;
    case 4: dwflat_grad_n(a, 4); break;
    case 5: dwflat_grad_n(a, 5); break;
    case 6: dwflat_grad_n(a, 6); break;
    case 7: dwflat_grad_n(a, 7); break;
    case 8: dwflat_grad_n(a, 8); break;
    default: dwflat_grad_n(a, 9); break;
    }
}

const fdnn_f32_dwflat_kernels_t fdnn_f32_dwflat__avx512 = {dwflat_masks, dwflat_rows, dwflat_grad};

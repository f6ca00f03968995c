/* SPDX-License-Identifier: Apache-2.0
 * The native BF16 convolution's packing pass and epilogue (bf16_conv.h)
 * with AVX-512 and AVX512-BF16: one output row of the strip is a 32-lane
 * vector of bfloat16, assembled run by run with masked loads (the mask
 * keeps the lanes of the run that fall inside the input, so the padding
 * costs nothing and no load faults past the tensor), converted with
 * vcvtne2ps2bf16, and two rows are interleaved into the pair words.
 * Unit-stride and stride-2 inputs (the ResNet layers) are vector loads;
 * other strides and non-unit W strides go element by element. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/kernels/bf16_conv.h"
#include "cpu/kernels/bf16_gemm.h"
#include "cpu/simd/cvt.h"

#define ATTR __attribute__((target("avx512bf16")))

/* Bits lo .. hi-1 of a 32-bit mask (empty when hi <= lo). */
static inline uint32_t
lane_range(int64_t lo, int64_t hi)
{
    if (lo < 0)
        lo = 0;
    if (hi > 32)
        hi = 32;
    if (hi <= lo)
        return 0;
    uint32_t top = hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u);
    return top & ~((1u << lo) - 1u);
}

/* Element i of a source of `type`, as bfloat16 bits (nearest even). */
static inline uint16_t
bf16_of(int type, const void *src, int64_t i)
{
    if (type == FDNN_BF16_SRC_BF16)
        return ((const uint16_t *)src)[i];
    float f = type == FDNN_BF16_SRC_F16 ? fdnn_f16_to_f32(((const uint16_t *)src)[i]) : ((const float *)src)[i];
    return fdnn_f32_to_bf16(f);
}

/* The 32 values at p[0..31] of `type` under mask m (others zero) as
 * bfloat16 lanes.  p may point before the tensor: masked lanes are not
 * read. */
ATTR static inline __m512i
load32(int type, uintptr_t p, uint32_t m)
{
    if (type == FDNN_BF16_SRC_BF16)
        return _mm512_maskz_loadu_epi16(m, (const void *)p);
    __m512 lo, hi;
    if (type == FDNN_BF16_SRC_F16) {
        __m512i h = _mm512_maskz_loadu_epi16(m, (const void *)p);
        lo = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
        hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
    } else {
        lo = _mm512_maskz_loadu_ps((__mmask16)(m & 0xffffu), (const void *)p);
        hi = _mm512_maskz_loadu_ps((__mmask16)(m >> 16), (const void *)(p + 64));
    }
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}

/* load32 where all 32 values at p lie inside x: whole-vector loads (a
 * masked load costs much more on some CPUs, AMD's among them), the mask
 * applied afterwards. */
ATTR static inline __m512i
load32_inside(int type, uintptr_t p, uint32_t m)
{
    __m512i v;
    if (type == FDNN_BF16_SRC_BF16) {
        v = _mm512_loadu_si512((const void *)p);
    } else if (type == FDNN_BF16_SRC_F16) {
        __m512i h = _mm512_loadu_si512((const void *)p);
        v = (__m512i)_mm512_cvtne2ps_pbh(_mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1)),
                                         _mm512_cvtph_ps(_mm512_castsi512_si256(h)));
    } else {
        v = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps((const void *)(p + 64)), _mm512_loadu_ps((const void *)p));
    }
    return m == 0xffffffffu ? v : _mm512_maskz_mov_epi16(m, v);
}

/* The even elements 0, 2, .., 62 of the 64 at p of `type` under the
 * element mask m (64 bits; others zero), as 32 bfloat16 lanes. */
ATTR static inline __m512i
load32_stride2(int type, uintptr_t p, uint64_t m)
{
    if (type == FDNN_BF16_SRC_F32) {
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        __m512 a0 = _mm512_maskz_loadu_ps((__mmask16)m, (const void *)p);
        __m512 a1 = _mm512_maskz_loadu_ps((__mmask16)(m >> 16), (const void *)(p + 64));
        __m512 a2 = _mm512_maskz_loadu_ps((__mmask16)(m >> 32), (const void *)(p + 128));
        __m512 a3 = _mm512_maskz_loadu_ps((__mmask16)(m >> 48), (const void *)(p + 192));
        __m512 lo = _mm512_permutex2var_ps(a0, even, a1);
        __m512 hi = _mm512_permutex2var_ps(a2, even, a3);
        return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
    }
    static const uint16_t even_idx[32] = {0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                          32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62};
    const __m512i even = _mm512_loadu_si512((const void *)even_idx);
    __m512i a = _mm512_maskz_loadu_epi16((__mmask32)m, (const void *)p);
    __m512i b = _mm512_maskz_loadu_epi16((__mmask32)(m >> 32), (const void *)(p + 64));
    __m512i v = _mm512_permutex2var_epi16(a, even, b);
    if (type == FDNN_BF16_SRC_BF16)
        return v;
    __m512 lo = _mm512_cvtph_ps(_mm512_castsi512_si256(v));
    __m512 hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(v, 1));
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}

/* load32_stride2 where all 64 values at p lie inside x (as load32_inside). */
ATTR static inline __m512i
load32_stride2_inside(int type, uintptr_t p, uint32_t m)
{
    __m512i v;
    if (type == FDNN_BF16_SRC_F32) {
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        __m512 lo = _mm512_permutex2var_ps(_mm512_loadu_ps((const void *)p), even,
                                           _mm512_loadu_ps((const void *)(p + 64)));
        __m512 hi = _mm512_permutex2var_ps(_mm512_loadu_ps((const void *)(p + 128)), even,
                                           _mm512_loadu_ps((const void *)(p + 192)));
        v = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
    } else {
        static const uint16_t even_idx[32] = {0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                              32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62};
        const __m512i even = _mm512_loadu_si512((const void *)even_idx);
        v = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)p), even,
                                      _mm512_loadu_si512((const void *)(p + 64)));
        if (type == FDNN_BF16_SRC_F16)
            v = (__m512i)_mm512_cvtne2ps_pbh(_mm512_cvtph_ps(_mm512_extracti64x4_epi64(v, 1)),
                                             _mm512_cvtph_ps(_mm512_castsi512_si256(v)));
    }
    return m == 0xffffffffu ? v : _mm512_maskz_mov_epi16(m, v);
}

/* Spreads the bits of a 32-bit mask to the even bits of a 64-bit one. */
static inline uint64_t
spread_even(uint32_t m)
{
    uint64_t x = m;
    x = (x | (x << 16)) & 0x0000ffff0000ffffull;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffull;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0full;
    x = (x | (x << 2)) & 0x3333333333333333ull;
    x = (x | (x << 1)) & 0x5555555555555555ull;
    return x;
}

/* Floor division for a positive divisor (strides 1 and 2 without a
 * divide: the 7x7 stem builds 49 tap tables per strip). */
static inline int64_t
floor_div(int64_t a, int64_t b)
{
    if (b == 1)
        return a;
    if (b == 2)
        return a >= 0 ? a / 2 : -((-a + 1) / 2);
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Where the lanes of a strip read for one tap: per run with lanes inside
 * the input, the byte offset (from the channel's element (n=0, d=0, h=0,
 * w=0)) that lane 0 would have, lane L being `step` bytes further per
 * lane, and the mask of its lanes.  The same for every channel. */
typedef struct tap_load {
    int64_t off;
    uint64_t mask2; /* stride 2: the mask of the 64-element window (even bits) */
    uint32_t mask;
} tap_load_t;
_Static_assert(sizeof(tap_load_t) == 24, "fdnn_bf16_conv_table_bytes counts 24 bytes a load");

/* The loads of tap (qd, qh, qw) into t; returns their count. */
static int
tap_loads(const fdnn_bf16_conv_geom_t *g, size_t es, const fdnn_bf16_conv_run_t *runs, int nruns, int64_t qd,
          int64_t qh, int64_t qw, tap_load_t *t)
{
    const int64_t W = g->in[2], sw = g->stride[2];
    int nt = 0;
    for (int i = 0; i < nruns; i++) {
        const fdnn_bf16_conv_run_t *u = &runs[i];
        int64_t id = u->od * g->stride[0] - g->pad[0] + qd * g->dil[0];
        int64_t ih = u->oh * g->stride[1] - g->pad[1] + qh * g->dil[1];
        if (id < 0 || id >= g->in[0] || ih < 0 || ih >= g->in[1])
            continue;
        int64_t iw0 = u->ow0 * sw - g->pad[2] + qw * g->dil[2];
        /* lanes L of the run with 0 <= iw0 + (L - j) * sw < W */
        int64_t lo = u->j + (iw0 < 0 ? -floor_div(iw0, sw) : 0);
        int64_t hi = u->j + floor_div(W - 1 - iw0, sw) + 1;
        if (hi > u->j + u->len)
            hi = u->j + u->len;
        uint32_t m = lane_range(lo, hi);
        if (m == 0)
            continue;
        int64_t lane0 = iw0 - u->j * sw; /* the w of lane 0 */
        int64_t off = (u->n * g->xs[0] + id * g->xs[2] + ih * g->xs[3] + lane0 * g->xs[4]) * (int64_t)es;
        /* runs that continue each other in memory (the rows of a packed
         * plane under a 1x1 filter, or inside the padding) share a load */
        if (nt > 0 && t[nt - 1].off == off) {
            t[nt - 1].mask |= m;
            t[nt - 1].mask2 = spread_even(t[nt - 1].mask);
            continue;
        }
        t[nt].off = off;
        t[nt].mask = m;
        t[nt].mask2 = spread_even(m);
        nt++;
    }
    return nt;
}

/* One row of the strip: the loads of its tap from channel base xc; a load
 * whose whole window [p, p + span) lies in x's bytes [lo, hi) reads whole
 * vectors; each prefetches its window pf bytes on. */
ATTR static inline __m512i
pack_row(int type, int kind, int64_t step, const char *xc, const tap_load_t *t, int nt, uintptr_t lo, uintptr_t hi,
         uintptr_t span, intptr_t pf)
{
    __m512i r = _mm512_setzero_si512();
    for (int i = 0; i < nt; i++) {
        uintptr_t p = (uintptr_t)xc + (uintptr_t)t[i].off;
        _mm_prefetch((const char *)(p + (uintptr_t)pf), _MM_HINT_T0);
        _mm_prefetch((const char *)(p + (uintptr_t)pf + span - 1), _MM_HINT_T0);
        bool inside = p >= lo && p <= hi - span;
        __m512i v;
        if (kind == 1) {
            v = inside ? load32_inside(type, p, t[i].mask) : load32(type, p, t[i].mask);
        } else if (kind == 2) {
            v = inside ? load32_stride2_inside(type, p, t[i].mask) : load32_stride2(type, p, t[i].mask2);
        } else {
            uint16_t tmp[32];
            for (uint32_t m = t[i].mask; m != 0; m &= m - 1) {
                int L = __builtin_ctz(m);
                tmp[L] = bf16_of(type, (const void *)(p + (uintptr_t)(L * step)), 0);
            }
            v = _mm512_maskz_loadu_epi16(t[i].mask, tmp);
        }
        r = _mm512_or_si512(r, v);
    }
    return r;
}

/* The loads of every tap of a strip into `table` (tap starts, then the
 * loads in tap order); returns the loads. */
static tap_load_t *
build_table(const fdnn_bf16_conv_geom_t *g, size_t es, const fdnn_bf16_conv_run_t *runs, int nruns, void *table,
            int **first)
{
    const int64_t kh = g->ker[1], kw = g->ker[2], taps = g->ker[0] * kh * kw;
    *first = (int *)table;
    tap_load_t *tl = (tap_load_t *)(void *)((char *)table + ((size_t)(taps + 1) * sizeof(int) + 15) / 16 * 16);
    int total = 0, t = 0;
    /* taps in KCRS order, counted without a divide (the stem has 49) */
    for (int64_t qd = 0; qd < g->ker[0]; qd++)
        for (int64_t qh = 0; qh < kh; qh++)
            for (int64_t qw = 0; qw < kw; qw++) {
                (*first)[t++] = total;
                total += tap_loads(g, es, runs, nruns, qd, qh, qw, tl + total);
            }
    (*first)[taps] = total;
    return tl;
}

ATTR void
fdnn_bf16_conv_pack__avx512bf16(const fdnn_bf16_conv_geom_t *g, int64_t c0, const fdnn_bf16_conv_run_t *runs,
                                const int *nruns, size_t ns, size_t p0, size_t kc, void *table, uint32_t *dst,
                                size_t dst_words)
{
    const size_t es = g->type == FDNN_BF16_SRC_F32 ? 4 : 2;
    const int64_t taps = g->ker[0] * g->ker[1] * g->ker[2];
    const int64_t sw = g->stride[2];
    /* lanes sw * xs[4] elements apart: unit stride, stride 2, or one by one */
    const int kind = g->xs[4] == 1 && sw == 1 ? 1 : g->xs[4] == 1 && sw == 2 ? 2 : 3;
    const int64_t step = sw * g->xs[4] * (int64_t)es;
    const size_t tbytes = fdnn_bf16_conv_table_bytes(taps);
    const uintptr_t lo = (uintptr_t)g->x, hi = lo + (uintptr_t)g->x_bytes;
    const uintptr_t span = (uintptr_t)(kind == 2 ? 64 : 32) * es;
    /* each load also prefetches (into L1) its window two channels on: the
     * rows of a tile read a few short pieces of each channel plane, too
     * short for the hardware prefetchers (5-15% of the 3x3 and 1x1 layers'
     * time at mb=32; a prefetch never faults) */
    const intptr_t pf = 2 * (intptr_t)g->xs[1] * (intptr_t)es;
    /* hi - span must not wrap: x shorter than a window never reads whole */
    const uintptr_t hi_eff = g->x_bytes >= (int64_t)span ? hi : lo + span - 1;
    tap_load_t *tl[FDNN_BF16_CONV_MAX_STRIPS];
    int *first[FDNN_BF16_CONV_MAX_STRIPS];
    for (size_t s = 0; s < ns; s++)
        tl[s] = build_table(g, es, runs + s * FDNN_BF16_CONV_STRIP, nruns[s], (char *)table + s * tbytes, &first[s]);
    static const uint16_t lo_idx[32] = {0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
                                        8,  40, 9,  41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    static const uint16_t hi_idx[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                                        24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
    const __m512i ilo = _mm512_loadu_si512((const void *)lo_idx), ihi = _mm512_loadu_si512((const void *)hi_idx);
    /* (channel, tap) of the pair's two rows, stepped pair by pair; the
     * strips inner, so that the rows of one channel are read in order */
    int64_t c = (int64_t)p0 / taps, t = (int64_t)p0 % taps;
    for (size_t q = 0; q < kc / 2; q++) {
        int64_t cc[2], tt[2];
        bool live[2];
        for (int h = 0; h < 2; h++) {
            live[h] = (int64_t)(p0 + 2 * q + (size_t)h) < g->rows;
            cc[h] = c;
            tt[h] = t;
            if (++t == taps) {
                t = 0;
                c++;
            }
        }
        const char *x0 = (const char *)g->x + (c0 + cc[0]) * g->xs[1] * (int64_t)es;
        const char *x1 = (const char *)g->x + (c0 + cc[1]) * g->xs[1] * (int64_t)es;
        for (size_t s = 0; s < ns; s++) {
            const int *f = first[s];
            __m512i r0 = live[0] ? pack_row(g->type, kind, step, x0, tl[s] + f[tt[0]], f[tt[0] + 1] - f[tt[0]], lo,
                                            hi_eff, span, pf)
                                 : _mm512_setzero_si512();
            __m512i r1 = live[1] ? pack_row(g->type, kind, step, x1, tl[s] + f[tt[1]], f[tt[1] + 1] - f[tt[1]], lo,
                                            hi_eff, span, pf)
                                 : _mm512_setzero_si512();
            uint32_t *d = dst + s * dst_words + q * FDNN_BF16_CONV_STRIP;
            _mm512_store_si512((void *)d, _mm512_permutex2var_epi16(r0, ilo, r1));
            _mm512_store_si512((void *)(d + 16), _mm512_permutex2var_epi16(r0, ihi, r1));
        }
    }
}

ATTR void
fdnn_bf16_conv_cvt_row__avx512bf16(int type, const void *src, size_t n, uint16_t *dst)
{
    const size_t es = type == FDNN_BF16_SRC_F32 ? 4 : 2;
    for (size_t i = 0; i < n; i += 32) {
        uint32_t m = lane_range(0, (int64_t)(n - i));
        __m512i v = load32(type, (uintptr_t)src + i * es, m);
        _mm512_mask_storeu_epi16(dst + i, m, v);
    }
}

/* 16 values of `type` at p under mask m as floats (others zero). */
ATTR static inline __m512
load16_f32(int type, const void *p, __mmask16 m)
{
    if (type == FDNN_BF16_SRC_F32)
        return m == 0xffff ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
    __m256i h = m == 0xffff ? _mm256_loadu_si256(p) : _mm256_maskz_loadu_epi16(m, p);
    if (type == FDNN_BF16_SRC_F16)
        return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

ATTR static inline void
store16(int type, void *p, __mmask16 m, __m512 v)
{
    if (m == 0xffff) { /* whole vectors: masked stores cost more on some CPUs */
        if (type == FDNN_BF16_SRC_F32)
            _mm512_storeu_ps(p, v);
        else if (type == FDNN_BF16_SRC_F16)
            _mm256_storeu_si256(p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        else
            _mm256_storeu_si256(p, (__m256i)_mm512_cvtneps_pbh(v));
        return;
    }
    if (type == FDNN_BF16_SRC_F32)
        _mm512_mask_storeu_ps(p, m, v);
    else if (type == FDNN_BF16_SRC_F16)
        _mm256_mask_storeu_epi16(p, m, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    else
        _mm256_mask_storeu_epi16(p, m, (__m256i)_mm512_cvtneps_pbh(v));
}

ATTR static inline __m512
blend16(const fdnn_bf16_conv_out_t *o, __m512 s, __m512 old, __m512 b)
{
    __m512 v = _mm512_mul_ps(_mm512_set1_ps(o->alpha), s);
    if (o->beta != 0)
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_set1_ps(o->beta), old));
    if (o->bias != NULL)
        v = _mm512_add_ps(v, b);
    if (o->relu) {
        __mmask16 keep = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ) |
                         _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        v = _mm512_maskz_mov_ps(keep, v);
    }
    return v;
}

/* prefetchw: every CPU with AVX512-BF16 has it */
__attribute__((target("avx512bf16,prfchw"))) void
fdnn_bf16_conv_store__avx512bf16(const fdnn_bf16_conv_out_t *o, const float *acc, size_t ldc, size_t rows,
                                 int64_t k0, const fdnn_bf16_conv_run_t *runs, int nruns)
{
    const size_t es = o->type == FDNN_BF16_SRC_F32 ? 4 : 2;
    /* per segment: y's offset of its first lane (channel 0), its lanes;
     * runs that continue each other in y (a packed output plane) merge */
    int64_t off[32];
    int32_t j0[32], len[32];
    int ns = 0;
    for (int r = 0; r < nruns; r++) {
        const fdnn_bf16_conv_run_t *u = &runs[r];
        int64_t d = u->n * o->ys[0] + u->od * o->ys[2] + u->oh * o->ys[3] + u->ow0 * o->ys[4];
        if (ns > 0 && o->ys[4] == 1 && off[ns - 1] + len[ns - 1] == d && j0[ns - 1] + len[ns - 1] == u->j) {
            len[ns - 1] += u->len;
            continue;
        }
        off[ns] = d;
        j0[ns] = u->j;
        len[ns] = u->len;
        ns++;
    }
    for (size_t i = 0; i < rows; i++) {
        int64_t k = k0 + (int64_t)i;
        float bias = 0;
        if (o->bias != NULL)
            bias = o->type == FDNN_BF16_SRC_F32   ? ((const float *)o->bias)[k]
                   : o->type == FDNN_BF16_SRC_F16 ? fdnn_f16_to_f32(((const uint16_t *)o->bias)[k])
                                                  : fdnn_bf16_to_f32(((const uint16_t *)o->bias)[k]);
        const __m512 bv = _mm512_set1_ps(bias);
        const float *a = acc + i * ldc;
        char *yk = (char *)o->y + k * o->ys[1] * (int64_t)es;
        for (int r = 0; r < ns; r++) {
            char *d = yk + off[r] * (int64_t)es;
            /* the next strip's piece of this row of y (NCHW: the lines
             * after these), for writing: y is written a line or two per
             * channel plane per strip, too scattered for the hardware
             * prefetchers (a few % of the 1x1 layers at mb=32) */
            __builtin_prefetch(d + (size_t)len[r] * es, 1, 3);
            __builtin_prefetch(d + (size_t)len[r] * es * 2 - 1, 1, 3);
            if (o->ys[4] == 1) {
                for (int32_t j = 0; j < len[r]; j += 16) {
                    __mmask16 m = (__mmask16)lane_range(0, len[r] - j);
                    __m512 s = m == 0xffff ? _mm512_loadu_ps(a + j0[r] + j) : _mm512_maskz_loadu_ps(m, a + j0[r] + j);
                    __m512 old = o->beta != 0 ? load16_f32(o->type, d + (size_t)j * es, m) : _mm512_setzero_ps();
                    store16(o->type, d + (size_t)j * es, m, blend16(o, s, old, bv));
                }
            } else {
                for (int32_t j = 0; j < len[r]; j++) {
                    char *e = d + (int64_t)j * o->ys[4] * (int64_t)es;
                    __m512 s = _mm512_set1_ps(a[j0[r] + j]);
                    __m512 old = o->beta != 0 ? load16_f32(o->type, e, 1) : _mm512_setzero_ps();
                    store16(o->type, e, 1, blend16(o, s, old, bv));
                }
            }
        }
    }
}

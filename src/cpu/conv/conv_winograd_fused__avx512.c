/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_fused_block__avx512 (conv_winograd_engine.h): 12 rows x two
 * vectors of 16 tiles per product step (24 accumulators).  With unit column
 * strides, the 6x6 input patches are read a row (6 floats) per lane and
 * turned lane-wise by 16 x 16 transposes, and the 4x4 output tiles are
 * transposed back and written a row (4 floats) at a time.  Only whole rows
 * go through vector loads and stores (the rows clipped by the image edges go
 * element by element), so nothing outside the tensors is touched, masked or
 * not. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/conv/conv_winograd_engine.h"
#include "cpu/kernels/transpose_f32_avx512.h"

#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define KR 12
#define KR_TAIL 4
#define BLOCK_FN fdnn_wino_fused_block__avx512
#define WINO_PATCH 1
#define WINO_CHANNELS_LAST 1

/* The 16 tiles y[i][j][lane] (4x4 each) to dst + out0[lane] + i*sh + j,
 * the rows and columns of each tile clipped to the output. */
static inline void
store_tiles16(const int64_t *out0, const uint32_t *outrow, const uint32_t *outcol, float *dst, int64_t sh,
              int64_t sc, const float *y, int h)
{
    out0 += 16 * h;
    uint32_t orow[4], ocol[4];
    for (int i = 0; i < 4; i++)
        orow[i] = outrow[i] >> (16 * h), ocol[i] = outcol[i] >> (16 * h);
    outrow = orow, outcol = ocol;
    /* The same rows two channels on (prefetches never fault): NCHW rows of
     * a block are far apart and the hardware prefetchers miss them. */
    for (int l = 0; l < 16; l += 4)
        for (int i = 0; i < 4; i++)
            _mm_prefetch((const char *)(dst + 2 * sc + out0[l] + i * sh), _MM_HINT_T0);
    __m512 v[16];
    for (int e = 0; e < 16; e++)
        v[e] = _mm512_loadu_ps(y + e * FDNN_WINO_FUSED_TB + 16 * h);
    transpose16(v); /* v[lane] = its 16 entries, row-major */
    uint32_t full = outcol[0] & outcol[1] & outcol[2] & outcol[3];
    for (int l = 0; l < 16; l++) {
        if (!((outcol[0] >> l) & 1u))
            continue; /* past the last tile */
        float *p = dst + out0[l];
        if ((full >> l) & 1u) {
            _mm_storeu_ps(p, _mm512_castps512_ps128(v[l]));
            if ((outrow[1] >> l) & 1u)
                _mm_storeu_ps(p + sh, _mm512_extractf32x4_ps(v[l], 1));
            if ((outrow[2] >> l) & 1u)
                _mm_storeu_ps(p + 2 * sh, _mm512_extractf32x4_ps(v[l], 2));
            if ((outrow[3] >> l) & 1u)
                _mm_storeu_ps(p + 3 * sh, _mm512_extractf32x4_ps(v[l], 3));
            continue;
        }
        float t[16];
        _mm512_storeu_ps(t, v[l]);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                if ((outrow[i] >> l) & (outcol[j] >> l) & 1u)
                    p[i * sh + j] = t[i * 4 + j];
    }
}
#define WINO_STORE_TILES(ln, dst, sh, y)                                                                        \
    do {                                                                                                      \
        for (int h_ = 0; h_ < FDNN_WINO_FUSED_TB / 16; h_++)                                                  \
            store_tiles16((ln).out0, (ln).outrow, (ln).outcol, dst, sh, g->out_sc, &(y)[0][0][0], h_);        \
    } while (0)

/* 16 floats rounded to half (nearest even) in a register.  The empty asm
 * keeps the compiler from folding a following store into vcvtps2ph's
 * memory form, which AMD Zen 4/5 run microcoded (convert_row__avx512.c). */
static inline __m256i
half_of(__m512 v)
{
    __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __asm__("" : "+v"(h));
    return h;
}

/* store_tiles16 for half storage: each lane's 4x4 tile rounded to half in
 * a register, its rows written as 4 halves (8 bytes) each. */
static inline void
store_tiles16_h(const int64_t *out0, const uint32_t *outrow, const uint32_t *outcol, uint16_t *dst, int64_t sh,
                int64_t sc, const float *y, int h)
{
    out0 += 16 * h;
    uint32_t orow[4], ocol[4];
    for (int i = 0; i < 4; i++)
        orow[i] = outrow[i] >> (16 * h), ocol[i] = outcol[i] >> (16 * h);
    outrow = orow, outcol = ocol;
    for (int l = 0; l < 16; l += 4)
        for (int i = 0; i < 4; i++)
            _mm_prefetch((const char *)(dst + 2 * sc + out0[l] + i * sh), _MM_HINT_T0);
    __m512 v[16];
    for (int e = 0; e < 16; e++)
        v[e] = _mm512_loadu_ps(y + e * FDNN_WINO_FUSED_TB + 16 * h);
    transpose16(v); /* v[lane] = its 16 entries, row-major */
    uint32_t full = outcol[0] & outcol[1] & outcol[2] & outcol[3];
    for (int l = 0; l < 16; l++) {
        if (!((outcol[0] >> l) & 1u))
            continue; /* past the last tile */
        uint16_t *p = dst + out0[l];
        __m256i hv = half_of(v[l]);
        if ((full >> l) & 1u) {
            __m128i r01 = _mm256_castsi256_si128(hv), r23 = _mm256_extracti128_si256(hv, 1);
            _mm_storel_epi64((__m128i_u *)(void *)p, r01);
            if ((outrow[1] >> l) & 1u)
                _mm_storel_epi64((__m128i_u *)(void *)(p + sh), _mm_unpackhi_epi64(r01, r01));
            if ((outrow[2] >> l) & 1u)
                _mm_storel_epi64((__m128i_u *)(void *)(p + 2 * sh), r23);
            if ((outrow[3] >> l) & 1u)
                _mm_storel_epi64((__m128i_u *)(void *)(p + 3 * sh), _mm_unpackhi_epi64(r23, r23));
            continue;
        }
        uint16_t t[16];
        _mm256_storeu_si256((__m256i_u *)(void *)t, hv);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                if ((outrow[i] >> l) & (outcol[j] >> l) & 1u)
                    p[i * sh + j] = t[i * 4 + j];
    }
}
#define WINO_STORE_TILES16(ln, dst, sh, y)                                                                      \
    do {                                                                                                      \
        for (int h_ = 0; h_ < FDNN_WINO_FUSED_TB / 16; h_++)                                                  \
            store_tiles16_h((ln)->out0, (ln)->outrow, (ln)->outcol, dst, sh, g->out_sc, &(y)[0][0][0], h_);   \
    } while (0)

#include "cpu/conv/conv_winograd_fused.inc"

/* Row i of lane l's patch, 6 floats in the low half of a 256-bit vector
 * (zeros above them and outside the input): the 6 elements of the row at
 * inw0, moved by xsh, those outside the input zeroed. */
static inline __m256
patch_row(const lanes_t *ln, const float *src, int64_t sh, int l, int i, __m256i idx, __mmask8 cols)
{
    if (!((ln->inrow[i] >> l) & 1u))
        return _mm256_setzero_ps();
    const float *p = src + ln->inw0[l] + i * sh;
    __m128 lo = _mm_loadu_ps(p);
    /* movq through the unaligned __m64_u type: p + 4 is only 4-byte aligned */
    __m128 hi = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i_u *)(const void *)(p + 4)));
    __m256 r = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    return _mm256_maskz_permutexvar_ps(cols, idx, r);
}

/* For lanes 16h..16h+15 of a patch gather: the permutation that moves a
 * row's loaded elements by the lane's shift (xsh), and the mask of the
 * patch columns inside the input. */
static inline void
patch_lanes(const lanes_t *ln, int h, __m256i idx[16], __mmask8 cols[16])
{
    for (int l = 0; l < 16; l++) {
        int lh = 16 * h + l;
        idx[l] = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(ln->xsh[lh]));
        cols[l] = (__mmask8)ln->incolbits[lh];
    }
}

static void
wino_patch(const fdnn_wino_geom_t *g, const lanes_t *ln, const float *src,
           float d[FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_TB])
{
    if (!ln->wide) { /* rows narrower than a patch: element by element */
        for (int i = 0; i < FDNN_WINO_FUSED_N; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                uint32_t m = ln->inrow[i] & ln->incol[j];
                for (int l = 0; l < FDNN_WINO_FUSED_TB; l++)
                    d[i][j][l] = (m >> l) & 1u ? src[ln->in0[l] + i * g->in_sh + j] : 0.0f;
            }
        return;
    }
    /* Every line of the rows two channels on (NCHW rows of a block are
     * planes apart and the hardware prefetchers miss them). */
    const float *ahead = src + 2 * g->in_sc;
    for (int sg = 0; sg < ln->nseg; sg++) {
        for (int64_t o = ln->seg0[sg]; o < ln->seg1[sg]; o += 16)
            _mm_prefetch((const char *)(ahead + o), _MM_HINT_T0);
        _mm_prefetch((const char *)(ahead + ln->seg1[sg] - 1), _MM_HINT_T0);
    }
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++) {
        __m256i idx[16];
        __mmask8 cols[16];
        patch_lanes(ln, h, idx, cols);
        for (int i = 0; i < FDNN_WINO_FUSED_N; i += 2) {
            __m512 v[16];
            for (int l = 0; l < 16; l++) {
                int lh = 16 * h + l;
                v[l] = _mm512_insertf32x8(
                    _mm512_castps256_ps512(patch_row(ln, src, g->in_sh, lh, i, idx[l], cols[l])),
                    patch_row(ln, src, g->in_sh, lh, i + 1, idx[l], cols[l]), 1);
            }
            transpose16(v); /* v[j] = column j of row i, v[8 + j] of row i + 1, over lanes */
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                _mm512_storeu_ps(d[i][j] + 16 * h, v[j]);
                _mm512_storeu_ps(d[i + 1][j] + 16 * h, v[8 + j]);
            }
        }
    }
}

/* ---- channels-last tensors (conv_winograd_fused.inc) ----------------------- */

/* For each patch position and 16 lanes: the lanes' rows of cb channels (16
 * loads, masked to cb channels; zero rows outside the input), transposed to
 * one vector of 16 lanes per channel. */
static void
wino_gather_cl(const fdnn_wino_geom_t *g, const lanes_t *ln, int64_t ci, int cb,
               float dd[WINO_CL_CB][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_TB])
{
    const float *src = g->in + ci; /* unit channel stride */
    const __mmask16 cm = (__mmask16)((1u << cb) - 1u);
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++)
        for (int i = 0; i < FDNN_WINO_FUSED_N; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                uint32_t msk = (ln->inrow[i] & ln->incol[j]) >> (16 * h);
                int64_t off = i * g->in_sh + j * g->in_sw;
                __m512 v[16];
                for (int l = 0; l < 16; l++)
                    v[l] = (msk >> l) & 1u ? _mm512_maskz_loadu_ps(cm, src + ln->in0[16 * h + l] + off)
                                           : _mm512_setzero_ps();
                transpose16(v); /* v[c] = channel c over the 16 lanes */
                for (int c = 0; c < cb; c++)
                    _mm512_storeu_ps(&dd[c][i][j][16 * h], v[c]);
            }
}

/* For each output position and 16 lanes: the cb channels' values
 * transposed to one vector per lane, written as a row of cb channels where
 * the lane's tile covers the position. */
static void
wino_store_cl(const fdnn_wino_geom_t *g, const lanes_t *ln, float *dst, int cb,
              float yy[WINO_CL_CB][FDNN_WINO_FUSED_M][FDNN_WINO_FUSED_M][FDNN_WINO_FUSED_TB])
{
    const __mmask16 cm = (__mmask16)((1u << cb) - 1u);
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++)
        for (int i = 0; i < FDNN_WINO_FUSED_M; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_M; j++) {
                uint32_t msk = (ln->outrow[i] & ln->outcol[j]) >> (16 * h);
                if ((msk & 0xffffu) == 0)
                    continue;
                int64_t off = i * g->out_sh + j * g->out_sw;
                __m512 v[16];
                for (int c = 0; c < 16; c++)
                    v[c] = c < cb ? _mm512_loadu_ps(&yy[c][i][j][16 * h]) : _mm512_setzero_ps();
                transpose16(v); /* v[l] = lane l's cb channels */
                for (int l = 0; l < 16; l++)
                    if ((msk >> l) & 1u)
                        _mm512_mask_storeu_ps(dst + ln->out0[16 * h + l] + off, cm, v[l]);
            }
}

/* ---- half storage (g->in16, g->out16; conv_winograd_engine.h) --------------- */

/* patch_row from half storage: the row's 6 halves read as 8 + 4 bytes
 * (nothing past them), converted in a register, then moved and masked as
 * patch_row does.  Lanes 6 and 7 are zero, as there. */
static inline __m256
patch_row16(const lanes_t *ln, const uint16_t *src, int64_t sh, int l, int i, __m256i idx, __mmask8 cols)
{
    if (!((ln->inrow[i] >> l) & 1u))
        return _mm256_setzero_ps();
    const uint16_t *p = src + ln->inw0[l] + i * sh;
    int32_t last;
    memcpy(&last, p + 4, sizeof(last));
    __m128i h = _mm_insert_epi32(_mm_loadl_epi64((const __m128i_u *)(const void *)p), last, 2);
    return _mm256_maskz_permutexvar_ps(cols, idx, _mm256_cvtph_ps(h));
}

static void
wino_patch16(const fdnn_wino_geom_t *g, const lanes_t *ln, const uint16_t *src,
             float d[FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_TB])
{
    if (!ln->wide) { /* rows narrower than a patch: element by element */
        for (int i = 0; i < FDNN_WINO_FUSED_N; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                uint32_t m = ln->inrow[i] & ln->incol[j];
                for (int l = 0; l < FDNN_WINO_FUSED_TB; l++)
                    d[i][j][l] = (m >> l) & 1u ? fdnn_f16_to_f32(src[ln->in0[l] + i * g->in_sh + j]) : 0.0f;
            }
        return;
    }
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++) {
        __m256i idx[16];
        __mmask8 cols[16];
        patch_lanes(ln, h, idx, cols);
        for (int l = 0; l < 16; l += 4) /* the rows two channels on, as in wino_patch */
            for (int i = 0; i < FDNN_WINO_FUSED_N; i++)
                _mm_prefetch((const char *)(src + 2 * g->in_sc + ln->inw0[16 * h + l] + i * g->in_sh), _MM_HINT_T0);
        for (int i = 0; i < FDNN_WINO_FUSED_N; i += 2) {
            __m512 v[16];
            for (int l = 0; l < 16; l++) {
                int lh = 16 * h + l;
                v[l] = _mm512_insertf32x8(
                    _mm512_castps256_ps512(patch_row16(ln, src, g->in_sh, lh, i, idx[l], cols[l])),
                    patch_row16(ln, src, g->in_sh, lh, i + 1, idx[l], cols[l]), 1);
            }
            transpose16(v);
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                _mm512_storeu_ps(d[i][j] + 16 * h, v[j]);
                _mm512_storeu_ps(d[i + 1][j] + 16 * h, v[8 + j]);
            }
        }
    }
}

static void
wino_gather_cl16(const fdnn_wino_geom_t *g, const lanes_t *ln, int64_t ci, int cb,
                 float dd[WINO_CL_CB][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_TB])
{
    const uint16_t *src = g->in16 + ci; /* unit channel stride */
    const __mmask16 cm = (__mmask16)((1u << cb) - 1u);
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++)
        for (int i = 0; i < FDNN_WINO_FUSED_N; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
                uint32_t msk = (ln->inrow[i] & ln->incol[j]) >> (16 * h);
                int64_t off = i * g->in_sh + j * g->in_sw;
                __m512 v[16];
                for (int l = 0; l < 16; l++)
                    v[l] = (msk >> l) & 1u
                               ? _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(cm, src + ln->in0[16 * h + l] + off))
                               : _mm512_setzero_ps();
                transpose16(v);
                for (int c = 0; c < cb; c++)
                    _mm512_storeu_ps(&dd[c][i][j][16 * h], v[c]);
            }
}

static void
wino_store_cl16(const fdnn_wino_geom_t *g, const lanes_t *ln, uint16_t *dst, int cb,
                float yy[WINO_CL_CB][FDNN_WINO_FUSED_M][FDNN_WINO_FUSED_M][FDNN_WINO_FUSED_TB])
{
    const __mmask16 cm = (__mmask16)((1u << cb) - 1u);
    for (int h = 0; h < FDNN_WINO_FUSED_TB / 16; h++)
        for (int i = 0; i < FDNN_WINO_FUSED_M; i++)
            for (int j = 0; j < FDNN_WINO_FUSED_M; j++) {
                uint32_t msk = (ln->outrow[i] & ln->outcol[j]) >> (16 * h);
                if ((msk & 0xffffu) == 0)
                    continue;
                int64_t off = i * g->out_sh + j * g->out_sw;
                __m512 v[16];
                for (int c = 0; c < 16; c++)
                    v[c] = c < cb ? _mm512_loadu_ps(&yy[c][i][j][16 * h]) : _mm512_setzero_ps();
                transpose16(v);
                for (int l = 0; l < 16; l++)
                    if ((msk >> l) & 1u)
                        _mm256_mask_storeu_epi16(dst + ln->out0[16 * h + l] + off, cm, half_of(v[l]));
            }
}

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_wino_fused_block__avx512 (conv_winograd_engine.h): 12 rows x one
 * vector of 16 tiles per product step (12 accumulators).  With unit column
 * strides, the 6x6 input patches are read a row (6 floats) per lane and
 * turned lane-wise by 16 x 16 transposes, and the 4x4 output tiles are
 * transposed back and written a row (4 floats) at a time.  Only whole rows
 * go through vector loads and stores (the rows clipped by the image edges go
 * element by element), so nothing outside the tensors is touched, masked or
 * not. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/kernels/transpose_f32_avx512.h"

#define VL 16
#define VT __m512
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define KR 12
#define BLOCK_FN fdnn_wino_fused_block__avx512
#define WINO_PATCH 1

/* The 16 tiles y[i][j][lane] (4x4 each) to dst + out0[lane] + i*sh + j,
 * the rows and columns of each tile clipped to the output. */
static inline void
store_tiles16(const int64_t *out0, const uint32_t *outrow, const uint32_t *outcol, float *dst, int64_t sh,
              const float *y)
{
    __m512 v[16];
    for (int e = 0; e < 16; e++)
        v[e] = _mm512_loadu_ps(y + e * 16);
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
#define WINO_STORE_TILES(ln, dst, sh, y) store_tiles16((ln).out0, (ln).outrow, (ln).outcol, dst, sh, &(y)[0][0][0])

#include "cpu/conv/conv_winograd_fused.inc"

/* Row i of lane l's patch, 6 floats in the low half of a 256-bit vector
 * (zeros above them and outside the input). */
static inline __m256
patch_row(const lanes_t *ln, const float *src, int64_t sh, int l, int i, uint32_t full)
{
    if (!((ln->inrow[i] >> l) & 1u))
        return _mm256_setzero_ps();
    const float *p = src + ln->in0[l] + i * sh;
    if ((full >> l) & 1u) {
        __m128 lo = _mm_loadu_ps(p);
        __m128 hi = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)(p + 4)));
        return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    }
    float t[8] = {0};
    for (int j = 0; j < 6; j++)
        if ((ln->incol[j] >> l) & 1u)
            t[j] = p[j];
    return _mm256_loadu_ps(t);
}

static void
wino_patch(const fdnn_wino_geom_t *g, const lanes_t *ln, const float *src, float d[FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_N][FDNN_WINO_FUSED_TB])
{
    uint32_t full = ln->incol[0] & ln->incol[1] & ln->incol[2] & ln->incol[3] & ln->incol[4] & ln->incol[5];
    for (int i = 0; i < FDNN_WINO_FUSED_N; i += 2) {
        __m512 v[16];
        for (int l = 0; l < 16; l++)
            v[l] = _mm512_insertf32x8(_mm512_castps256_ps512(patch_row(ln, src, g->in_sh, l, i, full)),
                                      patch_row(ln, src, g->in_sh, l, i + 1, full), 1);
        transpose16(v); /* v[j] = column j of row i, v[8 + j] of row i + 1, over lanes */
        for (int j = 0; j < FDNN_WINO_FUSED_N; j++) {
            _mm512_storeu_ps(d[i][j], v[j]);
            _mm512_storeu_ps(d[i + 1][j], v[8 + j]);
        }
    }
}

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_gemm_arows_ukernel_6x49__avx512: a 6-row tile 49 columns wide,
 * A read in place, for the spatial sizes of ResNet-like networks (7x7 = 49,
 * 14x14 = 4 x 49, 28x28 = 16 x 49): 32-column tiles waste 15 of 64 lanes at
 * n = 49, this one none.
 *
 * Columns 0..47 are three zmm per row, one broadcast of A per row and k step
 * (18 accumulators).  Column 48 is a dot product along k instead: one
 * accumulator per row holds 16 partial sums, fed every 16 k steps by a
 * vector of the A row (read in place, k contiguous) times 16 k of column 48,
 * packed contiguous.  So every FMA lane does useful work.  24 accumulators
 * + 3 B vectors + 1 broadcast fit the 32 zmm registers.
 *
 * Strip layout (fdnn_f32_pack_b49__avx512): b[p * 48 + j] = op(B)(p, j) for j < 48,
 * then b[48 * kc + p] = op(B)(p, 48); columns past nr are zero.  b_stride
 * must be 49 (the packed strip is the only layout this kernel reads).  A
 * strip starts at any multiple of 49 * kc floats, so all loads are
 * unaligned ones (as fast on aligned data).
 *
 * Summation order: columns 0..47 as every microkernel (one FMA per k step,
 * k increasing).  Column 48: lane l sums the k = l (mod 16) terms in
 * increasing k (the last kc % 16 terms go to lanes 0..kc%16-1), then the 16
 * lanes are added by a fixed tree.  Both depend on kc only. */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

#define MR 6

/* Sum of the 16 lanes by a fixed tree: halves, quarters, pairs, lanes. */
static inline float
hsum(__m512 v)
{
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}

void
fdnn_f32_gemm_arows_ukernel_6x49__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda,
                                         const float *b, size_t b_stride, float *c, size_t ldc,
                                         const fdnn_f32_gemm_epilogue_t *ep)
{
    assert(mr >= 1 && mr <= MR && nr >= 1 && nr <= 49 && b_stride == 49);
    (void)b_stride;
    const float *arow[MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
        arow[i] = a + ((size_t)i < mr ? (size_t)i : mr - 1) * lda; /* rows past mr: read, never stored */
    const float *bcol = b + 48 * kc;
    __m512 acc[MR][3], dacc[MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        acc[i][0] = acc[i][1] = acc[i][2] = _mm512_setzero_ps();
        dacc[i] = _mm512_setzero_ps();
    }
    size_t p = 0;
    for (; p + 16 <= kc; p += 16) {
        const float *bp = b + p * 48;
#pragma GCC unroll 2
        for (int q = 0; q < 16; q++, bp += 48) {
            __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16), b2 = _mm512_loadu_ps(bp + 32);
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++) {
                __m512 ai = _mm512_set1_ps(arow[i][p + (size_t)q]);
                acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
                acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
                acc[i][2] = _mm512_fmadd_ps(ai, b2, acc[i][2]);
            }
        }
        __m512 bl = _mm512_loadu_ps(bcol + p);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
            dacc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(arow[i] + p), bl, dacc[i]);
    }
    if (p < kc) {
        size_t left = kc - p;
        __mmask16 m = (__mmask16)((1u << left) - 1u);
        for (size_t q = p; q < kc; q++) {
            const float *bp = b + q * 48;
            __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16), b2 = _mm512_loadu_ps(bp + 32);
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++) {
                __m512 ai = _mm512_set1_ps(arow[i][q]);
                acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
                acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
                acc[i][2] = _mm512_fmadd_ps(ai, b2, acc[i][2]);
            }
        }
        __m512 bl = _mm512_maskz_loadu_ps(m, bcol + p);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
            dacc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, arow[i] + p), bl, dacc[i]);
    }

    /* Epilogue: the contract of gemm_ukernel.h, column 48 as a scalar. */
    const __m512 valpha = _mm512_set1_ps(ep->alpha), vbeta = _mm512_set1_ps(ep->beta);
    const __m512 vzero = _mm512_setzero_ps();
    const int beta_mode = ep->beta == 0 ? 0 : ep->beta == 1 ? 1 : 2;
    size_t wide = nr < 48 ? nr : 48;
    __mmask16 mask[3];
    __m512 bcolv[3];
    for (int v = 0; v < 3; v++) {
        size_t lanes = wide > (size_t)v * 16 ? wide - (size_t)v * 16 : 0;
        mask[v] = (__mmask16)((1u << (lanes < 16 ? lanes : 16)) - 1u);
        bcolv[v] = ep->bias_col != NULL ? _mm512_maskz_loadu_ps(mask[v], ep->bias_col + v * 16) : vzero;
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        if ((size_t)i >= mr)
            break;
        float *ci = c + (size_t)i * ldc;
        __m512 brow = ep->bias_row != NULL ? _mm512_set1_ps(ep->bias_row[i]) : vzero;
#pragma GCC unroll 4
        for (int v = 0; v < 3; v++) {
            __m512 x = _mm512_mul_ps(valpha, acc[i][v]);
            if (beta_mode != 0) {
                __m512 old = _mm512_maskz_loadu_ps(mask[v], ci + v * 16);
                x = beta_mode == 1 ? _mm512_add_ps(old, x) : _mm512_fmadd_ps(vbeta, old, x);
            }
            if (ep->bias_row != NULL)
                x = _mm512_add_ps(x, brow);
            if (ep->bias_col != NULL)
                x = _mm512_add_ps(x, bcolv[v]);
            if (ep->relu)
                x = _mm512_max_ps(vzero, x); /* second operand wins on NaN and on +-0 */
            _mm512_mask_storeu_ps(ci + v * 16, mask[v], x);
        }
        if (nr == 49) {
            /* The same steps in scalar form (one rounding each, as the lanes). */
            float x = ep->alpha * hsum(dacc[i]);
            if (beta_mode == 1)
                x = ci[48] + x;
            else if (beta_mode == 2)
                x = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(ep->beta), _mm_set_ss(ci[48]), _mm_set_ss(x)));
            if (ep->bias_row != NULL)
                x = x + ep->bias_row[i];
            if (ep->bias_col != NULL)
                x = x + ep->bias_col[48];
            if (ep->relu)
                x = _mm_cvtss_f32(_mm_max_ss(_mm_setzero_ps(), _mm_set_ss(x)));
            ci[48] = x;
        }
    }
}

/* Packs columns 0 .. cols-1 of a k-major panel (rows of src_ld floats) into
 * strips of 49 in the layout above, cols past the end zero. */
void
fdnn_f32_pack_b49__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t width)
{
    assert(width == 49);
    (void)width;
    size_t strips = (cols + 48) / 49;
    for (size_t t = 0; t < strips; t++) {
        size_t valid = cols - t * 49 < 49 ? cols - t * 49 : 49;
        size_t w = valid < 48 ? valid : 48;
        __mmask16 m[3];
        for (int v = 0; v < 3; v++) {
            size_t lanes = w > (size_t)v * 16 ? w - (size_t)v * 16 : 0;
            m[v] = (__mmask16)((1u << (lanes < 16 ? lanes : 16)) - 1u);
        }
        float *d = dst + t * 49 * rows, *dcol = d + 48 * rows;
        const float *s = src + t * 49;
        for (size_t r = 0; r < rows; r++, s += src_ld, d += 48) {
            for (int v = 0; v < 3; v++)
                _mm512_storeu_ps(d + 16 * v, _mm512_maskz_loadu_ps(m[v], s + 16 * v));
            dcol[r] = valid == 49 ? s[48] : 0.0f;
        }
    }
}

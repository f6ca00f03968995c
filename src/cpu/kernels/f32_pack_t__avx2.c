/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_t__avx2: the transposing pack (see gemm_ukernel.h) by 8 x 8
 * blocks transposed in registers; vmaskmov for the edges (masked-out lanes
 * are never accessed). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"
#include "cpu/kernels/transpose_f32_avx2.h"

static inline __m256i
lanes_below(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

void
fdnn_f32_pack_t__avx2(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t dst_rows)
{
    assert(rows <= dst_rows && dst_rows <= 64);
    for (size_t r0 = 0; r0 < dst_rows; r0 += 8) {
        size_t lanes = dst_rows - r0 < 8 ? dst_rows - r0 : 8;
        size_t valid = rows > r0 ? (rows - r0 < 8 ? rows - r0 : 8) : 0;
        __m256i store_mask = lanes_below(lanes);
        for (size_t c0 = 0; c0 < cols; c0 += 8) {
            size_t cc = cols - c0 < 8 ? cols - c0 : 8;
            __m256i load_mask = lanes_below(cc);
            __m256 v[8];
#pragma GCC unroll 8
            for (size_t r = 0; r < 8; r++)
                v[r] = r < valid ? _mm256_maskload_ps(src + (r0 + r) * src_ld + c0, load_mask) : _mm256_setzero_ps();
            transpose8(v);
            float *d = dst + c0 * dst_rows + r0;
            /* Constant indices only, so v[] stays in registers. */
#pragma GCC unroll 8
            for (size_t c = 0; c < 8; c++)
                if (c < cc)
                    _mm256_maskstore_ps(d + c * dst_rows, store_mask, v[c]);
        }
    }
}

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_n__avx2: the plain pack (see gemm_ukernel.h) by 8-lane
 * vmaskmov moves (masked-out lanes are never accessed). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

static inline __m256i
lanes_below(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

void
fdnn_f32_pack_n__avx2(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t dst_cols)
{
    assert(cols <= dst_cols && dst_cols <= 32);
    __m256i load[4], store[4];
    size_t pieces = (dst_cols + 7) / 8;
    for (size_t q = 0; q < pieces; q++) {
        load[q] = lanes_below(cols > 8 * q ? cols - 8 * q : 0);
        store[q] = lanes_below(dst_cols - 8 * q);
    }
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * dst_cols;
        for (size_t q = 0; q < pieces; q++)
            _mm256_maskstore_ps(d + 8 * q, store[q], _mm256_maskload_ps(s + 8 * q, load[q]));
    }
}

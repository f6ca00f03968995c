/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_n__avx2: the plain pack into strips (see gemm_ukernel.h), by
 * 8-lane vmaskmov moves (masked-out lanes are never accessed), row by row. */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

static inline __m256i
lanes_below(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 8 ? n : 8)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

void
fdnn_f32_pack_n__avx2(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t width)
{
    assert(width >= 1 && width <= 64);
    size_t strips = (cols + width - 1) / width;
    size_t strip_elems = rows * width;
    size_t pieces = (width + 7) / 8;
    size_t last = cols - (strips - 1) * width;
    __m256i store[8], full[8], part[8];
    for (size_t q = 0; q < pieces; q++) {
        store[q] = lanes_below(width - 8 * q);
        full[q] = store[q];
        part[q] = lanes_below(last > 8 * q ? last - 8 * q : 0);
    }
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            const __m256i *load = t + 1 == strips ? part : full;
            for (size_t q = 0; q < pieces; q++)
                _mm256_maskstore_ps(d + 8 * q, store[q], _mm256_maskload_ps(s + 8 * q, load[q]));
        }
    }
}

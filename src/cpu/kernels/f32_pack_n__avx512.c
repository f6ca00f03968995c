/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_n__avx512: the plain pack into strips (see gemm_ukernel.h),
 * by masked 16-lane moves.  Row by row, so each source row is read once,
 * left to right, for all of its strips. */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

static inline __mmask16
lanes_below(size_t n)
{
    return (__mmask16)((1u << (n < 16 ? n : 16)) - 1u);
}

void
fdnn_f32_pack_n__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t width)
{
    assert(width >= 1 && width <= 64);
    size_t strips = (cols + width - 1) / width;
    size_t strip_elems = rows * width;
    size_t pieces = (width + 15) / 16;
    size_t last = cols - (strips - 1) * width; /* valid columns of the last strip */
    /* Per 16-lane piece of a strip: lanes written, and lanes read in the last
     * strip (all others read what they write). */
    __mmask16 store[4], part[4];
    for (size_t q = 0; q < pieces; q++) {
        store[q] = lanes_below(width - 16 * q);
        part[q] = lanes_below(last > 16 * q ? last - 16 * q : 0);
    }
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            const __mmask16 *load = t + 1 == strips ? part : store;
            for (size_t q = 0; q < pieces; q++)
                _mm512_mask_storeu_ps(d + 16 * q, store[q], _mm512_maskz_loadu_ps(load[q], s + 16 * q));
        }
    }
}

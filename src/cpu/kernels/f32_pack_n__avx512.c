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
    assert(width >= 1 && width <= 32);
    size_t strips = (cols + width - 1) / width;
    size_t strip_elems = rows * width;
    /* Masks of the two halves of a strip: lanes written, and lanes read in a
     * full strip.  Only the last strip reads fewer. */
    size_t half1 = width > 16 ? width - 16 : 0;
    __mmask16 store0 = lanes_below(width), store1 = lanes_below(half1);
    size_t last = cols - (strips - 1) * width; /* valid columns of the last strip */
    __mmask16 last0 = lanes_below(last), last1 = lanes_below(last > 16 ? last - 16 : 0);
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            bool is_last = t + 1 == strips;
            __mmask16 load0 = is_last ? last0 : store0, load1 = is_last ? last1 : store1;
            _mm512_mask_storeu_ps(d, store0, _mm512_maskz_loadu_ps(load0, s));
            if (half1 > 0)
                _mm512_mask_storeu_ps(d + 16, store1, _mm512_maskz_loadu_ps(load1, s + 16));
        }
    }
}

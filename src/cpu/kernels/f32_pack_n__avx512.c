/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_n__avx512: the plain pack (see gemm_ukernel.h), two masked
 * 16-lane moves per row; a memcpy call per 32-float row cost more than the
 * copy itself. */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"

void
fdnn_f32_pack_n__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t dst_cols)
{
    assert(cols <= dst_cols && dst_cols <= 32);
    /* Lanes read (the valid columns) and written (the strip width) per half. */
    __mmask16 load0 = (__mmask16)((1u << (cols < 16 ? cols : 16)) - 1u);
    __mmask16 load1 = (__mmask16)((1u << (cols > 16 ? cols - 16 : 0)) - 1u);
    __mmask16 store0 = (__mmask16)((1u << (dst_cols < 16 ? dst_cols : 16)) - 1u);
    __mmask16 store1 = (__mmask16)((1u << (dst_cols > 16 ? dst_cols - 16 : 0)) - 1u);
    if (dst_cols <= 16) {
        for (size_t r = 0; r < rows; r++)
            _mm512_mask_storeu_ps(dst + r * dst_cols, store0, _mm512_maskz_loadu_ps(load0, src + r * src_ld));
        return;
    }
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * dst_cols;
        _mm512_mask_storeu_ps(d, store0, _mm512_maskz_loadu_ps(load0, s));
        _mm512_mask_storeu_ps(d + 16, store1, _mm512_maskz_loadu_ps(load1, s + 16));
    }
}

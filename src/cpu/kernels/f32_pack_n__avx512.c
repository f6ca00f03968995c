/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_n__avx512: the plain pack into strips (see gemm_ukernel.h),
 * by 16-lane moves.  Row by row, so each source row is read once, left to
 * right, for all of its strips.  Loads are plain wherever all 16 lanes lie
 * within the row's cols (for a 14-wide strip that reads 2 columns of the
 * next strip, still in the row), masked only at the row's end: on the Zen 5
 * VM, masked loads among the scattered strip stores ran the pack of a
 * DRAM-resident 768 x 256 block at 2.4x the time of plain loads (12.1 vs
 * 5.1 ms for ResNet-50 res2's dy, thread CPU time), in L2 the same.  Stores
 * stay masked where a strip is narrower than its pieces. */
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
    /* A piece whose 16 lanes all lie within cols is loaded plain; the lanes
     * past the strip's width (the next strip's) are not stored. */
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * src_ld;
        float *d = dst + r * width;
        for (size_t t = 0; t < strips; t++, s += width, d += strip_elems) {
            const __mmask16 *load = t + 1 == strips ? part : store;
            for (size_t q = 0; q < pieces; q++) {
                __m512 v = t * width + 16 * q + 16 <= cols ? _mm512_loadu_ps(s + 16 * q)
                                                          : _mm512_maskz_loadu_ps(load[q], s + 16 * q);
                _mm512_mask_storeu_ps(d + 16 * q, store[q], v);
            }
        }
    }
}

/* SPDX-License-Identifier: Apache-2.0
 * fdnn_f32_pack_t__avx512: the transposing pack (see gemm_ukernel.h) by
 * 16 x 16 blocks transposed in registers: 16 row loads (masked only in a
 * last partial block: masked loads among stores waited on memory, see
 * f32_pack_n__avx512.c), 64 shuffles, up to 16 masked stores.  About four
 * times the speed of the scalar loop, which matters when n (or m) is small
 * and packing is a visible share of the work (the res5 convolutions of
 * ResNet-50 have n = 49). */
#include <assert.h>
#include <immintrin.h>

#include "cpu/kernels/gemm_ukernel.h"
#include "cpu/kernels/transpose_f32_avx512.h"

void
fdnn_f32_pack_t__avx512(size_t rows, size_t cols, const float *src, size_t src_ld, float *dst, size_t dst_rows)
{
    assert(rows <= dst_rows && dst_rows <= 64);
    for (size_t r0 = 0; r0 < dst_rows; r0 += 16) {
        size_t lanes = dst_rows - r0 < 16 ? dst_rows - r0 : 16;              /* rows stored */
        size_t valid = rows > r0 ? (rows - r0 < 16 ? rows - r0 : 16) : 0;    /* rows loaded */
        __mmask16 store_mask = (__mmask16)((1u << lanes) - 1u);
        for (size_t c0 = 0; c0 < cols; c0 += 16) {
            size_t cc = cols - c0 < 16 ? cols - c0 : 16;
            __mmask16 load_mask = (__mmask16)((1u << cc) - 1u);
            __m512 v[16];
#pragma GCC unroll 16
            for (size_t r = 0; r < 16; r++) {
                if (r < valid) {
                    const float *row = src + (r0 + r) * src_ld + c0;
                    v[r] = cc == 16 ? _mm512_loadu_ps(row) : _mm512_maskz_loadu_ps(load_mask, row);
                } else {
                    v[r] = _mm512_setzero_ps();
                }
            }
            transpose16(v);
            float *d = dst + c0 * dst_rows + r0;
            /* Constant indices only, so v[] stays in registers. */
#pragma GCC unroll 16
            for (size_t c = 0; c < 16; c++)
                if (c < cc)
                    _mm512_mask_storeu_ps(d + c * dst_rows, store_mask, v[c]);
        }
    }
}

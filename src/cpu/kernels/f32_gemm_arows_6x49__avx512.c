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

#define UKERNEL fdnn_f32_gemm_arows_ukernel_6x49__avx512
#define UKERNEL_PF fdnn_f32_gemm_arows_pf_ukernel_6x49__avx512
#define A_T float
#include "cpu/kernels/f32_gemm_arows_6x49.inc"

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

/* SPDX-License-Identifier: Apache-2.0
 * Contiguous rows converted between FLOAT and the 16-bit floating-point
 * types (HALF, BFLOAT16), in both directions, with runtime ISA dispatch.
 *
 * Contract: element i of dst is the scalar conversion of element i of src
 * as cpu/simd/cvt.h defines it (round to nearest even, overflow to
 * infinity, subnormals kept, NaN stays a quiet NaN), bit for bit the same
 * on every path: portable C, AVX2 + F16C (vcvtps2ph / vcvtph2ps), AVX-512
 * (the same at 16 lanes, bfloat16 by integer rounding) and AVX512-BF16
 * (vcvtne2ps2bf16 for float -> bfloat16).  So a caller may pick any path,
 * split a row anywhere and run the pieces on any threads: the bits do not
 * change.
 *
 * Memory: src and dst are rows of n elements of their types, any alignment
 * of the element size (2 or 4 bytes), and must not overlap.  Nothing is
 * read or written outside them (tails use masks or scalar code).  No
 * allocation, no threads: callers parallelise over rows or pieces.
 *
 * Typical use, per problem (kernel chosen once) then per row:
 *     fdnn_convert_row_fn cvt = fdnn_convert_row_kernel(
 *         fdnn_convert_row_path(handle->isa), CUDNN_DATA_FLOAT, CUDNN_DATA_HALF);
 *     cvt(src_row, dst_row, n);
 * or in one call: fdnn_convert_row(handle->isa, FLOAT, src, HALF, dst, n). */
#ifndef FDNN_CPU_TENSOR_CONVERT_ROW_H
#define FDNN_CPU_TENSOR_CONVERT_ROW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cpu.h"
#include "cudnn.h"

/* dst[i] = convert(src[i]) for i < n (types fixed by the kernel). */
typedef void (*fdnn_convert_row_fn)(const void *src, void *dst, size_t n);

/* The implementations.  AVX512_BF16 differs from AVX512 only in float ->
 * bfloat16.  Ordered: a later path needs everything an earlier one does. */
typedef enum fdnn_cvt_path {
    FDNN_CVT_SCALAR = 0,      /* portable C: cvt.h element by element */
    FDNN_CVT_F16C = 1,        /* AVX2 + F16C, 8 lanes (the AVX2 ISA level) */
    FDNN_CVT_AVX512 = 2,      /* AVX-512 F/BW/VL, 16 lanes, masked tails */
    FDNN_CVT_AVX512_BF16 = 3, /* the above + AVX512-BF16 */
    FDNN_CVT_PATH_COUNT
} fdnn_cvt_path_t;

/* True for FLOAT -> HALF, FLOAT -> BFLOAT16, HALF -> FLOAT and BFLOAT16 ->
 * FLOAT: the pairs the row kernels do. */
bool fdnn_convert_row_supported(cudnnDataType_t src_type, cudnnDataType_t dst_type);

/* The best path at ISA level `isa` (the handle's, already capped by
 * FREEDNN_MAX_ISA) on this CPU: AVX512_BF16 when the level is AVX-512 and
 * the CPU has AVX512-BF16. */
fdnn_cvt_path_t fdnn_convert_row_path(fdnn_isa_t isa);

/* True when this build and this CPU can run `path` (tests loop over them). */
bool fdnn_convert_row_path_available(fdnn_cvt_path_t path);

const char *fdnn_convert_row_path_name(fdnn_cvt_path_t path);

/* The kernel of `path` for a supported pair (the caller checks with
 * fdnn_convert_row_supported and fdnn_convert_row_path_available). */
fdnn_convert_row_fn fdnn_convert_row_kernel(fdnn_cvt_path_t path, cudnnDataType_t src_type,
                                            cudnnDataType_t dst_type);

/* One row with the best kernel for `isa`: dst[i] = convert(src[i]). */
void fdnn_convert_row(fdnn_isa_t isa, cudnnDataType_t src_type, const void *src, cudnnDataType_t dst_type, void *dst,
                      size_t n);

/* The per-path kernels, for the dispatch in convert_row.c.  The __f16c,
 * __avx512 and __avx512bf16 ones exist on x86 builds only. */
#define FDNN_DECLARE_CONVERT_ROW(suffix)                                             \
    void fdnn_convert_row_f32_f16__##suffix(const void *src, void *dst, size_t n);  \
    void fdnn_convert_row_f16_f32__##suffix(const void *src, void *dst, size_t n);  \
    void fdnn_convert_row_f32_bf16__##suffix(const void *src, void *dst, size_t n); \
    void fdnn_convert_row_bf16_f32__##suffix(const void *src, void *dst, size_t n);

FDNN_DECLARE_CONVERT_ROW(scalar)
FDNN_DECLARE_CONVERT_ROW(avx2)
FDNN_DECLARE_CONVERT_ROW(avx512)
void fdnn_convert_row_f32_bf16__avx512bf16(const void *src, void *dst, size_t n);

/* One path's kernels as the per-ISA configuration (src/cpu/config)
 * registers them: `path` its fdnn_cvt_path_t, then one kernel per pair. */
typedef struct fdnn_cvt_row_kernels {
    int path;
    fdnn_convert_row_fn f32_f16, f16_f32, f32_bf16, bf16_f32;
} fdnn_cvt_row_kernels_t;

#endif /* FDNN_CPU_TENSOR_CONVERT_ROW_H */

/* SPDX-License-Identifier: Apache-2.0
 * Rows of FP8 <-> float conversions (contract: convert_fp8.h).  Portable C
 * on every ISA: a 256-entry decode and a branchy encode are exact by
 * construction, and FP8 tensors are storage only (the engines compute in
 * float), so the rows are not the cost of any graph that uses them. */
#include "cpu/tensor/convert_fp8.h"

void
fdnn_fp8_to_f32_row(fdnn_fp8_kind_t kind, const uint8_t *src, size_t n, float *dst)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = fdnn_fp8_to_f32(src[i], kind);
}

void
fdnn_f32_to_fp8_row(fdnn_fp8_kind_t kind, const float *src, size_t n, uint8_t *dst)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = fdnn_f32_to_fp8(src[i], kind, FDNN_FP8_SATFINITE);
}

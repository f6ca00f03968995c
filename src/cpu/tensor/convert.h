/* SPDX-License-Identifier: Apache-2.0
 * Scalar conversions between the storage types of tensors and the compute
 * types (float, double).  Rounding is to nearest, ties to even, everywhere;
 * integer stores saturate.  Plain C so every ISA file can inline them.
 *
 * The float <-> half / bfloat16 conversions (fdnn_half_to_float,
 * fdnn_float_to_half, fdnn_bf16_to_float, fdnn_float_to_bf16 and the
 * fdnn_f16_* / fdnn_bf16_* spellings) have one owner, cpu/simd/cvt.h, which
 * states their contract; this header adds the integer stores.  Whole rows
 * between float and the 16-bit types: cpu/tensor/convert_row.h. */
#ifndef FDNN_CPU_TENSOR_CONVERT_H
#define FDNN_CPU_TENSOR_CONVERT_H

#include <math.h>
#include <stdint.h>

#include "cpu/simd/cvt.h"

/* Saturating round-to-nearest-even conversions to the integer types: v
 * rounded to an integer (nearest, ties to even) and clamped to [lo, hi];
 * NaN becomes 0.  Every integer store of the library (INT8, UINT8, INT32
 * and the lanes of the vector types) goes through it. */
static inline double
fdnn_sat_round(double v, double lo, double hi)
{
    if (!(v == v))
        return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

#endif /* FDNN_CPU_TENSOR_CONVERT_H */

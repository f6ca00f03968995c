/* SPDX-License-Identifier: Apache-2.0 */
#include "cpu/simd/f32_avx512.h"
#include "cpu/lrn/lrn_f32.inc"

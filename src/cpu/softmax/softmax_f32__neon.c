/* SPDX-License-Identifier: Apache-2.0 */
#include "cpu/simd/f32_neon.h"
#include "cpu/softmax/softmax_f32.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The pointwise row kernels (gx_pw_row.inc) compiled for one ISA level
 * (avx512); gx_pointwise.c dispatches on the handle's level.  The loops are
 * plain C that the compiler vectorizes for the level's registers; libm
 * calls (exp, tanh, ...) stay scalar, except the FLOAT GELU rows, which
 * use the vector erfc of gx_pw_erf.h. */
#include <math.h>
#include <stdbool.h>

#include "cpu/graph/graph_exec.h"
#include "cpu/simd/f32_avx512.h"
#include "cpu/graph/gx_pw_erf.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define T float
#define F(fn) fn##f
#define ROW gx_pw_row_f32__avx512
#define GX_PW_VECTOR_ERF
#include "cpu/graph/gx_pw_row.inc"
#undef GX_PW_VECTOR_ERF
#undef T
#undef F
#undef ROW

#define T double
#define F(fn) fn
#define ROW gx_pw_row_f64__avx512
#include "cpu/graph/gx_pw_row.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The pointwise row kernels (gx_pw_row.inc) compiled for one ISA level
 * (scalar); gx_pointwise.c dispatches on the handle's level.  The loops are
 * plain C that the compiler vectorizes for the level's registers; libm
 * calls (exp, erf, tanh, ...) stay scalar. */
#include <math.h>
#include <stdbool.h>

#include "cpu/graph/graph_exec.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define T float
#define F(fn) fn##f
#define ROW gx_pw_row_f32__scalar
#include "cpu/graph/gx_pw_row.inc"
#undef T
#undef F
#undef ROW

#define T double
#define F(fn) fn
#define ROW gx_pw_row_f64__scalar
#include "cpu/graph/gx_pw_row.inc"

/* SPDX-License-Identifier: Apache-2.0
 * FP64 RNN operations (rnn_t.inc). */
#include <math.h>
#include <string.h>

#include "core/handle.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/dropout/philox.h"
#include "cpu/rnn/rnn_internal.h"

#define REAL double
#define EXP exp
#define TANH tanh
#define FN(name) fdnn_rnn_##name##_f64
#define RNN_DOUBLE 1
#include "cpu/rnn/rnn_t.inc"

/* SPDX-License-Identifier: Apache-2.0
 * FP32 RNN operations (rnn_t.inc). */
#include <math.h>
#include <string.h>

#include "core/handle.h"
#include "core/memory.h"
#include "cpu/gemm/gemm.h"
#include "cpu/gemm/sgemm_bpack.h"
#include "cpu/simd/simd.h"
#include "cpu/dropout/philox.h"
#include "cpu/rnn/rnn_internal.h"
#include "cpu/rnn/stage_io.h"

#define REAL float
#define EXP expf
#define TANH tanhf
#define FN(name) fdnn_rnn_##name##_f32
#define RNN_DOUBLE 0
#include "cpu/rnn/rnn_t.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The float (S) and double (D) instances of level 1, level 2, ?geam and
 * ?trsm (cublas_real.inc). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "cublas_internal.h"

#define T float
#define P(name) cublasS##name
#define I(name) cublasIs##name
#define GEMM fdnn_cublas_sgemm
#include "cublas_real.inc"
#undef T
#undef P
#undef I
#undef GEMM

#define T double
#define P(name) cublasD##name
#define I(name) cublasId##name
#define GEMM fdnn_cublas_dgemm
#include "cublas_real.inc"
#undef T
#undef P
#undef I
#undef GEMM

/* SPDX-License-Identifier: Apache-2.0
 * The INT8 GEMM packing pass (lowp_i8_pack.inc) for this file's ISA. */
#define PACK_FN fdnn_i8_pack__avx512
#define ROW_SUMS_FN fdnn_i8_row_sums__avx512
#include "cpu/kernels/lowp_i8_pack.inc"

/* SPDX-License-Identifier: Apache-2.0
 * The BF16 GEMM packing pass (bf16_pack.inc) for this file's ISA. */
#define PACK_FN fdnn_bf16_pack__scalar

#include "cpu/kernels/bf16_pack.inc"

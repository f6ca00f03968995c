/* SPDX-License-Identifier: Apache-2.0
 * The tensor kernels, scalar build (see tensor_kernels.inc). */
#define FDNN_TK_ISA scalar
#include "cpu/tensor/tensor_kernels.inc"

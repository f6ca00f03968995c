/* SPDX-License-Identifier: Apache-2.0
 * Multi-head attention descriptors (cudnnAttnDescriptor_t), read by the
 * attention operations.  Values are validated as cuDNN 8.9 does before they
 * are stored (src/api/adv_infer/attn_desc.c).  A projection size of 0 means
 * that projection is off; q_proj_size == k_proj_size always.  The dropout
 * descriptors are referenced, not owned, and may be NULL. */
#ifndef FDNN_CORE_ATTN_DESC_H
#define FDNN_CORE_ATTN_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_ATTN_MAGIC 0x4e545441u /* "ATTN" */

struct cudnnAttnStruct {
    uint32_t magic;
    bool is_set;
    unsigned attn_mode; /* CUDNN_ATTN_QUERYMAP_* | CUDNN_ATTN_*_PROJ_BIASES */
    int n_heads;
    double sm_scaler;
    cudnnDataType_t data_type;
    cudnnDataType_t compute_prec;
    cudnnMathType_t math_type;
    cudnnDropoutDescriptor_t attn_dropout;
    cudnnDropoutDescriptor_t post_dropout;
    int q_size, k_size, v_size;
    int q_proj_size, k_proj_size, v_proj_size, o_proj_size;
    int qo_max_seq_length, kv_max_seq_length;
    int max_batch_size, max_beam_size;
};

cudnnStatus_t fdnn_attn_desc_check(cudnnAttnDescriptor_t desc, const char *what);

#endif /* FDNN_CORE_ATTN_DESC_H */

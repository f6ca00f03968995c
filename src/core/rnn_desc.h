/* SPDX-License-Identifier: Apache-2.0
 * RNN descriptors (cudnnRNNDescriptor_t) and RNN data descriptors
 * (cudnnRNNDataDescriptor_t): what the RNN operations read.
 *
 * The API layer (src/api/adv_infer/rnn_desc.c, rnn_data_desc.c) validates
 * every field as cuDNN 8.9 does before storing it, so readers may trust the
 * values: enums are in range, sizes are positive, proj_size <= hidden_size,
 * seq_lengths[i] is in [0, max_seq_length].  The dropout descriptor is only
 * referenced (never owned, never read here): cuDNN keeps the caller's handle
 * and so do we. */
#ifndef FDNN_CORE_RNN_DESC_H
#define FDNN_CORE_RNN_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_RNN_MAGIC 0x444e4e52u      /* "RNND" */
#define FDNN_RNN_DATA_MAGIC 0x41544452u /* "RDTA" */
#define FDNN_RNN_PLAN_MAGIC 0x4e4c5052u /* "RPLN" */

struct cudnnRNNStruct {
    uint32_t magic;
    bool is_set;
    cudnnRNNAlgo_t algo;
    cudnnRNNMode_t cell_mode;
    cudnnRNNBiasMode_t bias_mode;
    cudnnDirectionMode_t dir_mode;
    cudnnRNNInputMode_t input_mode;
    cudnnDataType_t data_type; /* of x, y, h, c and the weights */
    cudnnDataType_t math_prec; /* accumulation type */
    cudnnMathType_t math_type;
    int32_t input_size;  /* 0 after cudnnSetRNNDescriptor_v6: taken from xDesc */
    int32_t hidden_size;
    int32_t proj_size;   /* == hidden_size when the projection is off */
    int32_t num_layers;
    cudnnDropoutDescriptor_t dropout; /* may be NULL (no dropout) */
    uint32_t aux_flags;  /* CUDNN_RNN_PADDED_IO_ENABLED or 0 */
    /* cudnnRNNSetClip_v8: applied to the cell state (LSTM) when enabled. */
    cudnnRNNClipMode_t clip_mode;
    cudnnNanPropagation_t clip_nan_opt;
    double lclip, rclip;
    /* Set by cudnnSetRNNDescriptor_v6: the legacy entry points take the
     * input size and data type from their xDesc. */
    bool legacy_v6;
    /* Mini-batch of the last cudnnBuildRNNDynamic or cudnnSetPersistentRNNPlan
     * (0: none).  The CPU runs the same code for every algorithm; the value
     * is kept so the operations can check the batch as cuDNN does. */
    int32_t dynamic_mini_batch;
};

/* The vector size of y and hy for this descriptor: proj_size when the
 * projection is on, times 2 when bidirectional. */
static inline int32_t
fdnn_rnn_out_size(const struct cudnnRNNStruct *d)
{
    return d->proj_size * (d->dir_mode == CUDNN_BIDIRECTIONAL ? 2 : 1);
}

/* A persistent-RNN plan (legacy interface of PERSIST_DYNAMIC): the RNN
 * descriptor it was made for (referenced), the mini-batch and data type. */
struct cudnnPersistentRNNPlan {
    uint32_t magic;
    cudnnRNNDescriptor_t rnn;
    int mini_batch;
    cudnnDataType_t data_type;
};

/* BAD_PARAM (with `what` in the reason) unless desc is a created and set RNN
 * descriptor. */
cudnnStatus_t fdnn_rnn_desc_check(cudnnRNNDescriptor_t desc, const char *what);

struct cudnnRNNDataStruct {
    uint32_t magic;
    bool is_set;
    cudnnDataType_t data_type;
    cudnnRNNDataLayout_t layout;
    int max_seq_length;
    int batch_size;
    int vector_size;
    int *seq_lengths;         /* batch_size entries, owned, each 0..max_seq_length */
    bool has_padding_fill;    /* false: padding of outputs is left untouched */
    unsigned char padding_fill[8]; /* one element of data_type, zero when absent */
};

/* BAD_PARAM (with `what`) unless desc is a created and set RNN data
 * descriptor. */
cudnnStatus_t fdnn_rnn_data_desc_check(cudnnRNNDataDescriptor_t desc, const char *what);

#endif /* FDNN_CORE_RNN_DESC_H */

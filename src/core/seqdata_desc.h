/* SPDX-License-Identifier: Apache-2.0
 * Sequence data descriptors (cudnnSeqDataDescriptor_t), read by the
 * multi-head attention operations.
 *
 * dims[] is indexed by cudnnSeqDataAxis_t (dims[CUDNN_SEQDATA_TIME_DIM] is
 * the maximum sequence length); axes[] lists the axes from the outermost to
 * the innermost in memory, and VECT is always innermost.  The buffer is
 * packed in that order.  seq_lengths has batch * beam entries (batch-major),
 * each in [1, dims[TIME]]. */
#ifndef FDNN_CORE_SEQDATA_DESC_H
#define FDNN_CORE_SEQDATA_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"

#define FDNN_SEQDATA_MAGIC 0x51455344u /* "DSEQ" */

struct cudnnSeqDataStruct {
    uint32_t magic;
    bool is_set;
    cudnnDataType_t data_type;
    int dims[CUDNN_SEQDATA_DIM_COUNT];
    cudnnSeqDataAxis_t axes[CUDNN_SEQDATA_DIM_COUNT];
    size_t seq_lengths_size; /* dims[BATCH] * dims[BEAM] */
    int *seq_lengths;        /* owned */
    bool has_padding_fill;
    unsigned char padding_fill[8]; /* one element of data_type, zero when absent */
};

/* BAD_PARAM (with `what`) unless desc is a created and set descriptor. */
cudnnStatus_t fdnn_seqdata_desc_check(cudnnSeqDataDescriptor_t desc, const char *what);

/* Element stride of `axis` in the packed buffer. */
int64_t fdnn_seqdata_stride(const struct cudnnSeqDataStruct *d, cudnnSeqDataAxis_t axis);

#endif /* FDNN_CORE_SEQDATA_DESC_H */

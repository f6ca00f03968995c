/* SPDX-License-Identifier: Apache-2.0
 * Checks shared by the multi-head attention operations (adv_infer/attn_ops.c,
 * adv_train/attn_bwd.c): the sizes an attention descriptor implies, the
 * buffer sizes, sequence-data descriptors to an fdnn_attn_problem_t, and
 * the fingerprint that ties a reserve space to the calls that wrote it. */
#ifndef FDNN_API_ATTN_COMMON_H
#define FDNN_API_ATTN_COMMON_H

#include "core/attn_desc.h"
#include "core/seqdata_desc.h"
#include "cpu/attn/attn.h"

/* The sizes every function derives from the descriptor. */
typedef struct fdnn_attn_shape {
    int H, qP, vP, oLen;
    bool q_proj, k_proj, v_proj, o_proj, biases;
    int64_t n_w[CUDNN_ATTN_WKIND_COUNT]; /* elements of each weight kind, 0 when absent */
    int64_t off[CUDNN_ATTN_WKIND_COUNT];
    int64_t total;
} fdnn_attn_shape_t;

void fdnn_attn_shape_of(const struct cudnnAttnStruct *d, fdnn_attn_shape_t *s);

/* NOT_SUPPORTED when the element counts the descriptor allows would pass
 * about 2^52. */
cudnnStatus_t fdnn_attn_check_magnitudes(const struct cudnnAttnStruct *d);

/* NOT_SUPPORTED unless a (data, compute) pair of cuDNN 8.9: FLOAT/FLOAT,
 * DOUBLE/DOUBLE, HALF/HALF, HALF/FLOAT, BFLOAT16/FLOAT;
 * with `training` BAD_PARAM when a dropout descriptor with a nonzero rate
 * has no initialised states. */
cudnnStatus_t fdnn_attn_check_compute(const struct cudnnAttnStruct *d, bool training);

/* What cudnnGetMultiHeadAttnBuffers reports: one workspace size for the
 * forward and both backward functions, and the reserve size of training. */
size_t fdnn_attn_api_workspace_bytes(cudnnHandle_t handle, const struct cudnnAttnStruct *d,
                                     const fdnn_attn_shape_t *s);
size_t fdnn_attn_api_reserve_bytes(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s);

/* The four sequence-data descriptors of a call, in the roles q, k, v, o
 * (forward: qDesc..oDesc; backward data: dqDesc, dkDesc, dvDesc, doDesc),
 * with the names used in failure reasons. */
typedef struct fdnn_attn_seqs {
    cudnnSeqDataDescriptor_t q, k, v, o;
    const char *names[4];
} fdnn_attn_seqs_t;

/* Checks the descriptors against attnDesc and each other and fills every
 * field of p but the weights, windows and curr (0). */
cudnnStatus_t fdnn_attn_problem_init(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s,
                                     const fdnn_attn_seqs_t *x, fdnn_attn_problem_t *p);

/* The padding fill of a sequence-data descriptor as a double (exact: it is
 * stored in the descriptor's data type). */
double fdnn_attn_fill_value(cudnnSeqDataDescriptor_t desc);

/* Points p's weights into the buffer w, elements of p->dtype (NULL for
 * absent parts). */
void fdnn_attn_problem_weights(fdnn_attn_problem_t *p, const fdnn_attn_shape_t *s, const void *w);

/* BAD_PARAM when devSeqLengths differs from the descriptor's lengths. */
cudnnStatus_t fdnn_attn_check_lengths(const int *devSeqLengths, cudnnSeqDataDescriptor_t desc, const char *what,
                                      const char *desc_name);

/* Weight buffer and workspace: sizes at least what the queries answer,
 * non-NULL when needed. */
cudnnStatus_t fdnn_attn_check_spaces(cudnnHandle_t handle, const struct cudnnAttnStruct *d,
                                     const fdnn_attn_shape_t *s, size_t weightSizeInBytes, const void *weights,
                                     const char *wname, size_t workSpaceSizeInBytes, const void *workSpace);

/* Fingerprints stored in the reserve header: the attention descriptor and
 * the dims, axes and lengths of the four sequence descriptors; the
 * windows of the qT query time steps. */
uint64_t fdnn_attn_shape_hash(const struct cudnnAttnStruct *d, const fdnn_attn_seqs_t *x);
uint64_t fdnn_attn_window_hash(const int *lo, const int *hi, int qT);

/* Size and presence of a reserve space (at least what the buffer query
 * answers; 4-byte aligned). */
cudnnStatus_t fdnn_attn_check_reserve_space(const struct cudnnAttnStruct *d, const fdnn_attn_shape_t *s,
                                            size_t reserveSpaceSizeInBytes, const void *reserveSpace);

/* BAD_PARAM unless the reserve header says a call of stage >= `stage` ran
 * last with the same shape hash (and the same window hash when check_win). */
cudnnStatus_t fdnn_attn_check_reserve_stage(const void *reserveSpace, uint64_t stage, uint64_t shape_hash,
                                            bool check_win, uint64_t window_hash);

/* Writes magic, stage and hashes; the dropout fields are kept. */
void fdnn_attn_write_reserve_header(void *reserveSpace, uint64_t stage, uint64_t shape_hash,
                                    uint64_t window_hash);

/* Training forward, after every other check: the dropout rates of attnDesc
 * into p and, for each nonzero one, the seed and call of its states (the
 * states' counter advances, as in cudnnDropoutForward). */
void fdnn_attn_training_dropout(const struct cudnnAttnStruct *d, fdnn_attn_problem_t *p);

/* The forward records its dropout streams in the reserve header; the
 * backward calls take them back (with the rates from attnDesc). */
void fdnn_attn_reserve_put_dropout(void *reserveSpace, const fdnn_attn_problem_t *p);
void fdnn_attn_reserve_get_dropout(const void *reserveSpace, const struct cudnnAttnStruct *d,
                                   fdnn_attn_problem_t *p);

#endif /* FDNN_API_ATTN_COMMON_H */

/* SPDX-License-Identifier: Apache-2.0
 * Checks shared by the RNN operations (adv_infer/rnn_ops.c,
 * adv_train/rnn_bwd.c): descriptors to an fdnn_rnn_problem_t. */
#ifndef FDNN_API_RNN_COMMON_H
#define FDNN_API_RNN_COMMON_H

#include "core/rnn_desc.h"
#include "cpu/rnn/rnn.h"

/* From the RNN descriptor alone (no sequences): FLOAT or DOUBLE, SKIP_INPUT
 * needs input == hidden; the projection size and the dropout rate between
 * layers (which sizes the reserve space).  `input` overrides the
 * descriptor's input size when > 0 (legacy descriptors store 0). */
cudnnStatus_t fdnn_rnn_problem_init(cudnnRNNDescriptor_t rnnDesc, int64_t input, fdnn_rnn_problem_t *p);

/* Sequences of x and y: matching types, sizes, layout, lengths;
 * devSeqLengths must be given and equal the descriptor's; every size of the
 * problem fits (BAD_PARAM otherwise).  yDesc is required (BAD_PARAM when
 * NULL). */
cudnnStatus_t fdnn_rnn_problem_seq(cudnnRNNDescriptor_t rnnDesc, const int32_t *devSeqLengths,
                                   cudnnRNNDataDescriptor_t xDesc, cudnnRNNDataDescriptor_t yDesc,
                                   fdnn_rnn_problem_t *p);

/* The same from xDesc alone, with its own lengths (the size queries). */
cudnnStatus_t fdnn_rnn_problem_seq_x(cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc,
                                     fdnn_rnn_problem_t *p);

/* hDesc ([layers*dirs, batch, projSize], packed, the RNN's type) and, for
 * LSTM when need_c, cDesc ([layers*dirs, batch, hiddenSize]). */
cudnnStatus_t fdnn_rnn_check_states(const fdnn_rnn_problem_t *p, cudnnTensorDescriptor_t hDesc,
                                    cudnnTensorDescriptor_t cDesc, bool need_c);

/* Writes the padding fill of an unpacked output (when the data descriptor
 * has one) into the padding positions of `out`. */
void fdnn_rnn_fill_padding(const fdnn_rnn_problem_t *p, cudnnRNNDataDescriptor_t desc, void *out);

/* The legacy (cuDNN 5-7) interface: one 3-D tensor descriptor per time step,
 * [batch_t, vector, 1] with non-increasing batch_t (a SEQ_MAJOR_PACKED
 * sequence set) of the RNN's data type.  Fills p (the input size from xDesc[0] when the RNN
 * descriptor has none) and *lens (malloc'ed, B entries; free it).  yDesc is
 * required (BAD_PARAM when NULL); every size of the problem fits. */
cudnnStatus_t fdnn_rnn_problem_legacy(cudnnRNNDescriptor_t rnnDesc, int seqLength,
                                      const cudnnTensorDescriptor_t *xDesc, const cudnnTensorDescriptor_t *yDesc,
                                      fdnn_rnn_problem_t *p, int **lens);

/* The same from xDesc alone (the size queries). */
cudnnStatus_t fdnn_rnn_problem_legacy_x(cudnnRNNDescriptor_t rnnDesc, int seqLength,
                                        const cudnnTensorDescriptor_t *xDesc, fdnn_rnn_problem_t *p, int **lens);

/* wDesc of the legacy calls: a set filter of the RNN's data type of at least the weight
 * space's elements. */
/* For a training forward with dropout between layers (p->drop > 0): the
 * seed and call counter from the dropout descriptor's states into p, and
 * the counter advanced (BAD_PARAM without initialised states).  Call it
 * last, after every other check, so a refused call draws nothing. */
cudnnStatus_t fdnn_rnn_training_dropout(cudnnRNNDescriptor_t rnnDesc, fdnn_rnn_problem_t *p);

cudnnStatus_t fdnn_rnn_check_wdesc(const fdnn_rnn_problem_t *p, cudnnFilterDescriptor_t wDesc, const char *what);

/* The legacy forward (inference when !training: reserveSpace unused). */
cudnnStatus_t fdnn_rnn_legacy_forward(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                                      const cudnnTensorDescriptor_t *xDesc, const void *x,
                                      const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                      const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                      const cudnnFilterDescriptor_t wDesc, const void *w,
                                      const cudnnTensorDescriptor_t *yDesc, void *y,
                                      const cudnnTensorDescriptor_t hyDesc, void *hy,
                                      const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                      size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes,
                                      bool training);

/* The *Ex interface (rnn_ex.c): x and y are RNN data descriptors.  The
 * problem comes from rnnDesc and xDesc (the input size from xDesc when the
 * descriptor has none, as after cudnnSetRNNDescriptor_v6; otherwise they must
 * agree), the sequences from xDesc with its own lengths; yDesc as in
 * fdnn_rnn_problem_seq.  `xname` names xDesc in the reasons (dxDesc). */
cudnnStatus_t fdnn_rnn_problem_ex(cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc, const char *xname,
                                  cudnnRNNDataDescriptor_t yDesc, fdnn_rnn_problem_t *p);

/* The attention hooks of the *Ex calls (keys, cAttn, iAttn, queries, dcAttn,
 * dkeys) are reserved in cuDNN 8.9: NOT_SUPPORTED unless both the descriptor
 * and the buffer are NULL. */
cudnnStatus_t fdnn_rnn_check_reserved(const void *desc, const void *data, const char *what);

/* cudnnRNNForwardInferenceEx / TrainingEx (inference when !training:
 * reserveSpace unused), after the caller has checked the handle and the
 * reserved attention arguments.  The minimum workspace and reserve are those
 * of cudnnGetRNNTempSpaceSizes for xDesc (see rnn_ex.c). */
cudnnStatus_t fdnn_rnn_ex_forward(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                  const cudnnRNNDataDescriptor_t xDesc, const void *x,
                                  const cudnnTensorDescriptor_t hxDesc, const void *hx,
                                  const cudnnTensorDescriptor_t cxDesc, const void *cx,
                                  const cudnnFilterDescriptor_t wDesc, const void *w,
                                  const cudnnRNNDataDescriptor_t yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                                  void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                  size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes,
                                  bool training);

#endif /* FDNN_API_RNN_COMMON_H */

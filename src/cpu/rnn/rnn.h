/* SPDX-License-Identifier: Apache-2.0
 * Recurrent networks on the CPU (FP32, FP64): the weight-space layout, the
 * workspace/reserve sizes and the three operations behind cudnnRNNForward,
 * cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8.
 *
 * Weight space (elements), one block per pseudo-layer p = layer * dirs + dir
 * (P = projSize, equal to H without a recurrent projection; in_l is the
 * input size for layer 0 and dirs * P above):
 *   W  [gates*H][in_l]  input matrices of gates 0..g-1 (absent for layer 0
 *                       with SKIP_INPUT), each H rows of in_l
 *   R  [gates*H][P]     recurrent matrices of gates 0..g-1
 *   bW [gates*H]        input biases   (DOUBLE, SINGLE_INP)
 *   bR [gates*H]        recurrent biases (DOUBLE, SINGLE_REC)
 *   Pm [P][H]           LSTM recurrent projection (only when P < H; no bias)
 * Gate order is cuDNN's: LSTM i,f,g,o; GRU r,z,h'; RNN one gate.  Stacking
 * the gates makes all input products of a layer one GEMM and each recurrent
 * step one GEMM.
 *
 * Internally sequences are time-major and padded: row (t, b) = t*B + b.  A
 * sequence b is active at time t when t < len[b]; inactive rows keep their
 * state (the backward direction of a short sequence starts at len[b]-1 from
 * hx) and their outputs/gradients are zero.
 *
 * Recurrent projection (LSTM, P < H): the cell output m = o * tanh(c) (H
 * wide) is projected, h = Pm m (P wide); h feeds the recurrence, y and the
 * next layer, c stays H wide.
 *
 * Dropout between layers (training only): the output of layer l < layers-1
 * is multiplied by a 0 or 1/(1-p) mask before layer l+1 reads it.  Element
 * (l, row, k) of the internal [TB][dirs*P] layout is kept when the Philox
 * number fdnn_dropout_random(seed, call, (l*TB + row)*dirs*P + k) is at or
 * above p * 2^32, the rule of cudnnDropoutForward (src/cpu/dropout).  The
 * mask and the dropped output are kept in the reserve space, so the
 * backward calls apply the same mask.
 *
 * HALF and BFLOAT16 data (rnn_stage.c): the FP32 kernels run on FP32
 * copies of the operands kept in the workspace after the FP32 workspace
 * (weights widened once per call, x/hx/cx/dy/dhy/dcy on read) and the
 * results are rounded to nearest even into the user's buffers; the reserve
 * space holds FP32 values.  With HALF math precision (round_half) the FP32
 * forward kernel also rounds to half the gate pre-activations (after the
 * input and recurrent parts are summed, for GRU the r/z sums and the n
 * pre-activation), the cell state c, the cell output m = o tanh(c) (h
 * without a projection; the unprojected m with one) and the projected h:
 * the values cuDNN holds in half between its kernels.  Backward runs in
 * FP32 for both math precisions; its results are rounded on write.
 *
 * Determinism: every product goes through fdnn_sgemm (fixed blocking) and the
 * elementwise kernels and bias sums have a fixed order per element, so the
 * results do not depend on the thread count. */
#ifndef FDNN_CPU_RNN_H
#define FDNN_CPU_RNN_H

#include "core/pool.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "cudnn.h"

typedef struct fdnn_rnn_problem {
    cudnnDataType_t dtype; /* storage of x, y, states, weights: FLOAT, DOUBLE,
                              HALF or BFLOAT16 (staged, see below) */
    cudnnDataType_t mprec; /* math precision: dtype, or FLOAT/HALF for HALF
                              data, FLOAT for BFLOAT16 data */
    bool round_half;       /* FP32 kernels only: round the values HALF math
                              precision holds in half (set by the staging) */
    bool tensor_op;        /* the descriptor's mathType is TENSOR_OP_MATH or
                              TENSOR_OP_MATH_ALLOW_CONVERSION (HALF data:
                              BF16 products allowed, rnn_stage.c) */
    const struct fdnn_rnn_lowp *lowp; /* FP32 kernels only: set by the staging
                              for BF16 products (rnn_internal.h), else NULL */
    cudnnRNNMode_t cell;
    int gates;       /* 1 (RELU/TANH), 4 (LSTM), 3 (GRU) */
    int dirs;        /* 1 or 2 */
    int layers;
    int64_t input;   /* vector size of x */
    int64_t hidden;
    int64_t proj;    /* width of h and of y per direction: projSize (< hidden
                        for an LSTM recurrent projection), else hidden */
    bool skip_input; /* layer 0 adds x to every gate instead of W x */
    bool bias_w, bias_r;
    bool clip;       /* LSTM cell clipping */
    bool clip_nan;   /* propagate NaN through the clip */
    float lclip, rclip;
    /* Sequences (filled by the API layer before running). */
    int64_t T, B;
    const int *lens;              /* B entries */
    cudnnRNNDataLayout_t layout;  /* of x, y, dx, dy */
    /* Dropout between layers, set by the API layer for a training forward
     * only (drop == 0: none); seed and call from the dropout states. */
    float drop;
    uint64_t drop_seed, drop_call;
} fdnn_rnn_problem_t;

typedef struct fdnn_rnn_ctx {
    fdnn_pool_t pool;
    fdnn_isa_t isa;
    cudnnHandle_t handle; /* GEMM packing scratch */
} fdnn_rnn_ctx_t;

/* Offsets in elements of one pseudo-layer's parts in the weight space; -1 for a
 * part that does not exist. */
typedef struct fdnn_rnn_wofs {
    int64_t w, r, bw, br;
    int64_t pm; /* recurrent projection [P][H] */
    int64_t in; /* columns of W (input size of the layer) */
} fdnn_rnn_wofs_t;

/* False when a size of the problem overflows (an element count beyond
 * int64_t, or bytes beyond PTRDIFF_MAX): the weight space (from the
 * descriptor alone), then, with T and B set, the workspace (both modes),
 * the reserve and the user's x, y and state buffers.  Every size and offset
 * function below asserts that its check passed; the API layer makes the
 * checks (BAD_PARAM) before it reads a size. */
bool fdnn_rnn_weight_sizes_fit(const fdnn_rnn_problem_t *p);
bool fdnn_rnn_seq_sizes_fit(const fdnn_rnn_problem_t *p);

void fdnn_rnn_weight_offsets(const fdnn_rnn_problem_t *p, int pseudo, fdnn_rnn_wofs_t *o);
int64_t fdnn_rnn_weight_elems(const fdnn_rnn_problem_t *p);
size_t fdnn_rnn_weight_bytes(const fdnn_rnn_problem_t *p);

/* Sizes in bytes (upper bounds of what the calls use; T and B needed). */
size_t fdnn_rnn_workspace_bytes(const fdnn_rnn_problem_t *p, bool training);
size_t fdnn_rnn_reserve_bytes(const fdnn_rnn_problem_t *p);

/* Buffers are of p->dtype.  hx, cx, hy, cy may be NULL; reserve is NULL for
 * inference.  y padding is not touched (the API layer fills it).  Each
 * returns false only when GEMM packing memory ran out. */
bool fdnn_rnn_forward(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *x, void *y, const void *hx,
                      void *hy, const void *cx, void *cy, const void *w, void *ws, void *reserve);

/* Needs the reserve of a training forward with the same inputs; writes the
 * gate gradients into it for fdnn_rnn_backward_weights.  dhy, dcy, hx, cx may
 * be NULL (zero); dhx, dcx may be NULL (not written). */
bool fdnn_rnn_backward_data(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const void *dy, void *dx,
                            const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx,
                            const void *w, void *ws, void *reserve);

/* dw = (add ? dw : 0) + gradients, from the reserve after backward data. */
bool fdnn_rnn_backward_weights(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, bool add, const void *x,
                               const void *hx, void *dw, void *ws, const void *reserve);

#endif /* FDNN_CPU_RNN_H */

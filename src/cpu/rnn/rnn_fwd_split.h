/* SPDX-License-Identifier: Apache-2.0
 * The FP32 forward time loop of one direction with the hidden units split
 * over the threads (rnn_fwd_split.c).
 *
 * Why: the generic loop of rnn_t.inc runs two parallel steps per time step
 * (the recurrent product h R^T, then the cells by batch row), each handing
 * out its items dynamically.  So each step a thread multiplies a different
 * part of R (4 MiB for an LSTM of 512: no core keeps its share cached),
 * and the 256 KiB of recurrent gates Gr one thread wrote the other reads
 * for the cells.  Here the whole time loop is one parallel step of one
 * item per thread: thread t owns the hidden units [u0, u1) (blocks of 16,
 * the same for every step), packs the rows of R of its units (all gates)
 * once, computes at every step the recurrent gates of its units for all
 * batch rows into its own buffer and runs the cells of those units; the
 * only exchange is the new h (double-buffered), one wait per step.  A
 * thread that has not joined (the pool gives no item a thread of its
 * own) holds nothing back: the threads that run do its part (rnn_fwd_split.c).
 *
 * Results are those of the generic loop, bitwise, for every thread count:
 * each gate value is one microkernel call over the whole k (the same tile
 * as the generic loop's product, chosen from the full shape; an element's
 * sum does not depend on its place in the tile) and the cells' operations
 * are elementwise in the same order (the SIMD functions compute every lane
 * alike, tails included). */
#ifndef FDNN_CPU_RNN_FWD_SPLIT_H
#define FDNN_CPU_RNN_FWD_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/rnn/rnn.h"

typedef struct fdnn_rnn_split_dir {
    int d;              /* direction */
    float *G;           /* [TB][gH] input part of the gates (+ biases, but bR for GRU); in place */
    const float *R;     /* [gH][H] recurrent matrices */
    const float *br;    /* GRU: bR [gH] or NULL; unused otherwise */
    float *h, *c;       /* states [B][H] in/out (c: LSTM only) */
    float *Y;           /* layer output [TB][D*H] */
    /* Training: reserve bases of the direction ([TB][..]), else NULL.  A
     * must be G then (the activations stay where the backward reads them). */
    float *A, *C, *Rh;
} fdnn_rnn_split_dir_t;

/* True when fdnn_rnn_fwd_split runs p's forward: FP32 products (no BF16
 * products), no projection, and a tile of `isa` that reads A in place for
 * the recurrent product's shape. */
bool fdnn_rnn_fwd_split_ok(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p);

/* The time loop of one direction (rnn_t.inc's forward, after the input
 * product).  False only when memory for the packed R ran out. */
bool fdnn_rnn_fwd_split(const fdnn_rnn_ctx_t *ctx, const fdnn_rnn_problem_t *p, const fdnn_rnn_split_dir_t *a);

#endif /* FDNN_CPU_RNN_FWD_SPLIT_H */

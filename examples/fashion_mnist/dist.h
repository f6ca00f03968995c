/* SPDX-License-Identifier: Apache-2.0
 * Data-parallel training over MPI (docs/distributed.md).  Built without MPI
 * the same functions run a single process and make no MPI call, so the
 * trainer has one code path.
 *
 * A global batch of B images is cut into K = B / chunk chunks of `chunk`
 * images; the model's forward and backward always run on one chunk.  Rank r
 * of P computes chunks r*K/P .. (r+1)*K/P - 1.  The exchange then makes the
 * gradient of the global batch on every rank:
 *
 *   ordered   (default): every chunk's gradient (and batch-norm statistics
 *             and loss) is gathered on every rank (MPI_Iallgather) and
 *             summed chunk 0, 1, ..., K-1, left to right.  P only changes
 *             who computes which chunk, never the arithmetic: the weights
 *             are bitwise identical for any P dividing K.  Cost: each rank
 *             receives K gradients instead of one and sums them.
 *   allreduce (--allreduce): each rank computes its whole shard as one chunk
 *             (chunk = B / P) and MPI_Iallreduce sums the shards in
 *             whatever order Open MPI picks: less traffic and bigger
 *             kernels, results that depend on P (and on the library).
 *
 * With overlap (default), a parameter's collective starts as soon as the
 * last local chunk's backward has written its gradient, while the layers
 * below still run; MPI is progressed at every later layer. */
#ifndef FASHION_DIST_H
#define FASHION_DIST_H

#include <stdint.h>

#include "model.h"

typedef struct dist {
    int rank, size;
    int mpi; /* MPI was initialised */
} dist_t;

/* Initialises MPI when the program was built with it (errors are returned,
 * not fatal, so that a failed peer gives a message here). */
void dist_init(dist_t *d, int *argc, char ***argv);
void dist_finalize(dist_t *d);
/* Ends every rank of the job (after the caller printed why). */
void dist_abort(dist_t *d, int code);
/* 0 when every rank passes the same value; otherwise rank 0 prints which
 * ranks differ and `what` (the explanation), and every rank gets -1. */
int dist_check_same(dist_t *d, uint64_t value, const char *what);
/* Element-wise sum over the ranks, in place (integers: exact). */
void dist_sum_u64(dist_t *d, uint64_t *v, int n);
/* The sum of a value over the ranks (for reports only: order not fixed). */
double dist_sum_f64(dist_t *d, double v);

typedef enum { EXCHANGE_ORDERED, EXCHANGE_ALLREDUCE } exchange_mode_t;

typedef struct exchange_times {
    double wait;  /* seconds blocked in MPI waits (communication not hidden) */
    double fold;  /* seconds summing the gathered chunks */
    double start; /* seconds in MPI calls during the backward (starts, tests) */
    double skew;  /* without overlap: seconds in a barrier before the exchange
                   * (waiting for the slowest rank), so that `wait` is the
                   * exchange alone */
    long steps;
} exchange_times_t;

typedef struct exchange exchange_t;

/* `chunks` is K, the global number of chunks of a step; P must divide it.
 * A rank that waits `timeout` seconds (0: forever) for its peers' part of a
 * step ends the job. */
exchange_t *exchange_create(dist_t *d, model_t *m, int chunks, exchange_mode_t mode, int overlap, double timeout);
void exchange_destroy(exchange_t *e);
int exchange_local_chunks(const exchange_t *e);
int exchange_first_chunk(const exchange_t *e);
/* Before the forward of local chunk `local` (0-based): points the model's
 * gradients and statistics at that chunk's slots. */
void exchange_begin_chunk(exchange_t *e, int local);
/* After the local chunks: completes the exchange, sums, points every
 * param's grad at the global gradient, updates the running statistics and
 * returns the global batch's loss sum (local_losses: one per local chunk). */
int exchange_finish(exchange_t *e, const double *local_losses, double *loss_sum);
exchange_times_t exchange_times(const exchange_t *e);

#endif

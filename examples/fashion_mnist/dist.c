/* SPDX-License-Identifier: Apache-2.0
 * The data-parallel exchange of dist.h. */
#define _POSIX_C_SOURCE 200809L
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#ifdef FASHION_MNIST_MPI
#include <mpi.h>
#endif

static double
seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef FASHION_MNIST_MPI
static int world_rank;

/* Every MPI call is checked: with MPI_ERRORS_RETURN a failure (a peer that
 * died, a broken connection) comes back here and ends this rank with a
 * message instead of hanging or crashing. */
static void
mpi_check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "fashion_mnist: rank %d: %s failed: %s (did another rank die?)\n", world_rank, what, text);
    exit(1);
}
#define MPI_CHECK(call) mpi_check((call), #call)
#endif

void
dist_init(dist_t *d, int *argc, char ***argv)
{
    *d = (dist_t){.rank = 0, .size = 1, .mpi = 0};
#ifdef FASHION_MNIST_MPI
    /* Started by hand, the program is the single-process one and makes no
     * MPI call at all (no singleton MPI_Init: it would start Open MPI's
     * runtime for nothing, and its allocations would trouble leak checks). */
    if (getenv("OMPI_COMM_WORLD_SIZE") == NULL && getenv("PMIX_RANK") == NULL && getenv("PMI_RANK") == NULL)
        return;
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    world_rank = d->rank;
    d->mpi = 1;
#else
    (void)argc;
    (void)argv;
#endif
}

void
dist_finalize(dist_t *d)
{
#ifdef FASHION_MNIST_MPI
    if (d->mpi)
        MPI_Finalize();
#endif
    d->mpi = 0;
}

void
dist_abort(dist_t *d, int code)
{
    fflush(stdout);
    fflush(stderr);
#ifdef FASHION_MNIST_MPI
    if (d->mpi && d->size > 1)
        MPI_Abort(MPI_COMM_WORLD, code);
#endif
    (void)d;
    exit(code);
}

int
dist_check_same(dist_t *d, uint64_t value, const char *what)
{
    if (d->size == 1)
        return 0;
#ifdef FASHION_MNIST_MPI
    unsigned long long *all = malloc((size_t)d->size * sizeof(*all));
    unsigned long long mine = value;
    MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD));
    int same = 1;
    for (int r = 1; r < d->size; r++)
        if (all[r] != all[0]) {
            same = 0;
            if (d->rank == 0)
                fprintf(stderr, "fashion_mnist: rank %d differs from rank 0 (%016llx, %016llx): %s\n", r, all[r],
                        all[0], what);
        }
    free(all);
    return same ? 0 : -1;
#else
    (void)value;
    (void)what;
    return 0;
#endif
}

void
dist_sum_u64(dist_t *d, uint64_t *v, int n)
{
#ifdef FASHION_MNIST_MPI
    if (d->size > 1) {
        unsigned long long *tmp = malloc((size_t)n * sizeof(*tmp));
        for (int i = 0; i < n; i++)
            tmp[i] = v[i];
        MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, tmp, n, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            v[i] = tmp[i];
        free(tmp);
    }
#else
    (void)d;
    (void)v;
    (void)n;
#endif
}

double
dist_sum_f64(dist_t *d, double v)
{
#ifdef FASHION_MNIST_MPI
    if (d->size > 1)
        MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
#else
    (void)d;
#endif
    return v;
}

/* ---- the gradient exchange ------------------------------------------- */

/* Per local chunk j, one request per param and one for the statistics
 * (index nparams): chunk j's part goes out as soon as that chunk has
 * produced it, while the later chunks and layers still compute.  The
 * losses go once per step. */
struct exchange {
    dist_t *d;
    model_t *m;
    exchange_mode_t mode;
    int overlap;
    int chunks, local, first; /* K, K / P, this rank's first chunk */
    int slotted;              /* K > 1: gradients go to per-chunk slots */
    int cur;                  /* the local chunk running */
    float **slots;            /* per param: gathered chunk gradients (ordered: K, allreduce: 1) x count */
    float **sums;             /* per param: the summed gradient (ordered mode) */
    float *stat_slots;        /* per chunk: every layer's mean and variance */
    float *stat_sum;
    size_t stat_count; /* floats per chunk in stat_slots */
    cudnnTensorDescriptor_t stat_desc;
    double *losses; /* K */
    int nreq;       /* per local chunk: nparams + 1 */
    unsigned char *started; /* [local][nreq] */
#ifdef FASHION_MNIST_MPI
    MPI_Request *req; /* [local][nreq] */
    MPI_Request loss_req;
    MPI_Datatype *types; /* [nreq] (ordered): one chunk's part, contiguous */
    int ntypes;          /* committed so far */
    int *ones, *displs;  /* [P], [local][P]: where each rank's chunk j lands */
#endif
    double timeout; /* seconds without progress before giving up; 0: never */
    exchange_times_t times;
};

#define REQ_STATS(e) ((e)->m->nparams)

static size_t
slot_chunks(const exchange_t *e)
{
    return e->mode == EXCHANGE_ORDERED ? (size_t)e->chunks : 1;
}

#ifdef FASHION_MNIST_MPI
static void *
req_buffer(const exchange_t *e, int i)
{
    return i < e->m->nparams ? (void *)e->slots[i] : (void *)e->stat_slots;
}

static size_t
req_count(const exchange_t *e, int i)
{
    return i < e->m->nparams ? e->m->params[i]->count : e->stat_count;
}
#endif

/* Starts the collective of request i for local chunk j.  Ordered: every
 * rank's chunk j lands at its global slot (rank * local + j), with
 * MPI_Iallgatherv in place; allreduce (one local chunk): MPI_Iallreduce. */
static void
start(exchange_t *e, int j, int i)
{
    unsigned char *started = &e->started[(size_t)j * (size_t)e->nreq + (size_t)i];
    if (*started)
        return;
    *started = 1;
#ifdef FASHION_MNIST_MPI
    if (e->d->size == 1)
        return;
    double t0 = seconds();
    MPI_Request *req = &e->req[(size_t)j * (size_t)e->nreq + (size_t)i];
    if (e->mode == EXCHANGE_ORDERED)
        MPI_CHECK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, req_buffer(e, i), e->ones,
                                  e->displs + (size_t)j * (size_t)e->d->size, e->types[i], MPI_COMM_WORLD, req));
    else
        MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, req_buffer(e, i), (int)req_count(e, i), MPI_FLOAT, MPI_SUM,
                                 MPI_COMM_WORLD, req));
    /* Drive the ones already started: Open MPI progresses nonblocking
     * collectives only inside MPI calls. */
    int flag;
    MPI_CHECK(MPI_Testall(e->local * e->nreq, e->req, &flag, MPI_STATUSES_IGNORE));
    e->times.start += seconds() - t0;
#endif
}

static void
on_ready(void *ctx, int what)
{
    exchange_t *e = ctx;
    if (e->overlap && e->slotted)
        start(e, e->cur, what == MODEL_STATS_READY ? REQ_STATS(e) : what);
}

exchange_t *
exchange_create(dist_t *d, model_t *m, int chunks, exchange_mode_t mode, int overlap, double timeout)
{
    exchange_t *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return NULL;
    e->d = d;
    e->m = m;
    e->mode = mode;
    e->overlap = overlap;
    e->timeout = timeout;
    e->chunks = chunks;
    e->local = chunks / d->size;
    e->first = d->rank * e->local;
    e->slotted = chunks > 1;
    e->nreq = m->nparams + 1;
    e->losses = calloc((size_t)chunks, sizeof(double));
    e->slots = calloc((size_t)m->nparams, sizeof(float *));
    e->sums = calloc((size_t)m->nparams, sizeof(float *));
    e->started = calloc((size_t)e->local * (size_t)e->nreq, 1);
    if (e->losses == NULL || e->slots == NULL || e->sums == NULL || e->started == NULL) {
        exchange_destroy(e);
        return NULL;
    }
#ifdef FASHION_MNIST_MPI
    e->loss_req = MPI_REQUEST_NULL;
    e->req = malloc((size_t)e->local * (size_t)e->nreq * sizeof(MPI_Request));
    if (e->req == NULL) {
        exchange_destroy(e);
        return NULL;
    }
    for (size_t i = 0; i < (size_t)e->local * (size_t)e->nreq; i++)
        e->req[i] = MPI_REQUEST_NULL;
#endif
    m->chunk_stats = e->slotted;
    m->on_ready = on_ready;
    m->on_ready_ctx = e;
    if (!e->slotted) /* one chunk: the model's own buffers, today's program */
        return e;
    for (int i = 0; i < m->nparams; i++) {
        e->slots[i] = model_alloc(slot_chunks(e) * m->params[i]->count);
        e->sums[i] = mode == EXCHANGE_ORDERED ? model_alloc(m->params[i]->count) : e->slots[i];
        if (e->slots[i] == NULL || e->sums[i] == NULL) {
            exchange_destroy(e);
            return NULL;
        }
    }
    for (int s = 0; s < m->nstats; s++)
        e->stat_count += 2 * (size_t)m->stats[s]->channels;
    e->stat_slots = model_alloc(slot_chunks(e) * e->stat_count);
    e->stat_sum = model_alloc(e->stat_count);
    e->stat_desc = model_tensor4d(1, (int)e->stat_count, 1, 1);
    if (e->stat_slots == NULL || e->stat_sum == NULL || e->stat_desc == NULL) {
        exchange_destroy(e);
        return NULL;
    }
#ifdef FASHION_MNIST_MPI
    if (mode == EXCHANGE_ORDERED && d->size > 1) {
        int p = d->size;
        e->types = calloc((size_t)e->nreq, sizeof(MPI_Datatype));
        e->ones = malloc((size_t)p * sizeof(int));
        e->displs = malloc((size_t)e->local * (size_t)p * sizeof(int));
        if (e->types == NULL || e->ones == NULL || e->displs == NULL) {
            exchange_destroy(e);
            return NULL;
        }
        for (int i = 0; i < e->nreq; i++, e->ntypes++) {
            MPI_CHECK(MPI_Type_contiguous((int)req_count(e, i), MPI_FLOAT, &e->types[i]));
            MPI_CHECK(MPI_Type_commit(&e->types[i]));
        }
        for (int r = 0; r < p; r++)
            e->ones[r] = 1;
        for (int j = 0; j < e->local; j++)
            for (int r = 0; r < p; r++)
                e->displs[j * p + r] = r * e->local + j;
    }
#endif
    return e;
}

void
exchange_destroy(exchange_t *e)
{
    if (e == NULL)
        return;
    for (int i = 0; e->slots != NULL && i < e->m->nparams; i++) {
        if (e->sums[i] != e->slots[i])
            cudaFree(e->sums[i]);
        cudaFree(e->slots[i]);
    }
    free(e->slots);
    free(e->sums);
    cudaFree(e->stat_slots);
    cudaFree(e->stat_sum);
    if (e->stat_desc != NULL)
        cudnnDestroyTensorDescriptor(e->stat_desc);
    free(e->losses);
    free(e->started);
#ifdef FASHION_MNIST_MPI
    free(e->req);
    for (int i = 0; i < e->ntypes; i++)
        MPI_Type_free(&e->types[i]);
    free(e->types);
    free(e->ones);
    free(e->displs);
#endif
    e->m->on_ready = NULL;
    free(e);
}

int
exchange_local_chunks(const exchange_t *e)
{
    return e->local;
}

int
exchange_first_chunk(const exchange_t *e)
{
    return e->first;
}

exchange_times_t
exchange_times(const exchange_t *e)
{
    return e->times;
}

void
exchange_begin_chunk(exchange_t *e, int local)
{
    model_t *m = e->m;
    e->cur = local;
    if (local == 0)
        memset(e->started, 0, (size_t)e->local * (size_t)e->nreq);
    if (!e->slotted)
        return;
    /* ordered: the chunk's own slot; allreduce: the single local slot. */
    size_t c = e->mode == EXCHANGE_ORDERED ? (size_t)(e->first + local) : 0;
    for (int i = 0; i < m->nparams; i++)
        m->params[i]->grad = e->slots[i] + c * m->params[i]->count;
    float *s = e->stat_slots + c * e->stat_count;
    for (int k = 0; k < m->nstats; k++) {
        m->stats[k]->chunk_mean = s;
        m->stats[k]->chunk_var = s + m->stats[k]->channels;
        s += 2 * (size_t)m->stats[k]->channels;
    }
}

static const float one = 1.0f, zero = 0.0f;

/* sum = slot 0 + slot 1 + ... + slot K-1, left to right. */
static int
fold(exchange_t *e, cudnnTensorDescriptor_t desc, const float *slots, size_t count, float *sum)
{
    double t0 = seconds();
    cudnnStatus_t s = cudnnAddTensor(e->m->handle, &one, desc, slots, &zero, desc, sum);
    for (int c = 1; c < e->chunks && s == CUDNN_STATUS_SUCCESS; c++)
        s = cudnnAddTensor(e->m->handle, &one, desc, slots + (size_t)c * count, &one, desc, sum);
    e->times.fold += seconds() - t0;
    if (s != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "fashion_mnist: summing the chunk gradients failed: %s\n", cudnnGetErrorString(s));
        return -1;
    }
    return 0;
}

#ifdef FASHION_MNIST_MPI
/* Waits for a request (no-op in a single process).  After a millisecond's
 * spin it polls with short sleeps rather than MPI_Wait's endless busy
 * loop: on a shared or oversubscribed machine a spinning rank takes the
 * core its late peer needs.  A peer that makes no progress for e->timeout
 * seconds (stopped, hung, unreachable) ends the job with a message. */
static void
wait_request(exchange_t *e, MPI_Request *req)
{
    if (e->d->size == 1)
        return;
    double t0 = seconds();
    int done = 0;
    MPI_CHECK(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    while (!done) {
        /* Spin the first millisecond (a message in flight completes within
         * it on one machine), then sleep between tests. */
        if (seconds() - t0 > 1e-3) {
            struct timespec pause = {0, 20000};
            nanosleep(&pause, NULL);
        }
        MPI_CHECK(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (!done && e->timeout > 0 && seconds() - t0 > e->timeout) {
            fprintf(stderr,
                    "fashion_mnist: rank %d: no gradients from the other ranks for %.0f s: one is stopped, hung "
                    "or unreachable; ending the job\n",
                    e->d->rank, e->timeout);
            dist_abort(e->d, 1);
        }
    }
    e->times.wait += seconds() - t0;
}
#endif

/* Waits for request i of every local chunk. */
static void
wait_for(exchange_t *e, int i)
{
#ifdef FASHION_MNIST_MPI
    for (int j = 0; j < e->local; j++)
        wait_request(e, &e->req[(size_t)j * (size_t)e->nreq + (size_t)i]);
#else
    (void)e;
    (void)i;
#endif
}

int
exchange_finish(exchange_t *e, const double *local_losses, double *loss_sum)
{
    model_t *m = e->m;
    e->times.steps++;
    size_t lc = e->mode == EXCHANGE_ORDERED ? (size_t)e->first : 0;
    for (int j = 0; j < e->local; j++)
        e->losses[lc + (size_t)j] = local_losses[j];
    if (!e->slotted) { /* one chunk, one process */
        *loss_sum = e->losses[0];
        return 0;
    }
#ifdef FASHION_MNIST_MPI
    if (e->d->size > 1) {
        if (!e->overlap) {
            double t0 = seconds();
            MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            e->times.skew += seconds() - t0;
        }
        /* Without overlap (or for what the backward did not report), start
         * now, in the order every rank uses. */
        for (int j = 0; j < e->local; j++) {
            start(e, j, REQ_STATS(e));
            for (int i = m->nparams - 1; i >= 0; i--)
                start(e, j, i);
        }
        if (e->mode == EXCHANGE_ORDERED)
            MPI_CHECK(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, e->losses, e->local, MPI_DOUBLE,
                                     MPI_COMM_WORLD, &e->loss_req));
        else
            MPI_CHECK(
                MPI_Iallreduce(MPI_IN_PLACE, e->losses, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &e->loss_req));
    }
#endif

    for (int i = m->nparams - 1; i >= 0; i--) {
        param_t *p = m->params[i];
        wait_for(e, i);
        if (e->mode == EXCHANGE_ORDERED && fold(e, p->desc, e->slots[i], p->count, e->sums[i]) != 0)
            return -1;
        p->grad = e->sums[i];
    }
    wait_for(e, REQ_STATS(e));
    const float *stat = e->stat_slots;
    if (e->mode == EXCHANGE_ORDERED) {
        if (fold(e, e->stat_desc, e->stat_slots, e->stat_count, e->stat_sum) != 0)
            return -1;
        stat = e->stat_sum;
    }
    /* running = (1 - f) * running + f * (sum over the chunks / K) */
    const float keep = (float)(1.0 - BN_AVERAGE), take = (float)(BN_AVERAGE / e->chunks);
    for (int k = 0; k < m->nstats; k++) {
        bn_stats_t *s = m->stats[k];
        if (cudnnAddTensor(m->handle, &take, s->desc, stat, &keep, s->desc, s->running_mean) != CUDNN_STATUS_SUCCESS ||
            cudnnAddTensor(m->handle, &take, s->desc, stat + s->channels, &keep, s->desc, s->running_var) !=
                CUDNN_STATUS_SUCCESS)
            return -1;
        stat += 2 * (size_t)s->channels;
    }
#ifdef FASHION_MNIST_MPI
    if (e->d->size > 1)
        wait_request(e, &e->loss_req);
#endif
    size_t nl = e->mode == EXCHANGE_ORDERED ? (size_t)e->chunks : 1;
    double loss = 0;
    for (size_t c = 0; c < nl; c++)
        loss += e->losses[c];
    *loss_sum = loss;
    return 0;
}

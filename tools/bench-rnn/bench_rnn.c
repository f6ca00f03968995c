/* SPDX-License-Identifier: Apache-2.0
 * bench-rnn: LSTM, GRU and multi-head attention through the cuDNN API,
 * FP32 against BFLOAT16 data (and oneDNN's FP32 RNN primitives in the same
 * run, onednn_rnn.c), interleaved per case.
 *
 *   bench-rnn [--threads T] [--reps N] [--filter WORD] [--torch] [--phases]
 *
 * Cases: LSTM and GRU, input = hidden = 512, T = 50, batch 32, 1 layer,
 * unidirectional; "infer" is cudnnRNNForward (inference), "train" a
 * training forward + cudnnRNNBackwardData_v8 + cudnnRNNBackwardWeights_v8.
 * Attention: 8 heads, 512-wide queries/keys/values, projections 64 per
 * head, output 512, 128 query and key steps, batch 8; "fwd" is an
 * inference cudnnMultiHeadAttnForward, "train" a training forward +
 * backward data + backward weights; the same at 512 steps, batch 4.  With
 * --torch the attention rows gain PyTorch's torch.nn.MultiheadAttention
 * on the same computation (torch_attn.c) and its ratio to FreeDNN FP32.
 *
 * --phases adds a line per training row with the median of each phase:
 * FreeDNN's training forward, BackwardData and BackwardWeights; oneDNN's
 * forward (its weight reorders included) and its backward primitive (data
 * and weights in one; the reorders and the clearing of the weight
 * gradients included), to show where a gap is.
 *
 * Time: with 1 thread the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID:
 * the machine is shared, time spent descheduled is not counted), else
 * wall time; median and minimum of N runs after one warm-up. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cudnn.h>
#include <freednn.h>

#include "bench_rnn.h"

static int g_threads = 1, g_reps = 7;
static int g_only = 0; /* 1: FP32 only, 2: BF16 only (profiling) */
static bool g_phases = false;
static double g_phase_t[64][BENCH_PHASES], g_phase_last;
static int g_rep;

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(g_threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void
bench_phase(int i)
{
    if (!g_phases)
        return;
    double t = now_ms();
    g_phase_t[g_rep][i] += t - g_phase_last;
    g_phase_last = t;
}

bench_time_t
bench_time(void (*fn)(void *), void *ctx)
{
    g_rep = 0;
    fn(ctx);
    double t[64];
    int n = g_reps < 64 ? g_reps : 64;
    for (int i = 0; i < n; i++) {
        g_rep = i;
        memset(g_phase_t[i], 0, sizeof(g_phase_t[i]));
        double s = now_ms();
        g_phase_last = s;
        fn(ctx);
        t[i] = now_ms() - s;
    }
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    bench_time_t r = {t[n / 2], t[0], {0}};
    for (int ph = 0; ph < BENCH_PHASES; ph++) {
        double v[64];
        for (int i = 0; i < n; i++)
            v[i] = g_phase_t[i][ph];
        qsort(v, (size_t)n, sizeof(double), cmp_double);
        r.phase[ph] = v[n / 2];
    }
    return r;
}

int
bench_threads(void)
{
    return g_threads;
}

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudnnStatus_t s_ = (x);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static cudnnHandle_t handle;

static uint16_t
to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* n random values in [-a, a] of type dt. */
static void *
random_buf(cudnnDataType_t dt, size_t n, float a)
{
    size_t es = dt == CUDNN_DATA_FLOAT ? 4 : 2;
    void *p = malloc(n * es + 64);
    for (size_t i = 0; i < n; i++) {
        float v = a * (2.0f * (float)rand() / (float)RAND_MAX - 1.0f);
        if (es == 4)
            ((float *)p)[i] = v;
        else
            ((uint16_t *)p)[i] = to_bf16(v);
    }
    return p;
}

/* ---- RNN ---- */

typedef struct rnn_run {
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd;
    int32_t *lens;
    void *x, *y, *dy, *dx, *hx, *cx, *w, *dw, *ws, *rs;
    size_t wbytes, wsbytes, rsbytes;
    bool train;
} rnn_run_t;

static void
rnn_setup(rnn_run_t *r, cudnnRNNMode_t cell, cudnnDataType_t dt, int T, int B, int in, int H, bool train)
{
    memset(r, 0, sizeof(*r));
    r->train = train;
    CK(cudnnCreateRNNDescriptor(&r->rnn));
    CK(cudnnSetRNNDescriptor_v8(r->rnn, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                CUDNN_LINEAR_INPUT, dt, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, in, H, H, 1, NULL,
                                CUDNN_RNN_PADDED_IO_DISABLED));
    r->lens = malloc(sizeof(int32_t) * (size_t)B);
    for (int b = 0; b < B; b++)
        r->lens[b] = T;
    CK(cudnnCreateRNNDataDescriptor(&r->xd));
    CK(cudnnCreateRNNDataDescriptor(&r->yd));
    CK(cudnnSetRNNDataDescriptor(r->xd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, in, r->lens, NULL));
    CK(cudnnSetRNNDataDescriptor(r->yd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, H, r->lens, NULL));
    int dims[3] = {1, B, H}, str[3] = {B * H, H, 1};
    CK(cudnnCreateTensorDescriptor(&r->hd));
    CK(cudnnSetTensorNdDescriptor(r->hd, dt, 3, dims, str));
    CK(cudnnGetRNNWeightSpaceSize(handle, r->rnn, &r->wbytes));
    CK(cudnnGetRNNTempSpaceSizes(handle, r->rnn, train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, r->xd,
                                 &r->wsbytes, &r->rsbytes));
    size_t es = dt == CUDNN_DATA_FLOAT ? 4 : 2;
    r->w = random_buf(dt, r->wbytes / es, 0.05f);
    r->dw = random_buf(dt, r->wbytes / es, 0.0f);
    r->x = random_buf(dt, (size_t)T * B * in, 1.0f);
    r->dx = random_buf(dt, (size_t)T * B * in, 0.0f);
    r->y = random_buf(dt, (size_t)T * B * H, 0.0f);
    r->dy = random_buf(dt, (size_t)T * B * H, 1.0f);
    r->hx = random_buf(dt, (size_t)B * H, 0.5f);
    r->cx = random_buf(dt, (size_t)B * H, 0.5f);
    r->ws = malloc(r->wsbytes + 64);
    r->rs = r->rsbytes ? malloc(r->rsbytes) : NULL;
}

static void
rnn_free(rnn_run_t *r)
{
    cudnnDestroyRNNDescriptor(r->rnn);
    cudnnDestroyRNNDataDescriptor(r->xd), cudnnDestroyRNNDataDescriptor(r->yd);
    cudnnDestroyTensorDescriptor(r->hd);
    free(r->lens), free(r->x), free(r->y), free(r->dy), free(r->dx), free(r->hx), free(r->cx), free(r->w);
    free(r->dw), free(r->ws), free(r->rs);
}

static void
rnn_step(void *arg)
{
    rnn_run_t *r = arg;
    CK(cudnnRNNForward(handle, r->rnn, r->train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, r->lens, r->xd,
                       r->x, r->yd, r->y, r->hd, r->hx, NULL, r->hd, r->cx, NULL, r->wbytes, r->w, r->wsbytes, r->ws,
                       r->rsbytes, r->rs));
    bench_phase(0);
    if (!r->train)
        return;
    CK(cudnnRNNBackwardData_v8(handle, r->rnn, r->lens, r->yd, r->y, r->dy, r->xd, r->dx, r->hd, r->hx, NULL, NULL,
                               r->hd, r->cx, NULL, NULL, r->wbytes, r->w, r->wsbytes, r->ws, r->rsbytes, r->rs));
    bench_phase(1);
    CK(cudnnRNNBackwardWeights_v8(handle, r->rnn, CUDNN_WGRAD_MODE_SET, r->lens, r->xd, r->x, r->hd, r->hx, r->yd,
                                  r->y, r->wbytes, r->dw, r->wsbytes, r->ws, r->rsbytes, r->rs));
    bench_phase(2);
}

static bench_time_t
time_rnn(cudnnRNNMode_t cell, cudnnDataType_t dt, int T, int B, int in, int H, bool train)
{
    rnn_run_t r;
    rnn_setup(&r, cell, dt, T, B, in, H, train);
    bench_time_t t = bench_time(rnn_step, &r);
    rnn_free(&r);
    return t;
}

/* ---- attention ---- */

typedef struct attn_run {
    cudnnAttnDescriptor_t attn;
    cudnnSeqDataDescriptor_t qd, od;
    int *qlen, *lo, *hi;
    void *q, *k, *v, *o, *dout, *dq, *dk, *dv, *w, *dw, *ws, *rs;
    size_t wbytes, wsbytes, rsbytes;
    bool train;
} attn_run_t;

static void
attn_setup(attn_run_t *a, cudnnDataType_t dt, int heads, int E, int L, int N, bool train)
{
    memset(a, 0, sizeof(*a));
    a->train = train;
    int P = E / heads;
    CK(cudnnCreateAttnDescriptor(&a->attn));
    CK(cudnnSetAttnDescriptor(a->attn, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE | CUDNN_ATTN_DISABLE_PROJ_BIASES, heads,
                              1.0 / sqrt((double)P), dt, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, NULL, NULL, E, E, E, P,
                              P, P, E, L, L, N, 1));
    CK(cudnnGetMultiHeadAttnBuffers(handle, a->attn, &a->wbytes, &a->wsbytes, &a->rsbytes));
    a->qlen = malloc(sizeof(int) * (size_t)N);
    a->lo = malloc(sizeof(int) * (size_t)L), a->hi = malloc(sizeof(int) * (size_t)L);
    for (int i = 0; i < N; i++)
        a->qlen[i] = L;
    for (int t = 0; t < L; t++)
        a->lo[t] = 0, a->hi[t] = L;
    cudnnSeqDataAxis_t axes[4] = {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                  CUDNN_SEQDATA_VECT_DIM};
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = L, dims[CUDNN_SEQDATA_BATCH_DIM] = N, dims[CUDNN_SEQDATA_BEAM_DIM] = 1;
    dims[CUDNN_SEQDATA_VECT_DIM] = E;
    CK(cudnnCreateSeqDataDescriptor(&a->qd));
    CK(cudnnSetSeqDataDescriptor(a->qd, dt, 4, dims, axes, (size_t)N, a->qlen, NULL));
    a->od = a->qd;
    size_t es = dt == CUDNN_DATA_FLOAT ? 4 : 2, n = (size_t)L * N * E;
    a->q = random_buf(dt, n, 1.0f), a->k = random_buf(dt, n, 1.0f), a->v = random_buf(dt, n, 1.0f);
    a->o = random_buf(dt, n, 0.0f), a->dout = random_buf(dt, n, 1.0f);
    a->dq = random_buf(dt, n, 0.0f), a->dk = random_buf(dt, n, 0.0f), a->dv = random_buf(dt, n, 0.0f);
    a->w = random_buf(dt, a->wbytes / es, 0.05f), a->dw = random_buf(dt, a->wbytes / es, 0.0f);
    a->ws = malloc(a->wsbytes + 64);
    a->rs = train ? malloc(a->rsbytes + 64) : NULL;
}

static void
attn_free(attn_run_t *a)
{
    cudnnDestroyAttnDescriptor(a->attn);
    cudnnDestroySeqDataDescriptor(a->qd);
    free(a->qlen), free(a->lo), free(a->hi), free(a->q), free(a->k), free(a->v), free(a->o), free(a->dout);
    free(a->dq), free(a->dk), free(a->dv), free(a->w), free(a->dw), free(a->ws), free(a->rs);
}

static void
attn_step(void *arg)
{
    attn_run_t *a = arg;
    CK(cudnnMultiHeadAttnForward(handle, a->attn, -1, a->lo, a->hi, a->qlen, a->qlen, a->qd, a->q, NULL, a->qd, a->k,
                                 a->qd, a->v, a->od, a->o, a->wbytes, a->w, a->wsbytes, a->ws,
                                 a->train ? a->rsbytes : 0, a->rs));
    if (!a->train)
        return;
    CK(cudnnMultiHeadAttnBackwardData(handle, a->attn, a->lo, a->hi, a->qlen, a->qlen, a->od, a->dout, a->qd, a->dq,
                                      a->q, a->qd, a->dk, a->k, a->qd, a->dv, a->v, a->wbytes, a->w, a->wsbytes,
                                      a->ws, a->rsbytes, a->rs));
    CK(cudnnMultiHeadAttnBackwardWeights(handle, a->attn, CUDNN_WGRAD_MODE_SET, a->qd, a->q, a->qd, a->k, a->qd,
                                         a->v, a->od, a->dout, a->wbytes, a->w, a->dw, a->wsbytes, a->ws, a->rsbytes,
                                         a->rs));
}

static bench_time_t
time_attn(cudnnDataType_t dt, int heads, int E, int L, int N, bool train)
{
    attn_run_t a;
    attn_setup(&a, dt, heads, E, L, N, train);
    bench_time_t t = bench_time(attn_step, &a);
    attn_free(&a);
    return t;
}

/* peer: oneDNN's RNN primitive ("oneDNN", ratio "onednn") or PyTorch's
 * attention ("PyTorch", "torch"), FP32; left out when its median is 0. */
static void
row(const char *name, bench_time_t f32, bench_time_t b16, bench_time_t peer, const char *peer_name,
    const char *ratio_name)
{
    printf("%-28s threads=%d  FP32 %8.2f ms (min %8.2f)  BF16 %8.2f ms (min %8.2f)  bf16-speedup %.2fx", name,
           g_threads, f32.median, f32.min, b16.median, b16.min, f32.median / b16.median);
    if (peer.median > 0)
        printf("  %s-FP32 %8.2f ms (min %8.2f)  %s-ratio %.2fx", peer_name, peer.median, peer.min,
               ratio_name, peer.median / f32.median);
    printf("\n");
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    const char *filter = NULL;
    bool torch = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            g_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            g_only = !strcmp(argv[++i], "fp32") ? 1 : 2;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--torch"))
            torch = true;
        else if (!strcmp(argv[i], "--phases"))
            g_phases = true;
    }
    srand(13);
    CK(cudnnCreate(&handle));
    CK(freednnSetNumThreads(handle, g_threads));
    bench_onednn_init(g_threads);
    const int T = 50, B = 32, IN = 512, H = 512;
    const cudnnRNNMode_t cells[2] = {CUDNN_LSTM, CUDNN_GRU};
    for (int c = 0; c < 2; c++)
        for (int tr = 0; tr < 2; tr++) {
            char name[64];
            snprintf(name, sizeof(name), "%s h%d T%d mb%d %s", c ? "gru" : "lstm", H, T, B, tr ? "train" : "infer");
            if (filter && !strstr(name, filter))
                continue;
            bench_time_t none = {0, 0, {0}};
            bench_time_t f32 = g_only != 2 ? time_rnn(cells[c], CUDNN_DATA_FLOAT, T, B, IN, H, tr) : none;
            bench_time_t b16 = g_only != 1 ? time_rnn(cells[c], CUDNN_DATA_BFLOAT16, T, B, IN, H, tr) : none;
            bench_time_t dn = g_only == 0 ? bench_onednn_rnn(c == 0, T, B, IN, H, tr) : none;
            row(name, f32, b16, dn, "oneDNN", "onednn");
            if (g_phases && tr)
                printf("%-28s threads=%d  phases FP32 fwd %8.2f bwd-data %8.2f bwd-weights %8.2f ms  "
                       "oneDNN-FP32 fwd %8.2f bwd(data+weights) %8.2f ms\n",
                       name, g_threads, f32.phase[0], f32.phase[1], f32.phase[2], dn.phase[0], dn.phase[2]);
        }
    const struct {
        int heads, E, L, N;
    } attn_shapes[2] = {{8, 512, 128, 8}, {8, 512, 512, 4}};
    for (int s = 0; s < 2; s++)
        for (int tr = 0; tr < 2; tr++) {
            int h = attn_shapes[s].heads, E = attn_shapes[s].E, L = attn_shapes[s].L, N = attn_shapes[s].N;
            char name[64];
            snprintf(name, sizeof(name), "mha h%d e%d L%d n%d %s", h, E, L, N, tr ? "train" : "fwd");
            if (filter && !strstr(name, filter))
                continue;
            bench_time_t none = {0, 0, {0}};
            bench_time_t f32 = g_only != 2 ? time_attn(CUDNN_DATA_FLOAT, h, E, L, N, tr) : none;
            bench_time_t b16 = g_only != 1 ? time_attn(CUDNN_DATA_BFLOAT16, h, E, L, N, tr) : none;
            bench_time_t pt = torch && g_only == 0 ? bench_torch_attn(h, E, L, N, tr, g_reps) : none;
            row(name, f32, b16, pt, "PyTorch", "torch");
        }
    cudnnDestroy(handle);
    return 0;
}

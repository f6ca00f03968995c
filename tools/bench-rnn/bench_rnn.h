/* SPDX-License-Identifier: Apache-2.0
 * bench-rnn's shared pieces (bench_rnn.c, onednn_rnn.c). */
#ifndef FDNN_BENCH_RNN_H
#define FDNN_BENCH_RNN_H

#include <stdbool.h>

#define BENCH_PHASES 3

typedef struct bench_time {
    double median, min; /* ms */
    double phase[BENCH_PHASES]; /* with --phases: median of each phase's time (ms) */
} bench_time_t;

/* With --phases, the time since the previous mark (or the start of the run)
 * is added to phase i of the current run; a no-op otherwise. */
void bench_phase(int i);

/* Median and minimum of the configured runs of fn(ctx) after a warm-up. */
bench_time_t bench_time(void (*fn)(void *), void *ctx);
int bench_threads(void);

/* oneDNN's FP32 LSTM (lstm) or GRU primitive on the same shape: inference
 * forward, or training forward + backward; weights reordered into the
 * primitive's layout inside the timed region.  {0, 0} when not built. */
void bench_onednn_init(int threads);
bench_time_t bench_onednn_rnn(bool lstm, int T, int B, int in, int H, bool train);

/* PyTorch's torch.nn.MultiheadAttention on an attention row's shape, FP32,
 * the faster of its two layouts (torch_attn.c, attn_torch.py); {0, 0} when
 * the script fails. */
bench_time_t bench_torch_attn(int heads, int E, int L, int N, bool train, int reps);

#endif

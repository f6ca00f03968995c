/* SPDX-License-Identifier: Apache-2.0
 * bench-rnn's shared pieces (bench_rnn.c, onednn_rnn.c). */
#ifndef FDNN_BENCH_RNN_H
#define FDNN_BENCH_RNN_H

#include <stdbool.h>

typedef struct bench_time {
    double median, min; /* ms */
} bench_time_t;

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

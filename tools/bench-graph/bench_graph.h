/* SPDX-License-Identifier: Apache-2.0
 * bench-graph: the graph API's fused patterns side by side with separate
 * calls, oneDNN and PyTorch.  See CMakeLists.txt and docs/performance.md
 * ("Graph API"). */
#ifndef FDNN_BENCH_GRAPH_H
#define FDNN_BENCH_GRAPH_H

/* Milliseconds: the calling thread's CPU time when threads == 1 (the build
 * machine is shared; time spent descheduled is not counted), else the wall
 * clock. */
double bg_now_ms(int threads);

/* oneDNN (onednn_graph.c): best of `reps` ms, the output in NCHW / row-major;
 * negative when oneDNN failed.  *prim_ms: the convolution primitive alone. */
double bg_onednn_conv(int threads, int reps, int N, int C, int K, int H, int R, const float *x, const float *w,
                      const float *scale, const float *bias, const float *res, float *y, double *prim_ms);
double bg_onednn_matmul(int threads, int reps, int M, int N, int K, const float *a, const float *b, const float *bias,
                        float *y);

#endif /* FDNN_BENCH_GRAPH_H */

/* SPDX-License-Identifier: Apache-2.0
 * bench-rnn --torch: PyTorch's torch.nn.MultiheadAttention on an attention
 * row's shape, run by attn_torch.py under Debian's /usr/bin/python3 with the
 * same thread count (OMP/OPENBLAS_NUM_THREADS and torch.set_num_threads),
 * OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for its command alone. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "bench_rnn.h"

#ifndef FDNN_ATTN_TORCH_SCRIPT
#define FDNN_ATTN_TORCH_SCRIPT "tools/bench-rnn/attn_torch.py"
#endif

bench_time_t
bench_torch_attn(int heads, int E, int L, int N, bool train, int reps)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d "
             "/usr/bin/python3 %s --heads %d --embed %d --len %d --batch %d --iters %d --threads %d%s",
             bench_threads(), bench_threads(), FDNN_ATTN_TORCH_SCRIPT, heads, E, L, N, reps, bench_threads(),
             train ? " --train" : "");
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    bench_time_t t = {0, 0, {0}};
    char line[256], layout[32];
    int got = 0;
    while (p != NULL && fgets(line, sizeof(line), p) != NULL)
        if (sscanf(line, "result %lf %lf %31s", &t.median, &t.min, layout) == 3)
            got = 1;
    if (p == NULL || pclose(p) != 0 || !got) {
        fprintf(stderr, "bench-rnn: %s failed (is python3-torch installed?)\n", FDNN_ATTN_TORCH_SCRIPT);
        return (bench_time_t){0, 0, {0}};
    }
    return t;
}

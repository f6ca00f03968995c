#!/bin/sh
# attnl128 branch against its branch point (build-base/: libcudnn*.so* and
# bench-rnn of 5e6985d, copied before any change), alternated, branch first.
# 1 thread: the calling thread's CPU time (bench-rnn's clock at 1 thread);
# FreeDNN FP32 / BF16 then torch.nn.MultiheadAttention (--torch, OpenBLAS,
# same thread count), median and min of 9.  2 threads: wall clock.  Every
# run is preceded by `date -u; uptime` in its output file.
# Usage: run.sh [ALTERNATIONS [FILTER [TAG [THREADS]]]]  (default 3, "mha",
# "", 1): output in after_tTHREADSTAG.txt and before_tTHREADSTAG.txt.
cd "$(dirname "$0")/../../.." || exit 1
out=bench/results/2026-12-04-attnl128
n=${1:-3}
f=${2:-mha}
tag=${3:-}
t=${4:-1}
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t"
for i in $(seq "$n"); do
    { date -u; uptime; } >> $out/after_t$t$tag.txt
    $E build/tools/bench-rnn/bench-rnn --threads $t --reps 9 --filter "$f" --torch >> $out/after_t$t$tag.txt 2>&1
    { date -u; uptime; } >> $out/before_t$t$tag.txt
    $E LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads $t --reps 9 --filter "$f" --torch \
        >> $out/before_t$t$tag.txt 2>&1
done

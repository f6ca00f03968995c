#!/bin/sh
# Before/after, alternated on the same host state (per-thread CPU time,
# median of 7 after a warm-up, FP32 / BF16 / oneDNN interleaved per case by
# bench-rnn itself).  build-base/ holds the branch point's libcudnn.so.8 and
# bench-rnn (commit 230c10b, in build-base/COMMIT), copied from build/
# before any change of this branch.  Usage: run.sh SUFFIX
# (bench_rnn_t1_after_first/before_first: a run at 11:15 UTC, before the
# last commit, GRU's bR in the epilogue; _final: at the end).
cd "$(dirname "$0")/../../.." || exit 1
out=bench/results/2026-12-04-rnnspeed
sfx=${1:-final}
for i in 1 2 3; do
    { date -u; uptime; } >> $out/bench_rnn_t1_after_$sfx.txt
    build/tools/bench-rnn/bench-rnn --threads 1 --reps 7 --filter h512 >> $out/bench_rnn_t1_after_$sfx.txt 2>&1
    { date -u; uptime; } >> $out/bench_rnn_t1_before_$sfx.txt
    LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads 1 --reps 7 --filter h512 >> $out/bench_rnn_t1_before_$sfx.txt 2>&1
done

#!/bin/sh
# Before/after, alternated on the same host state.  build-base/ holds the
# branch point's libcudnn.so.8 and bench-rnn (commit 86db77d, in
# build-base/COMMIT), copied from build/ before any change of this branch.
# 1 thread: the calling thread's CPU time; 2 threads: wall time (bench-rnn's
# clocks); median of 7 after a warm-up, FreeDNN FP32 / BF16 / oneDNN
# interleaved per case by bench-rnn itself.  --phases (the branch's bench
# only; the base's ignores it) adds the per-phase medians of training.
# Usage: run.sh [ALTERNATIONS [THREAD_COUNTS]]; then summarize.py prints the
# tables (summary.txt).  Recorded: `run.sh 4` at 15:24-15:33 UTC (its last 2-thread
# alternation cut by a timeout), then `run.sh 3 1` at 15:37 UTC, appended.
cd "$(dirname "$0")/../../.." || exit 1
out=bench/results/2026-12-04-rnntrain
n=${1:-5}
for t in ${2:-1 2}; do
    for i in $(seq "$n"); do
        { date -u; uptime; } >> $out/after_t$t.txt
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/tools/bench-rnn/bench-rnn --threads $t --reps 7 \
            --phases --filter h512 >> $out/after_t$t.txt 2>&1
        { date -u; uptime; } >> $out/before_t$t.txt
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_LIBRARY_PATH=build-base build-base/bench-rnn --threads $t \
            --reps 7 --phases --filter h512 >> $out/before_t$t.txt 2>&1
    done
done

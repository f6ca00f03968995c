#!/bin/bash
# A/B of the branch point (base: freednn-bench built at ede00c9 and copied to
# build-base/) against this branch, oneDNN in every run, alternating.
# 1 thread: the calling thread's CPU time (FREEDNN_BENCH_CPU_TIME=1);
# 2 threads: wall clock.  Run from the worktree root.
# usage: bench/results/2026-12-05-trainbwd/run.sh DIR(bwd_w|bwd_d) THREADS ROUNDS OUTFILE [SHAPEFILE]
# (the loop is bench/ab-layers.sh)
exec bench/ab-layers.sh "$1" "$2" "$3" "$4" "${5:-bench/results/2026-12-05-trainbwd/mine.txt}"

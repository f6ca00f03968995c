#!/bin/bash
# A/B of the branch point (base: freednn-bench built at 9174262, main, and
# copied to build-base/ before any change) against this branch, oneDNN in
# every run, alternating base/new.  1 thread: the calling thread's CPU time
# (FREEDNN_BENCH_CPU_TIME=1); 2 threads: wall clock.  Run from the worktree root.
# usage: bench/results/2026-12-05-bwdw2t/run.sh DIR(bwd_w|bwd_d) THREADS ROUNDS OUTFILE [SHAPEFILE]
# (the loop is bench/ab-layers.sh)
exec bench/ab-layers.sh "$1" "$2" "$3" "$4" "${5:-bench/results/2026-12-05-bwdw2t/mine.txt}"

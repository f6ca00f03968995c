#!/bin/bash
# Alternated base / new rounds of the 3x3 stride-1 backward filter (algo 5)
# on the ResNet-50 lines of shapes.txt; 1 thread: calling thread's CPU time,
# 2 threads: wall clock.  usage: run.sh THREADS ROUNDS LAYOUT [NEWBIN]
t=$1; n=$2; lay=$3
BASE=/work/main/build-base/tools/freednn-bench/freednn-bench
NEW=${4:-build/tools/freednn-bench/freednn-bench}
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
for r in $(seq 1 "$n"); do
  for who in base new; do
    b=$BASE; [ $who = new ] && b=$NEW
    echo "# round $r $who t$t $lay $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t FREEDNN_BENCH_CPU_TIME=$cpu \
      "$b" --threads "$t" --iters 5 --dir bwd_w --layout "$lay" --file "${SHAPES:-bench/results/2026-12-05-wgw2t/shapes.txt}" |
      grep -v '^#' | sed "s/^/$who /"
  done
done

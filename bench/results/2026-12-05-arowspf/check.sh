#!/bin/bash
# Alternated base/new rounds (1 thread CPU time, FreeDNN only) of single lines: check.sh ROUNDS DIR LAYOUT "line"...
n=$1; d=$2; l=$3; shift 3
for line in "$@"; do
  for r in $(seq 1 "$n"); do
    for who in base new; do
      b=/work/main/build-base; [ $who = new ] && b=/work/wt/arowspf/build
      echo "$who $(env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 $b/tools/freednn-bench/freednn-bench --no-dnnl --threads 1 --iters 5 --layout $l --dir $d conv $line 2>&1 | grep -v '^#' | sed "s/^conv  */$(echo $line | tr ' =' '_-') /")"
    done
  done
done

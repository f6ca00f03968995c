#!/bin/bash
# ab.sh DIR THREADS ROUNDS OUT FILE : alternated base/new rounds
d=$1; t=$2; n=$3; out=$4; f=$5
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
: > "$out"
for r in $(seq 1 "$n"); do
  for who in base new; do
    b=/tmp/nhwc1x1/build-base/tools/freednn-bench/freednn-bench; [ $who = new ] && b=${NEW:-/tmp/nhwc1x1/dev/build/tools/freednn-bench/freednn-bench}
    echo "# round $r $who $(date -u +%H:%M:%S) $(uptime)" >> "$out"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$t" FREEDNN_BENCH_CPU_TIME=$cpu \
      "$b" --threads "$t" --iters 5 --dir "$d" --layout nhwc --file "$f" | grep -v '^#' | sed "s/^/$who /" >> "$out"
  done
done

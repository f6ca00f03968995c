#!/bin/bash
# A/B of the arows prefetch: base (main 5c5ebaa, build-base) and new
# (arowspf) alternated, 1 thread, thread CPU time, FreeDNN only (--no-dnnl),
# every 1x1 layer of ResNet-50 at mb=32 and MobileNet v2's narrow 1x1 layers.
# usage: run.sh ROUNDS LAYOUT DIRS...
cd "$(dirname "$0")"
n=$1; l=$2; shift 2
BASE=/work/main/build-base/tools/freednn-bench/freednn-bench
NEW=/work/wt/arowspf/build/tools/freednn-bench/freednn-bench
for d in "$@"; do
  for r in $(seq 1 "$n"); do
    for who in base new; do
      b=$BASE; [ $who = new ] && b=$NEW
      echo "# $d $l round $r $who $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
      env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "$b" --no-dnnl --threads 1 --iters 5 --dir "$d" \
        --layout "$l" --file shapes_1x1.txt | grep -v '^#' | sed "s/^/$who /"
    done
  done
done

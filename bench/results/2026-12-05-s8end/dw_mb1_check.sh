#!/bin/sh
# NHWC mb=1 depthwise forward / backward data, base and new alternated three
# times, 1 thread CPU time, FreeDNN only (the table's mb=1 NHWC medians fell).
#   sh bench/results/2026-12-05-s8end/dw_mb1_check.sh BASE_BUILD NEW_BUILD OUT
base=$1 new=$2 out=$3
: > $out
for r in 1 2 3; do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    for d in fwd bwd_d; do
      echo "# round $r $side $d $(uptime)" >> $out
      FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 $b/tools/freednn-bench/freednn-bench --threads 1 --iters 9 \
        --layout nhwc --dir $d --file bench/dwconv_shapes.txt --no-dnnl | grep -v '^#' | sed "s/^/$side /" >> $out
    done
  done
done

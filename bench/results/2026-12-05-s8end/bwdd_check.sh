#!/bin/sh
# The backward-data lines that read slower on the merged tree in
# layers_t2_bwd_d_new.txt, base and new alternated three times, 2 threads
# wall clock and 1 thread CPU time.
#   sh bench/results/2026-12-05-s8end/bwdd_check.sh BASE_BUILD NEW_BUILD OUT
base=$1 new=$2 out=$3
R=bench/results/2026-12-05-s8end
: > $out
for r in 1 2 3; do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    for t in 2 1; do
      c=0; [ $t = 1 ] && c=1
      echo "# round $r $side threads $t $(uptime)" >> $out
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t FREEDNN_BENCH_CPU_TIME=$c \
        $b/tools/freednn-bench/freednn-bench --threads $t --iters 5 --dir bwd_d --file $R/bwdd_check_layers.txt \
        --no-dnnl | grep -v '^#' | sed "s/^/$side t$t /" >> $out
    done
  done
done

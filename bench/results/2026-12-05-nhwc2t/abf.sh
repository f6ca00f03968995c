#!/bin/bash
# abf.sh T ROUNDS FILE OUT DIR bins...
T=$1; R=$2; F=$3; O=$4; D=$5; shift 5
for r in $(seq 1 $R); do for b in "$@"; do
 echo "# round $r $b $(date -u +%H:%M:%S) $(uptime)" >> $O
 env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$T FREEDNN_BENCH_CPU_TIME=$((T==1)) ./$b --threads $T --iters 5 --dir $D --layout nhwc --file $F 2>&1 | grep -v '^#' | sed "s/^/$b r$r /" >> $O
done; done

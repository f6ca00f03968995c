#!/bin/bash
# ab.sh T ROUNDS FILE OUT bins...
T=$1; R=$2; F=$3; O=$4; shift 4
for r in $(seq 1 $R); do for b in "$@"; do for d in fwd bwd_d; do
 env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$T FREEDNN_BENCH_CPU_TIME=$((T==1)) nice -n 5 ./$b --threads $T --iters 5 --dir $d --layout nhwc --file $F 2>&1 | grep -v '^#' | sed "s/^/$b r$r /" >> $O
done; done; done

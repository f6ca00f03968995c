#!/bin/sh
# 1 thread (CPU time of the calling thread) against 2 threads (wall clock),
# the same binary, same minute, per direction; `uptime` with each.
#   sh scale.sh BENCH_BINARY [ROUNDS]
B=$1
R=${2:-3}
L=$(dirname "$0")/layers.txt
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
for rep in $(seq 1 "$R"); do
    for d in fwd bwd_d bwd_w; do
        echo "# rep $rep $d 1thr-cpu $(uptime)"
        FREEDNN_BENCH_CPU_TIME=1 "$B" --file "$L" --threads 1 --dir $d --iters 7 --no-dnnl | grep -v '^#'
        echo "# rep $rep $d 2thr-wall $(uptime)"
        "$B" --file "$L" --threads 2 --dir $d --iters 7 --no-dnnl | grep -v '^#'
    done
done

#!/bin/sh
# usage: run.sh BUILD_DIR DIR ALGO  (1 thread, thread CPU time, oneDNN in the same run)
B=${1:-/work/wt/winograd/build}
uptime
FREEDNN_BENCH_CPU_TIME=1 $B/tools/freednn-bench/freednn-bench --threads 1 --iters ${ITERS:-5} --dir $2 --algo $3 --file $(dirname $0)/shapes.txt

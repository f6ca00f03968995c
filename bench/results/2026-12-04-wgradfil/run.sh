#!/bin/sh
# Backward-filter WINOGRAD_NONFUSED on 4x4 dy tiles (issue #19 items 2-3),
# 1 thread, CPU time, median of 5, A/B alternated 3 times:
#   sh bench/results/2026-12-04-wgradfil/run.sh BASE_DIR NEW_BUILD_DIR > OUT
# BASE_DIR holds the branch point's freednn-bench and bench-gemm (build-base/),
# NEW_BUILD_DIR is the build folder.  "default" is the first algorithm of the
# _v7 list; algo 5 is WINOGRAD_NONFUSED; the onednn column is oneDNN's time
# on the same line in the same process.
B=$1
N=$2
S=$(dirname "$0")/shapes.txt
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
bench() { echo "# $1 $2 load: $(cut -d' ' -f1-3 /proc/loadavg)"; "$1/freednn-bench" --file "$S" --threads 1 --dir bwd_w --iters 5 $2 | grep -v '^#'; }
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# FMA peak: $N/tools/bench-gemm/bench-gemm --kernels --threads 1 --cpu-time"
"$N/tools/bench-gemm/bench-gemm" --kernels --threads 1 --cpu-time
for rep in 1 2 3; do
    echo "## rep $rep"
    bench "$B" ""
    bench "$N/tools/freednn-bench" ""
    bench "$B" "--algo 5"
    bench "$N/tools/freednn-bench" "--algo 5"
done
echo "# FMA peak again"
"$N/tools/bench-gemm/bench-gemm" --kernels --threads 1 --cpu-time
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"

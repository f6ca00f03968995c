#!/bin/sh
# ab.txt and ab2.txt are two runs of this script (ab_table.md, ab2_table.md their medians).
# Fused Winograd F(4x4,3x3) and the backward-filter Winograd (issue #19
# item 2), 1 thread, CPU time, each number the bench's median of 5, A/B
# against the branch point alternated 3 times, oneDNN on the same line in
# the same process, then 2 threads once:
#   sh bench/results/2026-12-05-wino2/run.sh BASE_DIR NEW_BUILD_DIR > OUT
# BASE_DIR holds the branch point's freednn-bench and bench-gemm (build-base/).
B=$1
N=$2
S=$(dirname "$0")/shapes.txt
export FREEDNN_BENCH_CPU_TIME=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
bench() { echo "# $1 $2 $3 load: $(cut -d' ' -f1-3 /proc/loadavg)"; "$1" --file "$S" --threads "$3" --dir "$2" --iters 5 | grep -v '^#'; }
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# FMA peak: $N/tools/bench-gemm/bench-gemm --kernels --threads 1 --cpu-time"
"$N/tools/bench-gemm/bench-gemm" --kernels --threads 1 --cpu-time | head -1
for rep in 1 2 3; do
    echo "## rep $rep"
    for d in fwd bwd_d bwd_w; do
        bench "$B/freednn-bench" $d 1
        bench "$N/tools/freednn-bench/freednn-bench" $d 1
    done
done
echo "## 2 threads"
for d in fwd bwd_d bwd_w; do
    bench "$B/freednn-bench" $d 2
    bench "$N/tools/freednn-bench/freednn-bench" $d 2
done
echo "# FMA peak again"
"$N/tools/bench-gemm/bench-gemm" --kernels --threads 1 --cpu-time | head -1
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"

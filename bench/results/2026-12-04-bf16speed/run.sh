#!/bin/sh
# The measurement of docs/performance.md "BF16 and HALF convolution, round 2"
# and "round 3" (this copy; the same command):
# per ResNet-50 layer, interleaved (FP32 + oneDNN f32, BF16 TENSOR_OP +
# oneDNN bf16, PSEUDO_HALF), one thread, thread CPU time, median of 5.
#   sh bench/results/2026-12-04-bf16speed/run.sh MB > out.txt
mb=${1:-1}
B=${B:-build/tools/freednn-bench/freednn-bench}
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
shapes=${SHAPES:-../shared/bench/shapes.txt} # run from the repository root of a worktree
f=$(mktemp)
grep '^conv r50_' "$shapes" | grep "mb=$mb " > "$f"
uptime
for name in $(awk '{print $2}' "$f"); do
  grep " $name " "$f" > "$f.1"
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 | grep -v '^#' | sed 's/^/f32  /'
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 --dt bf16 --math tensor_op | grep -v '^#' | sed 's/^/bf16 /'
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 --dt f16 | grep -v '^#' | sed 's/^/f16  /'
done
uptime
rm -f "$f" "$f.1"

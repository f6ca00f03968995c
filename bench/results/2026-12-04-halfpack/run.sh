#!/bin/sh
# The measurement of docs/performance.md "PSEUDO_HALF with conversion in the
# packing": per ResNet-50 layer, interleaved FP32 then PSEUDO_HALF
# (--dt f16), one thread, thread CPU time, median of 5 (the FP32 and f16
# lines of bench/results/2026-12-04-convbf16/run.sh).
#   sh bench/results/2026-12-04-halfpack/run.sh MB [BUILD_DIR] > out.txt
# (BUILD_DIR defaults to build; the halfconv A/B passes build-base/build-new.)
mb=${1:-1}
dir=${2:-build}
B=$dir/tools/freednn-bench/freednn-bench
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
shapes=${SHAPES:-../shared/bench/shapes.txt} # run from the repository root of a worktree
f=$(mktemp)
grep '^conv r50_' "$shapes" | grep "mb=$mb " > "$f"
[ "$dir" = build ] || echo "# build dir: $dir"
uptime
for name in $(awk '{print $2}' "$f"); do
  grep " $name " "$f" > "$f.1"
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 | grep -v '^#' | sed 's/^/f32  /'
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 --dt f16 | grep -v '^#' | sed 's/^/f16  /'
done
uptime
rm -f "$f" "$f.1"

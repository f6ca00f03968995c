#!/bin/sh
# The halfconv A/B measurement (docs/performance.md "PSEUDO_HALF, round 3"):
# bench/results/2026-12-04-halfpack/run.sh with the build folder as an
# argument, so the branch point's copy (build-base/) and the branch's build/
# run the same lines.  Per ResNet-50 layer, FP32 then PSEUDO_HALF (--dt f16),
# one thread, thread CPU time, median of 5.
#   sh bench/results/2026-12-04-halfconv/run.sh MB BUILD_DIR > out.txt
mb=${1:-1}
dir=${2:-build}
B=$dir/tools/freednn-bench/freednn-bench
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
shapes=${SHAPES:-../shared/bench/shapes.txt} # run from the repository root of a worktree
f=$(mktemp)
grep '^conv r50_' "$shapes" | grep "mb=$mb " > "$f"
echo "# build dir: $dir"
uptime
for name in $(awk '{print $2}' "$f"); do
  grep " $name " "$f" > "$f.1"
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 | grep -v '^#' | sed 's/^/f32  /'
  $B --file "$f.1" --threads 1 --dir fwd --iters 5 --dt f16 | grep -v '^#' | sed 's/^/f16  /'
done
uptime
rm -f "$f" "$f.1"

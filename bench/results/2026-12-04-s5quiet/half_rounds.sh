#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# PSEUDO_HALF against FP32 with the host's bursts taken out: per ResNet-50
# layer, ROUNDS alternations of (FP32, PSEUDO_HALF), each a freednn-bench
# median of 5 repeats on the calling thread's CPU time.  On this VM the
# hypervisor takes the virtual CPU away for seconds at a time and the guest
# still counts that time, so a layer's single median can double; noise only
# adds time, so half_rounds.py compares per-layer minima over the rounds
# (and prints the per-round sums beside them).
#   sh bench/results/2026-12-04-s5quiet/half_rounds.sh MB [BUILD_DIR] [ROUNDS] > out.txt
#   python3 bench/results/2026-12-04-s5quiet/half_rounds.py out.txt
mb=${1:-1}
dir=${2:-build}
rounds=${3:-5}
B=$dir/tools/freednn-bench/freednn-bench
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
shapes=${SHAPES:-../shared/bench/shapes.txt} # run from the repository root
f=$(mktemp)
grep '^conv r50_' "$shapes" | grep "mb=$mb " > "$f"
echo "# build dir: $dir, $rounds rounds"
uptime
for name in $(awk '{print $2}' "$f"); do
  grep " $name " "$f" > "$f.1"
  r=1
  while [ $r -le "$rounds" ]; do
    $B --file "$f.1" --threads 1 --dir fwd --iters 5 --no-dnnl | grep -v '^#' | sed "s/^/f32 r$r /"
    $B --file "$f.1" --threads 1 --dir fwd --iters 5 --dt f16 | grep -v '^#' | sed "s/^/f16 r$r /"
    r=$((r + 1))
  done
done
uptime
rm -f "$f" "$f.1"

#!/bin/sh
# The Winograd layers only (ResNet-50's stride-1 3x3 convolutions; _v7 picks
# WINOGRAD for res2 at mb=1 and res2-res5 at mb=32): FP32 then PSEUDO_HALF
# per layer, one thread, thread CPU time, median of 11, base and new binaries
# alternated 3 times per batch size.  Run from the worktree's root:
#   sh bench/results/2026-12-04-halfwino/focus.sh
# Tables, in this folder: python3 ab_wino.py focus1 (and focus32).
d=bench/results/2026-12-04-halfwino
f=$(mktemp)
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
for mb in 1 32; do
  grep '^conv r50_' ${SHAPES:-../shared/bench/shapes.txt} | grep "mb=$mb " | grep -E '_3x3_[0-9]' > "$f"
  for i in 1 2 3; do
    for b in base new; do
      o=$d/mbfocus${mb}_${b}_$i.txt
      { echo "# build dir: build-$b"; uptime
        for name in $(awk '{print $2}' "$f"); do
          grep " $name " "$f" > "$f.1"
          build-$b/tools/freednn-bench/freednn-bench --file "$f.1" --threads 1 --dir fwd --iters 11 | grep -v '^#' | sed 's/^/f32  /'
          build-$b/tools/freednn-bench/freednn-bench --file "$f.1" --threads 1 --dir fwd --iters 11 --dt f16 | grep -v '^#' | sed 's/^/f16  /'
        done
        uptime; } > $o 2>&1
    done
  done
done
rm -f "$f" "$f.1"

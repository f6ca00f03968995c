#!/bin/sh
# The halfgemm A/B (docs/performance.md, "PSEUDO_HALF round 4"): the
# halfconv sweep (per ResNet-50 layer FP32 then PSEUDO_HALF, one thread,
# thread CPU time, median of 5) on the branch point's binary (build-base/,
# main 13c46b9, copied before any change) and the branch's (build-new/,
# d045ed7), alternated 3 times at mb=1 then 3 times at mb=32.  Run from
# the worktree's root:
#   sh bench/results/2026-12-04-halfgemm/run.sh [OUT_DIR]
# Tables, in this folder: python3 ../2026-12-04-halfconv/ab.py 1 (and 32).
# OUT_DIR (default this folder) lets later A/Bs (halfwino) reuse the loop.
d=${1:-bench/results/2026-12-04-halfgemm}
for mb in 1 32; do
  for i in 1 2 3; do
    for b in base new; do
      sh bench/results/2026-12-04-halfconv/run.sh $mb build-$b > $d/mb${mb}_${b}_$i.txt 2>&1
    done
  done
done

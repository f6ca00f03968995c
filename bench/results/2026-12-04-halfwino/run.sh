#!/bin/sh
# The halfwino A/B (docs/performance.md, "PSEUDO_HALF round 5"): the
# halfconv sweep (per ResNet-50 layer FP32 then PSEUDO_HALF, one thread,
# thread CPU time, median of 5) on the branch point's binary (build-base/,
# main 5667134, copied before any change) and the branch's (build-new/),
# alternated 3 times at mb=1 then 3 times at mb=32.  Run from the
# worktree's root:
#   sh bench/results/2026-12-04-halfwino/run.sh
# Tables, in this folder: python3 ../2026-12-04-halfconv/ab.py 1 (and 32),
# python3 ab_wino.py 1 (and 32).
# The loop is halfgemm's run.sh, writing here.
exec sh bench/results/2026-12-04-halfgemm/run.sh bench/results/2026-12-04-halfwino

#!/bin/bash
# ResNet-50 training step (mb=32, NCHW FLOAT), 2 threads, wall clock, per-op
# profile; the branch point's build (build-base/) and this branch alternated,
# oneDNN in every run.  Run from the worktree root.
# usage: bench/results/2026-12-05-trainbwd/net.sh ROUNDS OUTFILE
n=$1; out=$2
BASE=${BASE:-build-base/freednn-bench}
NEW=${NEW:-build/tools/freednn-bench/freednn-bench}
: > $out
for r in $(seq 1 $n); do
  for who in base new; do
    b=$BASE; [ $who = new ] && b=$NEW
    echo "### round $r $who $(date -u +%H:%M:%S) $(uptime)" >> $out
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $b --net resnet50 --threads 2 --iters 3 --profile --no-torch >> $out 2>&1
  done
done

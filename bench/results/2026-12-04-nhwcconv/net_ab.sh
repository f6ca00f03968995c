#!/bin/sh
# The NHWC training step, branch point and this branch alternated (1 thread, CPU time, medians of 3 steps).
BASE=../../../build-base/freednn-bench
NEW=../../../build/tools/freednn-bench/freednn-bench
for rep in 1 2; do
  for side in base new; do
    B=$BASE; [ $side = new ] && B=$NEW
    (uptime; $B --net resnet50 --threads 1 --iters 3 --clock cpu --layout nhwc --no-torch --no-dnnl --profile) > net_ab_${side}_$rep.txt 2>&1
  done
done

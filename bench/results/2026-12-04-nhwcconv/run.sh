#!/bin/sh
# Reproduces the nhwcconv measurements (run from this folder; build-base/ is
# the branch point's build: libcudnn.so.* and freednn-bench copied before any change).
# 1 thread, CPU time, NHWC user tensors (the oneDNN side NHWC too), medians of 5.
BASE=../../../build-base/freednn-bench
NEW=../../../build/tools/freednn-bench/freednn-bench
export FREEDNN_BENCH_CPU_TIME=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
# (0) the branch point against oneDNN NHWC, every r50 layer at mb=32 (layers_mb32_base.txt)
#   $BASE --file r50_mb32.txt --threads 1 --dir all --layout nhwc --iters 5
# (1) this branch against oneDNN NHWC on the 1x1 layers (the only ones whose path changed)
(uptime; $NEW --file r50_1x1_mb32.txt --threads 1 --dir all --layout nhwc --iters 5) > layers_1x1_mb32_new.txt 2>&1
# (2) A/B, alternated 3 times, on five 1x1 layers of each kind
for rep in 1 2 3; do
  for side in base new; do
    B=$BASE; [ $side = new ] && B=$NEW
    (uptime; $B --file r50_1x1_subset_mb32.txt --threads 1 --dir all --layout nhwc --iters 5 --no-dnnl) > ab_mb32_${side}_$rep.txt 2>&1
  done
done
# (3) the whole network, per-op profile; the branch point's were
#   $BASE --net resnet50 --threads 1 --iters 3 --clock cpu --layout nhwc --no-torch --no-dnnl --profile > net_profile_base.txt
#   $BASE --net resnet50 --threads 1 --iters 3 --clock cpu --layout nchw --no-torch --no-dnnl --profile > net_profile_base_nchw.txt
(uptime; $NEW --net resnet50 --threads 1 --iters 3 --clock cpu --layout nhwc --no-torch --no-dnnl --profile) > net_profile_new.txt 2>&1
# (4) mb=1, the 1x1 layers, both builds against oneDNN NHWC (one pass each)
for side in base new; do
  B=$BASE; [ $side = new ] && B=$NEW
  (uptime; $B --file r50_1x1_mb1.txt --threads 1 --dir all --layout nhwc --iters 5) > layers_1x1_mb1_$side.txt 2>&1
done
# (5) the NHWC training step, branch point and this branch alternated: ./net_ab.sh

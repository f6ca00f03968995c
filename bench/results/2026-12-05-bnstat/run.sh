#!/bin/sh
# Reproduces bench/results/2026-12-05-bnstat (bnstat branch, session 8).
# From the worktree root, with build/ (branch) and build-base/ (9174262:
# libcudnn.so* and freednn-bench copied before any change).
set -e
R=bench/results/2026-12-05-bnstat
# part: micro, net or both (default)
part=${1:-both}
if [ $part != net ]; then
gcc -O2 -std=c11 -Iinclude -Icompat/cudart/include tools/bench-trainops/trainops.c -o /tmp/trainops_bs -Lbuild -lcudnn
# 1. per-op micro table (every ResNet-50 batch-norm shape and the stem's
#    max pooling, mb=32), base/new alternated 3x, 1 thread (CPU time) and
#    2 threads (wall), NCHW and NHWC
for t in 1 2; do
  for i in 1 2 3; do
    for lib in build-base build; do
      for l in nchw nhwc; do
        echo "== $lib threads $t layout $l $(uptime)"
        FREEDNN_NUM_THREADS=$t LD_LIBRARY_PATH=$PWD/$lib /tmp/trainops_bs $l 5 bn
      done
    done
  done
done > $R/micro.txt 2>&1
fi
if [ $part != micro ]; then
# 2. the training step, base and branch alternated, NCHW and NHWC, oneDNN
#    side by side (the bench's own profile)
#    (both layouts in one run: no --layout)
for i in 1 2 3; do
  for b in build-base/freednn-bench build/tools/freednn-bench/freednn-bench; do
    echo "== $b $(uptime)"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $b --net resnet50 --threads 2 --iters 3 --profile --no-torch
  done
done > $R/net.txt 2>&1
fi

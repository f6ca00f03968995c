#!/bin/sh
# Reproduces bench/results/2026-12-05-trainmem (trainmem branch, session 7).
# From the worktree root, with build/ (branch) and build-base/ (ede00c9:
# libcudnn.so* and freednn-bench copied before any change).
set -e
R=bench/results/2026-12-05-trainmem
gcc -O2 -std=c11 -Iinclude -Icompat/cudart/include tools/bench-trainops/trainops.c -o /tmp/trainops_tm -Lbuild -lcudnn
# 1. per-op micro table (ResNet-50 shapes, mb=32), base/new alternated 3x,
#    1 and 2 threads, NCHW and NHWC
for t in 1 2; do
  for i in 1 2 3; do
    for lib in build-base build; do
      for l in nchw nhwc; do
        echo "== $lib threads $t layout $l $(uptime)"
        FREEDNN_NUM_THREADS=$t LD_LIBRARY_PATH=$PWD/$lib /tmp/trainops_tm $l 5 step
      done
    done
  done
done > $R/micro.txt 2>&1
# 2. the training step, base and branch alternated, NCHW and NHWC (the
#    bench runs both layouts), oneDNN side by side
for i in 1 2 3; do
  for b in build-base/freednn-bench build/tools/freednn-bench/freednn-bench; do
    echo "== $b $(uptime)"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $b --net resnet50 --threads 2 --iters 3 --profile --no-torch
  done
done > $R/net.txt 2>&1

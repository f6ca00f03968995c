#!/bin/sh
# Reproduces the nhwcbn measurements (run from this folder).  build-base/ is
# the branch point (13c46b9: libcudnn.so.*, freednn-bench, bench-ops copied
# before any change), build-new/ this branch's build (551c566) copied the
# same way.  1 thread, CPU time, NHWC user tensors (oneDNN NHWC as well).
BASE=../../../build-base
NEW=../../../build-new
export FREEDNN_BENCH_CPU_TIME=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
# (1) the 3x3 stride-1 layers (the Winograd change), A/B alternated 3 times
for rep in 1 2 3; do
  for side in base new; do
    B=$BASE; [ $side = new ] && B=$NEW
    (uptime; $B/freednn-bench --file r50_3x3s1_mb32.txt --threads 1 --dir all --layout nhwc --iters 5 --no-dnnl; uptime) > wino_ab_${side}_$rep.txt 2>&1
  done
done
# (2) the whole ResNet-50 mb=32 set against oneDNN NHWC, this branch
(uptime; $NEW/freednn-bench --file r50_mb32.txt --threads 1 --dir all --layout nhwc --iters 5; uptime) > layers_mb32_new.txt 2>&1
# (3) the NHWC training step, A/B alternated 3 times (median of 3 steps each)
for rep in 1 2 3; do
  for side in base new; do
    B=$BASE; [ $side = new ] && B=$NEW
    (uptime; $B/freednn-bench --net resnet50 --threads 1 --iters 3 --clock cpu --layout nhwc --no-torch --no-dnnl --profile; uptime) > net_nhwc_${side}_$rep.txt 2>&1
  done
done
# (4) batch norm NHWC vs oneDNN (bench-ops: plain BN, wall clock medians), both builds
for side in base new; do
  B=$BASE; [ $side = new ] && B=$NEW
  (uptime; LD_LIBRARY_PATH=$B $B/bench-ops --threads 1 --filter bn_; uptime) > ops_bnorm_$side.txt 2>&1
done
# (5) the AVX2 level (generic per-element NHWC gather) on the 3x3 layers, one run each
#     (new: build/ at c3b33ae; freednn-bench is statically linked)
for side in base new; do
  B=$BASE/freednn-bench; [ $side = new ] && B=../../../build/tools/freednn-bench/freednn-bench
  (uptime; FREEDNN_MAX_ISA=avx2 $B --file r50_3x3s1_mb32.txt --threads 1 --dir fwd,bwd_d --layout nhwc --iters 3 --no-dnnl) > avx2_wino_$side.txt 2>&1
done

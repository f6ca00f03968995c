#!/bin/sh
# The lead's placement check (2026-12-06 03:58-04:05 UTC, quiet host, main c383439).
# pp: /work/wt/pp.c, a cache-line ping-pong between two threads, 200000 round
# trips, prints "roundtrip N ns" (the logic of tools/freednn-bench/placement.c).
# 1) 30 probes, one a second (probes.txt).  2) 40 processes of probe, the
# layer at 2 threads (no oneDNN, settle on), probe (layer_vs_probe.txt:
# "probe-before layer-ms probe-after", sorted by the layer's time).
for i in $(seq 1 30); do ./pp; sleep 1; done > probes.txt
sed -n 28p ../../../../shared/bench/shapes.txt > l.txt   # r50_res4_1x1_1024_256 mb=1
for i in $(seq 1 40); do
  a=$(./pp | awk '{print $2}')
  b=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 ../../../build/tools/freednn-bench/freednn-bench \
      --threads 2 --iters 20 --dir bwd_w --layout nhwc --file l.txt --no-dnnl | tail -1 | awk '{print $5}')
  c=$(./pp | awk '{print $2}')
  echo "$a $b $c"
done | sort -k2 -n > layer_vs_probe.txt

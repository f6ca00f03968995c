#!/bin/bash
# Alternated base/new rounds of bench-trainops' pool set (1 thread, CPU time
# is the number to read; the host ran at load 15-20) with the new branch's
# bench-trainops binary against the base library (main 37b0900, built in
# /tmp/pool-base) and the branch's; then bench-ops (pooling forward against
# oneDNN in the same run) for both libraries.
B=/work/wt/pool/build
OUT=/work/wt/pool/bench/results/2026-12-05-pool
for r in 1 2 3; do
  for lib in base new; do
    L=$B; [ $lib = base ] && L=/tmp/pool-base
    for lay in nchw nhwc; do
      FREEDNN_NUM_THREADS=1 LD_LIBRARY_PATH=$L $B/tools/bench-trainops/bench-trainops $lay 9 pool > $OUT/trainops_t1_${lib}_${lay}_r$r.txt 2>&1
    done
  done
done
for lib in base new; do
  L=$B; [ $lib = base ] && L=/tmp/pool-base
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_LIBRARY_PATH=$L $B/tools/bench-ops/bench-ops $OUT/shapes.txt --threads 1,2 > $OUT/benchops_${lib}.txt 2>&1
done
# after the 2048-channel runs (the library relinked from the base objects
# with the branch's pooling and tensor kernels, /tmp/pool-dev):
#   LD_LIBRARY_PATH=/tmp/pool-dev build/tools/bench-ops/bench-ops $OUT/shapes.txt --threads 1 --filter gap > $OUT/benchops_new_fullrow_t1.txt
#   for i in 1 2 3; do for L in /tmp/pool-base /tmp/pool-dev; do FREEDNN_NUM_THREADS=1 LD_LIBRARY_PATH=$L build/tools/bench-trainops/bench-trainops nhwc 30 pool gap; done; done > $OUT/trainops_t1_nhwc_gap_fullrow_ab.txt

#!/bin/sh
# Reproduces this folder (gemmfast branch, 2026-12-04 session 3).  Run from
# the worktree root after `ninja -C build`, with build-base/ holding the
# branch point's bench-gemm and bench-graph (statically linked copies).
# 1 thread, CPU time; base and new alternate so the host's slow phases
# spread over both.
D=bench/results/2026-12-04-gemmfast
T="1024x3072x768 1024x768x3072 512x3072x768 768x3072x1024 64x3136x576 128x784x1152"
export OMP_NUM_THREADS=1 FREEDNN_NUM_THREADS=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
python3 tools/bench-gemm/ab.py --rounds 5 build-base/bench-gemm build/tools/bench-gemm/bench-gemm -- $T > $D/ab-transformer-1thread.txt
python3 tools/bench-gemm/ab.py --rounds 5 build/tools/bench-gemm/bench-gemm build-base/bench-gemm -- $T > $D/ab-transformer-1thread-swapped.txt
python3 tools/bench-gemm/ab.py --rounds 3 build-base/bench-gemm build/tools/bench-gemm/bench-gemm > $D/ab-default-1thread.txt
python3 tools/bench-gemm/ab.py --rounds 3 build/tools/bench-gemm/bench-gemm build-base/bench-gemm > $D/ab-default-1thread-swapped.txt
# dnnl_sgemm next to ours (the bench's own columns), 3 runs of the new build
for r in 1 2 3; do uptime; build/tools/bench-gemm/bench-gemm --threads 1 --cpu-time --min-time 0.2 $T; done > $D/gemm-vs-dnnl-1thread.txt
# matmul + bias + GELU through the graph API, base and new alternated 5 times
for r in 1 2 3 4 5; do
  for b in base new; do
    bin=build-base/bench-graph; [ $b = new ] && bin=build/tools/bench-graph/bench-graph
    { date -u; uptime; $bin --reps 5 matmul; } > $D/graph-matmul-$b-$r.txt 2>&1
  done
done
python3 $D/summarize.py $D > $D/graph-matmul-summary.txt

#!/bin/sh
# Reproduces this folder (gemml2 branch, 2026-12-04 session 5).  Run from the
# worktree root after `ninja -C build`, with build-base/ holding the branch
# point's bench-gemm and bench-graph (statically linked copies).  1 thread,
# CPU time.  The library code of this branch is the branch point's: the
# A/B rows show the host's noise and dnnl_sgemm's same-run numbers.
D=bench/results/2026-12-04-gemml2
T="1024x3072x768 1024x768x3072 512x3072x768 768x3072x1024 1024x3072x256"
export OMP_NUM_THREADS=1 FREEDNN_NUM_THREADS=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
# which stream costs what: the kernel over the product's tiles, no packing
for r in 1 2 3; do date -u; uptime; build/tools/bench-gemm/bench-gemm --tile-l2; done > $D/tile-l2.txt
# ours (both builds) and dnnl_sgemm in the same runs, both orders
{ uptime; python3 tools/bench-gemm/ab.py --dnnl --rounds 3 build-base/bench-gemm build/tools/bench-gemm/bench-gemm -- $T; uptime; } > $D/ab-transformer-1thread.txt
{ uptime; python3 tools/bench-gemm/ab.py --dnnl --rounds 3 build/tools/bench-gemm/bench-gemm build-base/bench-gemm -- $T; uptime; } > $D/ab-transformer-1thread-swapped.txt
{ uptime; python3 tools/bench-gemm/ab.py --dnnl --rounds 3 build-base/bench-gemm build/tools/bench-gemm/bench-gemm; uptime; } > $D/ab-default-1thread.txt
# matmul + bias + GELU through the graph API (issue #14 bar), 3 runs
for r in 1 2 3; do { date -u; uptime; build/tools/bench-graph/bench-graph --reps 5 matmul; } > $D/graph-matmul-$r.txt 2>&1; done
# The experiments (not in the branch) were run with sweep-env.py, which
# alternates one bench-gemm under several FDNN_X_* settings; those
# variables exist only with ksub-subblocks-experiment.diff or
# jouter-knobs-experiment.diff applied to the branch point:
#   python3 $D/sweep-env.py 4 "X=0" "FDNN_X_MC=9" "FDNN_X_MC=12" "FDNN_X_MC=16" -- $T

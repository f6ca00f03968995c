#!/bin/sh
# A/B of the 3x3 Winograd backward filter (WINOGRAD_NONFUSED, F(3x3, 4x4 dy)):
# build-base/freednn-bench (branch point 9174262) vs build/tools/freednn-bench
# (wgrad2t), alternated ROUNDS times; 2 threads wall clock (oneDNN alongside
# in the same process, same threads), 1 thread CPU time.  Each line is the
# median of --iters 5.  Run from the worktree root.
set -e
D=bench/results/2026-12-05-wgrad2t
F=$D/shapes.txt
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$D/ab.txt}
: >"$OUT"
for r in $(seq 1 "$ROUNDS"); do
    for side in base new; do
        B=build/tools/freednn-bench/freednn-bench
        [ $side = base ] && B=build-base/freednn-bench
        for T in 2 1; do
            CPU=0
            [ $T = 1 ] && CPU=1
            echo "## round $r $side threads $T $(uptime)" >>"$OUT"
            env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$T FREEDNN_BENCH_CPU_TIME=$CPU \
                $B --threads $T --iters 5 --dir bwd_w --file $F 2>&1 | grep -v '^#' >>"$OUT"
        done
    done
done

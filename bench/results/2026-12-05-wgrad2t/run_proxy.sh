#!/bin/sh
# The host was loaded (load average 7-12, 2 vCPUs) for the whole session,
# so 2-thread wall clock measures the other engineers' jobs.  Proxy for
# the 2-thread time on a quiet host: the CALLING thread's CPU time at
# 2 threads (FREEDNN_BENCH_CPU_TIME=1 --threads 2): its own share of the
# work plus what it spins waiting for the worker (descheduled time is not
# counted).  base vs new alternated ROUNDS times, 1-thread CPU time too.
set -e
D=bench/results/2026-12-05-wgrad2t
F=$D/shapes.txt
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$D/proxy.txt}
: >"$OUT"
for r in $(seq 1 "$ROUNDS"); do
    for side in base new; do
        B=build/tools/freednn-bench/freednn-bench
        [ $side = base ] && B=build-base/freednn-bench
        for T in 2 1; do
            echo "## round $r $side threads $T caller-cpu $(uptime)" >>"$OUT"
            env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$T FREEDNN_BENCH_CPU_TIME=1 \
                $B --threads $T --iters 7 --dir bwd_w --file $F --no-dnnl 2>&1 | grep -v '^#' >>"$OUT"
        done
    done
done

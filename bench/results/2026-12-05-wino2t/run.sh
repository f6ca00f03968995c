#!/bin/sh
# wino2t (session 9): base (branch point f89bd7e, build-base/) against new,
# alternated 3 times; each round per binary: scale.sh (1 thread CPU time,
# 2 threads wall clock, per direction, `uptime` with each).  Then the
# per-thread phase table of the new tree from a -DFDNN_WINO_PROFILE build.
#   sh bench/results/2026-12-05-wino2t/run.sh build-base build build-prof
# (build-prof: cmake -S . -B build-prof -DCMAKE_BUILD_TYPE=Release
#  -DFREEDNN_BUILD_TESTS=OFF -DCMAKE_C_FLAGS=-DFDNN_WINO_PROFILE)
B=$1
N=$2
P=$3
D=$(dirname "$0")
for r in 1 2 3; do
    echo "## round $r base"
    sh "$D/scale.sh" "$B/freednn-bench" 1
    echo "## round $r new"
    sh "$D/scale.sh" "$N/tools/freednn-bench/freednn-bench" 1
done > "$D/ab.txt" 2>&1
python3 "$D/ab_table.py" "$D/ab.txt" > "$D/ab_table.md"
sh "$D/prof.sh" "$P/tools/freednn-bench/freednn-bench" > "$D/prof_raw_new.txt" 2>&1
python3 "$D/prof_table.py" "$D/prof_raw_new.txt" > "$D/prof_table_new.md"
# The other raw files came from loops typed at the shell (same binaries):
#  split_ab_1thread*.txt: for 3 rounds, FREEDNN_WINO_FUSED_SPLIT=0 then =1,
#    FREEDNN_BENCH_CPU_TIME=1 freednn-bench --file layers.txt --match LAYER
#    --threads 1 --dir fwd|bwd_d --iters 7 --no-dnnl (new build)
#  finish_ab_1thread.txt: the same, --dir bwd_w, base then new binary
#  prof_raw_2.txt: prof.sh on a FDNN_WINO_PROFILE build of the branch point
#    plus the timers only (09:07 UTC); prof_split_raw.txt, prof_raw_finish.txt:
#    prof.sh's loop on one layer
#  broken_*_test.txt: the tests on deliberately broken variants

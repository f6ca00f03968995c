#!/usr/bin/env bash
# dwreg A/B (docs/performance.md, "Depthwise NHWC: next-row prefetch and
# backward filter passes"), run from the repository root, 1 thread CPU time:
#  round 1: the 216-cell table of bench/results/2026-12-04-dwconv/run.sh
#    (every MobileNet v1/v2 depthwise layer, NCHW and NHWC, mb=1 and mb=32,
#    three directions, FreeDNN and oneDNN side by side) for the branch
#    point's build (build-base: 9174262) and this branch's (build-new);
#  rounds 2..ROUNDS: the changed NHWC mb=32 cells only (fwd, bwd_w), base
#    and new alternated, same options (the loaded host made a full table
#    take ~10 minutes).
# Usage: run.sh [ROUNDS]   outputs ab/{base,new}_r*/t1_mb*_*.txt; summarize.py ab
set -u
rounds=${1:-3}
out=bench/results/2026-12-05-dwreg/ab
for b in base new; do
  bash bench/results/2026-12-04-dwconv/run.sh "build-$b" "$out/${b}_r1" 1 all
done
for r in $(seq 2 "$rounds"); do
  for b in base new; do
    o="$out/${b}_r$r"; mkdir -p "$o"
    sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$o/shapes_mb32.txt"
    for d in fwd bwd_w; do
      echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$o/t1_mb32_nhwc.txt"
      env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "build-$b/tools/freednn-bench/freednn-bench" --threads 1 \
        --file "$o/shapes_mb32.txt" --dir $d --iters 5 --layout nhwc >> "$o/t1_mb32_nhwc.txt" 2>&1
    done
  done
done

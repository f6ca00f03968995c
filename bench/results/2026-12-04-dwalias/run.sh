#!/usr/bin/env bash
# The dwalias measurements (docs/performance.md, "Depthwise NHWC: strips and
# gathers"): bench/results/2026-12-04-dwconv/run.sh's cases (every MobileNet
# v1/v2 depthwise layer of bench/dwconv_shapes.txt, FreeDNN and oneDNN side
# by side, medians of 5 calls, 1 thread on per-thread CPU time), one user
# layout at a time so that the layout the branch changed (NHWC) can be
# alternated more often.
# Usage (from the tree root): run.sh BUILD_DIR OUT_DIR LAYOUT(nchw|nhwc) [TAG]
#   outputs OUT_DIR/t1_mb{1,32}_LAYOUT{TAG}.txt, each starting with the time and load.
set -u
b=$1; out=$2; l=$3; tag=${4:-}
mkdir -p "$out"
sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$out/shapes_mb32.txt"
for mb in 1 32; do
  f=bench/dwconv_shapes.txt
  [ $mb = 32 ] && f=$out/shapes_mb32.txt
  o="$out/t1_mb${mb}_${l}${tag}.txt"
  echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg) build: $b" > "$o"
  env FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 "$b/tools/freednn-bench/freednn-bench" --threads 1 --file "$f" \
    --dir all --iters 5 --layout $l >> "$o" 2>&1
  echo "# end $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$o"
done

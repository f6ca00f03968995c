#!/usr/bin/env bash
# The depthwise round-2 measurements (docs/performance.md, "Depthwise round
# 2"): every MobileNet v1/v2 depthwise layer of bench/dwconv_shapes.txt,
# NCHW and NHWC user tensors, mb=1 and mb=32, FreeDNN and oneDNN side by
# side per case; 1 thread on per-thread CPU time, else wall time.
# Usage: run.sh BUILD_DIR OUT_DIR [THREADS [DIR [TAG]]]
#   DIR: fwd, bwd_d, bwd_w or all (default); outputs t{THREADS}_mb{1,32}_{nchw,nhwc}{TAG}.txt
set -u
b=$1; out=$2; t=${3:-1}; dir=${4:-all}; tag=${5:-}
mkdir -p "$out"
sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$out/shapes_mb32.txt"
clock=""
[ "$t" = 1 ] && clock="FREEDNN_BENCH_CPU_TIME=1"
for mb in 1 32; do
  f=bench/dwconv_shapes.txt
  [ $mb = 32 ] && f=$out/shapes_mb32.txt
  for l in nchw nhwc; do
    o="$out/t${t}_mb${mb}_${l}${tag}.txt"
    echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" > "$o"
    env $clock OMP_NUM_THREADS=$t "$b/tools/freednn-bench/freednn-bench" --threads "$t" --file "$f" --dir "$dir" \
      --iters 5 --layout $l >> "$o" 2>&1
  done
done

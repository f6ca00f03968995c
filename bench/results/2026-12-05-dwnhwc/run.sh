#!/usr/bin/env bash
# Session 9 (dwnhwc): the depthwise NHWC cells of the branch point with the
# bench's buffers as malloc returns them (16 bytes past a 64-byte line, as
# every freednn-bench run so far) and 64-byte aligned (align64.so, an
# LD_PRELOAD that makes malloc return 64-byte aligned blocks: what oneDNN's
# own memories in the same bench get, and what cudaMalloc's 256-byte
# alignment gives), alternated.  1 thread, CPU time, oneDNN beside each line.
#   bash bench/results/2026-12-05-dwnhwc/run.sh BUILD OUT [ROUNDS [DIR]]
set -u
b=$1; out=$2; rounds=${3:-2}; dir=${4:-all}
R=bench/results/2026-12-05-dwnhwc
mkdir -p "$out"
gcc -O2 -shared -fPIC -o "$out/align64.so" $R/align64.c
sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$out/shapes_mb32.txt"
for r in $(seq "$rounds"); do
  for mb in 1 32; do
    f=bench/dwconv_shapes.txt
    [ $mb = 32 ] && f=$out/shapes_mb32.txt
    for side in malloc align64; do
      pre=""; [ $side = align64 ] && pre=$out/align64.so
      o="$out/t1_mb${mb}_nhwc_${side}_r$r.txt"
      echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" > "$o"
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_PRELOAD=$pre FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 \
        "$b/tools/freednn-bench/freednn-bench" --threads 1 --file "$f" --dir "$dir" --iters 5 --layout nhwc >> "$o" 2>&1
      echo "# end $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$o"
    done
  done
done

#!/usr/bin/env bash
# Session 9 (dwnhwc): branch point (BASE build) against the branch (NEW
# build), NHWC forward and backward data at mb=1 and mb=32, the bench's
# own malloc'd buffers, alternated ROUNDS times; 1 thread CPU time, oneDNN
# beside each line.
#   bash bench/results/2026-12-05-dwnhwc/ab.sh BASE NEW OUT [ROUNDS]
set -u
base=$1; new=$2; out=$3; rounds=${4:-2}
mkdir -p "$out"
sed 's/ mb=1 / mb=32 /' bench/dwconv_shapes.txt > "$out/shapes_mb32.txt"
for r in $(seq "$rounds"); do
  for mb in 1 32; do
    f=bench/dwconv_shapes.txt
    [ $mb = 32 ] && f=$out/shapes_mb32.txt
    for side in base new; do
      b=$base; [ $side = new ] && b=$new
      for d in fwd bwd_d; do
        o="$out/t1_mb${mb}_nhwc_${d}_${side}_r$r.txt"
        echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" > "$o"
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 \
          "$b/tools/freednn-bench/freednn-bench" --threads 1 --file "$f" --dir $d --iters 5 --layout nhwc >> "$o" 2>&1
        echo "# end $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$o"
      done
    done
  done
done

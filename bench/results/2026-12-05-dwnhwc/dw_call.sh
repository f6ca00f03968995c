#!/usr/bin/env bash
# One depthwise 3x3 NHWC call timed alone (dw_call.c: cudnnConvolution* on
# buffers placed OFF bytes past a 64-byte line; min and median thread CPU
# time over ITERS calls), the branch point's library and the branch's
# alternated ROUNDS times, x and y 16 bytes past a line (what the bench's
# malloc gives) and on a line.
#   bash bench/results/2026-12-05-dwnhwc/dw_call.sh BASE NEW OUT [ROUNDS]
set -u
base=$1; new=$2; out=$3; rounds=${4:-3}
R=bench/results/2026-12-05-dwnhwc
mkdir -p "$out"
gcc -O2 -Iinclude -Icompat/cudart/include -o "$out/dw_call" $R/dw_call.c -L"$new" -lcudnn
o="$out/dw_call.txt"
: > "$o"
for r in $(seq "$rounds"); do
  echo "# round $r $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$o"
  for sh in "32 112 1" "128 56 1" "144 56 1" "256 28 1" "512 14 1" "576 14 1" "128 56 2"; do
    for dir in 0 1; do
      for off in 16 0; do
        for side in base new; do
          lib=$base; [ $side = new ] && lib=$new
          echo -n "$side " >> "$o"
          LD_LIBRARY_PATH=$lib FREEDNN_NUM_THREADS=1 "$out/dw_call" $sh 1 $off $dir 200 >> "$o"
        done
      done
    done
  done
done

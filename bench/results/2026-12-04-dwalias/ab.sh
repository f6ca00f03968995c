#!/usr/bin/env bash
# FreeDNN against its branch point, less noisy than run.sh's medians of 5:
# each layer of bench/dwconv_shapes.txt through
# bench/results/2026-12-04-dwnhwc/ab_drv.c (the cuDNN API, 1 thread, per-thread
# CPU time, ITERS calls), the base library and the new one alternating ROUNDS
# times; printed: the minimum over the rounds of each side's minimum, and
# base/new (> 1: new faster).
# Usage (tree root): ab.sh DIR(0 fwd, 1 bwd_d, 2 bwd_w) NHWC(0/1) MB [ITERS [ROUNDS]]
# Needs build-ab/ab_drv:  gcc -O2 -o build-ab/ab_drv bench/results/2026-12-04-dwnhwc/ab_drv.c \
#   -Iinclude -Icompat/cudart/include -Lbuild -lcudnn
# and the branch point's library in build-base/ (LD_LIBRARY_PATH picks the side).
set -u
d=$1; l=$2; mb=$3; it=${4:-200}; rounds=${5:-3}
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg) dir $d nhwc $l mb $mb iters $it rounds $rounds"
grep "^conv" bench/dwconv_shapes.txt | while read -r _ name _ ic _ _ ih _; do
  c=${ic#ic=}; h=${ih#ih=}; s=1; [[ $name == *s2 ]] && s=2
  bmin=""; nmin=""
  for r in $(seq "$rounds"); do
    b=$(LD_LIBRARY_PATH=build-base build-ab/ab_drv "$mb" "$c" "$h" $s "$d" "$l" "$it" | sed 's/.*min \([0-9.]*\).*/\1/')
    n=$(LD_LIBRARY_PATH=build build-ab/ab_drv "$mb" "$c" "$h" $s "$d" "$l" "$it" | sed 's/.*min \([0-9.]*\).*/\1/')
    bmin=$(echo "${bmin:-$b} $b" | awk '{print ($1 < $2) ? $1 : $2}')
    nmin=$(echo "${nmin:-$n} $n" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  echo "$name $bmin $nmin" | awk '{printf "%-18s base %.4f new %.4f ms  base/new %.2f\n", $1, $2, $3, $2 / $3}'
done
echo "# end $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"

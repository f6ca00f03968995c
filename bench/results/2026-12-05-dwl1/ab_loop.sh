#!/bin/bash
# Alternated A/B of the tight loop (bench/results/2026-12-05-dwl1/loop.c) on NHWC mb=1
# depthwise 3x3 layers, 1 thread, thread CPU time (min of 7 rounds per
# run), base and new alternated ROUNDS times; prints "shape dir base new".
# usage: ab_loop.sh BASE_BIN NEW_BIN ROUNDS ITERS [N]
base=$1 new=$2 rounds=${3:-2} iters=${4:-400} nimg=${5:-1}
shapes="32 112 1|64 112 2|128 56 1|128 56 2|256 28 1|256 28 2|512 14 1|512 14 2|1024 7 1|96 112 2|144 56 1|144 56 2|192 28 1|192 28 2|384 14 1|576 14 1|576 14 2|960 7 1"
IFS='|'
for s in $shapes; do
  IFS=' ' read -r c h st <<< "$s"
  for d in 0 1 2; do
    it=$iters; [ "$h" -ge 56 ] && it=$((iters / 4 + 1))
    b=""; n=""
    for r in $(seq "$rounds"); do
      b="$b $(FREEDNN_NUM_THREADS=1 "$base" "$c" "$h" "$st" "$d" 1 "$it" "$nimg" | cut -d' ' -f1)"
      n="$n $(FREEDNN_NUM_THREADS=1 "$new" "$c" "$h" "$st" "$d" 1 "$it" "$nimg" | cut -d' ' -f1)"
    done
    echo "${c}_${h}s${st} dir=$d base:$b new:$n"
  done
done

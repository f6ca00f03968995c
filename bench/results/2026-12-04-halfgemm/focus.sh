#!/bin/sh
# The layers the branch changes at mb=1, with 21 timed runs per line (the
# sweep's 5 leave +-15% per layer on this load): base and new alternated 3
# times.  FP32 then PSEUDO_HALF per layer, one thread, thread CPU time.
#   sh bench/results/2026-12-04-halfgemm/focus.sh   (from the worktree root)
d=bench/results/2026-12-04-halfgemm
f=$(mktemp)
grep '^conv r50_' ../shared/bench/shapes.txt | grep 'mb=1 ' |
  grep -E 'r50_res5_3x3_512 |r50_res5_3x3s2_512 |r50_res5_1x1_512_2048 |r50_res5_1x1_2048_512 |r50_res3_1x1_128_512 |r50_res2_1x1_64_256 ' > "$f"
export FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1
for i in 1 2 3; do
  for b in base new; do
    o=$d/focus_${b}_$i.txt
    uptime > $o
    for name in $(awk '{print $2}' "$f"); do
      grep " $name " "$f" > "$f.1"
      build-$b/tools/freednn-bench/freednn-bench --file "$f.1" --threads 1 --dir fwd --iters 21 --no-dnnl | grep -v '^#' | sed 's/^/f32  /' >> $o
      build-$b/tools/freednn-bench/freednn-bench --file "$f.1" --threads 1 --dir fwd --iters 21 --dt f16 --no-dnnl | grep -v '^#' | sed 's/^/f16  /' >> $o
    done
    uptime >> $o
  done
done
rm -f "$f" "$f.1"

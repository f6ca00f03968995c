#!/bin/bash
# A/B of two freednn-bench builds on per-layer lines, oneDNN in every run,
# alternating base / new ROUNDS times: 1 thread on the calling thread's CPU
# time (FREEDNN_BENCH_CPU_TIME=1), more threads on the wall clock.  Then
# bench/ab_layers_table.py writes OUTFILE's table (OUTFILE with _table.md).
# Run from the repository root.
# usage: bench/ab-layers.sh DIR(fwd|bwd_d|bwd_w) THREADS ROUNDS OUTFILE SHAPEFILE
#   BASE, NEW: the two freednn-bench binaries (default build-base/freednn-bench,
#   build/tools/freednn-bench/freednn-bench); LAYOUT: nchw (default) or nhwc.
d=$1; t=$2; n=$3; out=$4; f=$5
BASE=${BASE:-build-base/freednn-bench}
NEW=${NEW:-build/tools/freednn-bench/freednn-bench}
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
: > "$out"
for r in $(seq 1 "$n"); do
  for who in base new; do
    b=$BASE; [ $who = new ] && b=$NEW
    echo "# round $r $who $(date -u +%H:%M:%S) $(uptime)" >> "$out"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$t" FREEDNN_BENCH_CPU_TIME=$cpu \
      "$b" --threads "$t" --iters 5 --dir "$d" --layout "${LAYOUT:-nchw}" --file "$f" | grep -v '^#' |
      sed "s/^/$who /" >> "$out"
  done
done
python3 bench/ab_layers_table.py "$out" > "${out%.txt}_table.md"
cat "${out%.txt}_table.md"

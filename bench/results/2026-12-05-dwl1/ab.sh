#!/bin/bash
# bench/ab-layers.sh's alternation with --iters 20 (the brief's command):
# usage: ab.sh DIR THREADS ROUNDS OUTFILE SHAPEFILE [LAYOUT]
d=$1; t=$2; n=$3; out=$4; f=$5; lay=${6:-nhwc}
BASE=${BASE:-/work/main/build-base/tools/freednn-bench/freednn-bench}
NEW=${NEW:-build/tools/freednn-bench/freednn-bench}
cpu=$([ "$t" = 1 ] && echo 1 || echo 0)
: > "$out"
for r in $(seq 1 "$n"); do
  for who in base new; do
    b=$BASE; [ $who = new ] && b=$NEW
    echo "# round $r $who $(date -u +%H:%M:%S) $(uptime)" >> "$out"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$t" FREEDNN_BENCH_CPU_TIME=$cpu \
      "$b" --threads "$t" --iters 20 --dir "$d" --layout "$lay" --file "$f" | grep -v '^#' |
      sed "s/^/$who /" >> "$out"
  done
done
python3 "$(dirname "$0")/table.py" "$out" > "${out%.txt}_table.md"
cat "${out%.txt}_table.md"

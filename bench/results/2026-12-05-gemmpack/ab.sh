#!/usr/bin/env bash
# A/B of two freednn-bench binaries, alternated ROUNDS times, 1 thread CPU
# time; prints per layer the min and median of each side and new/base.
# Usage: ab.sh BASE_BENCH NEW_BENCH DIR LAYOUT FILE ROUNDS OUT
set -eu
base=$1; new=$2; dir=$3; layout=$4; file=$5; rounds=$6; out=$7
mkdir -p "$out.d"
for r in $(seq "$rounds"); do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    { echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)";
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 \
        "$b" --threads 1 --iters 5 --dir "$dir" --layout "$layout" --file "$file" --no-dnnl; } > "$out.d/$side.$r.txt" 2>&1
  done
done
python3 - "$out.d" "$rounds" > "$out" <<'PY'
import sys, statistics, glob
d, rounds = sys.argv[1], int(sys.argv[2])
t = {}
for side in ("base", "new"):
    for r in range(1, rounds + 1):
        for line in open(f"{d}/{side}.{r}.txt"):
            if line.startswith("#") or "ms" not in line: continue
            f = line.split(); t.setdefault(f[0], {}).setdefault(side, []).append(float(f[4]))
print(f"{'layer':30s} {'base min':>9s} {'new min':>9s} {'base med':>9s} {'new med':>9s} {'min ratio':>9s} {'med ratio':>9s}")
for k, v in t.items():
    b, n = v.get("base", [0]), v.get("new", [0])
    print(f"{k:30s} {min(b):9.3f} {min(n):9.3f} {statistics.median(b):9.3f} {statistics.median(n):9.3f} {min(b)/min(n):9.2f} {statistics.median(b)/statistics.median(n):9.2f}")
PY
cat "$out"

#!/bin/sh
# A/B of the rnn2t branch against its branch point 5667134 (build-base/:
# the branch point's libcudnn.so.* and bench-rnn, copied before any change).
# usage: run.sh ROUNDS THREADS FILTER REPS TAG   (from the repository root)
# Each round: `date -u; uptime`, then base, then new; raw output appended to
# {base,new}_t<THREADS>_<TAG>.txt in this folder.
set -e
R=${1:-3} T=${2:-2} F=${3:-infer} N=${4:-15} TAG=${5:-run}
D=bench/results/2026-12-04-rnn2t
for i in $(seq 1 "$R"); do
  for v in base new; do
    out=$D/${v}_t${T}_${TAG}.txt
    { date -u; uptime; } >>"$out"
    if [ $v = base ]; then
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_LIBRARY_PATH=$PWD/build-base \
        build-base/bench-rnn --threads "$T" --reps "$N" --phases --filter "$F" >>"$out"
    else
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
        build/tools/bench-rnn/bench-rnn --threads "$T" --reps "$N" --phases --filter "$F" >>"$out"
    fi
  done
done

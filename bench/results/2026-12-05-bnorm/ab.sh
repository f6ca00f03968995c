#!/bin/bash
# ab.sh OUT ROUNDS LAYOUT: alternated base/new rounds of bench-trainops' bn set, 1 thread, CPU time
B=/tmp/bnorm-base/tools/bench-trainops/bench-trainops
N=/work/wt/bnorm/build/tools/bench-trainops/bench-trainops
for r in $(seq $2); do for v in B N; do eval bin=\$$v; echo "== $v round $r $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"; FREEDNN_NUM_THREADS=1 $bin $3 5 bn bn; done; done > $1 2>&1

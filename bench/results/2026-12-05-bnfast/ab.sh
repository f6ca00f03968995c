#!/bin/sh
# A/B: alternate build-base/ and build/ ROUNDS times on bench-trainops
# (LAYOUT, SET bn, OP prefix), THREADS threads; prints every line with
# its build and the uptime before each run.
# usage: ab.sh LAYOUT OP THREADS ROUNDS [REPS]
cd "$(dirname "$0")/../../.." || exit 1
LAYOUT=$1 OP=$2 T=$3 ROUNDS=$4 REPS=${5:-7}
i=0
while [ $i -lt "$ROUNDS" ]; do
    for b in build-base build; do
        echo "# $b round $i $(uptime)"
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE FREEDNN_NUM_THREADS=$T LD_LIBRARY_PATH=$b \
            build-base/bench-trainops "$LAYOUT" "$REPS" bn "$OP" | sed "s/^/$b /"
    done
    i=$((i + 1))
done

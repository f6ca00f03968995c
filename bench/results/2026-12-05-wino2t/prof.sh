#!/bin/sh
# Per-thread phase times (conv_winograd_prof.h) of the 3x3 layers, 1 and 2
# threads, from a build with -DFDNN_WINO_PROFILE:
#   sh prof.sh PROFILE_BENCH_BINARY > prof_raw.txt; python3 prof_table.py prof_raw.txt
B=$1
L=$(dirname "$0")/layers.txt
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
for layer in res2_3x3 res3_3x3 res4_3x3 res5_3x3; do
    for d in fwd bwd_d bwd_w; do
        for t in 1 2; do
            echo "== $layer $d threads $t $(uptime)"
            "$B" --file "$L" --match "$layer" --threads $t --dir $d --iters 7 --no-dnnl 2>&1 | grep -v '^#'
        done
    done
done

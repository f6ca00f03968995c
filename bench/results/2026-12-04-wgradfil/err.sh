#!/bin/sh
# dw error of backward filter (direct algo 1, WINOGRAD_NONFUSED algo 5) on
# res2 3x3 (C = K = 64, 56x56, pad 1) against a float64 sum, with the
# bench's fill, for the new build and the branch point's library:
#   sh bench/results/2026-12-04-wgradfil/err.sh > err_res2.txt   (from the worktree root)
D=$(dirname "$0")
gcc -O2 -Iinclude -Icompat/cudart/include "$D/errchk.c" -Lbuild -lcudnn -lm -o /tmp/errchk || exit 1
for n in 8 32; do for lib in build build-base; do for a in 1 5; do
    printf '%s: ' "$lib"; LD_LIBRARY_PATH=$lib /tmp/errchk $n $a 64 56
done; done; done

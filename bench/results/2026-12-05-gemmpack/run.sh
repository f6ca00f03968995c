#!/usr/bin/env bash
# Session 9's gemmpack measurements (docs/performance.md, "NHWC 1x1 backward
# filter in place, and masked loads in the packs").  From the repository
# root, with BASE_BENCH the branch point's freednn-bench (main f89bd7e) and
# NEW_BENCH this tree's:
#   bench/results/2026-12-05-gemmpack/run.sh BASE_BENCH NEW_BENCH
# The pack microbench: gcc -O2 -mavx512f pack_masked_loads.c && ./a.out
set -eu
d=bench/results/2026-12-05-gemmpack
"$d/ab.sh" "$1" "$2" bwd_w nhwc "$d/r50_1x1_layers.txt" 3 "$d/ab_nhwc_bwd_w_t1.txt"
"$d/ab.sh" "$1" "$2" fwd nchw bench/results/2026-12-05-s8end/r50_train_layers.txt 3 "$d/ab_nchw_fwd_t1.txt"
grep 'res4_1x1\|res5_1x1' "$d/r50_1x1_layers.txt" > "$d/r45_layers.txt"
"$d/ab.sh" "$1" "$2" bwd_w nhwc "$d/r45_layers.txt" 4 "$d/ab_r45_nhwc_bwd_w_t1.txt"

#!/bin/sh
# bnfast (2026-12-05 session 9): A/B of the batch-norm kernels against the
# branch point (build-base/: main f89bd7e's libcudnn.so* and bench-trainops,
# copied before any change).  From the worktree root after `ninja -C build`:
#   bench/results/2026-12-05-bnfast/run.sh
# ab.sh alternates base and new; summ.py takes medians over the rounds.
# The single-shape sweeps used a copy of tools/bench-trainops with a channel
# filter, now the tool's fifth argument:
#   gcc -O2 -std=c11 -I include -I compat/cudart/include \
#       tools/bench-trainops/trainops.c -o /tmp/to -Lbuild -lcudnn
#   FREEDNN_NUM_THREADS=1 LD_LIBRARY_PATH=build /tmp/to nchw 9 bn bnfwd 2048
set -e
D=$(dirname "$0")
"$D/ab.sh" nchw bn 1 3 7 > "$D/final_nchw_1t.txt"
python3 "$D/summ.py" "$D/final_nchw_1t.txt" > "$D/final_nchw_1t.md"
"$D/ab.sh" nchw bn 2 3 7 > "$D/ab_nchw_2t.txt"
python3 "$D/summ.py" "$D/ab_nchw_2t.txt"

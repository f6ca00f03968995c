#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Session 5's start on a quiet host (main 5667134, load 0.8-1.5): RNN and
# attention against oneDNN / PyTorch at 2 and 1 threads (bench-rnn's own
# interleaving, medians), then the PSEUDO_HALF sweep (halfconv's run.sh:
# per ResNet-50 layer FP32 then HALF, thread CPU time, median of 5) three
# times at mb=1 and twice at mb=32.
#   sh bench/results/2026-12-04-s5quiet/run.sh [BUILD_DIR]
cd "$(dirname "$0")/../../.." || exit 1
b=${1:-build}
o=bench/results/2026-12-04-s5quiet
peer() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
for t in 2 1 2; do
  { date -u; uptime; peer "$b"/tools/bench-rnn/bench-rnn --threads $t --reps 7 --phases --filter h512; } >> $o/rnn_t$t.txt 2>&1
done
for t in 2 1; do
  { date -u; uptime; peer "$b"/tools/bench-rnn/bench-rnn --threads $t --reps 9 --filter mha --torch; } >> $o/mha_t$t.txt 2>&1
done
for r in 1 2 3; do sh bench/results/2026-12-04-halfconv/run.sh 1 "$b" > $o/half_mb1_r$r.txt 2>&1; done
for r in 1 2; do sh bench/results/2026-12-04-halfconv/run.sh 32 "$b" > $o/half_mb32_r$r.txt 2>&1; done

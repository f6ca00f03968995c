#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Session 5's end, quiet host, the merged tree (integ: main + gemml2,
# attnfwd, halfwino, rnn2t): attention vs PyTorch twice, PSEUDO_HALF in 5
# alternated rounds at mb=1 and mb=32 (per-layer minima), RNN vs oneDNN at
# 1 and 2 threads.   sh bench/results/2026-12-04-s5quiet/end_run.sh
cd "$(dirname "$0")/../../.." || exit 1
o=bench/results/2026-12-04-s5quiet/end
peer() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
for r in 1 2; do
  { date -u; uptime; peer build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha --torch; } >> ${o}_mha_t1.txt 2>&1
done
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 1 build 5 > ${o}_half_rounds_mb1.txt 2>&1
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 32 build 5 > ${o}_half_rounds_mb32.txt 2>&1
for t in 1 2; do
  { date -u; uptime; peer build/tools/bench-rnn/bench-rnn --threads $t --reps 7 --phases --filter h512; } >> ${o}_rnn_t$t.txt 2>&1
done

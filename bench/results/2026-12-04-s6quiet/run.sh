#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue #13's speed bars on the quiet host at the start of session 6 (main 5e6985d),
# run from the repository root with nothing else running.  One thread throughout.
D=bench/results/2026-12-04-s6quiet
build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha > $D/start_mha_t1.txt
build/tools/bench-rnn/bench-rnn --threads 1 --reps 15 --filter h512 > $D/start_rnn_h512_t1.txt
sh bench/results/2026-12-04-bf16speed/run.sh 1 > $D/bf16_mb1_t1.txt 2>&1
sh bench/results/2026-12-04-bf16speed/run.sh 32 > $D/bf16_mb32_t1.txt 2>&1
(uptime; OMP_NUM_THREADS=1 build/tools/bench-int8/bench-int8 --match r50 --threads 1 --iters 5; uptime) > $D/int8_r50_t1.txt 2>&1
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 1 build 5 > $D/half_rounds_mb1.txt 2>&1
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 32 build 3 > $D/half_rounds_mb32.txt 2>&1
(uptime; build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha; build/tools/bench-rnn/bench-rnn --threads 1 --reps 15 --filter h512; uptime) > $D/end_bf16_t1.txt 2>&1
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha --torch > $D/mha_torch_t1.txt
for m in 1 32; do
  python3 bench/results/2026-12-04-bf16speed/summary.py $D/bf16_mb${m}_t1.txt > $D/summary_bf16_mb$m.md
  python3 bench/results/2026-12-04-s5quiet/half_rounds.py $D/half_rounds_mb$m.txt > $D/half_rounds_mb$m.md
done

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Session 6 end-of-session measurements on the merged tree, quiet host
# (docs/performance.md "Session 6 merged tree"); run from the repository root.
O=bench/results/2026-12-04-s6end
uptime > $O/uptime_start.txt
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 1 build 5 > $O/half_rounds_mb1.txt 2>&1
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha --torch > $O/mha_torch_t1.txt 2>&1
for i in 1 2 3; do (uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 build/tools/freednn-bench/freednn-bench --net resnet50 --infer --mb 1 --threads 1 --iters 9; uptime) > $O/net_infer_t1_r$i.txt 2>&1; done
(uptime; FREEDNN_BENCH_CPU_TIME=1 OMP_NUM_THREADS=1 build/tools/freednn-bench/freednn-bench --file $O/r3x3.txt --threads 1 --dir bwd_w --iters 5; uptime) > $O/bwdw_r3x3_t1.txt 2>&1
sh bench/results/2026-12-04-s5quiet/half_rounds.sh 32 build 3 > $O/half_rounds_mb32.txt 2>&1
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 build/tools/bench-rnn/bench-rnn --threads 1 --reps 9 --filter mha --torch > $O/mha_torch_t1_r2.txt 2>&1
uptime > $O/uptime_end.txt

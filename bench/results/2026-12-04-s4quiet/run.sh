#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-network runs on a quiet host (wall clock): the ResNet-50 training
# step at 1 and 2 threads with per-op profiles (FreeDNN and oneDNN, each run
# twice, thread counts alternated), the same step with PyTorch at 2 threads,
# and inference at mb=1, 1 thread, with PyTorch.
#   bench/results/2026-12-04-s4quiet/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
b=${1:-build}/tools/freednn-bench/freednn-bench
o=bench/results/2026-12-04-s4quiet
stamp() { echo "# load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u)"; }
peer() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
for r in 1 2; do
  for t in 2 1; do
    { stamp; peer "$b" --net resnet50 --threads "$t" --iters 5 --no-torch --profile --layout nchw; stamp; } \
      > "$o/net_r50_train_t${t}_r$r.txt" 2>&1
  done
done
{ stamp; peer "$b" --net resnet50 --threads 2 --iters 5; stamp; } > "$o/net_r50_train_t2_torch.txt" 2>&1
for r in 1 2; do
  { stamp; peer "$b" --net resnet50 --infer --mb 1 --threads 1 --iters 9; stamp; } > "$o/net_r50_infer_t1_r$r.txt" 2>&1
done

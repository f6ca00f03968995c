#!/bin/sh
# The merged tree of session 9 (docs/performance.md, "The merged tree of
# session 9"): ResNet-50 training step at 2 threads, FreeDNN and oneDNN
# alternated (ABBA pairs), then the per-node table.  From the repository
# root after `ninja -C build`.
set -e
d=bench/results/2026-12-05-s9end
b=build/tools/freednn-bench/freednn-bench
(uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 \
  $b --net resnet50 --threads 2 --iters 7 --no-torch --profile; uptime) > $d/train_t2_pairs.txt 2>&1
(uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 \
  $b --net resnet50 --threads 2 --iters 3 --no-torch --profile nodes; uptime) > $d/train_t2_nodes.txt 2>&1

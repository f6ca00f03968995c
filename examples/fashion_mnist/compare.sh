#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# FreeDNN's demo and the same network in PyTorch, at the same thread count,
# from the same initial weights and with the same shuffles (--save-init /
# --init), so accuracies differ only by floating-point rounding.
#   examples/fashion_mnist/compare.sh [BUILD_DIR] [EPOCHS] [THREADS]
set -euo pipefail
build=${1:-build}
epochs=${2:-2}
threads=${3:-$(nproc)}
here=$(dirname "$0")
echo "== FreeDNN (cuDNN API), $threads threads"
init=$(mktemp)
trap 'rm -f "$init"' EXIT
"$build/examples/fashion_mnist/fashion_mnist" --epochs "$epochs" --threads "$threads" --quiet \
    --save /tmp/fashion_mnist_compare.weights --save-init "$init" | grep '^epoch'
echo "== PyTorch $( /usr/bin/python3 -c 'import torch; print(torch.__version__)'), $threads threads"
# PyTorch gets its best honest setting: the thread count set three ways, and
# the OpenBLAS variables that slow it down on this machine removed.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" \
    /usr/bin/python3 "$here/train_torch.py" --epochs "$epochs" --threads "$threads" --init "$init"

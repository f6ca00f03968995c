#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build, check the installation with
# cudnn-doctor, then train a CNN on Fashion-MNIST through the cuDNN API
# (2 epochs by default; pass --epochs N and other flags of the demo).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j"$(nproc)" >/dev/null
if [ -x build/tools/cudnn-doctor/cudnn-doctor ]; then
  echo "== cudnn-doctor"
  LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" build/tools/cudnn-doctor/cudnn-doctor | sed -n "/^Verdicts:/,\$p" || true
fi
echo "== Fashion-MNIST"
exec build/examples/fashion_mnist/fashion_mnist --save build/fashion_mnist.weights "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every side-by-side measurement behind docs/performance.md, in one go, on a
# quiet machine.  Writes bench/results/<date>/*.txt.
#   bench/run-all.sh [BUILD_DIR [OUT_DIR]]
# Peers get their best honest setting in the same run: oneDNN the same
# thread count (OMP_NUM_THREADS) and the better of its layouts with reorders
# counted; PyTorch torch.set_num_threads + OMP/OPENBLAS_NUM_THREADS, with
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for its command alone.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-bench/results/$(date -u +%Y-%m-%d)}
mkdir -p "$out"
{ echo "date: $(date -u)"; lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L2'; uptime; } > "$out/machine.txt"

echo "== GEMM core vs dnnl_sgemm (1 thread)"
OMP_NUM_THREADS=1 FREEDNN_NUM_THREADS=1 "$build/tools/bench-gemm/bench-gemm" | tee "$out/gemm.txt"

echo "== memory-bound ops vs oneDNN (1 and 2 threads)"
"$build/tools/bench-ops/bench-ops" --threads 1,2 | tee "$out/ops.txt"

for t in 1 2; do
  echo "== convolution, ResNet-50 forward (mb=1 and 32), $t thread(s), NCHW user tensors"
  OMP_NUM_THREADS=$t "$build/tools/freednn-bench/freednn-bench" --threads "$t" --match r50_ --dir fwd \
      | tee "$out/conv_r50_t${t}.txt" || true
  # The bar is set on the whole set: sum of oneDNN times over sum of ours.
  awk '$2 ~ /^mb=/ && $3 == "fwd" { ours[$2] += $5; theirs[$2] += $(NF-3) }
       END { for (mb in ours) printf "ResNet-50 fwd %s, %s thread(s): FreeDNN %.1f ms, oneDNN %.1f ms, oneDNN/FreeDNN %.2f\n",
             mb, "'"$t"'", ours[mb], theirs[mb], theirs[mb] / ours[mb] }' "$out/conv_r50_t${t}.txt" \
      | tee -a "$out/summary.txt"
done

for t in 1 2; do
  echo "== convolution, backward data and filter on the dir=fwd,bwd lines, $t thread(s), NCHW user tensors"
  grep 'dir=fwd,bwd' shared/bench/shapes.txt 2>/dev/null > "$out/bwd_lines.txt" ||
    grep 'dir=fwd,bwd' ../shared/bench/shapes.txt > "$out/bwd_lines.txt"
  OMP_NUM_THREADS=$t "$build/tools/freednn-bench/freednn-bench" --threads "$t" --file "$out/bwd_lines.txt" \
      --dir all | tee "$out/conv_bwd_t${t}.txt" || true
done

for t in 1 2; do
  echo "== whole networks (issue #19): training step mb=32 and inference mb=1, $t thread(s)"
  "$build/tools/freednn-bench/freednn-bench" --net resnet50,mobilenet_v2 --threads "$t" --iters 5 \
      | tee "$out/net_train_t${t}.txt" || true
  "$build/tools/freednn-bench/freednn-bench" --net resnet50,mobilenet_v2 --threads "$t" --infer --iters 9 \
      | tee "$out/net_infer_t${t}.txt" || true
  grep -h '^[a-z].* threads=' "$out/net_train_t${t}.txt" "$out/net_infer_t${t}.txt" | tee -a "$out/summary.txt"
done

[ -n "${SKIP_MNIST:-}" ] && exit 0
echo "== Fashion-MNIST: FreeDNN vs PyTorch, 1 epoch, 2 threads"
examples/fashion_mnist/compare.sh "$build" 1 2 | tee "$out/fashion_mnist.txt"

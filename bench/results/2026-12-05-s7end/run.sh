#!/bin/sh
# Session 7's merged tree against main before the merges, ResNet-50 training
# step at 2 threads, alternated, on a quiet host:
#   sh bench/results/2026-12-05-s7end/run.sh BASE_BUILD NEW_BUILD OUTDIR
base=$1 new=$2 out=$3
mkdir -p "$out"
for r in 1 2; do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    { uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $b/tools/freednn-bench/freednn-bench --net resnet50 \
        --threads 2 --iters 3 --profile --no-torch --layout nchw; uptime; } > "$out/train_t2_${side}_r$r.txt" 2>&1
  done
done
{ uptime; env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $new/tools/freednn-bench/freednn-bench --net resnet50 \
    --threads 2 --iters 3; uptime; } > "$out/train_t2_new_torch.txt" 2>&1

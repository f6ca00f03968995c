#!/bin/sh
# Session 8's merged tree against main before the merges (9174262), on a
# quiet host: the ResNet-50 training step at 2 threads alternated, then the
# new tree's per-layer backward at 2 threads and the depthwise table.
#   sh bench/results/2026-12-05-s8end/run.sh BASE_BUILD NEW_BUILD OUTDIR
base=$1 new=$2 out=$3
R=bench/results/2026-12-05-s8end
mkdir -p "$out"
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"
for r in 1 2; do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    { uptime; $E $b/tools/freednn-bench/freednn-bench --net resnet50 \
        --threads 2 --iters 3 --profile --no-torch --layout nchw; uptime; } > "$out/train_t2_${side}_r$r.txt" 2>&1
  done
done
for d in bwd_d bwd_w; do
  for side in base new; do
    b=$base; [ $side = new ] && b=$new
    { uptime; $E OMP_NUM_THREADS=2 $b/tools/freednn-bench/freednn-bench --threads 2 --iters 5 --dir $d \
        --file $R/r50_train_layers.txt; } > "$out/layers_t2_${d}_${side}.txt" 2>&1
  done
done
bash bench/results/2026-12-04-dwconv/run.sh $new "$out/dw_new" 1 all
{ uptime; $E $new/tools/freednn-bench/freednn-bench --net resnet50 --threads 2 --iters 3; uptime; } \
  > "$out/train_t2_new_torch.txt" 2>&1

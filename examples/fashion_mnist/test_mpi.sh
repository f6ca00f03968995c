#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The data-parallel demo (docs/distributed.md), as CI runs it: a short
# training on a subset in one process and under `mpirun -np 1, 2, 3` must
# give bitwise-identical weights, a falling loss and the same accuracy; the
# residual network likewise for 1 and 2 processes; bad setups (a global
# batch P does not divide, ranks with different data or instruction sets, a
# rank that dies or hangs) end
# with a message, never a hang.  Skips when mpirun or the data is missing.
#   test_mpi.sh DEMO_BINARY
set -u
demo=$1
data=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
if ! command -v mpirun >/dev/null; then
  echo "skip: mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 0
fi
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
  echo "skip: Fashion-MNIST not installed in $data"; exit 0
fi
# CI runs as root in a container, on 2 cores for 3 ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi="mpirun --oversubscribe --bind-to none"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }

# 48-image batches in chunks of 8: 6 chunks, shared by 1, 2 or 3 ranks.
args=(--data "$data" --epochs 2 --train-limit 480 --test-limit 500 --batch 48 --chunk 8 --threads 1 --quiet --hash)
epochs() { grep -E '^epoch [0-9]+:' "$1" | sed 's/, [0-9.]* s training.*//'; }

# 1. The CNN: one process, then 1, 2 and 3 ranks.
"$demo" "${args[@]}" --save "$tmp/w0.bin" >"$tmp/o0" 2>&1 || bad "single process exited non-zero: $(cat "$tmp/o0")"
loss1=$(sed -n 's/^epoch 1: train loss \([0-9.]*\).*/\1/p' "$tmp/o0")
loss2=$(sed -n 's/^epoch 2: train loss \([0-9.]*\).*/\1/p' "$tmp/o0")
acc=$(sed -n 's/^epoch 2: .*test accuracy \([0-9.]*\)%.*/\1/p' "$tmp/o0")
if [ -n "$loss1" ] && [ -n "$loss2" ] && awk "BEGIN{exit !($loss2 < $loss1)}"; then ok; else bad "loss did not fall ($loss1 -> $loss2)"; fi
if [ -n "$acc" ] && awk "BEGIN{exit !($acc > 40)}"; then ok; else bad "accuracy $acc% is not far above chance"; fi
for p in 1 2 3; do
  timeout 120 $mpi -np $p "$demo" "${args[@]}" --save "$tmp/w$p.bin" >"$tmp/o$p" 2>&1 ||
    bad "mpirun -np $p exited non-zero: $(tail -5 "$tmp/o$p")"
  if [ -s "$tmp/w$p.bin" ] && cmp -s "$tmp/w0.bin" "$tmp/w$p.bin"; then ok; else bad "-np $p: weights differ from one process"; fi
  if [ -n "$(epochs "$tmp/o0")" ] && [ "$(epochs "$tmp/o0")" = "$(epochs "$tmp/o$p")" ]; then ok; else
    bad "-np $p: loss or accuracy differ: $(epochs "$tmp/o$p") vs $(epochs "$tmp/o0")"; fi
done

# The defaults: under mpirun the chunk is 16 images whatever -np, so a run
# without --chunk equals a hand-started one with --chunk 16.
dargs=(--data "$data" --epochs 1 --train-limit 256 --test-limit 100 --threads 1 --quiet)
"$demo" "${dargs[@]}" --chunk 16 --save "$tmp/d0.bin" >/dev/null 2>&1
timeout 120 $mpi -np 2 "$demo" "${dargs[@]}" --save "$tmp/d2.bin" >"$tmp/d2" 2>&1
if [ -s "$tmp/d0.bin" ] && cmp -s "$tmp/d0.bin" "$tmp/d2.bin"; then ok; else bad "default chunk: -np 2 differs: $(tail -3 "$tmp/d2")"; fi

# 2. The residual network, one process and 2 ranks (one epoch).
rargs=(--net resnet --data "$data" --epochs 1 --train-limit 240 --test-limit 200 --batch 48 --chunk 8 --threads 1 --quiet)
"$demo" "${rargs[@]}" --save "$tmp/r0.bin" >"$tmp/r0" 2>&1 || bad "resnet single process failed: $(cat "$tmp/r0")"
timeout 120 $mpi -np 2 "$demo" "${rargs[@]}" --save "$tmp/r2.bin" >"$tmp/r2" 2>&1 || bad "resnet -np 2 failed: $(tail -5 "$tmp/r2")"
if [ -s "$tmp/r0.bin" ] && cmp -s "$tmp/r0.bin" "$tmp/r2.bin"; then ok; else bad "resnet: weights differ between 1 and 2 ranks"; fi
"$demo" --data "$data" --infer "$tmp/r2.bin" --image 0 | grep -q '^test image 0: predicted' && ok ||
  bad "inference from the residual network's weights"

# 3. --allreduce (fast, order not fixed) still trains.
aargs=(--data "$data" --epochs 2 --train-limit 480 --test-limit 500 --batch 48 --threads 1 --quiet --allreduce)
timeout 120 $mpi -np 2 "$demo" "${aargs[@]}" --save "$tmp/a2.bin" >"$tmp/a2" 2>&1 &&
  grep -q '^epoch 2: ' "$tmp/a2" && ok || bad "--allreduce run failed: $(tail -5 "$tmp/a2")"

# 4. Bad setups: a message and a non-zero exit, within the timeout.
out=$(timeout 60 $mpi -np 3 "$demo" --data "$data" --epochs 1 --train-limit 96 --batch 32 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q 'global batch 32 is not divisible by the 3 processes' && ok ||
  bad "indivisible batch: rc=$rc: $out"
# Rank 1 reads a copy of the data with one test label changed.
mkdir "$tmp/other"
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz; do ln -s "$data/$f" "$tmp/other/$f"; done
gzip -dc "$data/t10k-labels-idx1-ubyte.gz" >"$tmp/other/t10k-labels-idx1-ubyte"
printf '\011' | dd of="$tmp/other/t10k-labels-idx1-ubyte" bs=1 seek=100 conv=notrunc status=none
out=$(timeout 60 $mpi -np 1 "$demo" "${args[@]}" : -np 1 "$demo" "${args[@]}" --data "$tmp/other" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q 'rank 1 differs from rank 0.*different data files' && ok ||
  bad "different data: rc=$rc: $out"
# Rank 1 computes with the portable C path: other bits than rank 0's.
out=$(timeout 60 $mpi -np 1 "$demo" "${args[@]}" : -np 1 -x FREEDNN_MAX_ISA=scalar "$demo" "${args[@]}" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q 'rank 1 differs from rank 0.*different arithmetic' && ok ||
  bad "different instruction sets: rc=$rc: $out"
# Rank 1 is killed at its third step: mpirun ends the others and says so.
out=$(FASHION_MNIST_DIE_AT=1:2 timeout 60 $mpi -np 2 -x FASHION_MNIST_DIE_AT "$demo" "${args[@]}" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q 'dying at step 2' &&
  echo "$out" | grep -qiE 'exited on signal|killed' && ok || bad "dead rank: rc=$rc: $out"
# Rank 1 stops (hangs) at its third step: rank 0 gives up after --timeout.
out=$(FASHION_MNIST_DIE_AT=1:2:stop timeout 60 $mpi -np 2 -x FASHION_MNIST_DIE_AT "$demo" "${args[@]}" --timeout 3 2>&1)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q 'no gradients from the other ranks for 3 s' && ok ||
  bad "hung rank: rc=$rc: $out"

echo "mpi demo: $passed passed, $failed failed"
[ $failed -eq 0 ]

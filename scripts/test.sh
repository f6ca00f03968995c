#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every test: installs what is missing, builds the release tree and runs the
# whole suite (unit, ABI, cuDNN 9 cross-checks, PyTorch oracle, install and
# doctor tests), then builds with AddressSanitizer + UndefinedBehaviorSanitizer
# and runs the C tests again, then checks that generated files are current.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)

echo "== generated files are current"
python3 tools/gen_api.py all --check

echo "== release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== ASan + UBSan build"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_SANITIZE=ON >/dev/null
ninja -C build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j"$jobs" -LE oracle)

# ---- threads: TSan stage (docs/threads.md) ----
# Only what the threads tests need, so the stage stays short on 2 cores:
# a handle per thread mixing conv, BN, pooling, RNN and the log callback,
# and the pool itself.  No suppressions: everything that synchronises
# threads is compiled with TSan.
echo "== TSan: threads with their own handles"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_TSAN=ON >/dev/null
ninja -C build-tsan -j"$jobs" test_threads test_pool
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
   ctest --output-on-failure -R '^test_(threads|pool)$')
# ---- end threads ----

# ---- Linux AArch64 (docs/platforms.md) ----------------------------------------
# Cross build with Debian's gcc-aarch64-linux-gnu, the C unit tests under
# qemu-aarch64-static.  FREEDNN_SKIP_ARM64=1 skips it.
if [ "${FREEDNN_SKIP_ARM64:-0}" != 1 ]; then
  echo "== Linux AArch64: cross build, tests under QEMU"
  scripts/cross-arm64.sh build-arm64
fi
# ---- end AArch64 ----

# ---- Windows x64 (docs/platforms.md) -------------------------------------------
# Cross build with Debian's mingw-w64, the Windows test subset under Wine
# (unit tests, ABI, export tables), the zip.  FREEDNN_SKIP_WINDOWS=1 skips it.
if [ "${FREEDNN_SKIP_WINDOWS:-0}" != 1 ]; then
  echo "== Windows x64: cross build, tests under Wine, zip"
  scripts/cross-windows.sh build-win64
fi
# ---- end Windows ----

# ---- fuzzing (tests/fuzz/README.md, docs/reliability.md) ----------------------
# clang + libFuzzer + ASan + UBSan build of the API harnesses, a bounded run
# of each from the committed corpus, and the replay of every committed crash
# input.  FREEDNN_SKIP_FUZZ=1 skips it; FREEDNN_FUZZ_RUNS sets the inputs
# per harness (default 20000, fixed seed).
if [ "${FREEDNN_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz build and bounded run"
  # A fixed number of inputs from a fixed seed: deterministic, so a CI run
  # fails only on a regression (committed crashes, or an input this exact
  # run reached before), never on luck.  FREEDNN_FUZZ_SECONDS=N switches to
  # a random run of N seconds per harness.
  if [ -n "${FREEDNN_FUZZ_SECONDS:-}" ]; then
    tests/fuzz/run.sh build-fuzz "$FREEDNN_FUZZ_SECONDS"
  else
    FDNN_FUZZ_RUNS="${FREEDNN_FUZZ_RUNS:-20000}" tests/fuzz/run.sh build-fuzz
  fi
fi

# ---- mpi: the data-parallel demo (docs/distributed.md) ----------------------
# mpirun -np 1, 2, 3 on a training subset: bitwise-identical weights, falling
# loss, same accuracy as one process; bad setups end with a message.  About
# 21 s of CPU on 2 cores; skips itself when mpirun is absent.
echo "== MPI: data-parallel demo"
examples/fashion_mnist/test_mpi.sh build/examples/fashion_mnist/fashion_mnist
# ---- end mpi ----

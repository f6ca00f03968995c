#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Windows x64: cross-builds FreeDNN with Debian's mingw-w64
# (cmake/toolchains/x86_64-w64-mingw32.cmake), runs the Windows test subset
# under Wine (label `windows`: C unit tests, the C++ backend test, the ABI
# test built with the cross compilers, the export-table test), a short run
# of the Fashion-MNIST demo when it is built, then makes the zip
# freednn-<version>-windows-x86_64-cudnn8.9.4-archive.zip (`ninja package`).
# Used by scripts/test.sh (CI) and by hand (docs/platforms.md):
#
#   scripts/cross-windows.sh [BUILD_DIR]       (default build-win64)
#
# The Wine prefix lives in BUILD_DIR/wineprefix (never ~/.wine); Wine's own
# messages are off (WINEDEBUG=-all).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-win64}"

need=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(mingw-w64)
command -v wine >/dev/null 2>&1 || [ -x /usr/lib/wine/wine64 ] || need+=(wine wine64)
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "windows: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake "${launcher[@]}" >/dev/null
build="$(cd "$build" && pwd)"

# The prefix is made once, before tests start Wine in parallel (the first
# start takes a while).
export WINEPREFIX="$build/wineprefix" WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "windows: creating the Wine prefix"
  wine wineboot -i >/dev/null 2>&1 || /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1 || true
fi &
boot=$!

ninja -C "$build" -j"$(nproc)"
file "$build/bin/cudnn64_8.dll" | grep -q "PE32+ executable (DLL).*x86-64" ||
  { echo "windows: bin/cudnn64_8.dll is not an x64 DLL"; exit 1; }
wait "$boot"

(cd "$build" && ctest --output-on-failure -j"$(nproc)" --timeout 600 -L windows)

# The demo: one epoch on 512 training images through cudnn64_8.dll and
# cudart64_12.dll; it must learn (above 30% on 256 test images, where chance
# is 10%; it reaches about 56%).
if [ -f "$build/examples/fashion_mnist/fashion_mnist.exe" ]; then
  echo "windows: Fashion-MNIST demo, a short run"
  out="$(cmake/toolchains/wine-run.sh "$build" "$build/examples/fashion_mnist/fashion_mnist.exe" --epochs 1 \
         --train-limit 512 --test-limit 256 --threads 2 --quiet --save "$build/fashion_mnist.weights")"
  echo "$out" | grep "^epoch"
  echo "$out" | awk '/^epoch 1:/ { sub("%,", "", $8); ok = ($8 + 0 > 30) } END { exit !ok }' ||
    { echo "windows: the demo did not learn"; exit 1; }
  # The same run on one thread must give bitwise the same weights (the
  # Win32 pool partitions work as the Linux one does).
  cmake/toolchains/wine-run.sh "$build" "$build/examples/fashion_mnist/fashion_mnist.exe" --epochs 1 \
    --train-limit 512 --test-limit 256 --threads 1 --quiet --save "$build/fashion_mnist_1t.weights" >/dev/null
  cmp "$build/fashion_mnist.weights" "$build/fashion_mnist_1t.weights" ||
    { echo "windows: the demo's weights differ between 2 threads and 1"; exit 1; }
else
  echo "windows: the Fashion-MNIST demo is not built (no zlib for mingw-w64: libz-mingw-w64-dev)"
fi

ninja -C "$build" package >/dev/null
zip="$build/$(tr -d '\n' < "$build/install/package-name.txt").zip"
# Listed by CMake's libarchive (unzip need not be installed), into a file:
# `grep -q` reading a pipe would end its writer early, which pipefail reports.
cmake -E tar tf "$zip" > "$build/package-listing.txt"
grep -q "archive/bin/cudnn_adv_train64_8.dll" "$build/package-listing.txt" || { echo "windows: $zip is incomplete"; exit 1; }
echo "windows: $zip"
wineserver -k 2>/dev/null || true

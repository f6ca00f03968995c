#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages FreeDNN needs to build, test and run its
# demo, skipping those already present.  Uses sudo when not root.
set -euo pipefail
packages=(cmake ninja-build gcc g++ clang python3 pkg-config xz-utils
          libdnnl-dev
          python3-numpy python3-torch dataset-fashion-mnist zlib1g-dev
          libopenmpi-dev openmpi-bin
          mingw-w64 libz-mingw-w64-dev wine wine64 lld)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

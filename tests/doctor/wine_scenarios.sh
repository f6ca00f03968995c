#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cudnn-doctor.exe under Wine (tests/doctor/wine_scenarios.py; issue #20).
#   tests/doctor/wine_scenarios.sh [DOCTOR_EXE [FREEDNN_BIN]]
# DOCTOR_EXE: a built cudnn-doctor.exe (the cross build's bin/cudnn-doctor.exe);
# without it the doctor is compiled here straight from tools/cudnn-doctor with
# x86_64-w64-mingw32-gcc (the same sources CMake's WIN32 branch takes).
# FREEDNN_BIN: the bin folder of a FreeDNN Windows build, used as the healthy
# archive instead of fake DLLs.  Takes about 35 s (plus 15 s the first time a
# Wine prefix is made); exit status 0 when every scenario passed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../../tools/cudnn-doctor"
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres x86_64-w64-mingw32-dlltool python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "wine_scenarios: $tool not found: skipped"; exit 0; }
done
command -v wine64 >/dev/null 2>&1 || command -v wine >/dev/null 2>&1 || [ -x /usr/lib/wine/wine64 ] ||
  { echo "wine_scenarios: no wine: skipped"; exit 0; }
exe="${1:-}"
tmp=
if [ -z "$exe" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  exe="$tmp/cudnn-doctor.exe"
  x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -static \
    -DWIN32_LEAN_AND_MEAN -D__USE_MINGW_ANSI_STDIO=1 -o "$exe" \
    "$src/main.c" "$src/util.c" "$src/elf_read.c" "$src/pe_read.c" "$src/ldcache.c" \
    "$src/windows.c" "$src/report.c" "$src/selftest.c" "$src/plat_win32.c"
fi
if [ -n "${2:-}" ]; then
  python3 "$here/wine_scenarios.py" "$exe" --freednn-bin "$2"
else
  python3 "$here/wine_scenarios.py" "$exe"
fi

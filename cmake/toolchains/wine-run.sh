#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a Windows program of the build tree under Wine (the test emulator of
# cmake/toolchains/x86_64-w64-mingw32.cmake):
#   wine-run.sh BUILD_DIR PROGRAM.exe [ARGS...]
# The DLLs of the build tree are found through WINEPATH (the Windows PATH);
# the Wine prefix lives in BUILD_DIR/wineprefix unless WINEPREFIX is set, so
# a build folder never touches ~/.wine; Wine's own messages are off.
build="$1"
shift
WINEPREFIX="${WINEPREFIX:-$build/wineprefix}"
WINEDEBUG="${WINEDEBUG:--all}"
# Wine maps the Unix root to drive Z:.
WINEPATH="Z:$(printf '%s' "$build/bin" | tr / '\\\\');${WINEPATH:-}"
export WINEPREFIX WINEDEBUG WINEPATH
for w in wine64 /usr/lib/wine/wine64 wine; do
  command -v "$w" >/dev/null 2>&1 && exec "$w" "$@"
done
echo "wine-run.sh: no wine64 or wine on PATH" >&2
exit 127

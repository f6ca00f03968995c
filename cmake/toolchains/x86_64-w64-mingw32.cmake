# SPDX-License-Identifier: Apache-2.0
# Cross-build for Windows x64 with Debian's mingw-w64 (x86_64-w64-mingw32-gcc,
# the win32 thread model):
#   cmake -S . -B build-win64 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
# scripts/cross-windows.sh does this, runs the tests under Wine and makes the
# zip.  Tests run under wine (CMAKE_CROSSCOMPILING_EMULATOR, through
# wine-run.sh, which finds the DLLs of the build tree and keeps the Wine
# prefix inside the build folder).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(FDNN_DLLTOOL x86_64-w64-mingw32-dlltool)
find_program(FDNN_OBJDUMP x86_64-w64-mingw32-objdump)
# Every DLL and program carries its own copy of the compiler's runtime
# (libgcc, and winpthreads for the pthread_once/mutex calls outside the
# thread pool): the archive's DLLs then depend on Windows' own DLLs only.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
find_program(FDNN_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(FDNN_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run.sh;${CMAKE_BINARY_DIR})
endif()

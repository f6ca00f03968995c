# SPDX-License-Identifier: Apache-2.0
# Cross-build for Linux on ARM64 with Debian's gcc-aarch64-linux-gnu:
#   cmake -S . -B build-arm64 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Tests run under qemu-aarch64-static (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(FDNN_QEMU_AARCH64 qemu-aarch64-static)
if(FDNN_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FDNN_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu)
endif()

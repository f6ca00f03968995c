# SPDX-License-Identifier: Apache-2.0
# The fuzzing configuration (docs/reliability.md, tests/fuzz/README.md):
#
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
#         -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_FUZZ=ON
#   ninja -C build-fuzz fuzz_harnesses
#
# builds the library with libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link), AddressSanitizer and UndefinedBehaviorSanitizer
# with the internal assert()s on,
# and one libFuzzer executable per harness under tests/fuzz/.
# Included from the root CMakeLists.txt after the per-ISA flags are set and
# before the library's targets are created.

option(FREEDNN_FUZZ "Build the libFuzzer harnesses (clang) with ASan, UBSan and coverage" OFF)

if(FREEDNN_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FREEDNN_FUZZ needs clang (libFuzzer): configure with -DCMAKE_C_COMPILER=clang")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
  # Internal assert()s run while fuzzing, as in the other sanitizer builds
  # (root CMakeLists.txt, FREEDNN_SANITIZE): -UNDEBUG comes after the build
  # type's -DNDEBUG on the command line.
  add_compile_options(-UNDEBUG)

  # clang leaves the sanitizer runtimes out of shared libraries (the
  # executable brings them), so libcudnn.so.8 and its sub-libraries would
  # not link with -Wl,--no-undefined.  They link the runtimes' shared
  # versions instead, found through an rpath; the fuzz executables do not
  # use them (they link the objects statically).
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-runtime-dir
                  OUTPUT_VARIABLE FDNN_FUZZ_RUNTIME_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
  add_link_options("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,SHARED_LIBRARY>:-shared-libsan;-Wl,-rpath,${FDNN_FUZZ_RUNTIME_DIR}>")

  # The micro-kernels (src/cpu/kernels/, and the per-ISA files named
  # __scalar / __avx2 / __avx512* elsewhere) are built without any sanitizer or coverage, at
  # -O1.  Instrumenting their fully unrolled register blocks is what made
  # the fuzzing build unusable: with ASan, clang 14 ran for more than 25
  # CPU-minutes and 4.4 GB on f32_conv_direct__avx512.c alone, and UBSan at
  # -O2 still took minutes per file, against about 20 s plain at -O1.
  # Their branches do not depend on the input (coverage there only adds
  # noise to the fuzzer), and they trust their callers (STYLE.md 4): the
  # callers, which compute every size, offset and pointer they are given,
  # stay fully instrumented, and the harnesses' guard pages still catch a
  # kernel that reads or writes past a user buffer.
  foreach(src ${FDNN_SOURCES})
    if(src MATCHES "/src/cpu/kernels/|__(scalar|avx[0-9a-z_]*)\\.c$")
      set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize=all -O1)
    endif()
  endforeach()
endif()

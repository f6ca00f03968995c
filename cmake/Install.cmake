# SPDX-License-Identifier: Apache-2.0
# Installation and distribution (docs/install.md).
#
# `cmake --install` lays out the prefix as NVIDIA's cuDNN 8.9.4 archive does:
#   include/  cudnn*.h (and the *_v8.h copies), freednn.h, and the host CUDA
#             runtime headers (cuda_runtime.h, cuda_fp16.h, ...)
#   lib/      libcudnn*.so.8.9.4 (real files) with the .so.8 and .so links,
#             libcudnn_<sub>_static.a per sub-library (and _static_v8.a
#             links), libcudnn_static.a,
#             libcudart.so.12 (+ libcudart_static.a)
#   lib/pkgconfig/cudnn.pc, lib/cmake/CUDNN/ (find_package(CUDNN))
#   bin/cudnn-doctor (when that tool is built)
# and the `package` target makes
#   freednn-<FREEDNN_PACKAGE_VERSION>-linux-<arch>-cudnn8.9.4-archive.tar.xz
# from that layout plus LICENSE and an archive README at its top.
# The pkg-config and CMake files find the prefix relative to themselves, so
# the tree works wherever it is unpacked.

set(FREEDNN_PACKAGE_VERSION "0.1.0" CACHE STRING "FreeDNN's release number, in the package name")

# ---- static archives per sub-library ---------------------------------------------
# NVIDIA ships libcudnn_<sub>_static.a per sub-library.  FreeDNN's entry points
# are one generated unit, so each archive holds the whole library: linking any
# one of them, or several (the linker takes each member once), gives a complete
# cuDNN.  They cost nothing to build: the objects are compiled once.
set(FDNN_STATIC_TARGETS cudnn_static)
foreach(sub ${FDNN_SUBLIBS})
  add_library(cudnn_${sub}_static STATIC $<TARGET_OBJECTS:fdnn_objects>)
  target_link_libraries(cudnn_${sub}_static INTERFACE ${FDNN_LINK})
  list(APPEND FDNN_STATIC_TARGETS cudnn_${sub}_static)
endforeach()

# The sub-libraries load libcudnn.so.8 from their own directory, wherever the
# tree is unpacked (no LD_LIBRARY_PATH needed to resolve them from each other).
set_target_properties(${FDNN_SUBLIB_TARGETS} PROPERTIES INSTALL_RPATH "$ORIGIN")

# ---- libraries and headers ---------------------------------------------------------
install(TARGETS cudnn ${FDNN_SUBLIB_TARGETS} cudart
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ${FDNN_STATIC_TARGETS} cudart_static
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# NVIDIA's 8.x archives also carry libcudnn_<sub>_static_v8.a; here they are
# links to the archives above.
foreach(sub ${FDNN_SUBLIBS})
  install(CODE "file(CREATE_LINK libcudnn_${sub}_static.a
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libcudnn_${sub}_static_v8.a\" SYMBOLIC)")
endforeach()

file(GLOB FDNN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/cudnn*.h)
install(FILES ${FDNN_PUBLIC_HEADERS} ${PROJECT_SOURCE_DIR}/include/freednn.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# NVIDIA's 8.x archives carry a *_v8.h copy of every header.
foreach(header ${FDNN_PUBLIC_HEADERS})
  get_filename_component(stem ${header} NAME_WE)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} RENAME ${stem}_v8.h)
endforeach()
# The host CUDA runtime headers: a FreeDNN prefix needs no CUDA toolkit.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/compat/cudart/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# bin/cudnn-doctor: tools/cudnn-doctor installs itself; the package target
# depends on it and tests/install checks it is there.

# ---- pkg-config and CMake package --------------------------------------------------
# Each file reaches the prefix by a path relative to its own directory.
set(FDNN_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(FDNN_CMAKECONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/CUDNN)
file(RELATIVE_PATH FDNN_PC_TO_PREFIX /root/${FDNN_PKGCONFIG_DIR} /root)
file(RELATIVE_PATH FDNN_CMAKE_TO_PREFIX /root/${FDNN_CMAKECONFIG_DIR} /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/cudnn.pc.in ${CMAKE_BINARY_DIR}/install/cudnn.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/CUDNNConfig.cmake.in ${CMAKE_BINARY_DIR}/install/CUDNNConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/CUDNNConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/cudnn.pc DESTINATION ${FDNN_PKGCONFIG_DIR})
install(FILES ${CMAKE_BINARY_DIR}/install/CUDNNConfig.cmake ${CMAKE_BINARY_DIR}/install/CUDNNConfigVersion.cmake
        DESTINATION ${FDNN_CMAKECONFIG_DIR})

# ---- the release archive -----------------------------------------------------------
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" FDNN_ARCH)
if(FDNN_ARCH STREQUAL "amd64")
  set(FDNN_ARCH x86_64)
endif()
set(FDNN_PACKAGE_NAME freednn-${FREEDNN_PACKAGE_VERSION}-linux-${FDNN_ARCH}-cudnn${PROJECT_VERSION}-archive)
set(FDNN_PACKAGE_ARGS -DBINARY_DIR=${CMAKE_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DNAME=${FDNN_PACKAGE_NAME} -DWORK_DIR=${CMAKE_BINARY_DIR}/package-stage -DOUTPUT_DIR=${CMAKE_BINARY_DIR})
add_custom_target(package
  COMMAND ${CMAKE_COMMAND} ${FDNN_PACKAGE_ARGS} -P ${PROJECT_SOURCE_DIR}/cmake/MakePackage.cmake
  COMMENT "Making ${FDNN_PACKAGE_NAME}.tar.xz"
  VERBATIM)
add_dependencies(package cudnn ${FDNN_SUBLIB_TARGETS} ${FDNN_STATIC_TARGETS} cudart cudart_static)
add_dependencies(package cublas) # compat/cublas installs itself: libcublas.so.12, cublas_v2.h
if(TARGET cudnn-doctor)
  add_dependencies(package cudnn-doctor)
endif()
# tests/install runs the same script into a scratch directory; it reads the
# name here (this file is included after tests/ is configured).
file(WRITE ${CMAKE_BINARY_DIR}/install/package-name.txt "${FDNN_PACKAGE_NAME}\n")

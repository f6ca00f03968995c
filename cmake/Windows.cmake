# SPDX-License-Identifier: Apache-2.0
# Windows x64 (docs/platforms.md "Windows x64"): the DLLs, import libraries
# and zip of NVIDIA's Windows archive of cuDNN 8.9.4, from the targets the
# root CMakeLists.txt defines for Linux.  Included instead of Install.cmake
# when building with cmake/toolchains/x86_64-w64-mingw32.cmake.
#
#   bin/cudnn64_8.dll                  the implementation (target cudnn)
#   bin/cudnn_<sub>64_8.dll            six DLLs of PE forwarders to it
#   bin/cudart64_12.dll                the host CUDA runtime subset
#   bin/cublas64_12.dll                the host cuBLAS subset
#   lib/x64/cudnn.lib, cudnn_<sub>.lib, cudart.lib, cublas.lib
#                                      import libraries made by dlltool from
#                                      .def files (MSVC's link.exe and MinGW)
#   include/                           the same headers as on Linux
#
# Each DLL exports exactly what its .def lists: tools/gen_api.py writes
# cudnn64_8.def (the 264 functions and FreeDNN's extensions) and, per
# sub-library, cudnn_<sub>64_8.def (its functions, each `name =
# cudnn64_8.name`) and cudnn_<sub>.def (the names, for the import library).
# tests/windows/check_exports.py compares the built export tables with the
# inventory.

set(FDNN_WIN_BIN ${CMAKE_BINARY_DIR}/bin)
set(FDNN_WIN_LIB ${CMAKE_BINARY_DIR}/lib/x64)
file(MAKE_DIRECTORY ${FDNN_WIN_LIB})

# The ELF link options (version scripts, -Bsymbolic) mean nothing to PE; the
# .def file decides the exports instead.
set_target_properties(cudnn PROPERTIES PREFIX "" OUTPUT_NAME cudnn64_8 RUNTIME_OUTPUT_DIRECTORY ${FDNN_WIN_BIN}
                      SOVERSION "" LINK_DEPENDS ${FDNN_GEN}/cudnn64_8.def)
set_property(TARGET cudnn PROPERTY LINK_OPTIONS -Wl,--no-undefined)
target_sources(cudnn PRIVATE ${FDNN_GEN}/cudnn64_8.def)
foreach(sub ${FDNN_SUBLIBS})
  set_property(TARGET cudnn_${sub} PROPERTY SOURCES ${PROJECT_SOURCE_DIR}/cmake/windows/forwarder_dll.c
               ${FDNN_GEN}/cudnn_${sub}64_8.def)
  set_property(TARGET cudnn_${sub} PROPERTY LINK_OPTIONS -Wl,--no-undefined)
  set_property(TARGET cudnn_${sub} PROPERTY LINK_LIBRARIES "")
  set_target_properties(cudnn_${sub} PROPERTIES PREFIX "" OUTPUT_NAME cudnn_${sub}64_8 SOVERSION ""
                        RUNTIME_OUTPUT_DIRECTORY ${FDNN_WIN_BIN} LINK_DEPENDS ${FDNN_GEN}/cudnn_${sub}64_8.def)
  add_dependencies(cudnn_${sub} cudnn)
endforeach()
set_source_files_properties(${FDNN_GEN}/cudnn64_8.def PROPERTIES GENERATED TRUE)

# cudart64_12.dll and cublas64_12.dll: cmake/windows/compat_dll.cmake, called
# from compat/cudart and compat/cublas.

# ---- import libraries ---------------------------------------------------------
# NVIDIA's names: cudnn.lib for cudnn64_8.dll, cudnn_<sub>.lib for each
# sub-library DLL (a program links the ones whose functions it calls).
set(FDNN_IMPLIBS)
macro(fdnn_import_lib lib def dll dep)
  add_custom_command(OUTPUT ${FDNN_WIN_LIB}/${lib}
    COMMAND ${FDNN_DLLTOOL} --machine i386:x86-64 --input-def ${def} --dllname ${dll}
            --output-lib ${FDNN_WIN_LIB}/${lib}
    DEPENDS ${dep}
    COMMENT "Import library lib/x64/${lib}" VERBATIM)
  list(APPEND FDNN_IMPLIBS ${FDNN_WIN_LIB}/${lib})
endmacro()
fdnn_import_lib(cudnn.lib ${FDNN_GEN}/cudnn64_8.def cudnn64_8.dll cudnn)
foreach(sub ${FDNN_SUBLIBS})
  fdnn_import_lib(cudnn_${sub}.lib ${FDNN_GEN}/cudnn_${sub}.def cudnn_${sub}64_8.dll cudnn_${sub})
endforeach()
foreach(lib cudart cublas)
  if(TARGET ${lib})
    fdnn_import_lib(${lib}.lib ${FDNN_GEN}/${lib}64_12.def ${lib}64_12.dll ${lib})
  endif()
endforeach()
add_custom_target(fdnn_import_libs ALL DEPENDS ${FDNN_IMPLIBS})

# ---- install: NVIDIA's archive layout -------------------------------------------
set(FREEDNN_PACKAGE_VERSION "0.1.0" CACHE STRING "FreeDNN's release number, in the package name")
set(FDNN_WIN_DLLS cudnn ${FDNN_SUBLIB_TARGETS})
foreach(lib cudart cublas)
  if(TARGET ${lib})
    list(APPEND FDNN_WIN_DLLS ${lib})
  endif()
endforeach()
install(TARGETS ${FDNN_WIN_DLLS} RUNTIME DESTINATION bin)
install(FILES ${FDNN_IMPLIBS} DESTINATION lib/x64)
file(GLOB FDNN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/cudnn*.h)
install(FILES ${FDNN_PUBLIC_HEADERS} ${PROJECT_SOURCE_DIR}/include/freednn.h DESTINATION include)
foreach(header ${FDNN_PUBLIC_HEADERS})
  get_filename_component(stem ${header} NAME_WE)
  install(FILES ${header} DESTINATION include RENAME ${stem}_v8.h)
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/compat/cudart/include/ DESTINATION include
        FILES_MATCHING PATTERN "*.h")
if(TARGET cublas)
  install(FILES ${PROJECT_SOURCE_DIR}/compat/cublas/include/cublas_api.h
          ${PROJECT_SOURCE_DIR}/compat/cublas/include/cublas_v2.h DESTINATION include)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION .)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/archive-README.md DESTINATION . RENAME README.md)

# ---- the zip: `ninja package` (CPack) -----------------------------------------------
# freednn-<version>-windows-x86_64-cudnn8.9.4-archive.zip, everything under
# one folder of that name, as NVIDIA's cudnn-windows-x86_64-8.9.4.25_cuda12-archive.zip.
set(CPACK_GENERATOR ZIP)
set(CPACK_PACKAGE_NAME freednn)
set(CPACK_PACKAGE_VERSION ${FREEDNN_PACKAGE_VERSION})
set(CPACK_PACKAGE_FILE_NAME freednn-${FREEDNN_PACKAGE_VERSION}-windows-x86_64-cudnn${PROJECT_VERSION}-archive)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
set(CPACK_STRIP_FILES OFF)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
file(WRITE ${CMAKE_BINARY_DIR}/install/package-name.txt "${CPACK_PACKAGE_FILE_NAME}\n")

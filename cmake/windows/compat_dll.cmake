# SPDX-License-Identifier: Apache-2.0
# fdnn_windows_compat_dll(<lib> <prefix>): makes the compat library <lib> (cudart,
# cublas) the DLL NVIDIA names <lib>64_12.dll, in the build tree's bin/.
# Its exports are what its Linux version script exports (every cuda* or
# cublas* function), listed in a .def made from its objects just before it
# links (the functions named <prefix>*; make_def.cmake: many of the functions come from macros, so the
# names are read from the objects, not the sources).  Called from
# compat/<lib>/CMakeLists.txt (a PRE_LINK step must be added in the
# directory that defines the target); cmake/Windows.cmake makes the import
# library from the same .def.
function(fdnn_windows_compat_dll lib prefix)
  set(def ${FDNN_GEN}/${lib}64_12.def)
  set_target_properties(${lib} PROPERTIES PREFIX "" OUTPUT_NAME ${lib}64_12 SOVERSION ""
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  set_property(TARGET ${lib} PROPERTY LINK_OPTIONS -Wl,--no-undefined ${def})
  find_program(FDNN_NM NAMES x86_64-w64-mingw32-nm nm)
  add_custom_command(TARGET ${lib} PRE_LINK
    COMMAND ${CMAKE_COMMAND} -DNM=${FDNN_NM} -DPREFIX=${prefix} -DDLL=${lib}64_12.dll -DOUT=${def}
            "-DOBJECTS=$<TARGET_OBJECTS:${lib}>" -P ${PROJECT_SOURCE_DIR}/cmake/windows/make_def.cmake
    VERBATIM)
endfunction()

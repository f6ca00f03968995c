# SPDX-License-Identifier: Apache-2.0
# Makes the release archive (run by the `package` target and tests/install):
# installs the build tree into WORK_DIR/NAME, adds LICENSE and the archive
# README at the top, and packs NAME/ into OUTPUT_DIR/NAME.tar.xz (symlinks
# kept as symlinks).
#   cmake -DBINARY_DIR=... -DSOURCE_DIR=... -DNAME=... -DWORK_DIR=... -DOUTPUT_DIR=...
#         [-DCOMPRESSION_LEVEL=1..9] [-DCOMPRESSION=None] -P MakePackage.cmake
# COMPRESSION_LEVEL is xz's preset, 6 by default: its 8 MiB window is what
# lets the identical static archives cost almost nothing.  The install test
# uses 1 to stay fast, and COMPRESSION=None (NAME.tar) in the sanitizer
# build, whose instrumented archives are ten times larger; the content is
# the same.

# Second step, run by the first inside WORK_DIR so that the archive's paths
# start at NAME/.
if(DEFINED PACK_STEP)
  if(COMPRESSION STREQUAL "None")
    file(ARCHIVE_CREATE OUTPUT ${ARCHIVE} PATHS ${NAME} FORMAT gnutar COMPRESSION None)
  else()
    file(ARCHIVE_CREATE OUTPUT ${ARCHIVE} PATHS ${NAME} FORMAT gnutar COMPRESSION XZ
         COMPRESSION_LEVEL ${COMPRESSION_LEVEL})
  endif()
  return()
endif()

foreach(var BINARY_DIR SOURCE_DIR NAME WORK_DIR OUTPUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "MakePackage.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED COMPRESSION_LEVEL)
  set(COMPRESSION_LEVEL 6)
endif()
set(suffix .tar.xz)
if(NOT DEFINED COMPRESSION)
  set(COMPRESSION XZ)
elseif(COMPRESSION STREQUAL "None")
  set(suffix .tar)
endif()

set(root ${WORK_DIR}/${NAME})
file(REMOVE_RECURSE ${root})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${root}
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
file(COPY ${SOURCE_DIR}/LICENSE DESTINATION ${root})
configure_file(${SOURCE_DIR}/cmake/archive-README.md ${root}/README.md COPYONLY)

file(MAKE_DIRECTORY ${OUTPUT_DIR})
get_filename_component(archive ${OUTPUT_DIR}/${NAME}${suffix} ABSOLUTE)
file(REMOVE ${archive})
execute_process(COMMAND ${CMAKE_COMMAND} -DPACK_STEP=1 -DARCHIVE=${archive} -DNAME=${NAME}
                        -DCOMPRESSION=${COMPRESSION} -DCOMPRESSION_LEVEL=${COMPRESSION_LEVEL}
                        -P ${CMAKE_CURRENT_LIST_FILE}
                WORKING_DIRECTORY ${WORK_DIR} COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "Package: ${archive}")

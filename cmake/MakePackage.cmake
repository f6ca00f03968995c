# SPDX-License-Identifier: Apache-2.0
# Makes the release archive (run by the `package` target and tests/install):
# installs the build tree into WORK_DIR/NAME, adds LICENSE and the archive
# README at the top, and packs NAME/ into OUTPUT_DIR/NAME.tar.xz (symlinks
# kept as symlinks).
#   cmake -DBINARY_DIR=... -DSOURCE_DIR=... -DNAME=... -DWORK_DIR=... -DOUTPUT_DIR=... -P MakePackage.cmake
foreach(var BINARY_DIR SOURCE_DIR NAME WORK_DIR OUTPUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "MakePackage.cmake: -D${var}=... is required")
  endif()
endforeach()

set(root ${WORK_DIR}/${NAME})
file(REMOVE_RECURSE ${root})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${root}
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
file(COPY ${SOURCE_DIR}/LICENSE DESTINATION ${root})
configure_file(${SOURCE_DIR}/cmake/archive-README.md ${root}/README.md COPYONLY)

file(MAKE_DIRECTORY ${OUTPUT_DIR})
set(archive ${OUTPUT_DIR}/${NAME}.tar.xz)
file(REMOVE ${archive})
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cJf ${archive} ${NAME}
                WORKING_DIRECTORY ${WORK_DIR} COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "Package: ${archive}")

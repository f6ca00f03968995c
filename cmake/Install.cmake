# SPDX-License-Identifier: Apache-2.0
# Install layout of NVIDIA's 8.9.4 archive: include/ and lib/ with the soname
# links.  (Completed by the distribution work: pkg-config, CMake package.)
install(TARGETS cudnn ${FDNN_SUBLIB_TARGETS} cudnn_static cudart
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

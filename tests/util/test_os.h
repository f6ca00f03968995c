/* SPDX-License-Identifier: Apache-2.0
 * What the test harness needs from the OS: pages with guards, directories,
 * loading a library by path.  test_os_posix.c or test_os_win32.c (chosen by
 * tests/CMakeLists.txt by file name, as src/core/os.h's files are). */
#ifndef FDNN_TEST_OS_H
#define FDNN_TEST_OS_H

#include <stddef.h>

/* The VM page size. */
size_t fdnn_test_page_size(void);
/* `length` bytes (a multiple of the page size) of fresh read-write pages;
 * NULL on failure.  fdnn_test_protect_none makes pages inaccessible. */
void *fdnn_test_map_pages(size_t length);
void fdnn_test_protect_none(void *p, size_t length);
void fdnn_test_unmap_pages(void *p, size_t length);
/* Creates one directory (an existing one is fine). */
void fdnn_test_make_dir(const char *path);
/* A function of the library at `path`, NULL when the library or the
 * function is missing. */
void *fdnn_test_library_sym(const char *path, const char *name);

#endif

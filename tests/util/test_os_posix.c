/* SPDX-License-Identifier: Apache-2.0
 * See test_os.h. */
#define _DEFAULT_SOURCE
#include "test_os.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

size_t
fdnn_test_page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

void *
fdnn_test_map_pages(size_t length)
{
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void
fdnn_test_protect_none(void *p, size_t length)
{
    mprotect(p, length, PROT_NONE);
}

void
fdnn_test_unmap_pages(void *p, size_t length)
{
    munmap(p, length);
}

void
fdnn_test_make_dir(const char *path)
{
    mkdir(path, 0755);
}

void *
fdnn_test_library_sym(const char *path, const char *name)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    return lib != NULL ? dlsym(lib, name) : NULL;
}

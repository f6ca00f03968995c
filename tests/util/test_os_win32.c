/* SPDX-License-Identifier: Apache-2.0
 * See test_os.h. */
#include "test_os.h"

#include <direct.h>
#include <windows.h>

size_t
fdnn_test_page_size(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwPageSize;
}

void *
fdnn_test_map_pages(size_t length)
{
    return VirtualAlloc(NULL, length, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void
fdnn_test_protect_none(void *p, size_t length)
{
    DWORD old;
    VirtualProtect(p, length, PAGE_NOACCESS, &old);
}

void
fdnn_test_unmap_pages(void *p, size_t length)
{
    (void)length;
    VirtualFree(p, 0, MEM_RELEASE);
}

void
fdnn_test_make_dir(const char *path)
{
    _mkdir(path);
}

void *
fdnn_test_library_sym(const char *path, const char *name)
{
    HMODULE lib = LoadLibraryA(path);
    return lib != NULL ? (void *)GetProcAddress(lib, name) : NULL;
}

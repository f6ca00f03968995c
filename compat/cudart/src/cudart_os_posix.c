/* SPDX-License-Identifier: Apache-2.0
 * See cudart_os.h. */
#define _GNU_SOURCE /* _SC_PHYS_PAGES, _SC_AVPHYS_PAGES */
#include "cudart_os.h"

#include <stdlib.h>
#include <unistd.h>

size_t
fdnn_cudart_physical_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
    return page > 0 && pages > 0 ? (size_t)page * (size_t)pages : 0;
}

size_t
fdnn_cudart_available_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_AVPHYS_PAGES);
    return page > 0 && pages > 0 ? (size_t)page * (size_t)pages : 0;
}

int
fdnn_cudart_online_cpus(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

void *
fdnn_cudart_aligned_alloc(size_t align, size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, align, bytes) == 0 ? p : NULL;
}

void
fdnn_cudart_aligned_free(void *p)
{
    free(p);
}

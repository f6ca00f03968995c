/* SPDX-License-Identifier: Apache-2.0
 * See cudart_os.h. */
#include "cudart_os.h"

#include <malloc.h>
#include <windows.h>

size_t
fdnn_cudart_physical_bytes(void)
{
    MEMORYSTATUSEX m = {.dwLength = sizeof(m)};
    return GlobalMemoryStatusEx(&m) ? (size_t)m.ullTotalPhys : 0;
}

size_t
fdnn_cudart_available_bytes(void)
{
    MEMORYSTATUSEX m = {.dwLength = sizeof(m)};
    return GlobalMemoryStatusEx(&m) ? (size_t)m.ullAvailPhys : 0;
}

int
fdnn_cudart_online_cpus(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (int)n : 1;
}

void *
fdnn_cudart_aligned_alloc(size_t align, size_t bytes)
{
    return _aligned_malloc(bytes, align);
}

void
fdnn_cudart_aligned_free(void *p)
{
    _aligned_free(p);
}

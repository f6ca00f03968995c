/* SPDX-License-Identifier: Apache-2.0 */
#include "core/memory.h"

#include "core/os.h"

void *
fdnn_aligned_alloc(size_t bytes)
{
    if (bytes == 0)
        bytes = FDNN_ALIGNMENT;
    if (bytes > (size_t)-1 - FDNN_ALIGNMENT)
        return NULL;
    return fdnn_os_aligned_alloc(FDNN_ALIGNMENT, fdnn_align_up(bytes));
}

void
fdnn_aligned_free(void *p)
{
    fdnn_os_aligned_free(p);
}

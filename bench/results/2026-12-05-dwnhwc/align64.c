/* SPDX-License-Identifier: Apache-2.0
 * An LD_PRELOAD for freednn-bench (run.sh beside it): malloc returns
 * 64-byte aligned blocks (glibc's memalign; free, realloc and calloc stay
 * glibc's, which take memalign's blocks).  Without it the bench's x, w and
 * y come from mmap-backed malloc, 16 bytes past a line. */
#include <stddef.h>

extern void *__libc_memalign(size_t align, size_t bytes);

void *
malloc(size_t bytes)
{
    return __libc_memalign(64, bytes);
}

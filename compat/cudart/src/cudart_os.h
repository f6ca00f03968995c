/* SPDX-License-Identifier: Apache-2.0
 * What the host CUDA runtime needs from the OS: memory sizes, the CPU
 * count, aligned blocks.  cudart_os_posix.c or cudart_os_win32.c, chosen by
 * compat/cudart/CMakeLists.txt by file name (the runtime depends on nothing
 * of FreeDNN, so it does not share src/core/os.h). */
#ifndef FDNN_CUDART_OS_H
#define FDNN_CUDART_OS_H

#include <stddef.h>

/* Physical memory and the part of it available now, in bytes; 0 when
 * unknown. */
size_t fdnn_cudart_physical_bytes(void);
size_t fdnn_cudart_available_bytes(void);
/* Logical processors online (>= 1). */
int fdnn_cudart_online_cpus(void);
/* `bytes` aligned to `align` (a power of two); NULL on failure.  Freed only
 * by fdnn_cudart_aligned_free. */
void *fdnn_cudart_aligned_alloc(size_t align, size_t bytes);
void fdnn_cudart_aligned_free(void *p);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * The library's aligned blocks (core/memory.h over core/os.h): aligned to
 * FDNN_ALIGNMENT, writable to their whole rounded-up size, NULL when the size
 * cannot be represented, NULL-safe free.  Under AddressSanitizer and on
 * Windows the blocks must be offset pointers inside larger allocations, as
 * _aligned_malloc's are: that layout is what makes the ASan stage report a
 * block given to free() (or a malloc'd pointer given to fdnn_aligned_free),
 * a mismatch that corrupts the heap on Windows but passes silently with
 * glibc.  If the emulation were dropped, this test fails in the ASan build. */
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/os.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXPECT_EMULATED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXPECT_EMULATED 1
#endif
#endif
#if defined(_WIN32) && !defined(EXPECT_EMULATED)
#define EXPECT_EMULATED 1
#endif

int
main(void)
{
    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = fdnn_aligned_alloc(sizes[i]);
        CHECK_MSG(p != NULL, "%zu bytes: NULL", sizes[i]);
        if (p == NULL)
            continue;
        CHECK_MSG(((uintptr_t)p & (FDNN_ALIGNMENT - 1)) == 0, "%zu bytes: %p not aligned to %d", sizes[i], (void *)p,
                  FDNN_ALIGNMENT);
        /* The whole rounded-up size is the caller's (ASan checks the bounds). */
        size_t usable = sizes[i] == 0 ? FDNN_ALIGNMENT : fdnn_align_up(sizes[i]);
        memset(p, 0xA5, usable);
        CHECK(p[usable - 1] == 0xA5);
        fdnn_aligned_free(p);
    }
    CHECK(fdnn_aligned_alloc((size_t)-1) == NULL);
    CHECK(fdnn_aligned_alloc((size_t)-1 - FDNN_ALIGNMENT / 2) == NULL);
    fdnn_aligned_free(NULL);

#ifdef EXPECT_EMULATED
    CHECK_MSG(fdnn_os_aligned_is_emulated() == 1,
              "this build must lay aligned blocks out as _aligned_malloc does, so a stray free() is reported");
#else
    CHECK(fdnn_os_aligned_is_emulated() == 0);
#endif
    return fdnn_test_finish("test_aligned_alloc");
}

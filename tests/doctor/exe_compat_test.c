/* SPDX-License-Identifier: Apache-2.0
 * cmake/glibc_exe_compat.c in an executable linked like bin/cudnn-doctor:
 * constructors run exactly once before main (the old __libc_start_main
 * runs them only through the shim's init), destructors run at exit, and
 * the stat family answers as the real one.  Prints 'N passed, N failed'. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

static int constructed;

__attribute__((constructor)) static void
construct(void)
{
    constructed++;
}

__attribute__((destructor)) static void
destruct(void)
{
    /* The exit status is already decided; say it so the log shows it. */
    printf("destructor ran\n");
}

int
main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    struct stat a, b, c;
#define EXPECT(cond)                                                   \
    do {                                                               \
        if (cond)                                                      \
            passed++;                                                  \
        else {                                                         \
            failed++;                                                  \
            printf("FAILED: %s\n", #cond);                             \
        }                                                              \
    } while (0)
    EXPECT(constructed == 1);
    EXPECT(argc >= 1 && argv[0] != NULL);
    EXPECT(stat(argv[0], &a) == 0 && S_ISREG(a.st_mode) && a.st_size > 0);
    int fd = open(argv[0], O_RDONLY);
    EXPECT(fd >= 0 && fstat(fd, &b) == 0 && b.st_ino == a.st_ino && b.st_size == a.st_size);
    if (fd >= 0)
        close(fd);
    EXPECT(lstat("/", &c) == 0 && S_ISDIR(c.st_mode));
    EXPECT(stat("/nonexistent/fdnn", &c) == -1);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
